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


def test_an_image_runs_the_check_after_sourcing_cann_as_the_service_does(run_module, tmp_path):
    # The 310P images' entry point sources no CANN script: the check's shell does, as
    # vllm_service.container_argv does for the service. A stand-in engine runs the image's command here.
    engine = tmp_path / 'podman'
    engine.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$0.argv"\nwhile [ "$1" != localhost/ascend/vllm-ascend:t ]; do shift; done\n'
                      'shift\nexec "$@"\n')
    engine.chmod(0o755)
    args = _args(tmp_path, ['--max-model-len', 'lots'], command=None, image='localhost/ascend/vllm-ascend:t',
                 engine=str(engine), volumes=['/usr/local/Ascend/driver/lib64:/usr/local/Ascend/driver/lib64:ro'])
    del args['command']
    failed, result = run_module(vllm_serve_check, args)
    assert not failed, result
    assert [p['variable'] for p in result['problems']] == ['vllm_service_extra_args']
    words = (tmp_path / 'podman.argv').read_text().split('\n')
    assert words[:6] == ['run', '--rm', '-i', '--network=none',
                         '--volume=/usr/local/Ascend/driver/lib64:/usr/local/Ascend/driver/lib64:ro',
                         'localhost/ascend/vllm-ascend:t']
    assert words[6:8] == ['/bin/bash', '-c'] and words[8].startswith(
        'for f in /usr/local/Ascend/ascend-toolkit/set_env.sh /usr/local/Ascend/nnal/atb/set_env.sh; do')
    assert words[8].endswith('exec python3 "$@"') and words[9:11] == ['python3', '-c']
