"""awx/configure.yml and awx/vars/controller.yml: checked and rendered without contacting AWX."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[3]
DATA = yaml.safe_load((REPO / 'awx' / 'vars' / 'controller.yml').read_text())
PLAYBOOK_BIN = Path(sys.executable).parent / 'ansible-playbook'


def documented_variables():
    """Every option of every role entry point, and the playbooks' documented extra variables."""
    names = set()
    for spec in REPO.glob('roles/*/meta/argument_specs.yml'):
        for entry in yaml.safe_load(spec.read_text())['argument_specs'].values():
            names.update(entry.get('options', {}))
    return names


def run_validate(*extra):
    env = dict(os.environ, ANSIBLE_STDOUT_CALLBACK='ansible.posix.json', ANSIBLE_CONFIG=str(REPO / 'ansible.cfg'))
    argv = [str(PLAYBOOK_BIN), 'awx/configure.yml', '-t', 'validate',
            '-e', 'ansible_python_interpreter=%s' % sys.executable] + list(extra)
    result = subprocess.run(argv, cwd=str(REPO), env=env, capture_output=True, text=True, check=False, timeout=120)
    # The timing callback of ansible.cfg prints around the JSON document.
    start = result.stdout.index('\n{') + 1 if not result.stdout.startswith('{') else 0
    report, dummy = json.JSONDecoder().raw_decode(result.stdout[start:])
    return result.returncode, report


def task_result(report, name):
    for task in report['plays'][0]['tasks']:
        if task['task']['name'] == name:
            return task['hosts']['localhost']
    raise AssertionError('task %r did not run' % name)


def test_every_job_template_runs_a_playbook_of_this_repository():
    for template in DATA['awx_job_templates']:
        assert (REPO / template['playbook']).is_file(), template['name']


def test_job_templates_for_site_verify_and_diagnostics():
    playbooks = {t['playbook'] for t in DATA['awx_job_templates']}
    assert {'site.yml', 'playbooks/verify.yml', 'playbooks/diagnostics.yml'} <= playbooks


def test_survey_variables_are_documented_role_options():
    documented = documented_variables()
    for template in DATA['awx_job_templates']:
        for question in template['survey']:
            assert question['variable'] in documented, (template['name'], question['variable'])


def test_schedules_name_a_job_template_and_carry_an_rrule():
    names = {t['name'] for t in DATA['awx_job_templates']}
    for schedule in DATA['awx_schedules']:
        assert schedule['job_template'] in names
        assert re.match(r'^DTSTART:\d{8}T\d{6}Z RRULE:FREQ=(DAILY|WEEKLY|MONTHLY|HOURLY)(;[A-Z]+=[A-Z0-9,]+)*$',
                        schedule['rrule']), schedule['rrule']


def test_validate_renders_the_survey_specs_awx_expects():
    rc, report = run_validate('-e', 'awx_controller_password=from-vault')
    assert rc == 0
    specs = task_result(report, 'Render the survey specs')['ansible_facts']['awx_survey_specs']
    site = specs['ascend.vllm site']
    assert site['name'] == 'ascend.vllm site'
    # The release comes from the inventory: only the rolling upgrade asks for one.
    assert [q['variable'] for q in site['spec']] == ['ascend_reboot_ok']
    assert specs['ascend.vllm preflight']['spec'] == []
    release = [q for q in specs['ascend.vllm rolling upgrade']['spec'] if q['variable'] == 'ascend_stack_release'][0]
    # every release of the stack matrix, newline separated as AWX stores them
    assert release['choices'].split('\n') == ['0.9.1', '0.11.0', '0.13.0', '0.18.0', '0.23.0', '0.23.0.post1', '0.30.0rc2']
    assert release['type'] == 'multiplechoice' and release['required'] is True
    assert release['question_description'] == release['question_name']
    drift = [q for q in specs['ascend.vllm verify']['spec'] if q['variable'] == 'verify_fail_on_drift'][0]
    assert drift['choices'] == 'true\nfalse' and drift['default'] == 'true'
    assert specs['ascend.vllm diagnostics']['spec'] == []


def test_missing_credentials_fail_before_awx_is_contacted():
    rc, report = run_validate()
    assert rc == 2
    failed = task_result(report, 'Check the configuration before changing AWX')
    assert failed['failed']
    assert failed['msg'].startswith('awx_controller_host must be an http(s) URL, awx_controller_password or '
                                    'awx_controller_oauthtoken must be set (from Vault)')


