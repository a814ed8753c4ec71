"""module_utils.benchmark: the load tools' command lines, their result JSON, the SLO verdict, the table."""
import json

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import benchmark as bm

PARAMS = {
    'base_url': 'http://10.88.0.5:8000/', 'model': 'deepseek-r1-distill-qwen-7b', 'tokenizer': '/models/ds',
    'num_prompts': 20, 'request_rate': 'inf', 'max_concurrency': 4, 'input_len': 32, 'output_len': 16,
    'seed': 7, 'result_dir': '/reports', 'result_filename': 'node1.json',
}

# What vllm bench serve --save-result writes (vllm/benchmarks/serve.py), abridged to its scalar keys.
VLLM_RESULT = {
    'date': '20250101-120000', 'endpoint_type': 'openai', 'backend': 'openai', 'label': None,
    'model_id': 'deepseek-r1-distill-qwen-7b', 'tokenizer_id': '/models/ds', 'num_prompts': 20,
    'request_rate': 'inf', 'burstiness': 1.0, 'max_concurrency': 4, 'duration': 2.5, 'completed': 20,
    'failed': 0, 'total_input_tokens': 660, 'total_output_tokens': 320, 'request_throughput': 8.0,
    'request_goodput': None, 'output_throughput': 128.0, 'total_token_throughput': 392.0,
    'max_output_tokens_per_s': 150.0, 'max_concurrent_requests': 4, 'rtfx': 0.0,
    'mean_ttft_ms': 21.5, 'median_ttft_ms': 20.25, 'std_ttft_ms': 1.0, 'p99_ttft_ms': 30.126,
    'mean_tpot_ms': 20.0, 'median_tpot_ms': 20.0, 'std_tpot_ms': 0.5, 'p99_tpot_ms': 22.75,
    'mean_itl_ms': 20.0, 'median_itl_ms': 20.0, 'std_itl_ms': 0.5, 'p99_itl_ms': 23.0,
}


def _dist(mean, p50, p99):
    return {'successful': {'mean': mean, 'median': p50, 'percentiles': {'p50': p50, 'p99': p99}},
            'errored': {'mean': 0.0}, 'incomplete': {'mean': 0.0}, 'total': {'mean': mean}}


GUIDELLM_REPORT = {'benchmarks': [{'duration': 4.0, 'metrics': {
    'request_totals': {'successful': 18, 'incomplete': 1, 'errored': 1, 'total': 20},
    'requests_per_second': _dist(4.5, 4.5, 4.5),
    'output_tokens_per_second': _dist(72.0, 70.0, 90.0),
    'time_to_first_token_ms': _dist(40.0, 35.0, 80.0),
    'time_per_output_token_ms': _dist(12.0, 11.0, 19.0),
}}]}


def test_vllm_bench_command_has_every_load_option_and_no_key():
    argv = bm.command('vllm_bench', '/opt/venv/bin/vllm', PARAMS)
    assert argv == [
        '/opt/venv/bin/vllm', 'bench', 'serve', '--backend', 'openai', '--base-url', 'http://10.88.0.5:8000',
        '--endpoint', '/v1/completions', '--model', 'deepseek-r1-distill-qwen-7b', '--tokenizer', '/models/ds',
        '--dataset-name', 'random', '--random-input-len', '32', '--random-output-len', '16',
        '--num-prompts', '20', '--request-rate', 'inf', '--max-concurrency', '4', '--seed', '7',
        '--disable-tqdm', '--save-result', '--result-dir', '/reports', '--result-filename', 'node1.json']


def test_vllm_bench_command_without_concurrency_and_tokenizer_with_a_rate():
    params = dict(PARAMS, max_concurrency=None, tokenizer='', request_rate=2.5)
    argv = bm.command('vllm_bench', 'vllm', params)
    assert '--max-concurrency' not in argv and '--tokenizer' not in argv
    assert argv[argv.index('--request-rate') + 1] == '2.5'
    assert bm.command('vllm_bench', 'vllm', dict(params, request_rate=4.0))[
        argv.index('--request-rate') + 1] == '4'


