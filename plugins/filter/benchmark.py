# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Filters of the benchmark role; the logic is in plugins/module_utils/benchmark.py.
Documentation: one ``<filter name>.yml`` file per filter next to this one."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.plugin_utils.module_utils_on_use import module_utils

bm = module_utils('benchmark')


def _call(function, *args):
    try:
        return function(*args)
    except (bm.BenchmarkError, ValueError, TypeError, KeyError) as exc:
        raise AnsibleFilterError('%s: %s' % (function.__name__, exc))


def benchmark_argv(params, tool='vllm_bench', cli='vllm'):
    return _call(bm.command, tool, cli, params)


def benchmark_summary(data, tool='vllm_bench', slo_ttft_p99_ms=None, slo_output_throughput=None,
                      num_prompts=None):
    return _call(bm.summarize, data, tool, slo_ttft_p99_ms, slo_output_throughput, num_prompts)


def benchmark_result(data, host, report, tool='vllm_bench', labels=None, error='', slo_ttft_p99_ms=None,
                     slo_output_throughput=None, num_prompts=None):
    return _call(bm.host_result, data, host, report, tool, labels or {}, error, slo_ttft_p99_ms, slo_output_throughput,
                 num_prompts)


def benchmark_table(rows):
    return _call(bm.table, rows)


def benchmark_load_problem(num_prompts, max_prompts, timeout, poll_interval, model):
    return _call(bm.load_problem, num_prompts, max_prompts, timeout, poll_interval, model)


def benchmark_labels(unit_text, stack=None, served_model=''):
    return _call(bm.unit_labels, unit_text, stack, served_model)


def benchmark_labels_line(labels):
    return _call(bm.labels_line, labels)


def benchmark_run_error(job, tool_name, timeout):
    return _call(bm.run_error, job, tool_name, timeout)


def benchmark_verdict_line(result):
    return _call(bm.verdict_line, result)


class FilterModule(object):
    def filters(self):
        return {
            'benchmark_argv': benchmark_argv,
            'benchmark_result': benchmark_result,
            'benchmark_summary': benchmark_summary,
            'benchmark_table': benchmark_table,
            'benchmark_load_problem': benchmark_load_problem,
            'benchmark_run_error': benchmark_run_error,
            'benchmark_labels': benchmark_labels,
            'benchmark_labels_line': benchmark_labels_line,
            'benchmark_verdict_line': benchmark_verdict_line,
        }
