"""NUMA topology from sysfs trees and the CPU recommendations built on it."""
import os

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.numa import (
    format_cpu_list,
    gather_numa_facts,
    parse_cpu_list,
    plan_groups,
    read_nodes,
    recommend,
)
from ansible_collections.ascend.vllm.plugins.module_utils.pci import (
    list_npu_devices,
    normalize_bus_id,
)

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'fixtures', 'npu-smi')
NPU_SMI = '/opt/test/npu-smi'


def read_fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


@pytest.mark.parametrize('text, cpus', [
    ('0-3,8,10-11', [0, 1, 2, 3, 8, 10, 11]),
    ('5', [5]),
    ('', []),
    ('0-7:2/4', [0, 2, 4, 6]),
    ('144-167\n', list(range(144, 168))),
])
def test_parse_cpu_list(text, cpus):
    assert parse_cpu_list(text) == cpus


def test_parse_cpu_list_rejects_garbage():
    with pytest.raises(ValueError):
        parse_cpu_list('0-x')
    with pytest.raises(ValueError):
        parse_cpu_list('7-3')


def test_format_cpu_list():
    assert format_cpu_list([3, 0, 1, 2, 8, 10, 11]) == '0-3,8,10-11'
    assert format_cpu_list([]) == ''
    assert format_cpu_list(parse_cpu_list('0-47,96-143')) == '0-47,96-143'


@pytest.mark.parametrize('text, expected', [
    ('0000:C1:00.0', '0000:c1:00.0'),
    ('00000000:c1:00.0', '0000:c1:00.0'),
    ('0000:9d:00.1', '0000:9d:00.1'),
    ('C1:00.0', None),
    ('NA', None),
])
def test_normalize_bus_id(text, expected):
    assert normalize_bus_id(text) == expected


def test_kunpeng_nodes(kunpeng):
    nodes = read_nodes(kunpeng.root)
    assert [n['id'] for n in nodes] == [0, 1, 2, 3]
    assert [n['cpus'] for n in nodes] == [list(range(i * 48, i * 48 + 48)) for i in range(4)]
    assert {n['memory_mb'] for n in nodes} == {257436}
    assert nodes[0]['hugepages'] == {'2048kB': {'total': 1024, 'free': 1000},
                                     '1048576kB': {'total': 0, 'free': 0}}
    assert nodes[1]['hugepages'] == {'2048kB': {'total': 0, 'free': 0},
                                     '1048576kB': {'total': 0, 'free': 0}}


def test_only_ascend_functions_are_npus(kunpeng):
    devices = list_npu_devices(kunpeng.root)
    assert [(d['bus_id'], d['numa_node']) for d in devices] == [
        ('0000:01:00.0', 0), ('0000:02:00.0', 0), ('0000:41:00.0', 0), ('0000:42:00.0', 0),
        ('0000:81:00.0', 2), ('0000:82:00.0', 2), ('0000:c1:00.0', 2), ('0000:c2:00.0', 2)]
    assert {d['device'] for d in devices} == {'0xd802'}


def test_unknown_ascend_device_id_with_accelerator_class_counts(sysfs):
    sysfs.pci('0000:05:00.0', device='0xd8ff', pci_class='0x120000', numa_node=0)
    sysfs.pci('0000:06:00.0', device='0xd8ff', pci_class='0x020000', numa_node=0)
    assert [d['bus_id'] for d in list_npu_devices(sysfs.root)] == ['0000:05:00.0']


def test_kunpeng_facts_from_sysfs_alone(kunpeng):
    facts, warnings = gather_numa_facts(kunpeng.root)
    assert warnings == []
    assert (facts['node_count'], facts['cpu_count'], facts['online_cpus']) == (4, 192, '0-191')
    assert [n['cpulist'] for n in facts['nodes']] == ['0-47', '48-95', '96-143', '144-191']
    assert facts['npus'][0] == {
        'index': 0, 'bus_id': '0000:01:00.0', 'device': '0xd802', 'numa_node': 0,
        'npu_id': None, 'chip_id': None, 'device_index': None, 'cpu_affinity': None,
        'recommended_cpus': '0-11'}
    # Four NPUs per node share its 48 CPUs: 12 each, disjoint.
    assert facts['cpus_per_npu'] == ['0-11', '12-23', '24-35', '36-47',
                                     '96-107', '108-119', '120-131', '132-143']
    assert facts['groups'] == [
        {'npus': [0, 1, 2, 3], 'devices': [], 'numa_nodes': [0], 'cpus': '0-47', 'cpu_count': 48},
        {'npus': [4, 5, 6, 7], 'devices': [], 'numa_nodes': [2], 'cpus': '96-143', 'cpu_count': 48},
    ]


