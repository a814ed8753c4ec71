"""gather_npu_facts: which commands run, and how their results become ascend_npu facts."""
import os

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.command import CommandFailed
from ansible_collections.ascend.vllm.plugins.module_utils.npu_smi import gather_npu_facts

NPU_SMI = '/opt/test/npu-smi'
BOARD_C0 = ('info', '-t', 'board', '-i', '0', '-c', '0')

# The NPU functions of the conftest's Kunpeng sysfs tree (8 x 0xd802), in address order.
KUNPENG_BUS_IDS = ['0000:01:00.0', '0000:02:00.0', '0000:41:00.0', '0000:42:00.0',
                   '0000:81:00.0', '0000:82:00.0', '0000:c1:00.0', '0000:c2:00.0']


FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'fixtures', 'npu-smi')


def board_for(chip_name):
    """The real 910B4 board excerpt with another chip name (same layout, prompt line kept)."""
    with open(os.path.join(FIXTURES, '910B4_unknown_board-c0_excerpt_1.txt')) as handle:
        return handle.read().replace('910B4', chip_name)


def gather(runner, tmp_path, **kwargs):
    kwargs.setdefault('install_path', str(tmp_path / 'Ascend'))
    kwargs.setdefault('sysfs_root', str(tmp_path / 'no-sys'))
    return gather_npu_facts(runner, NPU_SMI, **kwargs)


@pytest.mark.parametrize('table, chips, npus', [
    ('910B2_24.1.0_1.txt', 8, 8),
    ('Ascend910-A3_25.3.rc1_1.txt', 16, 8),
])
def test_default_gather_runs_npu_smi_twice(recording_runner, fixture_text, tmp_path, table, chips, npus):
    runner = recording_runner({('info',): fixture_text(table), BOARD_C0: board_for('910B2')})
    facts, warnings = gather(runner, tmp_path)
    assert runner.calls == [[NPU_SMI, 'info'], [NPU_SMI] + list(BOARD_C0)]
    assert (facts['chip_count'], facts['npu_count']) == (chips, npus)
    assert warnings == []


def test_a2_facts(recording_runner, fixture_text, tmp_path):
    runner = recording_runner({('info',): fixture_text('910B2_24.1.0_1.txt'), BOARD_C0: board_for('910B2')})
    facts, warnings = gather(runner, tmp_path)
    chips = facts.pop('chips')
    assert facts == {
        'present': True, 'npu_smi_path': NPU_SMI, 'npu_smi_version': '24.1.0',
        'driver_version': None, 'firmware_version': None, 'npu_count': 8, 'chip_count': 8,
        'chip_name': '910B2', 'soc_version': 'ascend910b2', 'healthy': True, 'processes': [], 'npu_smi_error': None,
        'chip_family': None, 'pci_functions': [],   # no PCI tree in tmp_path
    }
    assert [c['bus_id'] for c in chips] == [
        '0000:c1:00.0', '0000:01:00.0', '0000:c2:00.0', '0000:02:00.0',
        '0000:81:00.0', '0000:41:00.0', '0000:82:00.0', '0000:42:00.0']
    assert {c['numa_node'] for c in chips} == {None}


def test_a3_soc_version_from_npu_name(recording_runner, fixture_text, tmp_path):
    runner = recording_runner({
        ('info',): fixture_text('Ascend910-A3_25.3.rc1_1.txt'),
        BOARD_C0: fixture_text('Ascend910-A3-9392_unknown_board-c0_excerpt_1.txt'),
    })
    facts, dummy = gather(runner, tmp_path)
    assert (facts['chip_name'], facts['soc_version']) == ('Ascend910', 'ascend910_9392')


def test_a3_board_failure_leaves_soc_unknown_and_warns(recording_runner, fixture_text, tmp_path):
    runner = recording_runner({('info',): fixture_text('Ascend910-A3_25.3.rc1_1.txt')})
    facts, warnings = gather(runner, tmp_path)
    assert facts['soc_version'] is None
    assert facts['chip_count'] == 16
    assert warnings == [
        '`/opt/test/npu-smi info -t board -i 0 -c 0` failed with rc=2: Error: unsupported '
        'command info -t board -i 0 -c 0; soc_version derived from the chip name in npu-smi info']


