"""ascend.vllm.report_files through ansible-playbook: the files, their modes, check mode, refusals."""
import json
import os
import stat

# ansible-playbook with the checkout's configuration, its JSON callback parsed (pytest puts this
# directory on sys.path: the test files here are not a package).
from test_check_mode_action import run as run_playbook

PLAY = '''
- hosts: localhost
  gather_facts: false
  tasks:
    - name: Write
      ascend.vllm.report_files:
        dir: "{{ out }}"
        files:
          - {name: report.json, content: "{{ {'a': 1} | to_nice_json }}\\n"}
          - {name: report.md, content: "# Report\\n", mode: "0644"}
      register: written
    - name: Report
      ansible.builtin.debug:
        msg: "{{ written | to_json }}"
'''


def run(tmp_path, play, *extra):
    rc, report = run_playbook(tmp_path, play, '-c', 'local', *extra)
    return rc, report['plays'][0]['tasks']


def reported(tasks):
    task = [t for t in tasks if t['task']['name'] == 'Report'][0]
    return json.loads(task['hosts']['localhost']['msg'])


def mode(path):
    return stat.S_IMODE(os.stat(str(path)).st_mode)


def test_writes_the_files_then_changes_nothing(tmp_path):
    out = tmp_path / 'reports' / 'verify'
    rc, tasks = run(tmp_path, PLAY, '-e', 'out=%s' % out)
    assert rc == 0
    result = reported(tasks)
    assert result['changed'] is True
    assert result['written'] == [str(out / 'report.json'), str(out / 'report.md')]
    assert (out / 'report.json').read_text() == '{\n    "a": 1\n}\n'
    assert (out / 'report.md').read_text() == '# Report\n'
    assert (mode(out), mode(out / 'report.json'), mode(out / 'report.md')) == (0o750, 0o640, 0o644)
    assert sorted(os.listdir(str(out))) == ['report.json', 'report.md']  # no temporary file left
    rc, tasks = run(tmp_path, PLAY, '-e', 'out=%s' % out)
    assert (rc, reported(tasks)['changed'], reported(tasks)['written']) == (0, False, [])


def test_check_mode_writes_nothing(tmp_path):
    out = tmp_path / 'reports'
    rc, tasks = run(tmp_path, PLAY, '-e', 'out=%s' % out, '--check')
    assert rc == 0 and reported(tasks)['changed'] is True
    assert not out.exists()


def test_a_relative_directory_is_refused(tmp_path):
    rc, tasks = run(tmp_path, PLAY, '-e', 'out=reports')
    assert rc == 2
    failed = [t for t in tasks if t['task']['name'] == 'Write'][0]['hosts']['localhost']
    assert failed['msg'] == "ascend.vllm.report_files: dir must be an absolute path (or empty: no file), got 'reports'"


STATS_PLAY = '''
- hosts: localhost
  gather_facts: false
  tasks:
    - name: Write
      ascend.vllm.report_files:
        dir: "{{ out }}"
        files:
          - {name: report.json, content: "{}\\n"}
        stats:
          data: {ascend_report: {localhost: {drift: false}}}
          aggregate: true
      register: written
    - name: Report
      ansible.builtin.debug:
        msg: "{{ written | to_json }}"
'''


def test_the_stats_are_published_as_set_stats_would(tmp_path, monkeypatch):
    # What AWX and ansible-runner read (the run's custom stats), in check mode and without files too.
    monkeypatch.setenv('ANSIBLE_SHOW_CUSTOM_STATS', '1')
    out = tmp_path / 'reports'
    for extra in ([], ['--check']):
        rc, report = run_playbook(tmp_path, STATS_PLAY, '-c', 'local', '-e', 'out=%s' % out, *extra)
        assert rc == 0
        assert report['global_custom_stats'] == {'ascend_report': {'localhost': {'drift': False}}}
    rc, report = run_playbook(tmp_path, STATS_PLAY, '-c', 'local', '-e', 'out=')
    assert rc == 0 and report['global_custom_stats'] == {'ascend_report': {'localhost': {'drift': False}}}
    result = reported(report['plays'][0]['tasks'])
    assert (result['changed'], result['paths'], result['written']) == (False, [], [])


def test_an_existing_directory_gets_its_mode(tmp_path):
    out = tmp_path / 'reports'
    out.mkdir()
    out.chmod(0o777)
    rc, tasks = run(tmp_path, PLAY, '-e', 'out=%s' % out)
    assert rc == 0 and reported(tasks)['changed'] is True
    assert mode(out) == 0o750
