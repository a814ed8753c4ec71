"""ascend.vllm.stage_record through ansible-playbook: the role's options and code digested on the
controller, the record read and written on the node (here localhost, into a temporary directory)."""
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[4]
PLAYBOOK_BIN = Path(sys.executable).parent / 'ansible-playbook'

SPECS = '''---
argument_specs:
  main:
    short_description: a stage
    options:
      demo_version: {type: str, description: what to install}
      demo_token: {type: str, no_log: true, description: a secret}
      demo_unset: {type: str, description: an option nobody sets}
      demo_result: {type: str, description: what the role publishes}
      ascend_stage_records: {type: bool, description: the switch}
'''

TASKS = '''---
- name: Read
  ascend.vllm.stage_record:
    stage: demo
    dir: "{{ demo_dir }}"
    inputs: {stack: "{{ demo_stack }}"}
    exclude: [demo_result]
  register: demo_read

- name: Write
  ascend.vllm.stage_record:
    stage: demo
    state: write
    dir: "{{ demo_dir }}"
    inputs: {stack: "{{ demo_stack }}"}
    exclude: [demo_result]
    files: ["{{ demo_file }}"]
    facts: {demo_installed: "{{ demo_version }}"}
  register: demo_written
  when: demo_write | bool

- name: Forget
  ascend.vllm.stage_record:
    stage: demo
    state: absent
    dir: "{{ demo_dir }}"
  register: demo_forgotten
  when: demo_forget | default(false) | bool

- name: Report
  ansible.builtin.debug:
    msg: "{{ {'read': demo_read, 'written': demo_written | default({}), 'forgotten': demo_forgotten} | to_json }}"
'''


def make_role(tmp_path):
    role = tmp_path / 'roles' / 'demo'
    (role / 'meta').mkdir(parents=True)
    (role / 'tasks').mkdir()
    (role / 'defaults').mkdir()
    (role / 'meta' / 'argument_specs.yml').write_text(SPECS)
    (role / 'tasks' / 'main.yml').write_text(TASKS)
    # A default that is a template: the digest takes its value, not its text.
    (role / 'defaults' / 'main.yml').write_text('demo_version: "{{ demo_stack }}.0"\ndemo_token: s3cret\n')
    (tmp_path / 'version.info').write_text('Version=1\n')
    return role


def run(tmp_path, *extra, write=False, check=False):
    play = tmp_path / 'play.yml'
    play.write_text('- hosts: localhost\n  gather_facts: false\n  roles: [demo]\n')
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / 'ansible.cfg'), ANSIBLE_ROLES_PATH=str(tmp_path / 'roles'),
               ANSIBLE_STDOUT_CALLBACK='ansible.posix.json')
    argv = [str(PLAYBOOK_BIN), '-i', 'localhost,', '-c', 'local', str(play),
            '-e', 'ansible_python_interpreter=%s' % sys.executable,
            '-e', 'demo_dir=%s demo_file=%s demo_write=%s' % (tmp_path / 'records', tmp_path / 'version.info', write),
            '-e', 'demo_stack=9'] + list(extra) + (['--check'] if check else [])
    result = subprocess.run(argv, cwd=str(REPO), env=env, capture_output=True, text=True, check=False, timeout=120)
    start = result.stdout.index('\n{') + 1 if not result.stdout.startswith('{') else 0
    report, dummy = json.JSONDecoder().raw_decode(result.stdout[start:])
    tasks = report['plays'][0]['tasks']
    assert result.returncode == 0, [t['hosts']['localhost'].get('msg') for t in tasks]
    return json.loads([t for t in tasks if t['task']['name'].endswith('Report')][0]['hosts']['localhost']['msg'])


def test_no_record_then_a_current_one_with_its_facts(tmp_path):
    make_role(tmp_path)
    first = run(tmp_path, write=True)
    assert first['read']['current'] is False
    assert first['read']['reasons'] == ['no record of an earlier converge']
    assert first['written']['changed'] is True
    again = run(tmp_path, write=True)
    assert again['read']['current'] is True and again['read']['reasons'] == []
    assert again['read']['facts'] == {'demo_installed': '9.0'}
    assert again['written']['changed'] is False