@pytest.mark.parametrize('params, profile', [
    ({}, ['--rate-type', 'concurrent', '--rate', '4']),
    ({'max_concurrency': None}, ['--rate-type', 'throughput']),
    ({'max_concurrency': None, 'request_rate': 3}, ['--rate-type', 'poisson', '--rate', '3']),
])
def test_guidellm_command_profiles(params, profile):
    argv = bm.command('guidellm', 'guidellm', dict(PARAMS, max_seconds=600, **params))
    assert argv[:8] == ['guidellm', 'benchmark', '--target', 'http://10.88.0.5:8000', '--model',
                        'deepseek-r1-distill-qwen-7b', '--processor', '/models/ds']
    assert argv[8:10] == ['--data', 'prompt_tokens=32,output_tokens=16']
    assert argv[10:10 + len(profile)] == profile
    assert argv[10 + len(profile):] == ['--max-requests', '20', '--max-seconds', '600', '--random-seed', '7',
                                        '--output-path', '/reports/node1.json']


@pytest.mark.parametrize('change, message', [
    ({'num_prompts': 0}, 'num_prompts must be a positive integer, got 0'),
    ({'input_len': '32k'}, "input_len must be a positive integer, got '32k'"),
    ({'output_len': '1.5'}, "output_len must be a positive integer, got '1.5'"),
    ({'num_prompts': '0'}, "num_prompts must be a positive integer, got '0'"),
    ({'seed': 'x'}, "seed must be a non-negative integer, got 'x'"),
    ({'max_concurrency': 0}, 'max_concurrency must be a positive integer, got 0'),
    ({'request_rate': 0}, 'request rate must be a positive number or inf, got 0'),
    ({'request_rate': 'fast'}, "request rate must be a positive number or inf, got 'fast'"),
    ({'seed': -1}, 'seed must be a non-negative integer, got -1'),
    ({'model': ''}, 'model is required'),
])
def test_command_refuses_bad_parameters(change, message):
    with pytest.raises(bm.BenchmarkError, match='^%s$' % message.replace('(', r'\(').replace(')', r'\)')):
        bm.command('vllm_bench', 'vllm', dict(PARAMS, **change))


def test_command_takes_whole_numbers_given_as_extra_var_strings():
    # ansible-playbook -e benchmark_num_prompts=20 passes the text '20'.
    strings = dict(PARAMS, num_prompts='20', input_len='32', output_len=' 16', max_concurrency='4', seed='7')
    assert bm.command('vllm_bench', 'vllm', strings) == bm.command('vllm_bench', 'vllm', PARAMS)


def test_command_refuses_unknown_tool_and_empty_cli():
    with pytest.raises(bm.BenchmarkError, match="unknown tool 'ab'"):
        bm.command('ab', 'ab', PARAMS)
    with pytest.raises(bm.BenchmarkError, match='the path of the vllm_bench command is empty'):
        bm.command('vllm_bench', '', PARAMS)


@pytest.mark.parametrize('value, rate', [('inf', float('inf')), ('INF', float('inf')), (None, float('inf')),
                                         (2, 2.0), ('0.5', 0.5)])
def test_request_rate(value, rate):
    assert bm.request_rate(value) == rate


def test_parse_vllm_bench_keeps_the_real_keys():
    summary = bm.parse_vllm_bench(json.loads(json.dumps(VLLM_RESULT)))
    assert summary == {
        'tool': 'vllm_bench', 'num_prompts': 20, 'completed': 20, 'failed': 0, 'duration_s': 2.5,
        'request_throughput': 8.0, 'output_throughput': 128.0, 'ttft_mean_ms': 21.5, 'ttft_p50_ms': 20.25,
        'ttft_p99_ms': 30.126, 'tpot_p50_ms': 20.0, 'tpot_p99_ms': 22.75}


def test_parse_vllm_bench_older_release_without_failed_key():
    data = dict(VLLM_RESULT, completed=17)
    del data['failed']
    assert bm.parse_vllm_bench(data)['failed'] == 3


def test_parse_vllm_bench_names_missing_keys():
    data = dict(VLLM_RESULT)
    del data['p99_ttft_ms'], data['p99_tpot_ms']
    with pytest.raises(bm.BenchmarkError, match='missing p99_ttft_ms, p99_tpot_ms'):
        bm.parse_vllm_bench(data)
    with pytest.raises(bm.BenchmarkError, match='output_throughput is None, a number was expected'):
        bm.parse_vllm_bench(dict(VLLM_RESULT, output_throughput=None))
    with pytest.raises(bm.BenchmarkError, match='a JSON object was expected, got list'):
        bm.parse_vllm_bench([])