def test_kunpeng_with_npu_smi_topo_and_groups(kunpeng, recording_runner, chip_mapping):
    runner = recording_runner({
        ('info',): read_fixture('910B2_24.1.0_1.txt'),
        ('info', '-m'): chip_mapping(read_fixture('910B2_24.1.0_1.txt')),
        ('info', '-t', 'topo'): read_fixture('910B3_24.1.rc1.b030_topo_1.txt'),
    })
    facts, warnings = gather_numa_facts(kunpeng.root, run=runner, npu_smi=NPU_SMI,
                                        npu_groups=[[0, 1, 2, 3, 4, 5, 6, 7], [6, 7]])
    assert warnings == []
    assert runner.calls == [[NPU_SMI, 'info'], [NPU_SMI, 'info', '-m'], [NPU_SMI, 'info', '-t', 'topo']]
    npus = facts['npus']
    # PCI order 01, 02, 41, 42, 81, 82, c1, c2 is NPU 1, 3, 5, 7, 4, 6, 0, 2 in npu-smi.
    assert [n['npu_id'] for n in npus] == [1, 3, 5, 7, 4, 6, 0, 2]
    assert [n['device_index'] for n in npus] == [1, 3, 5, 7, 4, 6, 0, 2]
    assert [n['cpu_affinity'] for n in npus] == [
        '144-167', '96-119', '0-23', '48-71', '0-23', '48-71', '144-167', '96-119']
    # The firmware's affinity wins over the NUMA node; NPUs sharing one split it.
    assert facts['cpus_per_npu'] == ['144-155', '96-107', '0-11', '48-59',
                                     '12-23', '60-71', '156-167', '108-119']
    assert facts['groups'] == [
        {'npus': [0, 1, 2, 3, 4, 5, 6, 7], 'devices': [0, 1, 2, 3, 4, 5, 6, 7], 'numa_nodes': [0, 2],
         'cpus': '0-23,48-71,96-119,144-167', 'cpu_count': 96},
        {'npus': [6, 7], 'devices': [0, 2], 'numa_nodes': [2], 'cpus': '96-119,144-167', 'cpu_count': 48},
    ]


def test_npu_smi_failures_are_warnings(kunpeng, recording_runner):
    runner = recording_runner({('info',): read_fixture('910B2_24.1.0_1.txt')})
    facts, warnings = gather_numa_facts(kunpeng.root, run=runner, npu_smi=NPU_SMI)
    assert warnings == ['`/opt/test/npu-smi info -m` failed with rc=2: Error: unsupported '
                        'command info -m; logic ids taken from the table order',
                        '`/opt/test/npu-smi info -t topo` failed with rc=2: Error: unsupported '
                        'command info -t topo; CPU affinity not gathered']
    assert [n['device_index'] for n in facts['npus']] == [1, 3, 5, 7, 4, 6, 0, 2]
    assert [n['npu_id'] for n in facts['npus']] == [1, 3, 5, 7, 4, 6, 0, 2]
    assert facts['cpus_per_npu'][0] == '0-11'

    runner = recording_runner({('info',): 'garbage\n'})
    facts, warnings = gather_numa_facts(kunpeng.root, run=runner, npu_smi=NPU_SMI)
    assert warnings == ["cannot parse npu-smi output: no npu-smi table found (line: 'garbage'); "
                        "NPU ids and CPU affinity not gathered"]
    assert runner.calls == [[NPU_SMI, 'info']]
    assert len(facts['npus']) == 8


