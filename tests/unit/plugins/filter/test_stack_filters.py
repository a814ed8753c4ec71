# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""The stack filters, in-process and through a real ``ansible`` run."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

import json
import os
import subprocess
import sys

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.filter.stack import FilterModule
from ansible_collections.ascend.vllm.plugins.module_utils.stack import resolve_stack

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))
FILTERS = FilterModule().filters()
FILTER_NAMES = ['ascend_version_compare', 'stack_chip_support', 'stack_hdk_packages', 'stack_matrix',
                'stack_package_names', 'stack_pip_plan', 'stack_python_ok', 'stack_resolution', 'stack_resolve']


def test_filter_names():
    assert sorted(FILTERS) == FILTER_NAMES


@pytest.mark.parametrize('name', FILTER_NAMES)
def test_each_filter_has_a_doc_file(name):
    path = os.path.join(REPO_ROOT, 'plugins', 'filter', name + '.yml')
    with open(path) as handle:
        text = handle.read()
    assert 'name: %s\n' % name in text
    for key in ('DOCUMENTATION:', 'EXAMPLES:', 'RETURN:'):
        assert key in text


def test_stack_resolve():
    assert FILTERS['stack_resolve']('0.18.0', {}, False) == resolve_stack('0.18.0')
    assert FILTERS['stack_resolve'](None)['release'] == '0.23.0'
    stack = FILTERS['stack_resolve']('0.23.0', {'cann': '8.5.1'}, True)
    assert stack['listed'] is False


def test_stack_resolve_error_is_a_filter_error():
    with pytest.raises(AnsibleFilterError) as info:
        FILTERS['stack_resolve']('0.23.0', {'cann': '8.5.1'})
    assert info.value.message == (
        'ascend_stack_overrides: cann=8.5.1 does not go with vllm_ascend=0.23.0 (0.23.0 needs cann 9.1.0; '
        'cann 8.5.1 belongs to vllm_ascend 0.18.0). Set ascend_stack_allow_unlisted: true to accept it.')


def test_stack_resolution_returns_the_stack_or_the_message():
    assert FILTERS['stack_resolution']('0.18.0', {}, False) == {'stack': resolve_stack('0.18.0'), 'error': ''}
    assert FILTERS['stack_resolution']('0.23.0', {'cann': '8.5.1'}) == {
        'stack': None,
        'error': 'ascend_stack_overrides: cann=8.5.1 does not go with vllm_ascend=0.23.0 (0.23.0 needs cann 9.1.0; '
                 'cann 8.5.1 belongs to vllm_ascend 0.18.0). Set ascend_stack_allow_unlisted: true to accept it.'}
    assert FILTERS['stack_resolution']('0.99.0')['error'].startswith("ascend_stack_release: unknown release '0.99.0'")


@pytest.mark.parametrize('version, chip, arch, firmware, driver, firmware_file', [
    ('25.5.2', '910b', 'aarch64', None, 'Ascend-hdk-910b-npu-driver_25.5.2_linux-aarch64.run',
     'Ascend-hdk-910b-npu-firmware_7.8.0.7.220.run'),
    ('25.5.2', '910_93', 'x86_64', None, 'Atlas-A3-hdk-npu-driver_25.5.2_linux-x86-64.run',
     'Atlas-A3-hdk-npu-firmware_7.8.0.7.220.run'),
    ('24.1.rc3', '310P3', 'aarch64', None, 'Ascend-hdk-310p-npu-driver_24.1.rc3_linux-aarch64.run',
     'Ascend-hdk-310p-npu-firmware_7.5.0.1.129.run'),
    ('25.3.rc1', '910b', 'aarch64', '7.8.0.2.212', 'Ascend-hdk-910b-npu-driver_25.3.rc1_linux-aarch64.run',
     'Ascend-hdk-910b-npu-firmware_7.8.0.2.212.run'),
    # Unknown firmware, chip family without an HDK here, unknown architecture: empty names, for the role to report.
    ('25.3.rc1', '910b', 'aarch64', None, 'Ascend-hdk-910b-npu-driver_25.3.rc1_linux-aarch64.run', ''),
    ('25.5.2', '910', 'aarch64', None, '', ''),
    # The vendor spells rc in lower case: another spelling is not its file, and its firmware is not known.
    ('25.0.RC1.1', '910b', 'aarch64', None, 'Ascend-hdk-910b-npu-driver_25.0.RC1.1_linux-aarch64.run', ''),
    ('25.5.2', '910b', 'riscv64', None, '', 'Ascend-hdk-910b-npu-firmware_7.8.0.7.220.run'),
])
def test_stack_hdk_packages(version, chip, arch, firmware, driver, firmware_file):
    names = FILTERS['stack_hdk_packages'](version, chip, arch, firmware)
    assert (names['driver'], names['firmware']) == (driver, firmware_file)
    assert names['chips'] == ['310p', '910_93', '910b'] and names['archs'] == ['aarch64', 'x86_64']


