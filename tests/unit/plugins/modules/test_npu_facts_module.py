"""ascend.vllm.npu_facts as a module: a fake npu-smi prints a real table and fails every other
sub-command; the returned facts are compared in full."""
import json
import os
import subprocess
import sys

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import npu_smi as npu_smi_utils
from ansible_collections.ascend.vllm.plugins.modules import npu_facts

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'fixtures', 'npu-smi')
REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..'))

# The NPU functions of the conftest's Kunpeng sysfs tree (8 x 0xd802), in address order.
KUNPENG_BUS_IDS = ['0000:01:00.0', '0000:02:00.0', '0000:41:00.0', '0000:42:00.0',
                   '0000:81:00.0', '0000:82:00.0', '0000:c1:00.0', '0000:c2:00.0']


def read_fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


# npu_id, bus_id, power, temp, hbm used, numa node (on the Kunpeng tree of conftest)
A2_ROWS = [
    (0, '0000:c1:00.0', 91.1, 49, 3372, 2), (1, '0000:01:00.0', 91.6, 50, 3373, 0),
    (2, '0000:c2:00.0', 88.1, 48, 3372, 2), (3, '0000:02:00.0', 92.4, 50, 3375, 0),
    (4, '0000:81:00.0', 91.7, 50, 3372, 2), (5, '0000:41:00.0', 92.1, 52, 3374, 0),
    (6, '0000:82:00.0', 90.9, 49, 3373, 2), (7, '0000:42:00.0', 87.8, 50, 3375, 0),
]


def a2_facts(npu_smi, numa=True, soc='ascend910b2'):
    # numa: the Kunpeng sysfs tree (8 x 0xd802) is there; without it no PCI function is read.
    return {
        'chip_family': '910b' if numa else None,
        'pci_functions': [{'bus_id': bus_id, 'device': '0xd802', 'family': '910b'}
                          for bus_id in KUNPENG_BUS_IDS] if numa else [],
        'present': True, 'npu_smi_path': npu_smi, 'npu_smi_version': '24.1.0',
        'driver_version': None, 'firmware_version': None, 'npu_count': 8, 'chip_count': 8,
        'chip_name': '910B2', 'soc_version': soc, 'healthy': True, 'processes': [], 'npu_smi_error': None,
        'chips': [{
            'npu_id': npu, 'chip_id': 0, 'device_id': None, 'phy_id': None, 'name': '910B2',
            'health': 'OK', 'power_w': power, 'temp_c': temp, 'hugepages_used': 0,
            'hugepages_total': 0, 'bus_id': bus, 'aicore_pct': 0, 'memory_used_mb': 0,
            'memory_total_mb': 0, 'hbm_used_mb': hbm, 'hbm_total_mb': 65536,
            'numa_node': node if numa else None, 'cpu_affinity': None, 'details': {},
        } for npu, bus, power, temp, hbm, node in A2_ROWS],
    }


@pytest.fixture
def no_system_npu_smi(monkeypatch, tmp_path):
    """Keep a real npu-smi of the machine running the tests out of the lookup."""
    empty = tmp_path / 'empty-bin'
    empty.mkdir()
    monkeypatch.setenv('PATH', str(empty))
    monkeypatch.setattr(npu_smi_utils, 'SYSTEM_BIN_DIRS', ())


def test_exact_facts_from_a_fake_npu_smi(run_module, fake_npu_smi, kunpeng, tmp_path):
    path = fake_npu_smi({'info': read_fixture('910B2_24.1.0_1.txt')})
    failed, result = run_module(npu_facts, {
        'npu_smi_path': path, 'sysfs_root': kunpeng.root, 'install_path': str(tmp_path / 'none')})
    assert not failed
    assert result['changed'] is False
    assert result['ansible_facts'] == {'ascend_npu': a2_facts(path, soc='ascend910b2')}
    assert result['warnings'] == [
        '`%s info -t board -i 0 -c 0` failed with rc=2: Error: the command info -t board -i 0 -c 0 '
        'is not supported on this device.; soc_version derived from the chip name in npu-smi info' % path]