def test_a_survey_that_sets_the_release_outside_the_rolling_upgrade_is_refused(tmp_path):
    question = {'variable': 'ascend_stack_release', 'question_name': 'release', 'type': 'multiplechoice',
                'choices': ['0.23.0'], 'default': '0.23.0', 'required': True}
    templates = [dict(t, survey=t['survey'] + [question]) if t['name'] == 'ascend.vllm site' else t
                 for t in DATA['awx_job_templates']]
    extra = tmp_path / 'moving.json'
    extra.write_text(json.dumps({'awx_job_templates': templates, 'awx_controller_password': 'x'}))
    rc, report = run_validate('-e', '@%s' % extra)
    assert rc == 2
    failed = task_result(report, 'Only the rolling upgrade asks for a release')
    assert failed['msg'].startswith('ascend.vllm site: a survey question sets ascend_stack_release, which overrides '
                                    "the inventory's release")


def test_templates_that_orchestrate_across_hosts_are_never_sliced():
    # AWX's job slicing guide: jobs that orchestrate across hosts should not be sliced.
    marks = {t['name']: t['cross_host'] for t in DATA['awx_job_templates']}
    assert marks == {'ascend.vllm site': True, 'ascend.vllm preflight': True, 'ascend.vllm verify': True,
                     'ascend.vllm diagnostics': False, 'ascend.vllm rolling upgrade': True,
                     'ascend.vllm decommission': False}
    assert DATA['awx_job_forks'] == 50


def run_sliced(tmp_path, name, count):
    templates = [dict(t, job_slice_count=count) if t['name'] == name else t for t in DATA['awx_job_templates']]
    extra = tmp_path / 'sliced.json'
    extra.write_text(json.dumps({'awx_job_templates': templates, 'awx_controller_password': 'x'}))
    return run_validate('-e', '@%s' % extra)


def test_slicing_a_rolling_upgrade_is_refused_before_awx_is_contacted(tmp_path):
    rc, report = run_sliced(tmp_path, 'ascend.vllm rolling upgrade', 4)
    assert rc == 2
    failed = task_result(report, 'Job slicing only where the playbook works host by host')
    assert failed['msg'] == ('job_slice_count must be 1 for ascend.vllm rolling upgrade: the playbook orchestrates '
                             'across hosts (cross_host: true) and a slice sees only part of the inventory; raise '
                             'awx_job_forks instead.')


def test_sliced_diagnostics_pass_validation(tmp_path):
    rc, report = run_sliced(tmp_path, 'ascend.vllm diagnostics', 4)
    assert rc == 0, report


def test_one_inventory_keeps_the_plain_template_names():
    rc, report = run_validate('-e', 'awx_controller_password=x')
    assert rc == 0
    plan = task_result(report, 'Render the templates and schedules of each inventory')['ansible_facts']['awx_plan']
    assert [t['name'] for t in plan['templates']] == [t['name'] for t in DATA['awx_job_templates']]
    assert {t['inventory'] for t in plan['templates']} == {'ascend-production'}
    assert plan['projects'] == []


def test_several_inventories_get_their_own_templates_and_the_sites_project(tmp_path):
    own = {'name': 'site-inventories', 'scm_url': 'https://git.example.com/platform/site-inventories.git'}
    extra = tmp_path / 'sites.json'
    extra.write_text(json.dumps({'awx_controller_password': 'x', 'awx_inventories': [
        {'name': 'dc1', 'source_path': 'dc1/hosts.yml', 'project': own},
        {'name': 'dc2', 'source_path': 'inventories/example/hosts.yml'}]}))
    rc, report = run_validate('-e', '@%s' % extra)
    assert rc == 0, report
    plan = task_result(report, 'Render the templates and schedules of each inventory')['ansible_facts']['awx_plan']
    names = [t['name'] for t in DATA['awx_job_templates']]
    assert [t['name'] for t in plan['templates']] == [n + ' - dc1' for n in names] + [n + ' - dc2' for n in names]
    assert [t['inventory'] for t in plan['templates']] == ['dc1'] * len(names) + ['dc2'] * len(names)
    assert all(t['survey_of'] in names for t in plan['templates'])
    # Every schedule starts the template of its own inventory.
    template_names = {t['name'] for t in plan['templates']}
    assert len(plan['schedules']) == 2 * len(DATA['awx_schedules'])
    assert all(s['job_template'] in template_names and s['name'].endswith(s['job_template'][-6:])
               for s in plan['schedules'])
    assert plan['projects'] == [own]


def test_two_inventories_of_one_name_are_refused(tmp_path):
    extra = tmp_path / 'twice.json'
    extra.write_text(json.dumps({'awx_controller_password': 'x', 'awx_inventories': [
        {'name': 'dc1', 'source_path': 'a.yml'}, {'name': 'dc1', 'source_path': 'b.yml'}]}))
    rc, report = run_validate('-e', '@%s' % extra)
    assert rc == 2
    assert 'awx_inventories must list at least one inventory, each with its own name' in task_result(
        report, 'Check the configuration before changing AWX')['msg']
