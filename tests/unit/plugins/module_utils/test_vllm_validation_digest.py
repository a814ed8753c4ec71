"""The digest the vllm_service role compares before it validates again in the same run: it moves
with everything the validation decides from, and only with that."""
import copy

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import vllm_service as vs

SETTINGS = {'vllm_service_port': 8000, 'vllm_service_api_key': 'k-1', 'vllm_service_model_profile': 'p'}
STACK = {'release': '0.23.0', 'vllm': '0.23.0', 'cann': '8.5.1'}
NPU = {'present': True, 'chip_name': '910B3', 'chip_family': '910b', 'chip_count': 2, 'npu_smi_error': None,
       'chips': [{'device_id': 0, 'phy_id': 0, 'temperature_c': 40, 'power_w': 90.1, 'health': 'OK',
                  'hbm_used_mb': 3000},
                 {'device_id': 1, 'phy_id': 1, 'temperature_c': 41, 'power_w': 88.0, 'health': 'OK',
                  'hbm_used_mb': 3100}]}
NUMA = {'groups': [[0, 1]], 'nodes': [{'id': 0, 'cpulist': '0-1', 'memory_mb': 1000, 'hugepages': {'free': 3}}]}
CONTEXT = {'check_mode': False, 'architecture': 'x86_64', 'numa_plan': None, 'cann_env_file': '/etc/ascend-vllm/cann.env'}


def digest(settings=None, stack=None, npu=None, numa=None, context=None):
    """The digest of the inputs above, with the ones given instead."""
    return vs.validation_digest(SETTINGS if settings is None else settings, STACK if stack is None else stack,
                                NPU if npu is None else npu, NUMA if numa is None else numa,
                                CONTEXT if context is None else context)


def changed(value, path, new):
    """A deep copy of value with the item at path (a tuple of keys) set to new."""
    out = copy.deepcopy(value)
    target = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return out


def test_the_same_inputs_give_the_same_digest_in_any_key_order():
    reordered = dict(reversed(list(SETTINGS.items())))
    assert digest() == digest(settings=reordered)
    assert len(digest()) == 64 and int(digest(), 16) >= 0


@pytest.mark.parametrize('what, kwargs', [
    ('a setting', {'settings': changed(SETTINGS, ('vllm_service_port',), 8001)}),
    ('the API key', {'settings': changed(SETTINGS, ('vllm_service_api_key',), 'k-2')}),
    ('a setting more', {'settings': dict(SETTINGS, vllm_service_extra_args={'x': 1})}),
    ('the stack', {'stack': changed(STACK, ('vllm',), '0.22.0')}),
    ('the chip count', {'npu': changed(NPU, ('chip_count',), 1)}),
    ('the chip name', {'npu': changed(NPU, ('chip_name',), None)}),
    ('npu-smi failing', {'npu': changed(NPU, ('npu_smi_error',), 'dcmi_init_ret=-8005')}),
    ('a chip id', {'npu': changed(NPU, ('chips', 1, 'phy_id'), 5)}),
    ('a chip less', {'npu': dict(NPU, chips=NPU['chips'][:1])}),
    ('the NUMA groups', {'numa': changed(NUMA, ('groups',), [[0], [1]])}),
    ('a NUMA node\'s CPUs', {'numa': changed(NUMA, ('nodes', 0, 'cpulist'), '0')}),
    ('check mode', {'context': changed(CONTEXT, ('check_mode',), True)}),
    ('the CANN environment file', {'context': changed(CONTEXT, ('cann_env_file',), '/tmp/other.env')}),
])
def test_what_the_validation_decides_from_moves_the_digest(what, kwargs):
    assert digest(**kwargs) != digest(), what


@pytest.mark.parametrize('what, npu, numa', [
    ('temperatures, power, HBM use', changed(changed(changed(NPU, ('chips', 0, 'temperature_c'), 55),
                                                     ('chips', 1, 'power_w'), 120.5), ('chips', 0, 'hbm_used_mb'), 9),
     NUMA),
    ('a chip\'s health', changed(NPU, ('chips', 1, 'health'), 'Warning'), NUMA),
    ('free huge pages', NPU, changed(NUMA, ('nodes', 0, 'hugepages'), {'free': 0})),
])
def test_what_moves_between_two_reads_of_an_unchanged_node_does_not(what, npu, numa):
    assert digest(npu=npu, numa=numa) == digest(), what


def test_the_digest_does_not_carry_the_key():
    assert 'k-1' not in digest()


def test_missing_facts_are_inputs_too():
    assert vs.validation_digest({}, None, None, None, None) == vs.validation_digest({}, None, {}, {}, {})
    assert vs.validation_digest({}, None, {}, {}, {}) != digest()