def test_parse_guidellm_report():
    summary = bm.parse_guidellm(GUIDELLM_REPORT)
    assert summary == {
        'tool': 'guidellm', 'num_prompts': 20, 'completed': 18, 'failed': 2, 'duration_s': 4.0,
        'request_throughput': 4.5, 'output_throughput': 72.0, 'ttft_mean_ms': 40.0, 'ttft_p50_ms': 35.0,
        'ttft_p99_ms': 80.0, 'tpot_p50_ms': 11.0, 'tpot_p99_ms': 19.0}


def test_parse_guidellm_names_what_is_missing():
    with pytest.raises(bm.BenchmarkError, match='no benchmarks in the report'):
        bm.parse_guidellm({'benchmarks': []})
    report = json.loads(json.dumps(GUIDELLM_REPORT))
    del report['benchmarks'][0]['metrics']['time_to_first_token_ms']['successful']['percentiles']['p99']
    with pytest.raises(bm.BenchmarkError,
                       match='metrics.time_to_first_token_ms.successful.percentiles.p99 is missing'):
        bm.parse_guidellm(report)


def test_judge_passes_within_the_slos():
    result = bm.summarize(VLLM_RESULT, 'vllm_bench', 31, 100)
    assert result['verdict'] == 'pass'
    assert result['missed'] == []
    assert result['slo'] == {'ttft_p99_ms': 31.0, 'output_throughput': 100.0}


def test_judge_takes_the_request_count_as_extra_var_text():
    # -e benchmark_num_prompts=20 / 21: the count the run asked for, as text.
    assert bm.summarize(VLLM_RESULT, 'vllm_bench', None, None, '20')['verdict'] == 'pass'
    missed = bm.summarize(VLLM_RESULT, 'vllm_bench', None, None, '21')['missed']
    assert [m['message'] for m in missed] == ['20 of 21 requests completed (1 failed)']
    with pytest.raises(bm.BenchmarkError, match="num_prompts must be a whole number, got 'many'"):
        bm.summarize(VLLM_RESULT, 'vllm_bench', None, None, 'many')


def test_judge_null_slos_are_not_judged():
    result = bm.summarize(dict(VLLM_RESULT, p99_ttft_ms=1e6, output_throughput=0.1), 'vllm_bench')
    assert result['verdict'] == 'pass'
    assert result['slo'] == {'ttft_p99_ms': None, 'output_throughput': None}


def test_judge_names_metric_slo_and_measured_value():
    result = bm.summarize(VLLM_RESULT, 'vllm_bench', 0.001, 500)
    assert result['verdict'] == 'fail'
    assert [m['message'] for m in result['missed']] == [
        'TTFT p99 30.13 ms is above benchmark_slo_ttft_p99_ms 0.001 ms',
        'output throughput 128.00 tok/s is below benchmark_slo_output_throughput 500.00 tok/s']
    assert result['missed'][0]['measured'] == 30.126 and result['missed'][0]['slo'] == 0.001


def test_judge_exact_slo_is_met():
    assert bm.summarize(VLLM_RESULT, 'vllm_bench', 30.126, 128)['verdict'] == 'pass'


def test_judge_failed_requests_fail_the_run():
    result = bm.summarize(dict(VLLM_RESULT, completed=17, failed=3), 'vllm_bench')
    assert result['verdict'] == 'fail'
    assert result['missed'][0]['message'] == '17 of 20 requests completed (3 failed)'
    # The number the play sent wins over the tool's own count.
    assert bm.summarize(VLLM_RESULT, 'vllm_bench', num_prompts=25)['missed'][0]['measured'] == 20


@pytest.mark.parametrize('slo', [-1, 'fast', True])
def test_judge_refuses_bad_slos(slo):
    with pytest.raises(bm.BenchmarkError, match='benchmark_slo_ttft_p99_ms must be'):
        bm.summarize(VLLM_RESULT, 'vllm_bench', slo)