def test_the_default_driver_has_a_known_firmware():
    assert FILTERS['stack_hdk_packages'](resolve_stack()['driver_target'], '910b', 'aarch64')['firmware_version'] == '9.0.0.0.205'


def test_stack_matrix():
    whole = FILTERS['stack_matrix']('all')
    assert whole == FILTERS['stack_matrix'](None) == FILTERS['stack_matrix']('')
    assert [row['release'] for row in whole['releases']] == ['0.9.1', '0.11.0', '0.13.0', '0.18.0', '0.23.0', '0.23.0.post1', '0.30.0rc2']
    assert FILTERS['stack_matrix']('0.13.0')['driver_recommended'] == '25.5'
    with pytest.raises(AnsibleFilterError, match='unknown release'):
        FILTERS['stack_matrix']('0.1.0')


@pytest.mark.parametrize('left, right, operator, expected', [
    ('24.1.rc3', '24.1.0', None, -1),
    ('25.5.0', '25.5', None, 0),
    ('9.1.0', '8.5.1', None, 1),
    ('24.1.rc3', '24.1.0', '<', True),
    ('24.1.rc3', '24.1.0', 'ge', False),
    ('25.5.0', '25.5', '==', True),
    ('25.5.0', '25.5', '!=', False),
    ('8.2.RC1', '8.2.0', '>=', False),
    ('7.5.0.1.129', '7.3.0', 'gt', True),
])
def test_ascend_version_compare(left, right, operator, expected):
    args = (left, right) if operator is None else (left, right, operator)
    assert FILTERS['ascend_version_compare'](*args) == expected


def test_ascend_version_compare_errors():
    with pytest.raises(AnsibleFilterError, match="ascend_version_compare: unknown operator '=>'"):
        FILTERS['ascend_version_compare']('1.0', '2.0', '=>')
    with pytest.raises(AnsibleFilterError, match="cannot read version 'abc'"):
        FILTERS['ascend_version_compare']('abc', '2.0')


def test_stack_package_names():
    stack = FILTERS['stack_resolve']('0.13.0')
    assert FILTERS['stack_package_names'](stack, '910b', 'aarch64')['ops'] == \
        'Ascend-cann-910b-ops_8.5.0_linux-aarch64.run'
    assert FILTERS['stack_package_names']('0.23.0', '910b', 'aarch64')['ops'] == \
        'Ascend-cann-910b-ops_9.1.0_linux-aarch64.run'
    with pytest.raises(AnsibleFilterError, match="architecture 's390x'"):
        FILTERS['stack_package_names'](stack, '910b', 's390x')


def test_stack_chip_support():
    assert FILTERS['stack_chip_support']('0.23.0', 'ascend910_9392') == {
        'family': '910_93', 'level': 'supported',
        'message': 'Atlas A3 (Ascend 910_93) is supported by vllm-ascend 0.23.0'}
    assert FILTERS['stack_chip_support']('0.23.0', 'tpu')['family'] is None


