"""vllm_service's validation rules for the node: its NPUs, the chips a service needs, the Ray
cluster's chips and a multi-node node's serving address (the sentences the scenarios assert)."""
import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import vllm_service as vs

NPU = {'present': True, 'chip_count': 8, 'chip_name': '910B3', 'npu_smi_error': None}


@pytest.mark.parametrize('npu, family, check_mode, expected', [
    (NPU, '910b', False, ''),
    (dict(NPU, chip_name=None), '', True, 'profile p supports 910b, 910_93, this node has NPUs (unknown family)'),
    (dict(NPU, chip_name=None), '910b', True, ''),
    (dict(NPU, npu_smi_error='dcmi_init_ret=-8005'), '910b', False,
     'npu-smi fails (dcmi_init_ret=-8005); repair the driver first (playbooks/npu_driver.yml)'),
    (dict(NPU, chip_name='310P3'), '310p', False, 'profile p supports 910b, 910_93, this node has 310P3 (310p)'),
    (dict(NPU, chip_name=None), '', False,
     'npu-smi does not list the NPUs of this node (no driver running?); run the npu_driver role first'),
    (dict(NPU, present=False, chip_count=0), '', False,
     'npu-smi does not list the NPUs of this node (no driver running?); run the npu_driver role first'),
])
def test_npu_problem(npu, family, check_mode, expected):
    assert vs.npu_problem(npu, 'p', ['910b', '910_93'], family, check_mode) == expected


def need(tp=1, dp=1, local=None, pp=1):
    return vs.chips_needed({'tensor-parallel-size': tp, 'data-parallel-size': dp, 'pipeline-parallel-size': pp,
                            'data-parallel-size-local': local if local is not None else dp})


@pytest.mark.parametrize('needed, devices, requested, mode, expected', [
    (need(4, 2), list(range(8)), [], 'none', ''),
    (need(4, 4), list(range(16)), [], 'none',
     'tensor parallel 4 x data parallel 4 needs 16 chips, but 8 are visible on n1 (8 chips, vllm_service_devices unset). '
     'Lower vllm_service_tensor_parallel_size / vllm_service_data_parallel_size or give the service more chips'),
    (need(2), [5], [5], 'none',
     'tensor parallel 2 x data parallel 1 needs 2 chips, but 1 are visible on n1 (8 chips, vllm_service_devices 5). '
     'Lower vllm_service_tensor_parallel_size / vllm_service_data_parallel_size or give the service more chips'),
    (need(1, 11, 9), list(range(9)), [], 'dp',
     'tensor parallel 1 x data parallel 9 needs 9 chips, but 8 are visible on n1 (8 chips, vllm_service_devices unset). '
     'Lower vllm_service_tensor_parallel_size / vllm_service_data_parallel_size_local or give the service more chips'),
    (need(2, pp=2), [0], [0], 'none',
     'tensor parallel 2 x data parallel 1 x pipeline parallel 2 needs 4 chips, but 1 are visible on n1 (8 chips, '
     'vllm_service_devices 0). Lower vllm_service_tensor_parallel_size / vllm_service_data_parallel_size or give the '
     'service more chips'),
    (need(1), [1, 1], [1, 1], 'none', 'vllm_service_devices 1,1 must name distinct chips of 0-7 (8 chips on this node)'),
    (need(1), [9], [9], 'none', 'vllm_service_devices 9 must name distinct chips of 0-7 (8 chips on this node)'),
    (need(16), list(range(8)), [], 'ray', ''),
])
def test_chip_fit_problem(needed, devices, requested, mode, expected):
    assert vs.chip_fit_problem(needed, devices, requested, 8, mode, 'n1') == expected


def test_ray_chips_problem():
    assert vs.ray_chips_problem(need(8, 2), [8, 8]) == ''
    assert vs.ray_chips_problem(need(16, 2), [8, 8]) == (
        'tensor parallel 16 x data parallel 2 needs 32 chips, the 2 nodes of the ray service have 16; lower '
        'vllm_service_tensor_parallel_size / vllm_service_data_parallel_size or add nodes to vllm_workers')


@pytest.mark.parametrize('interface, address, chosen, expected', [
    ('', '', ('eth0', '10.0.0.5'), ''),
    ('ib9', '', ('ib9', ''), 'vllm_service_multinode_interface is ib9, but n1 has no such interface (it has eth0, lo)'),
    ('', '10.9.9.9', ('eth0', '10.9.9.9'),
     'vllm_service_multinode_address is 10.9.9.9, but no interface of n1 holds it (its IPv4 addresses are 10.0.0.5)'),
    ('eth0', '10.9.9.9', ('eth0', '10.9.9.9'),
     'vllm_service_multinode_address is 10.9.9.9, but interface eth0 of n1 does not hold it (its IPv4 addresses are '
     '10.0.0.5)'),
    ('', '', ('', ''), 'n1 has no default IPv4 route to take its serving address from; set vllm_service_multinode_address '
                       '(and vllm_service_multinode_interface) for it'),
    ('eth0', '', ('eth0', ''), 'n1 has no IPv4 address on interface eth0 to take its serving address from; set '
                               'vllm_service_multinode_address (and vllm_service_multinode_interface) for it'),
])
def test_serving_address_problem(interface, address, chosen, expected):
    assert vs.serving_address_problem('n1', interface, address, ['lo', 'eth0'], ['10.0.0.5'], *chosen) == expected
