"""The lookup ascend.vllm.os_prerequisites_inputs through ansible-playbook: it reads the task's variables
(a role's include vars, values that are themselves templates) as os_prerequisites itself would."""
import json

# ansible-playbook with the checkout's configuration (pytest puts this directory on sys.path).
from test_check_mode_action import run as run_playbook

PLAY = '''
- hosts: localhost
  gather_facts: false
  vars:
    # What site.yml's os_prerequisites stage records after a run with nothing missing.
    __os_prerequisites_done: [{stages: [driver_build, serving_venv], packages: {}, extra: [], kernel: ''}]
    stage: serving_venv
  tasks:
    - name: vllm_service's own stage, extra left to the role's default
      ansible.builtin.debug:
        msg: "{{ lookup('ascend.vllm.os_prerequisites_inputs') | to_json }}"
      vars:
        os_prerequisites_stages: [serving_venv]
    - name: A stage given as a template, as the role's defaults are
      ansible.builtin.debug:
        msg: "{{ lookup('ascend.vllm.os_prerequisites_inputs') | to_json }}"
      vars:
        os_prerequisites_stages: "{{ [stage] }}"
    - name: A stage the stage run did not plan
      ansible.builtin.debug:
        msg: "{{ lookup('ascend.vllm.os_prerequisites_inputs') | to_json }}"
      vars:
        os_prerequisites_stages: [source_build]
    - name: The monitoring stage without its extra packages
      ansible.builtin.debug:
        msg: "{{ lookup('ascend.vllm.os_prerequisites_inputs') | to_json }}"
      vars:
        os_prerequisites_stages: [monitoring]
    - name: Asked to read again
      ansible.builtin.debug:
        msg: "{{ lookup('ascend.vllm.os_prerequisites_inputs') | to_json }}"
      vars:
        os_prerequisites_stages: [serving_venv]
        os_prerequisites_refresh: true
'''


def test_the_lookup_reads_the_task_s_variables(tmp_path):
    rc, report = run_playbook(tmp_path, PLAY, '-c', 'local')
    assert rc == 0
    answers = [json.loads(task['hosts']['localhost']['msg']) for task in report['plays'][0]['tasks']]
    assert [answer['needed'] for answer in answers] == [False, False, True, True, True]
    assert answers[0]['wanted'] == {'stages': ['serving_venv'], 'packages': {}, 'extra': [], 'python': '', 'kernel': ''}
    assert answers[3]['wanted']['extra'] is None
