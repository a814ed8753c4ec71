"""The model profiles of vllm_service (vars/main.yml) against the tutorials they cite and the matrix."""
from pathlib import Path

import pytest
import yaml

from ansible_collections.ascend.vllm.plugins.module_utils import stack_matrix
from ansible_collections.ascend.vllm.plugins.module_utils.vllm_service import (
    chips_needed,
    profile_release,
    profile_serve,
)

REPO = Path(__file__).resolve().parents[3]
ROLE = REPO / 'roles' / 'vllm_service'
VARS = yaml.safe_load((ROLE / 'vars' / 'main.yml').read_text())
PROFILES = VARS['__vllm_service_profiles']
SPEC = yaml.safe_load((ROLE / 'meta' / 'argument_specs.yml').read_text())['argument_specs']['main']
RELEASES = [row['release'] for row in stack_matrix.RELEASES]


def serve_args(name, family, release):
    """The profile's arguments as tasks/validation.yml takes them (vllm_profile_serve)."""
    return profile_serve(PROFILES[name], family, release, VARS['__vllm_service_common_env'])['args']


def serve_env(name, family, release, multinode=False):
    """The profile's environment as tasks/validation.yml takes it (vllm_profile_serve)."""
    return profile_serve(PROFILES[name], family, release, VARS['__vllm_service_common_env'], multinode)['env']


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
    # The A3 command's exports: AIV, balance scheduling, the NPU allocator (plus the common env).
    env = serve_env('deepseek-v3.1-w8a8', '910_93', '0.23.0')
    assert {key: env[key] for key in ('HCCL_OP_EXPANSION_MODE', 'VLLM_ASCEND_BALANCE_SCHEDULING',
                                      'PYTORCH_NPU_ALLOC_CONF')} == {
        'HCCL_OP_EXPANSION_MODE': 'AIV', 'VLLM_ASCEND_BALANCE_SCHEDULING': '1',
        'PYTORCH_NPU_ALLOC_CONF': 'expandable_segments:True'}


def test_v31_w8a8_on_two_a2_nodes_is_the_tutorial_layout():
    profile = PROFILES['deepseek-v3.1-w8a8']
    dp = profile['chips']['910b']['multinode']['dp']
    assert dp['head'] == {'data-parallel-size-local': 2, 'data-parallel-rpc-port': 13389}
    assert dp['worker'] == {'headless': True, 'data-parallel-size-local': 2, 'data-parallel-start-rank': 2}
    # Node 0 / Node 1 exports of the tutorial's A2 data-parallel section (the HCCL_IF_IP and
    # socket names come from multinode.yml), no AIV.
    env = serve_env('deepseek-v3.1-w8a8', '910b', '0.23.0', multinode=True)
    assert 'HCCL_OP_EXPANSION_MODE' not in env
    assert {key: env[key] for key in ('OMP_PROC_BIND', 'OMP_NUM_THREADS', 'HCCL_BUFFSIZE', 'PYTORCH_NPU_ALLOC_CONF',
                                      'VLLM_ASCEND_BALANCE_SCHEDULING', 'HCCL_INTRA_PCIE_ENABLE',
                                      'HCCL_INTRA_ROCE_ENABLE')} == {
        'OMP_PROC_BIND': 'false', 'OMP_NUM_THREADS': '1', 'HCCL_BUFFSIZE': '200',
        'PYTORCH_NPU_ALLOC_CONF': 'expandable_segments:True', 'VLLM_ASCEND_BALANCE_SCHEDULING': '1',
        'HCCL_INTRA_PCIE_ENABLE': '1', 'HCCL_INTRA_ROCE_ENABLE': '0'}
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


W8A8 = ['deepseek-r1-w8a8', 'deepseek-v3.1-w8a8']
# Each release's own DeepSeek tutorial: MTP and FULL_DECODE_ONLY graphs from 0.13.0 on (with
# capture sizes at 0.13.0 / 0.18.0), torchair graphs and the Ascend scheduler at 0.9.1 / 0.11.0.
GRAPHS = {
    '0.9.1': 'torchair', '0.11.0': 'torchair',
    '0.13.0': '{"cudagraph_capture_sizes":[4,16,32,48,64], "cudagraph_mode": "FULL_DECODE_ONLY"}',
    '0.18.0': '{"cudagraph_capture_sizes":[4,16,32,48,64], "cudagraph_mode": "FULL_DECODE_ONLY"}',
    '0.23.0': '{"cudagraph_mode": "FULL_DECODE_ONLY"}',
    '0.23.0.post1': '{"cudagraph_mode": "FULL_DECODE_ONLY"}',
    '0.30.0rc2': '{"cudagraph_mode": "FULL_DECODE_ONLY"}',
}


