"""ascend.vllm.vllm_serve_check as a module, with the stand-in vLLM as the engine."""
import json
import os
import sys

from ansible_collections.ascend.vllm.plugins.modules import vllm_serve_check

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
SERVING = os.path.join(ROOT, 'tests', 'simulator', 'ascend_sim', 'serving')


def _args(tmp_path, argv, **extra):
    (tmp_path / 'cann').mkdir(exist_ok=True)
    model = tmp_path / 'model'
    model.mkdir(exist_ok=True)
    (model / 'config.json').write_text(json.dumps({'num_attention_heads': 28}))
    args = {'command': [sys.executable], 'argv': ['serve', str(model)] + argv,
            'environment': {'PYTHONPATH': SERVING, 'ASCEND_TOOLKIT_HOME': str(tmp_path / 'cann')},
            'model_config': str(model / 'config.json'),
            'variables': {'max-model-len': 'vllm_service_extra_args',
                          'tensor-parallel-size': 'vllm_service_tensor_parallel_size'}}
    args.update(extra)
    return args


def test_a_command_line_the_engine_takes(run_module, tmp_path):
    failed, result = run_module(vllm_serve_check, _args(tmp_path, ['--tensor-parallel-size', '4', '--port', '8000']))
    assert not failed, result
    assert (result['changed'], result['checked'], result['problems'], result['message']) == (False, True, [], '')
    assert result['version'] == '0.23.0+sim'


def test_refusals_name_the_variable(run_module, tmp_path):
    failed, result = run_module(vllm_serve_check, _args(tmp_path, ['--max-model-len', 'lots']))
    assert not failed and result['problems'] == [
        {'what': "vllm serve: error: argument --max-model-len: Invalid number: 'lots'",
         'variable': 'vllm_service_extra_args'}]
    failed, result = run_module(vllm_serve_check, _args(tmp_path, ['--tensor-parallel-size', '3']))
    assert not failed and [p['variable'] for p in result['problems']] == ['vllm_service_tensor_parallel_size']
    assert result['message'].startswith('vllm_service: vLLM 0.23.0+sim refuses the command line the service would '
                                        'run: the model has 28 attention heads')


def test_an_engine_that_is_not_there(run_module, tmp_path):
    missing = str(tmp_path / 'venv' / 'bin' / 'python')
    failed, result = run_module(vllm_serve_check, _args(tmp_path, [], command=[missing]), check_mode=True)
    assert not failed and result['checked'] is False and result['reason'] == '%s does not exist' % missing
    failed, result = run_module(vllm_serve_check, _args(tmp_path, [], command=[missing]))
    assert failed and result['msg'] == 'vllm_serve_check: %s does not exist (is vLLM installed?)' % missing
    # An interpreter without vLLM: the command, its status and its error output.
    failed, result = run_module(vllm_serve_check, _args(tmp_path, [], environment={}))
    assert failed
    assert result['msg'].startswith("vllm_serve_check: %s -c PROGRAM: vLLM cannot be imported: ModuleNotFoundError: "
                                    "No module named 'vllm' (rc 0)" % sys.executable)
