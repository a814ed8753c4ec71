"""When the node_facts role resolves the stack and reads the node again (module_utils/node_facts.py,
the lookup ascend.vllm.node_facts_inputs): the stage roles include the role only then."""
from pathlib import Path

import pytest
import yaml

from ansible_collections.ascend.vllm.plugins.module_utils import node_facts

REPO = Path(__file__).resolve().parents[4]
STACK = {'release': '0.23.0', 'overrides': {}, 'allow_unlisted': False}
HARDWARE = {'install_path': '/usr/local/Ascend', 'sysfs_root': '/sys'}
# A host whose facts this run resolved and read, with no error.
CURRENT = {'ascend_stack_release': '0.23.0', '__node_facts_stack_inputs': STACK, '__node_facts_hardware_read': HARDWARE,
           'ascend_stack_error': '', 'ascend_node_facts_error': ''}


def inputs(variables):
    return node_facts.inputs(variables.get)


def test_current_facts_need_no_run():
    result = inputs(CURRENT)
    assert result == {'stack': STACK, 'hardware': HARDWARE, 'stack_stale': False, 'hardware_stale': False, 'stale': False,
                      'needed': False}


def test_a_first_run_reads_with_the_roles_defaults():
    result = inputs({})
    assert result['stack'] == {'release': None, 'overrides': {}, 'allow_unlisted': False}
    assert result['hardware'] == HARDWARE
    assert result['stale'] and result['needed']


@pytest.mark.parametrize('changes, part', [
    ({'ascend_stack_release': '0.22.0'}, 'stack_stale'),
    ({'ascend_stack_overrides': {'driver': '25.5.0'}}, 'stack_stale'),
    ({'ascend_install_path': '/opt/Ascend'}, 'hardware_stale'),
    ({'node_facts_refresh': True}, 'hardware_stale'),
])
def test_each_part_reads_again_on_its_own_inputs(changes, part):
    result = inputs(dict(CURRENT, **changes))
    other = 'hardware_stale' if part == 'stack_stale' else 'stack_stale'
    assert result[part] and not result[other]


@pytest.mark.parametrize('changes', [
    {'ascend_stack_release': '0.22.0'},
    {'ascend_stack_overrides': {'driver': '25.5.0'}},
    {'ascend_stack_allow_unlisted': True},
    {'ascend_install_path': '/opt/Ascend'},
    {'node_facts_sysfs_root': '/tmp/sysfs'},
    {'node_facts_refresh': True},
    {'node_facts_refresh': 'true'},
    {'__node_facts_hardware_read': None},
])
def test_a_changed_input_or_a_refresh_reads_again(changes):
    result = inputs(dict(CURRENT, **changes))
    assert result['stale'] and result['needed']


@pytest.mark.parametrize('changes', [{'ascend_stack_error': 'no such release'}, {'ascend_node_facts_error': 'Read the NPUs: rc 1'}])
def test_an_error_of_the_last_run_is_needed_again_but_not_stale(changes):
    # main fails the host again on it; the facts entry point (monitoring) does not read again.
    result = inputs(dict(CURRENT, **changes))
    assert not result['stale'] and result['needed']


def test_a_string_false_refresh_is_false():
    assert not inputs(dict(CURRENT, node_facts_refresh='false'))['stale']


def test_the_defaults_are_the_roles():
    defaults = yaml.safe_load((REPO / 'roles' / 'node_facts' / 'defaults' / 'main.yml').read_text())
    assert {name: defaults[name] for name in node_facts.DEFAULTS} == node_facts.DEFAULTS
