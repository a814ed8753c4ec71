"""job_progress: the lines an operator reads while a long job runs."""
import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.job_progress import (
    human_bytes, human_duration, progress_line, total_size)


@pytest.mark.parametrize('count, text', [(0, '0 B'), (1023, '1023 B'), (1536, '1.5 KiB'), (15 * 1024 ** 3, '15.0 GiB'),
                                         (3 * 1024 ** 5, '3072.0 TiB')])
def test_human_bytes(count, text):
    assert human_bytes(count) == text


@pytest.mark.parametrize('seconds, text', [(0, '0s'), (59.9, '59s'), (130, '2m10s'), (3725, '1h02m05s')])
def test_human_duration(seconds, text):
    assert human_duration(seconds) == text


def test_a_download_says_bytes_share_rate_and_time():
    line = progress_line('node-1', 'download of DeepSeek-R1', 130, 3 * 1024 ** 3, 15 * 1024 ** 3, 85 * 1024 ** 2)
    assert line == 'node-1: download of DeepSeek-R1: 3.0 GiB of 15.0 GiB (20%), 85.0 MiB/s, running for 2m10s'


def test_without_a_total_or_a_rate_and_with_several_jobs():
    assert progress_line('n', 'files', 5, 2048, None, None, 3) == 'n: files: 2.0 KiB, running for 5s, 3 still running'
    # More than the expected size (a file larger than announced) never says more than 100 %.
    assert progress_line('n', 'x', 1, 300, 200, -5.0) == 'n: x: 300 B of 200 B (100%), 0 B/s, running for 1s'


def test_a_job_without_measure_says_how_long_it_has_run():
    assert progress_line('n', 'pip install', 75) == 'n: pip install: running for 1m15s'


def test_total_size_of_find_results():
    assert total_size([{'path': '/a', 'size': 10}, {'path': '/b', 'size': 5}, {'path': '/c'}]) == 15
    assert total_size(None) == 0