def test_board_answer_and_version_files(run_module, fake_npu_smi, tmp_path):
    path = fake_npu_smi({
        'info': read_fixture('Ascend910-A3_25.3.rc1_1.txt'),
        'info -t board -i 0 -c 0': read_fixture('Ascend910-A3-9392_unknown_board-c0_excerpt_1.txt'),
    })
    install = tmp_path / 'Ascend'
    (install / 'driver').mkdir(parents=True)
    (install / 'driver' / 'version.info').write_text('Version=25.3.rc1\n')
    failed, result = run_module(npu_facts, {
        'npu_smi_path': path, 'install_path': str(install), 'sysfs_root': str(tmp_path / 'sys')})
    facts = result['ansible_facts']['ascend_npu']
    assert not failed and 'warnings' not in result
    assert (facts['soc_version'], facts['npu_count'], facts['chip_count']) == ('ascend910_9392', 8, 16)
    assert (facts['driver_version'], facts['firmware_version']) == ('25.3.rc1', None)


def test_lookup_in_install_path_driver_tools(run_module, fake_npu_smi, tmp_path, no_system_npu_smi):
    path = fake_npu_smi({'info': read_fixture('910B2_24.1.0_1.txt')}, tmp_path / 'Ascend' / 'driver' / 'tools')
    failed, result = run_module(npu_facts, {'install_path': str(tmp_path / 'Ascend'),
                                            'sysfs_root': str(tmp_path / 'sys')})
    assert not failed
    assert result['ansible_facts']['ascend_npu']['npu_smi_path'] == path


def test_nothing_found_is_not_a_failure(run_module, tmp_path, no_system_npu_smi):
    failed, result = run_module(npu_facts, {'install_path': str(tmp_path), 'sysfs_root': str(tmp_path)})
    assert not failed
    assert result['ansible_facts']['ascend_npu']['present'] is False
    assert 'warnings' not in result


def test_nothing_found_fails_when_required(run_module, tmp_path, no_system_npu_smi):
    failed, result = run_module(npu_facts, {'install_path': str(tmp_path / 'A'), 'sysfs_root': str(tmp_path),
                                            'required': True})
    assert failed
    assert result['msg'] == (
        'no Ascend NPU found: npu-smi is not installed (looked in PATH, %s/A/driver/tools) and '
        '%s/bus/pci/devices has no Huawei (0x19e5) NPU function' % (tmp_path, tmp_path))


def test_pci_only_is_present_with_driver_warning(run_module, kunpeng, tmp_path, no_system_npu_smi):
    failed, result = run_module(npu_facts, {'install_path': str(tmp_path), 'sysfs_root': kunpeng.root,
                                            'required': True})
    assert not failed
    facts = result['ansible_facts']['ascend_npu']
    assert (facts['present'], facts['npu_count'], facts['healthy']) == (True, 8, False)
    # The family is known before any driver: the roles plan the packages from it.
    assert facts['chip_family'] == '910b'
    assert facts['soc_version'] is None
    assert 'the NPU driver is not installed' in result['warnings'][0]


def test_unparseable_table_fails_quoting_the_line(run_module, fake_npu_smi, tmp_path):
    table = read_fixture('910B2_24.1.0_1.txt').replace('| 92.4 ', '| 9x.4 ')
    path = fake_npu_smi({'info': table})
    failed, result = run_module(npu_facts, {'npu_smi_path': path, 'sysfs_root': str(tmp_path)})
    assert failed
    assert result['msg'].startswith("cannot parse npu-smi output: Power value '9x.4' is not a number "
                                    "(line 16: '| 3     910B2               | OK            | 9x.4")
    assert 'exception' not in result


def test_npu_smi_info_failure(run_module, fake_npu_smi, tmp_path):
    path = fake_npu_smi({})
    failed, result = run_module(npu_facts, {'npu_smi_path': path, 'sysfs_root': str(tmp_path)})
    assert failed
    assert result['msg'] == ('`%s info` failed with rc=2: Error: the command info is not supported '
                             'on this device.' % path)
    assert result['rc'] == 2


