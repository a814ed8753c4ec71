"""ascend.vllm.check_mode: the task's effective check mode, answered on the controller."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[4]
PLAYBOOK_BIN = Path(sys.executable).parent / 'ansible-playbook'

PLAY = '''
- hosts: localhost
  gather_facts: false
  tasks:
    - name: Default
      ascend.vllm.check_mode:
      register: default
    - name: Task sets it
      ascend.vllm.check_mode:
      check_mode: true
      register: task_level
    - name: Block sets it
      check_mode: true
      block:
        - name: Inside the block
          ascend.vllm.check_mode:
          register: block_level
    - name: Report
      ansible.builtin.debug:
        msg: "{{ {'default': default.check_mode, 'task': task_level.check_mode, 'block': block_level.check_mode,
                  'changed': default.changed} | to_json }}"
'''


def run(tmp_path, play, *extra, inventory='localhost,', output=False):
    (tmp_path / 'play.yml').write_text(play)
    # The collection resolves from the checkout's collections/ link (ansible.cfg).
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / 'ansible.cfg'), ANSIBLE_STDOUT_CALLBACK='ansible.posix.json')
    argv = [str(PLAYBOOK_BIN), '-i', inventory, str(tmp_path / 'play.yml'),
            '-e', 'ansible_python_interpreter=%s' % sys.executable] + list(extra)
    result = subprocess.run(argv, cwd=str(REPO), env=env, capture_output=True, text=True, check=False, timeout=120)
    # The timing callback of ansible.cfg prints around the JSON document.
    start = result.stdout.index('\n{') + 1 if not result.stdout.startswith('{') else 0
    report, dummy = json.JSONDecoder().raw_decode(result.stdout[start:])
    if output:
        return result.returncode, report, result.stdout[:start]
    return result.returncode, report


def reported(report, host='localhost'):
    task = [t for t in report['plays'][0]['tasks'] if t['task']['name'] == 'Report'][0]
    return json.loads(task['hosts'][host]['msg'])


def test_check_mode_from_the_task_and_its_block_not_only_from_the_command_line(tmp_path):
    rc, report = run(tmp_path, PLAY, '-c', 'local')
    assert rc == 0
    assert reported(report) == {'default': False, 'task': True, 'block': True, 'changed': False}


def test_check_mode_from_the_command_line(tmp_path):
    rc, report = run(tmp_path, PLAY, '-c', 'local', '--check')
    assert rc == 0
    assert reported(report)['default'] is True


def test_the_node_is_not_contacted(tmp_path):
    # The host is a container that does not exist: any connection to it would fail the task.
    play = PLAY.replace('hosts: localhost', 'hosts: all')
    rc, report = run(tmp_path, play, '-e', 'ansible_connection=containers.podman.podman',
                     inventory='ascend-no-such-container,')
    assert rc == 0, report
    assert reported(report, 'ascend-no-such-container')['task'] is True


@pytest.mark.parametrize('args', ['{bogus: 1}'])
def test_options_are_refused(tmp_path, args):
    play = PLAY.replace('      ascend.vllm.check_mode:\n      register: default',
                        '      ascend.vllm.check_mode: %s\n      register: default' % args)
    rc, report = run(tmp_path, play, '-c', 'local')
    assert rc == 2
    task = [t for t in report['plays'][0]['tasks'] if t['task']['name'] == 'Default'][0]
    assert task['hosts']['localhost']['msg'] == 'ascend.vllm.check_mode takes no options, got: bogus'
