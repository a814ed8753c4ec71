"""The benchmark filters wrap module_utils.benchmark and turn its errors into filter errors."""
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.filter import benchmark

FILTERS = benchmark.FilterModule().filters()

RESULT = {'num_prompts': 4, 'completed': 4, 'failed': 0, 'duration': 1.0, 'request_throughput': 4.0,
          'output_throughput': 64.0, 'mean_ttft_ms': 10.0, 'median_ttft_ms': 9.0, 'p99_ttft_ms': 12.0,
          'median_tpot_ms': 5.0, 'p99_tpot_ms': 6.0}


def test_filters_are_registered():
    assert sorted(FILTERS) == ['benchmark_argv', 'benchmark_labels', 'benchmark_labels_line', 'benchmark_load_problem',
                               'benchmark_result', 'benchmark_run_error', 'benchmark_summary', 'benchmark_table',
                               'benchmark_verdict_line']


def test_summary_then_table():
    summary = FILTERS['benchmark_summary'](RESULT, 'vllm_bench', 11, None, 4)
    assert summary['verdict'] == 'fail'
    table = FILTERS['benchmark_table']([{'host': 'n1', 'summary': summary}])
    assert table.splitlines()[2].startswith('| n1 | 4/4 | 4.00 | 64.00 | 9.00 | 12.00 | 6.00 | fail: TTFT p99')


def test_errors_become_filter_errors():
    with pytest.raises(AnsibleFilterError, match='summarize: vllm bench serve result: missing p99_ttft_ms'):
        FILTERS['benchmark_summary']({k: v for k, v in RESULT.items() if k != 'p99_ttft_ms'})
    with pytest.raises(AnsibleFilterError, match='command: num_prompts must be a positive integer'):
        FILTERS['benchmark_argv']({'base_url': 'http://h:1', 'model': 'm', 'result_dir': '/r',
                                   'result_filename': 'f', 'num_prompts': 0}, 'vllm_bench', 'vllm')


LABELS = {'model': 'DeepSeek-R1-Distill-Qwen-7B', 'release': '0.23.0'}


def test_result_of_a_run_that_wrote_its_json():
    result = FILTERS['benchmark_result'](RESULT, 'n1', '/r/n1.json', 'vllm_bench', LABELS, '', 11, None, 4)
    assert result == dict(FILTERS['benchmark_summary'](RESULT, 'vllm_bench', 11, None, 4),
                          host='n1', report='/r/n1.json', labels=LABELS, error=None)
    assert result['verdict'] == 'fail'


@pytest.mark.parametrize('data, error, reason', [
    (None, '', 'the tool wrote no result to /r/n1.json'),
    (None, 'vllm bench serve failed (rc 2)', 'vllm bench serve failed (rc 2)'),
    # A failed run's leftover JSON is not judged.
    (RESULT, 'timed out after 600 s', 'timed out after 600 s'),
])
def test_result_without_figures(data, error, reason):
    assert FILTERS['benchmark_result'](data, 'n1', '/r/n1.json', 'guidellm', LABELS, error) == {
        'host': 'n1', 'report': '/r/n1.json', 'tool': 'guidellm', 'labels': LABELS, 'error': reason}
