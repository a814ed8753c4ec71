"""ascend.vllm.job_wait: background jobs waited for with progress lines, failures and timeouts named."""
import json

from test_check_mode_action import run

PLAY = '''
- hosts: localhost
  gather_facts: false
  vars:
    target: "{{ lookup('ansible.builtin.env', 'JOB_WAIT_DIR') }}"
  tasks:
    - name: A job that fails
      ansible.builtin.command: sh -c 'sleep 1; echo broken >&2; exit 3'
      async: 60
      poll: 0
      register: broken
    # Started last, right before its wait: eight seconds of growth to report even on a loaded machine.
    - name: Write eight chunks of 1 KiB, one a second, as a download does
      ansible.builtin.shell: "for i in 1 2 3 4 5 6 7 8; do head -c 1024 /dev/zero >> {{ target }}/.part; sleep 1; done"
      async: 60
      poll: 0
      register: download
    - name: Wait for the download
      ascend.vllm.job_wait:
        jid: ["{{ download.ansible_job_id }}"]
        label: test download
        timeout: 30
        poll: 1
        heartbeat: 1
        measure: ["{{ target }}"]
        total_bytes: 8192
      register: waited
    - name: Wait for the failing job and the download again
      ascend.vllm.job_wait:
        jid: ["{{ broken.ansible_job_id }}", "{{ download.ansible_job_id }}"]
        label: two jobs
        timeout: 30
        poll: 1
      register: failing
      ignore_errors: true
    - name: Wait for the failing job alone
      ascend.vllm.job_wait:
        jid: ["{{ broken.ansible_job_id }}"]
        label: one job
        timeout: 30
        poll: 1
      register: alone
      ignore_errors: true
    - name: A job whose module succeeds with rc 2, as an installer that asks for a reboot
      rc_two: {}
      async: 60
      poll: 0
      register: reboot_asked
    - name: Wait for it
      ascend.vllm.job_wait:
        jid: ["{{ reboot_asked.ansible_job_id }}"]
        label: rc two
        timeout: 30
        poll: 1
      register: rc_two_waited
    # Started right before its wait, as the download is: the tasks above take longer than the job's
    # 20 s on a loaded machine (the unit stage beside the Molecule scenarios), and a job started
    # with them had ended before this wait began.
    - name: A job that outlives its timeout
      ansible.builtin.command: sleep 20
      async: 60
      poll: 0
      register: slow
    - name: Wait for the slow job
      ascend.vllm.job_wait:
        jid: ["{{ slow.ansible_job_id }}"]
        label: slow job
        timeout: 2
        poll: 1
        heartbeat: 1
      register: late
      ignore_errors: true
    - name: Report
      ansible.builtin.debug:
        msg: "{{ {'rc': waited.rc, 'failed': waited.failed, 'failing': failing.msg, 'late': late.msg,
                  'alone': [alone.failed, alone.msg, alone.rc, alone.stderr, alone.cmd],
                  'rc_two': [rc_two_waited.failed, rc_two_waited.rc, rc_two_waited.changed],
                  'progress': waited.progress} | to_json }}"
'''


# A module's own verdict decides, not the rc: ascend_package reports an installer's rc 2 in a success.
RC_TWO = '''#!/usr/bin/python
from ansible.module_utils.basic import AnsibleModule
AnsibleModule(argument_spec={}).exit_json(changed=True, rc=2)
'''


def test_progress_lines_failures_and_timeouts(tmp_path, monkeypatch):
    target = tmp_path / 'download'
    target.mkdir()
    monkeypatch.setenv('JOB_WAIT_DIR', str(target))
    (tmp_path / 'pb' / 'library').mkdir(parents=True)
    (tmp_path / 'pb' / 'library' / 'rc_two.py').write_text(RC_TWO)
    rc, report, stdout = run(tmp_path / 'pb', PLAY, '-c', 'local', output=True)
    task = [t for t in report['plays'][0]['tasks'] if t['task']['name'] == 'Report'][0]
    found = json.loads(task['hosts']['localhost']['msg'])
    assert rc == 0
    assert found['rc'] == 0 and found['failed'] is False
    assert found['failing'] == 'job_wait: two jobs: 1 of 2 jobs failed: non-zero return code'
    # One job: its own result, as in the foreground.
    assert found['alone'] == [True, 'non-zero return code', 3, 'broken', ['sh', '-c', 'sleep 1; echo broken >&2; exit 3']]
    assert found['rc_two'] == [False, 2, True]
    assert found['late'] == 'job_wait: slow job did not finish within 2 s (1 of 1 jobs still running)'
    # One line a second while the file grows: bytes, their share of 8 KiB, the rate, the time.
    lines = [line for line in stdout.splitlines() if line.startswith('localhost: test download: ')]
    assert lines, stdout
    assert all(' of 8.0 KiB (' in line and '/s, running for ' in line for line in lines[1:]), lines
    assert found['progress'] == lines
    assert [line for line in stdout.splitlines() if line.startswith('localhost: slow job: running for ')]
