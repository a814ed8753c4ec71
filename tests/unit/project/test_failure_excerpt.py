"""scripts/failure_excerpt.py: the failed task of a Molecule log, for the tail CI keeps."""
import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
SPEC = importlib.util.spec_from_file_location('failure_excerpt', REPO / 'scripts/failure_excerpt.py')
EXCERPT = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(EXCERPT)

# A rescued refusal first (expected), then the real failure, then Molecule giving up and destroying.
LOG = '''INFO     [npu_driver > verify] Executing
TASK [Run the role without a head] *********************************************
fatal: [ascend-1]: FAILED! =>
    msg: 'expected refusal'
TASK [The failure names the empty group] ***************************************
ok: [ascend-1]
TASK [Wait for the installer: driver 24.1.rc3] *********************************
Thursday 03 December 2026  23:46:57 +0000 (0:00:01.481)       0:02:22.268 *****
[ERROR]: Task failed: Action failed: Unknown error.
fatal: [ascend-1]: FAILED! =>
    changed: true
    rc: 2
PLAY RECAP *********************************************************************
ascend-1        : ok=269  changed=14   unreachable=0    failed=1    skipped=75   rescued=5    ignored=0
ERROR    [npu_driver > verify] Executed: Failed
INFO     [npu_driver > cleanup] Executing
TASK [Stop it] *****************************************************************
fatal: [localhost]: FAILED! =>
    msg: 'cleanup noise'
ERROR    Ansible return code was 2, command was: ansible-playbook verify.yml
'''


def test_the_last_failed_task_before_molecule_gave_up_and_its_error_lines():
    found = EXCERPT.excerpt(LOG.splitlines(), after=4)
    assert found == [
        'TASK [Wait for the installer: driver 24.1.rc3] *********************************',
        'Thursday 03 December 2026  23:46:57 +0000 (0:00:01.481)       0:02:22.268 *****',
        '[ERROR]: Task failed: Action failed: Unknown error.',
        'fatal: [ascend-1]: FAILED! =>',
        '    changed: true',
        '    rc: 2',
        'PLAY RECAP *********************************************************************',
        '...',
        'ERROR    [npu_driver > verify] Executed: Failed',
        'ERROR    Ansible return code was 2, command was: ansible-playbook verify.yml']


def test_an_idempotence_failure_is_shown_with_its_tasks():
    lines = ['INFO     [x > converge] Executing',
             'fatal: [ascend-1]: FAILED! => a refusal the converge rescued',
             'INFO     [x > idempotence] Executing',
             'CRITICAL Idempotence test failed because of the following tasks:',
             '*  => ascend.vllm.cann : Run the installer: Ascend-cann-toolkit_9.1.0_linux-x86_64.run',
             'ERROR    [x > idempotence] Executed: Failed',
             'WARNING  [x > idempotence] An error occurred during the test sequence action',
             'TASK [Destroy molecule instance(s)] ***',
             'fatal: [localhost]: FAILED! => after the failure, not the cause',
             'ERROR    Idempotence test failed because of the following tasks:',
             '*  => ascend.vllm.cann : Run the installer: Ascend-cann-toolkit_9.1.0_linux-x86_64.run']
    assert EXCERPT.excerpt(lines) == lines[3:6] + lines[9:]


def test_a_passing_log_gives_nothing():
    assert EXCERPT.excerpt(['INFO     [x > verify] Executed: Successful']) == []


def test_a_long_error_keeps_the_task_header_and_the_result():
    source = ['%d   a line of the task source' % n for n in range(30)]
    lines = (['INFO     [x > verify] Executing', 'TASK [Install: probe] ***', 'Friday 04 December 2026  04:27:40',
              "[ERROR]: Task failed: '__x' is undefined"] + source
             + ['fatal: [n1]: FAILED! =>', "    msg: '__x is undefined'", 'ERROR    [x > verify] Executed: Failed'])
    assert EXCERPT.excerpt(lines) == (lines[1:4] + ['...'] + source[-3:]
                                      + ['fatal: [n1]: FAILED! =>', "    msg: '__x is undefined'", '...',
                                         'ERROR    [x > verify] Executed: Failed'])