def test_310p_board_failure_falls_back_to_table_chip_name(recording_runner, fixture_text, tmp_path):
    runner = recording_runner({('info',): fixture_text('310P3_24.1.0.1_1.txt')})
    facts, warnings = gather(runner, tmp_path)
    assert facts['soc_version'] == 'ascend310p3'
    assert facts['npu_count'] == 8
    assert len(warnings) == 1 and 'rc=2' in warnings[0]
    assert runner.calls[1] == [NPU_SMI, 'info', '-t', 'board', '-i', '0', '-c', '0']


def test_board_query_targets_the_first_chip_ids(recording_runner, fixture_text, tmp_path):
    table = fixture_text('310P3_24.1.0.1_1.txt')
    # Drop the first card: the first chip is now NPU 32.
    lines = table.splitlines()
    del lines[6:9]
    runner = recording_runner({('info',): '\n'.join(lines) + '\n'})
    gather(runner, tmp_path)
    assert runner.calls[1] == [NPU_SMI, 'info', '-t', 'board', '-i', '32', '-c', '0']


def test_topo_and_mapping_are_one_call_each(recording_runner, fixture_text, tmp_path):
    mapping = '\n'.join(
        ['        NPU ID    Chip ID    Chip Logic ID    Chip Name'] +
        ['        %d         0          %d                Ascend 910B2' % (n, 7 - n) for n in range(8)] +
        ['        %d         1          -                Mcu' % n for n in range(8)]) + '\n'
    runner = recording_runner({
        ('info',): fixture_text('910B2_24.1.0_1.txt'),
        BOARD_C0: board_for('910B2'),
        ('info', '-t', 'topo'): fixture_text('910B3_24.1.rc1.b030_topo_1.txt'),
        ('info', '-m'): mapping,
    })
    facts, warnings = gather(runner, tmp_path, gather=['topo', 'mapping'])
    assert warnings == []
    assert len(runner.calls) == 4
    chips = facts['chips']
    assert [c['device_id'] for c in chips] == [7, 6, 5, 4, 3, 2, 1, 0]
    # With logic ids known, topo row NPU<i> belongs to the chip whose logic id is i.
    assert [c['cpu_affinity'] for c in chips] == [
        '48-71', '48-71', '0-23', '0-23', '96-119', '96-119', '144-167', '144-167']


def test_topo_without_logic_ids_follows_table_order(recording_runner, fixture_text, tmp_path):
    runner = recording_runner({
        ('info',): fixture_text('910B2_24.1.0_1.txt'),
        ('info', '-t', 'topo'): fixture_text('910B3_24.1.rc1.b030_topo_1.txt'),
    })
    facts, warnings = gather(runner, tmp_path, gather=['topo'])
    assert [c['cpu_affinity'] for c in facts['chips']] == [
        '144-167', '144-167', '96-119', '96-119', '0-23', '0-23', '48-71', '48-71']
    assert len(warnings) == 1  # the board query only
    assert [c[2:4] for c in runner.calls[1:]] == [['-t', 'board'], ['-t', 'topo']]


def test_failing_per_chip_query_warns_once_and_stops(recording_runner, fixture_text, tmp_path):
    runner = recording_runner({('info',): fixture_text('910B2_24.1.0_1.txt'), BOARD_C0: board_for('910B2')})
    facts, warnings = gather(runner, tmp_path, gather=['memory', 'topo'])
    assert len(runner.calls) == 4  # info, board, topo, memory of the first chip only
    assert warnings == [
        '`/opt/test/npu-smi info -t topo` failed with rc=2: Error: unsupported command info -t '
        'topo; cpu_affinity left null',
        '`/opt/test/npu-smi info -t memory -i 0 -c 0` failed with rc=2: Error: unsupported '
        'command info -t memory -i 0 -c 0; "memory" details not gathered for this and the '
        'remaining chips',
    ]
    assert facts['soc_version'] == 'ascend910b2'
    assert [c['details'] for c in facts['chips']] == [{}] * 8
    assert [c['cpu_affinity'] for c in facts['chips']] == [None] * 8