def test_table_rows():
    passed = bm.summarize(VLLM_RESULT, 'vllm_bench', 100)
    failed = bm.summarize(VLLM_RESULT, 'vllm_bench', 0.001)
    text = bm.table([{'host': 'node1', 'summary': passed}, {'host': 'node|2', 'summary': failed},
                     {'host': 'node3', 'summary': None, 'error': 'connection refused'}])
    lines = text.splitlines()
    assert lines[0] == ('| Host | Completed | Request/s | Output tok/s | TTFT p50 (ms) | TTFT p99 (ms) '
                        '| TPOT p99 (ms) | Verdict |')
    assert lines[1] == '|---|---:|---:|---:|---:|---:|---:|---|'
    assert lines[2] == '| node1 | 20/20 | 8.00 | 128.00 | 20.25 | 30.13 | 22.75 | pass |'
    assert lines[3] == ('| node\\|2 | 20/20 | 8.00 | 128.00 | 20.25 | 30.13 | 22.75 '
                        '| fail: TTFT p99 30.13 ms is above benchmark_slo_ttft_p99_ms 0.001 ms |')
    assert lines[4] == '| node3 | - | - | - | - | - | - | no result: connection refused |'
    assert text.endswith('\n') and len(lines) == 5


@pytest.mark.parametrize('args, expected', [
    ((8, 1000, 600, 5, 'm'), ''),
    (('8', '1000', '600', '5', 'm'), ''),
    ((0, 1000, 600, 5, 'm'), 'benchmark_num_prompts is 0, it must be between 1 and benchmark_max_prompts (1000)'),
    ((5000, 1000, 600, 5, 'm'), 'benchmark_num_prompts is 5000, it must be between 1 and benchmark_max_prompts (1000)'),
    (('many', 1000, 600, 5, 'm'), 'benchmark_num_prompts is many, it must be between 1 and benchmark_max_prompts (1000)'),
    ((8, 1000, 0, 5, 'm'), 'benchmark_timeout and benchmark_poll_interval must be at least 1 second'),
    ((8, 1000, 600, 0, 'm'), 'benchmark_timeout and benchmark_poll_interval must be at least 1 second'),
    ((8, 1000, 600, 5, ''), 'no served model name: set benchmark_model'),
])
def test_load_problem(args, expected):
    assert bm.load_problem(*args) == expected


@pytest.mark.parametrize('job, expected', [
    ({'finished': 1, 'rc': 0}, ''),
    ({'finished': 0}, 'vllm bench serve did not finish within benchmark_timeout (600 s)'),
    ({'finished': 1, 'rc': 1, 'msg': 'async task did not complete within the requested maximum time limit'},
     'vllm bench serve did not finish within benchmark_timeout (600 s)'),
    ({'finished': True, 'rc': 2, 'stderr_lines': ['a', '', 'b', 'c', 'd']}, 'vllm bench serve failed (rc 2): b / c / d'),
    ({'finished': 1, 'rc': 2, 'stderr_lines': [], 'msg': 'non-zero return code'},
     'vllm bench serve failed (rc 2): non-zero return code'),
    ({'finished': 1}, 'vllm bench serve failed (rc none): no output'),
])
def test_run_error(job, expected):
    assert bm.run_error(job, 'vllm bench serve', 600) == expected


def test_verdict_line():
    result = {'verdict': 'fail', 'completed': 7, 'num_prompts': 8, 'request_throughput': 2.1, 'output_throughput': 250.444,
              'ttft_p50_ms': 35.123, 'ttft_p99_ms': 80.9, 'tpot_p99_ms': 12, 'error': None,
              'missed': [{'message': '7 of 8 requests completed (1 failed)'}]}
    assert bm.verdict_line(result) == ('fail - 7/8 requests, 2.10 req/s, 250.44 output tok/s, TTFT p50/p99 35.12/80.90 ms, '
                                       'TPOT p99 12.00 ms; missed: 7 of 8 requests completed (1 failed)')
    assert bm.verdict_line({'error': 'the tool wrote no result to /r/n1.json'}) == \
        'no result - the tool wrote no result to /r/n1.json'


# ------------------------------------------------------------------------------------------ labels
STACK = {'release': '0.23.0', 'vllm': '0.23.0', 'vllm_ascend': '0.23.0', 'cann': '8.5.0', 'torch': '2.10.0'}


