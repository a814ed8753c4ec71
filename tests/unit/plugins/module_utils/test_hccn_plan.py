"""The fleet's NPU NIC address plan: base CIDR with node offsets, explicit lists, refusals."""
import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.hccn_plan import devices_of, peers_of, plan_fleet


def node(host, devices=8, **kw):
    request = {'host': host, 'devices': list(range(devices)), 'chip_family': '910b', 'addresses': [],
               'base_cidr': '', 'node_index': None, 'node_stride': 16, 'first_offset': 1,
               'netmask': '', 'gateway': '', 'netdetect': ''}
    request.update(kw)
    return request


def test_base_cidr_numbers_nodes_by_position():
    result = plan_fleet([node('a', base_cidr='10.20.0.0/16', gateway='10.20.255.254'),
                         node('b', base_cidr='10.20.0.0/16', gateway='10.20.255.254')])
    assert result['errors'] == []
    assert [d['address'] for d in result['plan']['a']] == ['10.20.0.%d' % i for i in range(1, 9)]
    assert [d['address'] for d in result['plan']['b']] == ['10.20.0.%d' % i for i in range(17, 25)]
    assert result['plan']['b'][0] == {'device': 0, 'address': '10.20.0.17', 'netmask': '255.255.0.0',
                                      'gateway': '10.20.255.254', 'netdetect': '10.20.255.254'}


def test_explicit_index_stride_and_netdetect():
    result = plan_fleet([node('a', devices=2, base_cidr='10.20.0.0/16', node_index=3, node_stride=256,
                              first_offset=10, netdetect='10.20.255.1')])
    assert result['errors'] == []
    assert result['plan']['a'] == [
        {'device': 0, 'address': '10.20.3.10', 'netmask': '255.255.0.0', 'gateway': None, 'netdetect': '10.20.255.1'},
        {'device': 1, 'address': '10.20.3.11', 'netmask': '255.255.0.0', 'gateway': None, 'netdetect': '10.20.255.1'},
    ]


def test_explicit_lists_with_a_netmask():
    result = plan_fleet([node('a', devices=2, addresses=['29.0.0.1', '29.0.0.2'], netmask='255.255.255.0'),
                         node('b', devices=2, addresses=['29.0.0.3', '29.0.0.4'], netmask='24')])
    assert result['errors'] == []
    assert result['plan']['b'][1]['address'] == '29.0.0.4' and result['plan']['b'][1]['netmask'] == '255.255.255.0'
    assert peers_of(result['plan'], 'a') == [{'node': 'b', 'device': 0, 'address': '29.0.0.3'},
                                             {'node': 'b', 'device': 1, 'address': '29.0.0.4'}]


def test_duplicates_across_the_fleet_name_both_places():
    result = plan_fleet([node('a', devices=2, addresses=['29.0.0.1', '29.0.0.2'], netmask='255.255.255.0'),
                         node('b', devices=2, addresses=['29.0.0.3', '29.0.0.1'], netmask='255.255.255.0')])
    assert result['errors'] == ['NPU address 29.0.0.1 is planned twice: a device 0 and b device 1']
    result = plan_fleet([node('a', base_cidr='10.20.0.0/16', node_index=1), node('b', base_cidr='10.20.0.0/16')])
    assert result['errors'][0] == 'NPU address 10.20.0.17 is planned twice: a device 0 and b device 0'
    assert len(result['errors']) == 8