def test_gather_topo_false_runs_only_info(kunpeng, recording_runner, chip_mapping):
    runner = recording_runner({('info',): read_fixture('910B2_24.1.0_1.txt'),
                               ('info', '-m'): chip_mapping(read_fixture('910B2_24.1.0_1.txt'))})
    facts, warnings = gather_numa_facts(kunpeng.root, run=runner, npu_smi=NPU_SMI, gather_topo=False)
    assert (warnings, len(runner.calls)) == ([], 2)
    assert {n['cpu_affinity'] for n in facts['npus']} == {None}


@pytest.mark.parametrize('groups', [None, [], [[0, 1, 2, 3, 4, 5, 6, 7], [6, 7]], [[7], [0, 6]]])
@pytest.mark.parametrize('with_npu_smi', [False, True])
def test_groups_from_an_earlier_read_equal_a_read_with_the_groups(
        kunpeng, recording_runner, chip_mapping, groups, with_npu_smi):
    # kernel_tuning plans its groups from node_facts' read (ascend.vllm.kernel_tuning_numa_plan)
    # instead of reading sysfs and npu-smi a second time: the answer must be the second read's.
    def read(npu_groups=None):
        runner = recording_runner({
            ('info',): read_fixture('910B2_24.1.0_1.txt'),
            ('info', '-m'): chip_mapping(read_fixture('910B2_24.1.0_1.txt')),
            ('info', '-t', 'topo'): read_fixture('910B3_24.1.rc1.b030_topo_1.txt'),
        })
        if not with_npu_smi:
            return gather_numa_facts(kunpeng.root, npu_groups=npu_groups)[0]
        return gather_numa_facts(kunpeng.root, run=runner, npu_smi=NPU_SMI, npu_groups=npu_groups)[0]

    assert plan_groups(read(), groups) == read(groups or None)['groups']


def test_groups_from_an_earlier_read_reject_an_unknown_npu(kunpeng):
    with pytest.raises(ValueError) as exc:
        plan_groups(gather_numa_facts(kunpeng.root)[0], [[0, 8]])
    assert str(exc.value).startswith('NPU index 8 in npu_groups does not exist (8 NPU(s) found')


def test_unknown_group_member_is_rejected(kunpeng):
    with pytest.raises(ValueError) as exc:
        gather_numa_facts(kunpeng.root, npu_groups=[[0, 8]])
    assert str(exc.value) == ('NPU index 8 in npu_groups does not exist (8 NPU(s) found, '
                              'indexed by PCI address from 0)')


def test_one_node_vm_without_numa_directory(sysfs):
    sysfs.cpus('0-3', present='0-3')
    sysfs.pool('kernel/mm/hugepages', 2048, 64, 60)
    sysfs.pool('kernel/mm/hugepages', 1048576, 0)
    meminfo = sysfs.meminfo(16303412)
    facts, warnings = gather_numa_facts(sysfs.root, meminfo_path=meminfo)
    assert warnings == []
    assert facts == {
        'node_count': 1, 'cpu_count': 4, 'online_cpus': '0-3',
        'nodes': [{'id': 0, 'cpus': [0, 1, 2, 3], 'cpulist': '0-3', 'memory_mb': 15921,
                   'hugepages': {'2048kB': {'total': 64, 'free': 60},
                                 '1048576kB': {'total': 0, 'free': 0}}}],
        'npus': [], 'cpus_per_npu': [], 'groups': [],
    }


def test_vm_with_offline_cpus_counts_present_ones(sysfs):
    sysfs.node(0, '0-5', 8388608)
    sysfs.cpus('0-5', present='0-7')
    facts, dummy = gather_numa_facts(sysfs.root)
    assert (facts['cpu_count'], facts['online_cpus']) == (8, '0-5')


def test_npu_without_numa_node_gets_every_cpu(sysfs):
    sysfs.node(0, '0-7', 8388608)
    sysfs.cpus('0-7')
    sysfs.pci('0000:3d:00.0', device='0xd500', numa_node=-1)
    sysfs.pci('0000:3e:00.0', device='0xd500', numa_node=-1)
    facts, dummy = gather_numa_facts(sysfs.root)
    assert [n['numa_node'] for n in facts['npus']] == [None, None]
    assert facts['cpus_per_npu'] == ['0-3', '4-7']
    assert facts['groups'] == [{'npus': [0, 1], 'devices': [], 'numa_nodes': [], 'cpus': '0-7', 'cpu_count': 8}]