def test_stack_python_ok():
    assert FILTERS['stack_python_ok']('0.23.0', '3.12.1') is True
    assert FILTERS['stack_python_ok']('0.18.0', '3.12.1') is False
    with pytest.raises(AnsibleFilterError, match='cannot read a Python version'):
        FILTERS['stack_python_ok']('0.23.0', 'py3')


# ---------------------------------------------------------------------------------------------
# Through ansible itself: FQCN resolution from the checkout, argument passing and error display.

def _ansible(expression, *extra):
    ansible = os.path.join(os.path.dirname(sys.executable), 'ansible')
    env = dict(os.environ)
    env.update({
        'ANSIBLE_CONFIG': os.path.join(REPO_ROOT, 'ansible.cfg'),
        'ANSIBLE_CALLBACK_RESULT_FORMAT': 'json',
        'ANSIBLE_NOCOLOR': '1',
        'ANSIBLE_FORCE_COLOR': '0',
    })
    argv = [ansible, 'localhost', '-i', 'localhost,', '-c', 'local', '-m', 'ansible.builtin.debug',
            '-a', 'msg={{ %s }}' % expression,
            '-e', 'ansible_python_interpreter=%s' % os.path.abspath(sys.executable)] + list(extra)
    proc = subprocess.run(argv, cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=120, check=False)
    return proc.returncode, proc.stdout, proc.stderr


def _result(stdout):
    return json.loads(stdout[stdout.index('=>') + 2:])


def test_stack_resolve_through_ansible():
    rc, out, err = _ansible("'0.23.0' | ascend.vllm.stack_resolve({})")
    assert rc == 0, out + err
    assert _result(out)['msg'] == resolve_stack('0.23.0')


def test_stack_resolve_extra_vars_through_ansible():
    rc, out, err = _ansible(
        "ascend_stack_release | ascend.vllm.stack_resolve(ascend_stack_overrides, ascend_stack_allow_unlisted)",
        '-e', json.dumps({'ascend_stack_release': '0.18.0', 'ascend_stack_overrides': {'driver': '25.5.0'}}),
        '-e', 'ascend_stack_allow_unlisted=false')
    assert rc == 0, out + err
    msg = _result(out)['msg']
    assert (msg['release'], msg['driver'], msg['listed'], msg['overridden']) == ('0.18.0', '25.5.0', True, ['driver'])


def test_stack_resolve_failure_through_ansible():
    rc, out, err = _ansible("'0.23.0' | ascend.vllm.stack_resolve({'cann': '8.5.1'})")
    assert rc == 2
    assert ('ascend_stack_overrides: cann=8.5.1 does not go with vllm_ascend=0.23.0 (0.23.0 needs cann 9.1.0; '
            'cann 8.5.1 belongs to vllm_ascend 0.18.0). Set ascend_stack_allow_unlisted: true to accept it.') \
        in _result(out)['msg']


def test_allow_unlisted_as_extra_var_string_through_ansible():
    rc, out, err = _ansible("'0.23.0' | ascend.vllm.stack_resolve({'cann': '8.5.1'}, ascend_stack_allow_unlisted)",
                            '-e', 'ascend_stack_allow_unlisted=true')
    assert rc == 0, out + err
    assert _result(out)['msg']['listed'] is False


def test_pip_plan_filter_resolves_a_release_and_names_its_errors():
    plan = FILTERS['stack_pip_plan']('0.23.0', 'x86_64', '910b', '', [], True)
    assert plan['first'] == ['vllm==0.23.0'] and plan['problems'] == []
    with pytest.raises(AnsibleFilterError, match="stack_pip_plan: architecture 'riscv64'"):
        FILTERS['stack_pip_plan']('0.23.0', 'riscv64', '910b')