def test_per_chip_queries_fill_details(recording_runner, fixture_text, tmp_path):
    usages = fixture_text('910B-IT21HMDC_25.5.1_usages_1.txt')
    responses = {('info',): fixture_text('Ascend910-A3_25.3.rc1_1.txt')}
    for npu in range(8):
        for chip in range(2):
            responses[('info', '-t', 'usages', '-i', str(npu), '-c', str(chip))] = usages
            responses[('info', '-t', 'board', '-i', str(npu), '-c', str(chip))] = \
                fixture_text('Ascend910-A3-9392_unknown_board-c0_excerpt_1.txt').replace(
                    'Chip ID                        : 0', 'Chip ID                        : %d' % chip)
    runner = recording_runner(responses)
    facts, warnings = gather(runner, tmp_path, gather=['usages', 'board'])
    assert warnings == []
    # info + 16 board (the first one reused for the SoC name) + 16 usages
    assert len(runner.calls) == 1 + 16 + 16
    assert facts['chips'][3]['details']['usages']['HBM Capacity(MB)'] == '65536'
    assert facts['chips'][3]['details']['board']['Chip ID'] == '1'
    assert facts['chips'][0]['details']['board']['NPU Name'] == '9392'


def test_health_other_than_ok_is_unhealthy(recording_runner, fixture_text, tmp_path):
    table = fixture_text('910B2_24.1.0_1.txt').replace(
        '| 5     910B2               | OK     ', '| 5     910B2               | Alarm  ')
    facts, dummy = gather(recording_runner({('info',): table}), tmp_path)
    assert facts['healthy'] is False
    assert [c['health'] for c in facts['chips']].count('Alarm') == 1


def test_npu_smi_info_failure_names_command_rc_and_stderr(recording_runner, tmp_path):
    runner = recording_runner({('info',): (
        -8005, 'dcmi module initialize failed. ret is -8005\n', '')})
    with pytest.raises(CommandFailed) as exc:
        gather(runner, tmp_path)
    assert str(exc.value) == ('`/opt/test/npu-smi info` failed with rc=-8005 (no stderr; stdout: '
                              'dcmi module initialize failed. ret is -8005)')
    runner = recording_runner({('info',): (1, '', 'line one\nline two\nline three\nline four\n')})
    with pytest.raises(CommandFailed) as exc:
        gather(runner, tmp_path)
    assert str(exc.value).endswith('rc=1: line one / line two / line three / ...')


def test_numa_node_of_each_chip_from_sysfs(recording_runner, fixture_text, kunpeng, tmp_path):
    runner = recording_runner({('info',): fixture_text('910B2_24.1.0_1.txt')})
    facts, dummy = gather(runner, tmp_path, sysfs_root=kunpeng.root)
    assert [(c['npu_id'], c['numa_node']) for c in facts['chips']] == [
        (0, 2), (1, 0), (2, 2), (3, 0), (4, 2), (5, 0), (6, 2), (7, 0)]


def test_numa_node_minus_one_is_null(recording_runner, fixture_text, sysfs, tmp_path):
    sysfs.pci('0000:c1:00.0', numa_node=-1)
    sysfs.pci('0000:01:00.0', numa_node=1)
    facts, dummy = gather(recording_runner({('info',): fixture_text('910B2_24.1.0_1.txt')}), tmp_path,
                          sysfs_root=sysfs.root)
    assert [c['numa_node'] for c in facts['chips']][:2] == [None, 1]


def test_versions_from_version_info(recording_runner, fixture_text, tmp_path):
    install = tmp_path / 'Ascend'
    (install / 'driver').mkdir(parents=True)
    (install / 'firmware').mkdir()
    (install / 'driver' / 'version.info').write_text(
        'Version=24.1.rc3\nascendhal_version=7.35.19\ncompatible_version_fw=[7.0.0,7.5.99]\n')
    (install / 'firmware' / 'version.info').write_text('Version=7.5.0.1.129\ncompatible_version_drv=[23.0.rc3]\n')
    facts, dummy = gather(recording_runner({('info',): fixture_text('910B2_24.1.0_1.txt')}), tmp_path)
    assert (facts['driver_version'], facts['firmware_version']) == ('24.1.rc3', '7.5.0.1.129')


def test_no_npu_smi_and_no_pci_device_is_absent_not_an_error(recording_runner, sysfs, tmp_path):
    sysfs.pci('0000:7d:00.0', device='0xa222', pci_class='0x020000', numa_node=0)  # Huawei NIC
    runner = recording_runner()
    facts, warnings = gather_npu_facts(runner, None, install_path=str(tmp_path), sysfs_root=sysfs.root)
    assert runner.calls == []
    assert warnings == []
    assert facts == {
        'present': False, 'npu_smi_path': None, 'npu_smi_version': None, 'driver_version': None,
        'firmware_version': None, 'npu_count': 0, 'chip_count': 0, 'chip_name': None,
        'soc_version': None, 'healthy': False, 'chips': [], 'processes': [], 'chip_family': None,
        'npu_smi_error': None, 'pci_functions': [],
    }


