"""The rolling upgrade job template, its survey and the playbook/role contract it relies on."""
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[3]
DATA = yaml.safe_load((REPO / 'awx' / 'vars' / 'controller.yml').read_text())
PLAYBOOK = yaml.safe_load((REPO / 'playbooks' / 'rolling_upgrade.yml').read_text())
ROLE = REPO / 'roles' / 'rolling_upgrade'
SPEC = yaml.safe_load((ROLE / 'meta' / 'argument_specs.yml').read_text())['argument_specs']
DEFAULTS = yaml.safe_load((ROLE / 'defaults' / 'main.yml').read_text())


def template():
    found = [t for t in DATA['awx_job_templates'] if t['playbook'] == 'playbooks/rolling_upgrade.yml']
    assert len(found) == 1
    return found[0]


def test_the_template_asks_for_the_release_the_batches_the_hooks_and_the_rollback():
    survey = {q['variable']: q for q in template()['survey']}
    assert set(survey) == {'ascend_stack_release', 'rolling_upgrade_first_batch', 'rolling_upgrade_batch',
                           'rolling_upgrade_drain_tasks', 'rolling_upgrade_undrain_tasks',
                           'rolling_upgrade_rollback', 'ascend_reboot_ok'}
    assert survey['ascend_stack_release']['choices'] == '{{ awx_stack_releases }}'
    assert survey['ascend_stack_release']['required'] is True
    assert survey['rolling_upgrade_rollback']['default'] == 'true'
    assert survey['ascend_reboot_ok']['default'] == 'false'


def test_survey_defaults_are_the_role_defaults():
    survey = {q['variable']: q for q in template()['survey']}
    for name in ('rolling_upgrade_first_batch', 'rolling_upgrade_batch', 'rolling_upgrade_drain_tasks',
                 'rolling_upgrade_undrain_tasks', 'rolling_upgrade_rollback'):
        assert survey[name]['default'] == str(DEFAULTS[name]).lower() if isinstance(DEFAULTS[name], bool) \
            else survey[name]['default'] == str(DEFAULTS[name]), name


def test_every_default_is_documented_with_the_same_value():
    options = SPEC['main']['options']
    for name, value in DEFAULTS.items():
        assert name in options, name
        assert options[name]['default'] == value, name
    assert SPEC['validate']['options'] == options


def test_the_batches_are_serial_without_tolerated_failures():
    validate, rollout, summary = PLAYBOOK
    assert validate['any_errors_fatal'] is True and 'serial' not in validate
    # The batch play takes its hosts and sizes from the plan the check play leaves on localhost.
    plan = [task for task in validate['tasks'] if 'rolling_upgrade_plan' in str(task.get('ansible.builtin.set_fact'))]
    assert plan and plan[0]['delegate_to'] == 'localhost' and plan[0]['delegate_facts'] is True
    assert rollout['hosts'] == "{{ hostvars['localhost'].rolling_upgrade_plan.order | default([]) }}"
    assert rollout['serial'] == "{{ hostvars['localhost'].rolling_upgrade_plan.serial | default([1]) }}"
    # Not any_errors_fatal: a failure the role rescues on one node must not fail the batch's others.
    assert rollout['max_fail_percentage'] == 0 and 'any_errors_fatal' not in rollout
    assert rollout['roles'] == [{'role': 'ascend.vllm.rolling_upgrade'}]
    assert rollout['tasks'][0]['ansible.builtin.meta'] == 'end_play'
    assert 'serial' not in summary
    for play in (validate, summary):
        assert play['hosts'] == 'ascend_nodes'
    for play in PLAYBOOK:
        assert play['gather_facts'] is False