@pytest.mark.parametrize('request_, message', [
    (node('a', addresses=['29.0.0.1'] * 7, netmask='255.255.255.0'),
     'a: hccn_addresses has 7 addresses for 8 NPU devices (0, 1, 2, 3, 4, 5, 6, 7)'),
    (node('a', devices=1, addresses=['29.0.0.300'], netmask='255.255.255.0'),
     'a: hccn_addresses[0] 29.0.0.300 is not an IPv4 address'),
    (node('a', devices=1, addresses=['29.0.0.1']), 'a: set hccn_netmask (or hccn_base_cidr) for hccn_addresses'),
    (node('a'), 'a: set hccn_addresses (one per NPU device) or hccn_base_cidr'),
    (node('a', chip_family='310p'), 'a: 310p NPUs have no RoCE NIC (hccn_tool: "The command is not supported on '
                                    'this product."); take the host out of the multi-node groups'),
    (node('a', devices=0, base_cidr='10.20.0.0/16'),
     'a: no NPU device found (npu-smi lists no chip); install the NPU driver first'),
    (dict(node('a', base_cidr='10.20.0.0/16'), devices=[None]),
     'a: npu-smi gave no device id (physical or logic) for every chip; hccn_tool -i needs them'),
    (node('a', base_cidr='10.20.0.1/16'),
     'a: hccn_base_cidr 10.20.0.1/16 is not an IPv4 network (10.20.0.1/16 has host bits set)'),
    (node('a', base_cidr='10.20.0.0/28', node_index=1),
     'a: hccn_base_cidr 10.20.0.0/28 has no room for node 1 (8 NPU devices from offset 17; the last usable offset is 14)'),
    (node('a', devices=16, base_cidr='10.20.0.0/16', node_stride=8), 'a: 16 NPU devices do not fit hccn_node_stride 8'),
    (node('a', base_cidr='10.20.0.0/16', node_index=-1), 'a: hccn_node_index -1 is negative'),
    (node('a', base_cidr='10.20.0.0/16', netmask='255.0.255.0'), 'a: hccn_netmask 255.0.255.0 is not a netmask'),
    (node('a', base_cidr='10.20.0.0/16', gateway='10.20.0'), 'a: hccn_gateway 10.20.0 is not an IPv4 address'),
    (node('a', base_cidr='10.20.0.0/16', netdetect='x'), 'a: hccn_netdetect x is not an IPv4 address'),
    (node('a', devices=1, base_cidr='10.20.0.0/16', gateway='10.21.0.1'),
     'a: hccn_gateway 10.21.0.1 is outside the segment 10.20.0.0/16 of device 0'),
    (node('a', devices=1, addresses=['10.30.0.1'], base_cidr='10.20.0.0/16'),
     'a: device 0 address 10.30.0.1 is outside hccn_base_cidr 10.20.0.0/16'),
    (node('a', devices=1, addresses=['29.0.0.255'], netmask='255.255.255.0'),
     'a: device 0 address 29.0.0.255 is the broadcast address of 29.0.0.0/24'),
    (node('a', devices=1, addresses=['29.0.0.0'], netmask='255.255.255.0'),
     'a: device 0 address 29.0.0.0 is the network address of 29.0.0.0/24'),
    (node('a', devices=1, addresses=['192.168.1.9'], netmask='255.255.0.0'),
     'a: device 0 address 192.168.1.9 is in 192.168.1.0/24, the NPU virtual NIC network hccn_tool refuses'),
])
def test_refusals_name_the_host(request_, message):
    result = plan_fleet([request_])
    assert result['errors'] == [message]
    assert result['plan'] == {'a': []}


def test_every_problem_is_reported_at_once():
    result = plan_fleet([node('a', chip_family='310p'), node('b', addresses=['29.0.0.1'], netmask='24'),
                         node('c', base_cidr='10.20.0.0/16')])
    assert [e.split(':')[0] for e in result['errors']] == ['a', 'b']
    assert len(result['plan']['c']) == 8


def test_hccn_tool_gets_the_physical_id_where_npu_smi_prints_it():
    # hccn_tool -i reads a physical id on A2/A3 (hicann/driver hccn_tool cmd.c, tool_parse_dev).
    chips = [{'device_id': 0, 'phy_id': 1}, {'device_id': 1, 'phy_id': 0}, {'device_id': 2, 'phy_id': 2}]
    assert devices_of(chips) == [1, 0, 2]
    request = node('a', base_cidr='10.20.0.0/16')
    del request['devices']
    request['chips'] = chips
    result = plan_fleet([request])
    assert result['errors'] == []
    assert [(d['device'], d['address']) for d in result['plan']['a']] == [
        (1, '10.20.0.1'), (0, '10.20.0.2'), (2, '10.20.0.3')]


def test_one_numbering_space_per_node():
    # A chip without a physical id: the logic ids of all, never a mix naming one chip twice.
    chips = [{'device_id': 0, 'phy_id': 1}, {'device_id': 1, 'phy_id': None}]
    assert devices_of(chips) == [0, 1]
    assert devices_of([]) == []


def test_a_device_named_twice_is_refused():
    request = node('a', base_cidr='10.20.0.0/16', chips=[{'device_id': 3, 'phy_id': 1}, {'device_id': 4, 'phy_id': 1}])
    assert plan_fleet([request])['errors'] == [
        'a: npu-smi names device 1 more than once; hccn_tool -i needs one id per chip']


def test_chips_without_any_id_are_refused():
    request = node('a', base_cidr='10.20.0.0/16', chips=[{'device_id': None, 'phy_id': None}])
    assert plan_fleet([request])['errors'] == [
        'a: npu-smi gave no device id (physical or logic) for every chip; hccn_tool -i needs them']