def unit_text(argv):
    from ansible_collections.ascend.vllm.plugins.module_utils.vllm_service import systemd_exec
    return '[Unit]\nDescription=vLLM\n\n[Service]\nUser=vllm\nExecStart=%s\nRestart=on-failure\n' % systemd_exec(argv)


SERVE = ['/usr/bin/numactl', '--cpunodebind=0', '--membind=0', '/opt/ascend-vllm/venv/bin/vllm', 'serve',
         '/data/models/DeepSeek-R1-W8A8', '--served-model-name', 'deepseek-r1', '--tensor-parallel-size', '4',
         '--data-parallel-size', '4', '--data-parallel-size-local', '2', '--additional-config',
         '{"ascend_scheduler_config":{"enabled":true}}', '--port', '8000']


def test_labels_come_from_the_units_command_line_and_the_stack():
    labels = bm.unit_labels(unit_text(SERVE), STACK)
    assert labels == {'model': 'deepseek-r1', 'model_path': '/data/models/DeepSeek-R1-W8A8', 'release': '0.23.0',
                      'vllm': '0.23.0', 'vllm_ascend': '0.23.0', 'cann': '8.5.0', 'tp': 4, 'dp': 4, 'pp': 1}


def test_the_unit_reads_back_what_systemd_exec_wrote():
    # Quotes, $ and % are escaped by the writer; the reader undoes it.
    argv = ['/bin/vllm', 'serve', '/m/a b', '--chat-template', '{{ "$x" }} 100%', '--served-model-name', 'n"1']
    assert bm.unit_argv(unit_text(argv)) == argv


@pytest.mark.parametrize('options, sizes', [
    (['-tp', '2', '-dp', '3', '-pp', '2'], (2, 3, 2)),
    (['--tensor_parallel_size', '8'], (8, 1, 1)),
    (['--tensor-parallel-size=2', '--data-parallel-size=2'], (2, 2, 1)),
    ([], (1, 1, 1)),
])
def test_parallel_sizes_in_every_spelling_vllm_accepts(options, sizes):
    labels = bm.serving_labels(['vllm', 'serve', '/m'] + options, STACK, 'served')
    assert (labels['tp'], labels['dp'], labels['pp']) == sizes
    assert labels['model'] == 'served' and labels['model_path'] == '/m'


def test_without_a_unit_the_sizes_are_unknown_not_one():
    labels = bm.unit_labels('', STACK, 'deepseek-r1')
    assert (labels['tp'], labels['dp'], labels['pp'], labels['model']) == (None, None, None, 'deepseek-r1')
    assert bm.labels_line(labels) == ('deepseek-r1 (-) on vLLM 0.23.0 / vllm-ascend 0.23.0 (release 0.23.0, '
                                      'CANN 8.5.0), TP - x DP - x PP -')


def test_a_size_that_is_no_number_is_unknown_and_the_benchmark_goes_on():
    labels = bm.serving_labels(['vllm', 'serve', '/m', '-tp', 'auto'])
    assert (labels['tp'], labels['dp']) == (None, 1)


def test_the_last_of_a_long_and_a_short_form_wins_as_in_argparse():
    assert bm.serving_labels(['vllm', 'serve', '/m', '--tensor-parallel-size', '4', '-tp', '2'])['tp'] == 2
    assert bm.serving_labels(['vllm', 'serve', '/m', '-dp', '2', '--data_parallel_size=8'])['dp'] == 8


def test_the_report_has_a_table_of_what_each_host_served():
    passed = bm.summarize(VLLM_RESULT, 'vllm_bench', 100)
    text = bm.table([{'host': 'node1', 'summary': passed, 'labels': bm.unit_labels(unit_text(SERVE), STACK)},
                     {'host': 'node2', 'summary': None, 'error': 'refused', 'labels': None}])
    lines = text.splitlines()
    assert lines[5] == '| Host | Model | Model path | Release | vLLM | vllm-ascend | CANN | TP | DP | PP |'
    assert lines[6] == '|---|---|---|---|---|---|---|---:|---:|---:|'
    assert lines[7] == '| node1 | deepseek-r1 | /data/models/DeepSeek-R1-W8A8 | 0.23.0 | 0.23.0 | 0.23.0 | 8.5.0 | 4 | 4 | 1 |'
    assert lines[8] == '| node2 | - | - | - | - | - | - | - | - | - |'