def test_npu_smi_info_failure_read_from_the_pci_bus(run_module, fake_npu_smi, kunpeng):
    path = fake_npu_smi({})
    failed, result = run_module(npu_facts, {'npu_smi_path': path, 'sysfs_root': kunpeng.root,
                                            'on_npu_smi_failure': 'pci'})
    assert not failed
    facts = result['ansible_facts']['ascend_npu']
    assert (facts['present'], facts['chip_count'], facts['chip_family']) == (True, 8, '910b')
    assert facts['npu_smi_error'] == ('`%s info` failed with rc=2: Error: the command info is not supported '
                                      'on this device.' % path)


def test_npu_smi_path_that_is_not_executable(run_module, tmp_path):
    target = tmp_path / 'npu-smi'
    target.write_text('')
    failed, result = run_module(npu_facts, {'npu_smi_path': str(target)})
    assert failed and result['msg'] == 'npu_smi_path %s is not an executable file' % target


def test_unknown_gather_choice_is_rejected(run_module, tmp_path):
    failed, result = run_module(npu_facts, {'gather': ['fans']})
    assert failed and 'gather' in result['msg'] and 'fans' in result['msg']


def test_check_mode_returns_the_same_facts(run_module, fake_npu_smi, kunpeng, tmp_path):
    path = fake_npu_smi({'info': read_fixture('910B2_24.1.0_1.txt'),
                         'info -t board -i 0 -c 0': read_fixture('910B4_unknown_board-c0_excerpt_1.txt')
                         .replace('910B4', '910B2')})
    args = {'npu_smi_path': path, 'sysfs_root': kunpeng.root, 'install_path': str(tmp_path)}
    dummy, normal = run_module(npu_facts, args)
    dummy, checked = run_module(npu_facts, args, check_mode=True)
    assert normal['ansible_facts'] == checked['ansible_facts'] == {'ascend_npu': a2_facts(path)}


ANSIBLE = os.path.join(os.path.dirname(sys.executable), 'ansible')


@pytest.mark.skipif(not os.path.exists(ANSIBLE), reason='ansible CLI not installed next to this Python')
@pytest.mark.parametrize('table, expected_chips, expected_version', [
    ('910B2_24.1.0_1.txt', 8, '24.1.0'),
    ('Ascend910-A3_25.3.rc1_1.txt', 16, '25.3.rc1'),
    ('310P3_24.1.0.1_1.txt', 8, '24.1.0.1'),
    ('910B3_26.1.0_1.txt', 8, '26.1.0'),
])
def test_through_the_ansible_cli(fake_npu_smi, tmp_path, table, expected_chips, expected_version):
    path = fake_npu_smi({'info': read_fixture(table)})
    env = dict(os.environ, ANSIBLE_LOAD_CALLBACK_PLUGINS='1', ANSIBLE_STDOUT_CALLBACK='ansible.builtin.json',
               ANSIBLE_PYTHON_INTERPRETER=sys.executable, ANSIBLE_LOCAL_TEMP=str(tmp_path / 'tmp'),
               ANSIBLE_REMOTE_TEMP=str(tmp_path / 'remote-tmp'))
    proc = subprocess.run(
        [ANSIBLE, 'localhost', '-c', 'local', '-m', 'ascend.vllm.npu_facts',
         '-a', 'npu_smi_path=%s sysfs_root=%s install_path=%s' % (path, tmp_path / 'sys', tmp_path)],
        cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
        timeout=120, check=False)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    result = json.JSONDecoder().raw_decode(out[out.index('\n{') + 1:])[0]['plays'][0]['tasks'][0]['hosts']['localhost']
    facts = result['ansible_facts']['ascend_npu']
    assert (facts['chip_count'], facts['npu_smi_version'], facts['present']) == \
        (expected_chips, expected_version, True)
    from ansible_collections.ascend.vllm.plugins.module_utils.npu_smi import parse_info
    table_chips = parse_info(read_fixture(table))['chips']
    assert facts['chips'] == table_chips
    assert len(result['warnings']) == 1 and 'info -t board' in result['warnings'][0]