def test_the_record_is_root_only_and_holds_no_secret(tmp_path):
    make_role(tmp_path)
    run(tmp_path, write=True)
    path = tmp_path / 'records' / 'demo.json'
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    text = path.read_text()
    assert 's3cret' not in text
    assert json.loads(text)['inputs']['demo_token'] == '(secret)'
    assert sorted(json.loads(text)['inputs']) == ['code', 'demo_token', 'demo_version', 'input:stack']


def test_a_changed_option_input_file_or_code_is_named(tmp_path):
    role = make_role(tmp_path)
    run(tmp_path, write=True)
    assert run(tmp_path, '-e', 'demo_version=2')['read']['reasons'] == ['the request changed (demo_version)']
    # demo_version's default follows the stack: both change.
    assert run(tmp_path, '-e', 'demo_stack=10')['read']['reasons'] == [
        'the request changed (demo_version, input:stack)']
    assert run(tmp_path, '-e', 'demo_token=other')['read']['reasons'] == ['the request changed (demo_token)']
    (tmp_path / 'version.info').write_text('Version=2\n')
    assert run(tmp_path)['read']['reasons'] == ['%s changed' % (tmp_path / 'version.info')]
    (tmp_path / 'version.info').unlink()
    assert run(tmp_path)['read']['reasons'] == ['%s is gone' % (tmp_path / 'version.info')]
    (tmp_path / 'version.info').write_text('Version=1\n')
    assert run(tmp_path)['read']['current'] is True
    (role / 'tasks' / 'extra.yml').write_text('---\n')
    assert run(tmp_path)['read']['reasons'] == ['the request changed (code)']


def test_check_mode_writes_nothing(tmp_path):
    make_role(tmp_path)
    result = run(tmp_path, write=True, check=True)
    assert result['written']['changed'] is True
    assert not (tmp_path / 'records').exists()


def test_an_excluded_option_and_the_switch_are_no_request(tmp_path):
    make_role(tmp_path)
    run(tmp_path, write=True)
    assert run(tmp_path, '-e', 'demo_result=published', '-e', 'ascend_stage_records=true')['read']['current'] is True


def test_records_switched_off_are_not_read_but_still_written(tmp_path):
    make_role(tmp_path)
    off = run(tmp_path, '-e', 'ascend_stage_records=false', write=True)
    assert off['read']['current'] is False
    assert off['read']['reasons'] == ['ascend_stage_records is false: every stage converges in full']
    assert off['written']['changed'] is True
    assert run(tmp_path)['read']['current'] is True


def test_absent_removes_the_record_so_a_failed_converge_leaves_none(tmp_path):
    make_role(tmp_path)
    run(tmp_path, write=True)
    assert run(tmp_path, '-e', 'demo_forget=true', check=True)['forgotten']['changed'] is True
    assert (tmp_path / 'records' / 'demo.json').exists()
    assert run(tmp_path, '-e', 'demo_forget=true')['forgotten']['changed'] is True
    assert not (tmp_path / 'records' / 'demo.json').exists()
    assert run(tmp_path)['read']['reasons'] == ['no record of an earlier converge']


def test_a_record_in_a_wider_directory_is_tightened(tmp_path):
    make_role(tmp_path)
    (tmp_path / 'records').mkdir(mode=0o755)
    os.chmod(str(tmp_path / 'records'), 0o755)
    run(tmp_path, write=True)
    assert stat.S_IMODE((tmp_path / 'records').stat().st_mode) == 0o700


def test_options_of_the_wrong_type_are_refused(tmp_path):
    role = make_role(tmp_path)
    (role / 'tasks' / 'main.yml').write_text(TASKS.replace('    exclude: [demo_result]\n  register: demo_read',
                                                           '    exclude: demo_result\n  register: demo_read'))
    play = tmp_path / 'play.yml'
    play.write_text('- hosts: localhost\n  gather_facts: false\n  roles: [demo]\n')
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / 'ansible.cfg'), ANSIBLE_ROLES_PATH=str(tmp_path / 'roles'))
    result = subprocess.run([str(PLAYBOOK_BIN), '-i', 'localhost,', '-c', 'local', str(play),
                             '-e', 'ansible_python_interpreter=%s' % sys.executable,
                             '-e', 'demo_dir=%s demo_file=x demo_write=false demo_stack=9' % (tmp_path / 'records')],
                            cwd=str(REPO), env=env, capture_output=True, text=True, check=False, timeout=120)
    assert result.returncode == 2
    assert 'ascend.vllm.stage_record: inputs must be a dict, exclude a list of option names and role_options a boolean' \
        in result.stdout