def test_pci_devices_without_npu_smi_mean_driver_missing(recording_runner, kunpeng, tmp_path):
    facts, warnings = gather_npu_facts(recording_runner(), None, install_path='/usr/local/Ascend',
                                       sysfs_root=kunpeng.root)
    assert (facts['present'], facts['npu_count'], facts['chip_count'], facts['chips']) == (True, 8, 8, [])
    assert facts['chip_family'] == '910b'
    # The NPU functions only (not the board's NIC and ZIP engine), in address order, with their family.
    assert facts['pci_functions'] == [{'bus_id': bus_id, 'device': '0xd802', 'family': '910b'}
                                      for bus_id in KUNPENG_BUS_IDS]
    assert warnings == [
        'found 8 Ascend NPU PCI function(s) (0000:01:00.0, 0000:02:00.0, 0000:41:00.0, '
        '0000:42:00.0, 0000:81:00.0, 0000:82:00.0, 0000:c1:00.0, 0000:c2:00.0) but no npu-smi: '
        'the NPU driver is not installed (or /usr/local/Ascend/driver/tools is missing)']


def test_sysfs_root_is_only_read(recording_runner, fixture_text, kunpeng, tmp_path):
    before = sorted(os.walk(kunpeng.root))
    gather(recording_runner({('info',): fixture_text('910B2_24.1.0_1.txt')}), tmp_path, sysfs_root=kunpeng.root)
    assert sorted(os.walk(kunpeng.root)) == before


def test_a_failing_npu_smi_reads_the_pci_bus_when_asked(recording_runner, kunpeng, tmp_path):
    # An installed driver that does not run: npu-smi fails, the PCI bus still names the NPUs.
    runner = recording_runner({('info',): (8, '', 'dcmi module initialize failed. ret is -8005\n')})
    facts, warnings = gather_npu_facts(runner, NPU_SMI, install_path=str(tmp_path), sysfs_root=kunpeng.root,
                                       on_failure='pci')
    assert (facts['present'], facts['npu_count'], facts['chip_family'], facts['chips']) == (True, 8, '910b', [])
    assert [function['family'] for function in facts['pci_functions']] == ['910b'] * 8
    assert facts['npu_smi_path'] == NPU_SMI
    assert facts['npu_smi_error'] == '`%s info` failed with rc=8: dcmi module initialize failed. ret is -8005' % NPU_SMI
    assert warnings == [facts['npu_smi_error'] + '; NPUs read from the PCI bus']
    with pytest.raises(CommandFailed):
        gather_npu_facts(runner, NPU_SMI, install_path=str(tmp_path), sysfs_root=kunpeng.root)


@pytest.mark.parametrize('cgroup, owner', [
    ('0::/system.slice/vllm-default.service\n', 'vllm-default.service'),
    # cgroup v1: systemd's own hierarchy names the unit.
    ('12:memory:/system.slice/other.service\n1:name=systemd:/system.slice/ray-head.service\n', 'ray-head.service'),
    ('0::/machine.slice/libpod-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope/container\n',
     'container 0123456789ab'),
    ('0::/system.slice/docker-89abcdef01234567.scope\n', 'container 89abcdef0123'),
    ('0::/user.slice/user-1000.slice/session-4.scope\n', None),
    ('', None),
])
def test_the_owner_of_a_process_comes_from_its_cgroup(cgroup, owner):
    from ansible_collections.ascend.vllm.plugins.module_utils.npu_smi import process_owner
    assert process_owner(cgroup) == owner


def test_each_npu_process_names_the_unit_that_holds_it(recording_runner, fixture_text, tmp_path):
    runner = recording_runner({('info',): fixture_text('910B3_26.1.0_1.txt'), BOARD_C0: board_for('910B3')})
    proc = tmp_path / 'proc'
    (proc / '485946').mkdir(parents=True)
    (proc / '485946' / 'cgroup').write_text('0::/system.slice/vllm-old.service\n')
    facts, _warnings = gather(runner, tmp_path, proc_root=str(proc))
    assert [(p['pid'], p['unit']) for p in facts['processes']] == [(485946, 'vllm-old.service')]
    # A process gone since npu-smi listed it has no owner.
    facts, _warnings = gather(runner, tmp_path, proc_root=str(tmp_path / 'empty'))
    assert [p['unit'] for p in facts['processes']] == [None]
