"""The model profiles of vllm_service (vars/main.yml) against the tutorials they cite and the matrix."""
from pathlib import Path

import pytest
import yaml

from ansible_collections.ascend.vllm.plugins.module_utils import stack_matrix
from ansible_collections.ascend.vllm.plugins.module_utils.vllm_service import chips_needed, merge_args

REPO = Path(__file__).resolve().parents[3]
ROLE = REPO / 'roles' / 'vllm_service'
PROFILES = yaml.safe_load((ROLE / 'vars' / 'main.yml').read_text())['__vllm_service_profiles']
SPEC = yaml.safe_load((ROLE / 'meta' / 'argument_specs.yml').read_text())['argument_specs']['main']
RELEASES = [row['release'] for row in stack_matrix.RELEASES]


def serve_args(name, family, release):
    """The profile's layers in the order tasks/validate.yml merges them: profile, chip, release."""
    profile = PROFILES[name]
    return merge_args(profile.get('args') or {},
                      profile['chips'][family].get('args') or {},
                      (profile.get('releases') or {}).get(release, {}).get('args') or {})


def serve_env(name, family, release):
    profile = PROFILES[name]
    env = dict(profile.get('env') or {})
    env.update(profile['chips'][family].get('env') or {})
    env.update((profile.get('releases') or {}).get(release, {}).get('env') or {})
    return env


@pytest.mark.parametrize('name', sorted(PROFILES))
def test_profile_names_known_chips_and_releases(name):
    profile = PROFILES[name]
    assert {'description', 'model_name', 'repo', 'size_gb', 'served_model_name', 'chips'} <= set(profile)
    assert set(profile['chips']) <= set(stack_matrix.CHIP_FAMILIES)
    assert set(profile.get('releases') or {}) <= set(RELEASES)


def test_the_argument_spec_names_every_profile():
    option = SPEC['options']['vllm_service_model_profile']
    text = ' '.join(option['description'])
    for name in PROFILES:
        assert 'C(%s)' % name in text


# vllm-ascend v0.23.0 docs/source/tutorials/models/DeepSeek-V3.1.md, the A3 single-node command
# (host, port, seed, served name and prefix caching left to the site).
V31_A3_TUTORIAL = {
    'data-parallel-size': 4, 'tensor-parallel-size': 4, 'quantization': 'ascend', 'enable-expert-parallel': True,
    'max-num-seqs': 16, 'max-model-len': 16384, 'max-num-batched-tokens': 4096, 'trust-remote-code': True,
    'gpu-memory-utilization': 0.92,
    'speculative-config': '{"num_speculative_tokens": 3, "method": "mtp"}',
    'compilation-config': '{"cudagraph_mode": "FULL_DECODE_ONLY"}',
}


def test_v31_w8a8_on_one_a3_node_is_the_tutorial_command():
    args = serve_args('deepseek-v3.1-w8a8', '910_93', '0.23.0')
    assert args == V31_A3_TUTORIAL
    assert chips_needed(args)['chips'] == 16
    assert serve_env('deepseek-v3.1-w8a8', '910_93', '0.23.0') == {'VLLM_ASCEND_BALANCE_SCHEDULING': '1'}


def test_v31_w8a8_on_two_a2_nodes_is_the_tutorial_layout():
    profile = PROFILES['deepseek-v3.1-w8a8']
    dp = profile['chips']['910b']['multinode']['dp']
    assert dp['head'] == {'data-parallel-size-local': 2, 'data-parallel-rpc-port': 13389}
    assert dp['worker'] == {'headless': True, 'data-parallel-size-local': 2, 'data-parallel-start-rank': 2}
    # Node 0 / Node 1 exports of the tutorial's A2 data-parallel section.
    assert serve_env('deepseek-v3.1-w8a8', '910b', '0.23.0') == {
        'OMP_PROC_BIND': 'false', 'OMP_NUM_THREADS': '1', 'HCCL_BUFFSIZE': '200',
        'VLLM_ASCEND_BALANCE_SCHEDULING': '1', 'HCCL_INTRA_PCIE_ENABLE': '1', 'HCCL_INTRA_ROCE_ENABLE': '0'}
    assert serve_args('deepseek-v3.1-w8a8', '910b', '0.23.0') == V31_A3_TUTORIAL


def test_v31_w8a8_on_0_9_1_takes_that_release_s_v3_settings():
    # v0.9.1 docs/source/tutorials/multi_node.md (DeepSeek-V3 W8A8): no MTP or graph config of 0.23.0.
    args = serve_args('deepseek-v3.1-w8a8', '910b', '0.9.1')
    assert 'speculative-config' not in args and 'compilation-config' not in args
    assert args['additional-config'] == ('{"ascend_scheduler_config":{"enabled":true},'
                                         '"torchair_graph_config":{"enabled":true}}')
    assert serve_env('deepseek-v3.1-w8a8', '910b', '0.9.1')['VLLM_USE_V1'] == '1'


# Attention heads of the published configs (config.json): both have 40 query and 8 KV heads.
DISTILL_HEADS = {'deepseek-r1-distill-qwen-14b': 8, 'deepseek-r1-distill-qwen-32b': 8}


@pytest.mark.parametrize('name', sorted(DISTILL_HEADS))
@pytest.mark.parametrize('family', ['910b', '910_93'])
def test_distill_sizes_leave_room_for_the_kv_cache(name, family):
    args = serve_args(name, family, '0.23.0')
    tp = args['tensor-parallel-size']
    assert DISTILL_HEADS[name] % tp == 0
    assert PROFILES[name]['size_gb'] / tp <= 0.3 * 64
    assert args['dtype'] == 'bfloat16' and args['max-model-len'] == 32768
    assert chips_needed(args)['chips'] <= 8
    assert '310p' not in PROFILES[name]['chips']