@pytest.mark.parametrize('name', W8A8)
@pytest.mark.parametrize('release', RELEASES)
def test_w8a8_profiles_follow_each_release_s_tutorial(name, release):
    args = serve_args(name, '910_93', release)
    if GRAPHS[release] == 'torchair':
        assert 'torchair_graph_config' in args['additional-config'] and 'speculative-config' not in args
    else:
        assert args['compilation-config'] == GRAPHS[release]
        assert '"num_speculative_tokens"' in args['speculative-config'] and 'mtp' in args['speculative-config']
    # 0.30.0rc2 turns balance scheduling on in the additional config; its environment variable is
    # deprecated there.
    balance = 'enable_balance_scheduling' in args.get('additional-config', '')
    assert balance == (release == '0.30.0rc2')
    if balance:
        assert 'VLLM_ASCEND_BALANCE_SCHEDULING' not in serve_env(name, '910_93', release)


def test_a_post_release_takes_its_base_release_s_entry():
    releases = {'0.23.0': {'args': {'a': 1}}, '0.9.1': {'args': {'b': 2}}}
    assert profile_release(releases, '0.23.0.post1') == {'args': {'a': 1}}
    assert profile_release(releases, '0.23.0.post2') == {'args': {'a': 1}}
    assert profile_release(releases, '0.23.0') == {'args': {'a': 1}}
    assert profile_release(releases, '0.18.0') == {}
    assert profile_release(releases, '0.9.1rc1') == {}
    assert profile_release(None, '0.23.0') == {}


# Each release's DeepSeek tutorial environment (vllm-ascend docs at the tag): MLAPO at 0.13.0 only,
# balance scheduling and the intra-node HCCL pair from 0.13.0 (vllm_ascend has no
# VLLM_ASCEND_BALANCE_SCHEDULING at v0.9.1 / v0.11.0), and no HCCL_CONNECT_TIMEOUT (no R1 or V3.1
# tutorial of an A2 / A3 node sets it).
@pytest.mark.parametrize('name', W8A8)
@pytest.mark.parametrize('release', RELEASES)
def test_w8a8_environment_follows_each_release_s_tutorial(name, release):
    env = serve_env(name, '910b', release, multinode=True)
    assert 'HCCL_CONNECT_TIMEOUT' not in env
    assert (env.get('VLLM_ASCEND_ENABLE_MLAPO') == '1') == (release == '0.13.0')
    old = release in ('0.9.1', '0.11.0')
    for key in ('VLLM_ASCEND_BALANCE_SCHEDULING', 'HCCL_INTRA_PCIE_ENABLE', 'HCCL_INTRA_ROCE_ENABLE'):
        # 0.30.0rc2 turns balance scheduling on in its additional config instead.
        absent = old or (key == 'VLLM_ASCEND_BALANCE_SCHEDULING' and release == '0.30.0rc2')
        assert (key in env) is not absent, (key, env)
    assert env['OMP_NUM_THREADS'] == {'0.9.1': '100', '0.11.0': '10'}.get(release, '1')


@pytest.mark.parametrize('name', sorted(PROFILES))
def test_one_openmp_thread_per_worker_as_upstream_images_set(name):
    # Dockerfile ENV OMP_NUM_THREADS=1 at v0.13.0, v0.18.0, v0.23.0.
    for family in PROFILES[name]['chips']:
        assert serve_env(name, family, '0.23.0')['OMP_NUM_THREADS'] == '1'


def test_a_null_in_a_later_layer_removes_the_variable():
    profile = {'env': {'A': '1', 'B': '2'}, 'chips': {'910b': {'env': {'C': '3'}}},
               'releases': {'0.9.1': {'env': {'A': None, 'C': None}}}}
    assert profile_serve(profile, '910b', '0.9.1', multinode=True)['env'] == {'B': '2'}
    assert profile_serve(profile, '910b', '0.23.0', multinode=True)['env'] == {'A': '1', 'B': '2', 'C': '3'}


def test_each_profile_is_fetched_from_where_its_weights_are_published():
    # The W8A8 repositories upstream's tutorials link are ModelScope's (v0.23.0 DeepSeek-R1.md:
    # "Download model weight" -> modelscope.cn/models/vllm-ascend/DeepSeek-R1-W8A8; DeepSeek-V3.1.md
    # -> Eco-Tech/DeepSeek-V3.1-w8a8-mtp-QuaRot); the distilled models are deepseek-ai's on Hugging Face.
    assert dict((name, PROFILES[name]['source']) for name in PROFILES) == {
        'deepseek-r1-distill-qwen-7b': 'huggingface', 'deepseek-r1-distill-qwen-14b': 'huggingface',
        'deepseek-r1-distill-qwen-32b': 'huggingface', 'deepseek-r1-w8a8': 'modelscope',
        'deepseek-v3.1-w8a8': 'modelscope'}
    defaults = yaml.safe_load((ROLE / 'defaults' / 'main.yml').read_text())
    assert defaults['vllm_service_model_source'] == (
        "{{ (__vllm_service_profiles[vllm_service_model_profile] | default({})).source | default('huggingface') }}")
