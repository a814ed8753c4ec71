"""ascend.vllm.numa_facts as a module, on built sysfs trees and on the machine running the tests."""
import json
import os
import subprocess
import sys

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import npu_smi as npu_smi_utils
from ansible_collections.ascend.vllm.plugins.modules import numa_facts

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'fixtures', 'npu-smi')
REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..'))
ANSIBLE = os.path.join(os.path.dirname(sys.executable), 'ansible')
HOST_PATH = os.environ.get('PATH', os.defpath)


def read_fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


@pytest.fixture(autouse=True)
def no_system_npu_smi(monkeypatch, tmp_path):
    empty = tmp_path / 'empty-bin'
    empty.mkdir()
    monkeypatch.setenv('PATH', str(empty))
    monkeypatch.setattr(npu_smi_utils, 'SYSTEM_BIN_DIRS', ())


def test_kunpeng_with_npu_smi_and_groups(run_module, kunpeng, fake_npu_smi, chip_mapping):
    info = read_fixture('910B2_24.1.0_1.txt')
    path = fake_npu_smi({'info': info, 'info -m': chip_mapping(info)})
    failed, result = run_module(numa_facts, {'sysfs_root': kunpeng.root, 'npu_smi_path': path,
                                             'npu_groups': [[0, 1], ['6', 7]]})
    assert not failed and result['changed'] is False
    facts = result['ansible_facts']['ascend_numa']
    assert (facts['node_count'], facts['cpu_count']) == (4, 192)
    assert [n['npu_id'] for n in facts['npus']] == [1, 3, 5, 7, 4, 6, 0, 2]
    assert facts['cpus_per_npu'] == ['0-11', '12-23', '24-35', '36-47',
                                     '96-107', '108-119', '120-131', '132-143']
    assert facts['groups'] == [
        {'npus': [0, 1], 'devices': [1, 3], 'numa_nodes': [0], 'cpus': '0-47', 'cpu_count': 48},
        {'npus': [6, 7], 'devices': [0, 2], 'numa_nodes': [2], 'cpus': '96-143', 'cpu_count': 48},
    ]
    assert result['warnings'] == [
        '`%s info -t topo` failed with rc=2: Error: the command info -t topo is not supported on '
        'this device.; CPU affinity not gathered' % path]


def test_one_node_vm_reads_memory_next_to_sysfs(run_module, sysfs):
    sysfs.cpus('0-1')
    sysfs.meminfo(4194304)
    failed, result = run_module(numa_facts, {'sysfs_root': sysfs.root})
    assert not failed
    assert result['ansible_facts']['ascend_numa']['nodes'] == [
        {'id': 0, 'cpus': [0, 1], 'cpulist': '0-1', 'memory_mb': 4096, 'hugepages': {}}]


def test_bad_group_fails(run_module, kunpeng):
    failed, result = run_module(numa_facts, {'sysfs_root': kunpeng.root, 'npu_groups': [[9]]})
    assert failed
    assert result['msg'] == 'NPU index 9 in npu_groups does not exist (8 NPU(s) found, indexed by PCI address from 0)'
    failed, result = run_module(numa_facts, {'sysfs_root': kunpeng.root, 'npu_groups': [['x']]})
    assert failed and 'npu_groups entries must be lists of NPU indexes' in result['msg']


def test_empty_sysfs_fails_clearly(run_module, tmp_path):
    failed, result = run_module(numa_facts, {'sysfs_root': str(tmp_path / 'nothing')})
    assert failed
    assert result['msg'] == 'no online CPU found under %s/devices/system (is sysfs mounted?)' % (tmp_path / 'nothing')


def test_real_host_counts_every_cpu(run_module):
    failed, result = run_module(numa_facts, {}, check_mode=True)
    assert not failed
    facts = result['ansible_facts']['ascend_numa']
    assert facts['cpu_count'] == os.sysconf('SC_NPROCESSORS_CONF')
    assert sum(len(node['cpus']) for node in facts['nodes']) == os.sysconf('SC_NPROCESSORS_ONLN')
    assert all(node['memory_mb'] and node['memory_mb'] > 0 for node in facts['nodes'])


@pytest.mark.skipif(not os.path.exists(ANSIBLE), reason='ansible CLI not installed next to this Python')
def test_real_host_through_the_ansible_cli(tmp_path):
    env = dict(os.environ, PATH=HOST_PATH, ANSIBLE_LOAD_CALLBACK_PLUGINS='1', ANSIBLE_STDOUT_CALLBACK='ansible.builtin.json',
               ANSIBLE_PYTHON_INTERPRETER=sys.executable, ANSIBLE_LOCAL_TEMP=str(tmp_path / 'tmp'),
               ANSIBLE_REMOTE_TEMP=str(tmp_path / 'remote-tmp'))
    proc = subprocess.run([ANSIBLE, 'localhost', '-c', 'local', '-m', 'ascend.vllm.numa_facts'],
                          cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    result = json.JSONDecoder().raw_decode(out[out.index('\n{') + 1:])[0]['plays'][0]['tasks'][0]['hosts']['localhost']
    assert result['ansible_facts']['ascend_numa']['cpu_count'] == os.sysconf('SC_NPROCESSORS_CONF')
