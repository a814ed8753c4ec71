"""The serve command line checked by the engine that will run it (module_utils/vllm_serve_check):
the program against the stand-in vLLM's parser (tests/engine runs it against the real vLLM), the
variable a refusal names, and the model's attention heads against the tensor-parallel size."""
import json
import os
import subprocess
import sys

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import vllm_serve_check as vc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
SERVING = os.path.join(ROOT, 'tests', 'simulator', 'ascend_sim', 'serving')


def run_program(argv, tmp_path):
    cann = tmp_path / 'cann'
    cann.mkdir(exist_ok=True)
    env = dict(os.environ, PYTHONPATH=SERVING, ASCEND_TOOLKIT_HOME=str(cann))
    done = subprocess.run([sys.executable, '-c', vc.PROGRAM], input=json.dumps(argv), env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=120,
                          check=False)
    return vc.engine_result(done.stdout)


@pytest.mark.parametrize('argv, error', [
    (['serve', '/m', '--max-model-len', 'lots'], "vllm serve: error: argument --max-model-len: Invalid number: 'lots'"),
    (['serve', '/m', '--no-such-vllm-flag', '1'], 'vllm: error: unrecognized arguments: --no-such-vllm-flag 1'),
    (['serve', '/m', '--gpu-memory-utilization', 'high'],
     "vllm serve: error: argument --gpu-memory-utilization: invalid float value: 'high'"),
])
def test_the_program_reports_what_the_parser_refuses(tmp_path, argv, error):
    result = run_program(argv, tmp_path)
    assert (result['ok'], result['error'], result['version']) == (False, error, '0.23.0+sim')


def test_the_program_stops_before_the_server_and_returns_the_parsed_sizes(tmp_path):
    result = run_program(['serve', '/m', '-tp', '3', '--enable-expert-parallel', '--port', '8000'], tmp_path)
    assert result['ok'] and result['error'] == ''
    assert result['values']['tensor_parallel_size'] == 3 and result['values']['model_tag'] == '/m'
    assert result['values']['enable_expert_parallel'] is True


def test_an_answer_without_the_marker_is_an_error():
    with pytest.raises(vc.CheckError, match='printed no result'):
        vc.engine_result('Traceback (most recent call last):\nModuleNotFoundError: No module named vllm\n')
    assert vc.engine_result('INFO log\n%s{"ok": true}\n' % vc.MARKER) == {'ok': True}


@pytest.mark.parametrize('error, variable', [
    ("vllm serve: error: argument --max-model-len: Invalid number: 'lots'", 'vllm_service_extra_args'),
    ('vllm: error: unrecognized arguments: --no-such-vllm-flag 1', 'vllm_service_extra_args'),
    ("vllm serve: error: argument --dtype: invalid choice: 'float7'", 'vllm_service_model_profile'),
    ("vllm serve: error: argument --tensor-parallel-size/-tp: invalid int value: 'x'", 'vllm_service_tensor_parallel_size'),
])
def test_a_refusal_names_the_variable_that_set_the_option(error, variable):
    variables = {'max-model-len': 'vllm_service_extra_args', 'no-such-vllm-flag': 'vllm_service_extra_args',
                 'tensor-parallel-size': 'vllm_service_tensor_parallel_size', 'port': 'vllm_service_port'}
    assert vc.variable_of(vc.refused_option(error), variables) == variable


def test_attention_heads_the_tensor_parallel_size_must_divide():
    variables = {'tensor-parallel-size': 'vllm_service_tensor_parallel_size'}
    # DeepSeek-R1-Distill-Qwen-7B: 28 attention heads (its config.json).
    assert vc.parallel_problems({'num_attention_heads': 28}, {'tensor_parallel_size': 3}, variables) == [{
        'what': 'the model has 28 attention heads (its config.json), which tensor parallel size 3 does not divide: vLLM '
                'stops with "Total number of attention heads (28) must be divisible by tensor parallel size (3)."',
        'variable': 'vllm_service_tensor_parallel_size'}]
    assert vc.parallel_problems({'num_attention_heads': 28}, {'tensor_parallel_size': 4}, variables) == []
    assert vc.parallel_problems(None, {'tensor_parallel_size': 3}, variables) == []
    assert vc.parallel_problems({'num_attention_heads': 128}, {'tensor_parallel_size': 16}, {}) == []


def test_the_message_names_each_variable():
    assert vc.message([{'what': 'a', 'variable': 'x'}, {'what': 'b', 'variable': 'y'}], 'vLLM 0.23.0') == (
        'vllm_service: vLLM 0.23.0 refuses the command line the service would run: a (x); b (y). Nothing was changed.')


def test_an_import_error_while_the_parser_is_built_is_the_engine_s_environment(tmp_path):
    # The real vLLM 0.23.0 imports its platform plugin (torch-npu, CANN's libraries) while it builds
    # the parser: without CANN's environment that is an ImportError, not a refused command line.
    cli = tmp_path / 'vllm' / 'entrypoints' / 'cli'
    cli.mkdir(parents=True)
    (tmp_path / 'vllm' / '__init__.py').write_text('__version__ = "0.23.0"\n')
    (tmp_path / 'vllm' / 'entrypoints' / '__init__.py').write_text('')
    (cli / '__init__.py').write_text('')
    (cli / 'main.py').write_text('def main():\n    raise ImportError("libhccl.so: cannot open shared object file")\n')
    done = subprocess.run([sys.executable, '-c', vc.PROGRAM], input='["serve", "/m"]', env=dict(os.environ, PYTHONPATH=str(tmp_path)),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=60, check=False)
    with pytest.raises(vc.CheckError, match='^vLLM cannot be imported: ImportError: libhccl.so: cannot open shared object file$'):
        vc.engine_result(done.stdout)


def test_the_role_variable_of_each_option_follows_the_merge_order():
    found = vc.role_variables({'max_model_len': 'lots', '--dtype': 'float7', 'port': 1}, 3, None)
    assert found == {'tensor-parallel-size': 'vllm_service_tensor_parallel_size',
                     'max-model-len': 'vllm_service_extra_args', 'dtype': 'vllm_service_extra_args',
                     # The role's own three come last, as vllm_service.merge_args layers them.
                     'port': 'vllm_service_port', 'host': 'vllm_service_host',
                     'served-model-name': 'vllm_service_served_model_name'}
    assert vc.variable_of('tp', vc.role_variables(None, None, None)) == 'vllm_service_model_profile'
