"""The vllm_service role's check of the serve command line (module_utils/vllm_serve_check, run by
ascend.vllm.vllm_serve_check before the unit is written) with the real vLLM of the default release:
the role's own command line passes, values the engine refuses are refused with its own message, and
the parsed sizes come back for the model's config.json check.

Needs the engine virtualenv of scripts/engine.sh, as test_serve_flags.py."""
import json
import subprocess

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import vllm_serve_check as vc

from test_serve_flags import ROW, command_line, engine_python


def check(argv):
    done = subprocess.run([engine_python(), '-c', vc.PROGRAM], input=json.dumps(argv), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=600, check=False)
    return vc.engine_result(done.stdout)


def test_the_roles_command_line_passes_and_the_sizes_come_back():
    result = check(command_line('deepseek-r1-distill-qwen-7b', '910b', extra={'tensor-parallel-size': 3}))
    assert result['ok'], result
    assert result['version'] == ROW['vllm']
    assert result['values']['tensor_parallel_size'] == 3
    # 28 attention heads (the sandbox model's config.json, as the real model's) refuse TP 3.
    assert [p['variable'] for p in vc.parallel_problems({'num_attention_heads': 28}, result['values'],
                                                        {'tensor-parallel-size': 'vllm_service_extra_args'})] == [
        'vllm_service_extra_args']


@pytest.mark.parametrize('extra, error', [
    ({'max-model-len': 'lots'},
     "vllm serve: error: argument --max-model-len: invalid human_readable_int_or_auto value: 'lots'"),
    ({'no-such-vllm-flag': '1'}, 'vllm: error: unrecognized arguments: --no-such-vllm-flag 1'),
])
def test_values_the_engine_refuses(extra, error):
    result = check(command_line('deepseek-r1-distill-qwen-7b', '910b', extra=extra))
    assert (result['ok'], result['error']) == (False, error)
    assert vc.variable_of(vc.refused_option(error), {list(extra)[0]: 'vllm_service_extra_args'}) == \
        'vllm_service_extra_args'