def test_uneven_split_differs_by_one_cpu_at_most():
    nodes = [{'id': 0, 'cpus': list(range(10)), 'memory_mb': 1, 'hugepages': {}}]
    npus = [{'numa_node': 0, 'cpu_affinity': None} for dummy in range(3)]
    per_npu, dummy = recommend(nodes, npus)
    assert per_npu == ['0-3', '4-6', '7-9']


def test_this_host_counts_every_cpu():
    # The real sysfs of the machine running the tests: every configured CPU is counted.
    facts, dummy = gather_numa_facts('/sys', meminfo_path='/proc/meminfo')
    assert facts['cpu_count'] == os.sysconf('SC_NPROCESSORS_CONF')
    assert sum(len(n['cpus']) for n in facts['nodes']) == os.sysconf('SC_NPROCESSORS_ONLN')


def test_a2_binding_follows_logical_ids_through_the_bus(sysfs, recording_runner, chip_mapping):
    """An Atlas 800 A2 (910B3) as its captures show it: `npu-smi info` puts NPU 0 at bus C1:00.0
    and NPU 4 at 01:00.0, `info -t topo` gives NPU 0 the CPUs 144-167 and NPU 4 0-23; eight NUMA
    nodes of 24 CPUs, buses 00-3f on node 0, 40-7f on 2, 80-bf on 4, c0-ff on 6. The service names
    logical ids (ASCEND_RT_VISIBLE_DEVICES), so the binding of device 0 must be node 6."""
    from ansible_collections.ascend.vllm.plugins.module_utils.vllm_service import numa_binding
    for node_id in range(8):
        sysfs.node(node_id, '%d-%d' % (node_id * 24, node_id * 24 + 23), 133169152)
    sysfs.cpus('0-191')
    for bus, node_id in (('01', 0), ('02', 0), ('41', 2), ('42', 2), ('81', 4), ('82', 4), ('c1', 6), ('c2', 6)):
        sysfs.pci('0000:%s:00.0' % bus, numa_node=node_id)
    runner = recording_runner({
        ('info',): read_fixture('910B3_26.1.0_1.txt'),
        ('info', '-m'): chip_mapping(read_fixture('910B3_26.1.0_1.txt')),
        ('info', '-t', 'topo'): read_fixture('910B3_24.1.rc1.b030_topo_1.txt'),
    })
    facts, warnings = gather_numa_facts(sysfs.root, run=runner, npu_smi=NPU_SMI)
    assert warnings == []
    assert [(n['bus_id'], n['device_index']) for n in facts['npus']][0] == ('0000:01:00.0', 4)
    groups = facts['groups']
    assert [(g['npus'], g['devices'], g['numa_nodes']) for g in groups] == [
        ([0, 1], [4, 5], [0]), ([2, 3], [6, 7], [2]), ([4, 5], [2, 3], [4]), ([6, 7], [0, 1], [6])]
    assert numa_binding(groups, [0]) == {'cpus': '144-167', 'numa_nodes': [6], 'entries': 1}
    assert numa_binding(groups, [4]) == {'cpus': '0-23', 'numa_nodes': [0], 'entries': 1}
    assert numa_binding(groups, [0, 1, 2, 3]) == {'cpus': '96-119,144-167', 'numa_nodes': [4, 6], 'entries': 2}


def test_logic_ids_come_from_the_chip_mapping_not_the_table_order(kunpeng, recording_runner, chip_mapping):
    """``npu-smi info -m`` names the logic id of every chip; the table position is only the
    fallback. Reversed ids here, so that reading positions instead fails."""
    info = read_fixture('910B2_24.1.0_1.txt')
    runner = recording_runner({('info',): info, ('info', '-m'): chip_mapping(info, range(7, -1, -1))})
    facts, warnings = gather_numa_facts(kunpeng.root, run=runner, npu_smi=NPU_SMI, gather_topo=False)
    assert warnings == []
    # PCI order is NPU 1, 3, 5, 7, 4, 6, 0, 2; NPU n has logic id 7 - n.
    assert [n['device_index'] for n in facts['npus']] == [6, 4, 2, 0, 3, 1, 7, 5]
