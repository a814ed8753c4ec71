# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Serving benchmarks: the command line of the load tool, its result JSON read into one summary, the
verdict against the SLOs, and the Markdown table of all hosts. Pure functions, no Ansible imports.

Tools:

* ``vllm_bench`` - ``vllm bench serve`` (vllm/benchmarks/serve.py). ``--save-result`` writes one JSON
  object whose keys are used as is: ``num_prompts``, ``completed``, ``failed`` (newer releases),
  ``duration``, ``request_throughput``, ``output_throughput``, ``total_token_throughput``,
  ``mean_ttft_ms``, ``median_ttft_ms``, ``p99_ttft_ms``, ``mean_tpot_ms``, ``median_tpot_ms``,
  ``p99_tpot_ms``, ``mean_itl_ms``, ``median_itl_ms``, ``p99_itl_ms`` (percentiles come from
  ``--metric-percentiles``, 99 by default). The API key is read from ``OPENAI_API_KEY``.
* ``guidellm`` - ``guidellm benchmark``. ``--output-path FILE.json`` writes a report
  ``{"benchmarks": [{"metrics": {...}}]}`` whose metrics are distribution summaries per request status:
  ``request_totals`` {successful, incomplete, errored, total}, ``requests_per_second``,
  ``output_tokens_per_second``, ``time_to_first_token_ms``, ``time_per_output_token_ms`` each with
  ``successful.mean``, ``successful.median`` and ``successful.percentiles.p50/p99``. The API key is read
  from ``GUIDELLM__OPENAI__API_KEY``.
"""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

import math

from ansible_collections.ascend.vllm.plugins.module_utils.numbers import as_int
from ansible_collections.ascend.vllm.plugins.module_utils.vllm_service import systemd_exec_argv

TOOLS = ('vllm_bench', 'guidellm')

# Environment variable each tool reads the API key from (never a command-line option: argv is logged).
API_KEY_ENV = {'vllm_bench': 'OPENAI_API_KEY', 'guidellm': 'GUIDELLM__OPENAI__API_KEY'}

# Keys of the vllm bench serve result that the summary needs.
VLLM_REQUIRED = ('completed', 'request_throughput', 'output_throughput', 'median_ttft_ms', 'p99_ttft_ms',
                 'p99_tpot_ms')

SUMMARY_KEYS = ('tool', 'num_prompts', 'completed', 'failed', 'duration_s', 'request_throughput',
                'output_throughput', 'ttft_mean_ms', 'ttft_p50_ms', 'ttft_p99_ms', 'tpot_p50_ms',
                'tpot_p99_ms')


class BenchmarkError(Exception):
    """A result or a parameter that cannot be used; the message says which and why."""


# ----------------------------------------------------------------------------------------- parameters
def request_rate(value):
    """``inf`` (any case, or None / empty) or a positive number, as the float the tools take."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ('', 'inf', 'infinity')):
        return float('inf')
    if isinstance(value, bool):
        raise BenchmarkError('request rate must be a positive number or inf, got %r' % (value,))
    try:
        rate = float(value)
    except (TypeError, ValueError):
        raise BenchmarkError('request rate must be a positive number or inf, got %r' % (value,))
    if math.isnan(rate) or rate <= 0:
        raise BenchmarkError('request rate must be a positive number or inf, got %r' % (value,))
    return rate


def _rate_text(rate):
    if math.isinf(rate):
        return 'inf'
    return ('%d' % rate) if rate == int(rate) else repr(rate)


def _whole(value):
    """An int, or the digits ``-e key=value`` passes as a string; None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _positive_int(params, key, optional=False):
    value = params.get(key)
    if value is None and optional:
        return None
    number = _whole(value)
    if number is None or number < 1:
        raise BenchmarkError('%s must be a positive integer, got %r' % (key, value))
    return number


def command(tool, cli, params):
    """argv of one benchmark run.

    *params*: ``base_url`` (``http://host:port``), ``model`` (served name), ``tokenizer`` (path or id,
    may be empty), ``num_prompts``, ``request_rate`` (number or ``inf``), ``max_concurrency`` (None: no
    limit), ``input_len``, ``output_len``, ``seed``, ``result_dir``, ``result_filename``; guidellm also
    ``max_seconds`` (None: no limit).
    """
    if tool not in TOOLS:
        raise BenchmarkError('unknown tool %r (known: %s)' % (tool, ', '.join(TOOLS)))
    if not cli:
        raise BenchmarkError('the path of the %s command is empty' % tool)
    for key in ('base_url', 'model', 'result_dir', 'result_filename'):
        if not params.get(key):
            raise BenchmarkError('%s is required' % key)
    num_prompts = _positive_int(params, 'num_prompts')
    input_len = _positive_int(params, 'input_len')
    output_len = _positive_int(params, 'output_len')
    concurrency = _positive_int(params, 'max_concurrency', optional=True)
    rate = request_rate(params.get('request_rate'))
    seed = _whole(params.get('seed', 0))
    if seed is None or seed < 0:
        raise BenchmarkError('seed must be a non-negative integer, got %r' % (params.get('seed'),))
    tokenizer = params.get('tokenizer') or ''
    base_url = str(params['base_url']).rstrip('/')

    if tool == 'vllm_bench':
        argv = [cli, 'bench', 'serve',
                '--backend', 'openai', '--base-url', base_url, '--endpoint', '/v1/completions',
                '--model', str(params['model'])]
        if tokenizer:
            argv += ['--tokenizer', str(tokenizer)]
        argv += ['--dataset-name', 'random',
                 '--random-input-len', str(input_len), '--random-output-len', str(output_len),
                 '--num-prompts', str(num_prompts), '--request-rate', _rate_text(rate)]
        if concurrency is not None:
            argv += ['--max-concurrency', str(concurrency)]
        argv += ['--seed', str(seed), '--disable-tqdm',
                 '--save-result', '--result-dir', str(params['result_dir']),
                 '--result-filename', str(params['result_filename'])]
        return argv

    # guidellm: one benchmark of the requested shape - a fixed concurrency, a Poisson rate, or as
    # fast as the server takes them.
    if concurrency is not None:
        profile = ['--rate-type', 'concurrent', '--rate', str(concurrency)]
    elif math.isinf(rate):
        profile = ['--rate-type', 'throughput']
    else:
        profile = ['--rate-type', 'poisson', '--rate', _rate_text(rate)]
    argv = [cli, 'benchmark', '--target', base_url, '--model', str(params['model'])]
    if tokenizer:
        argv += ['--processor', str(tokenizer)]
    argv += ['--data', 'prompt_tokens=%d,output_tokens=%d' % (input_len, output_len)]
    argv += profile
    argv += ['--max-requests', str(num_prompts)]
    if params.get('max_seconds'):
        argv += ['--max-seconds', str(int(params['max_seconds']))]
    argv += ['--random-seed', str(seed),
             '--output-path', '%s/%s' % (str(params['result_dir']).rstrip('/'), params['result_filename'])]
    return argv


# ------------------------------------------------------------------------------------------ results
def _number(data, key, where):
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BenchmarkError('%s: %s is %s, a number was expected'
                             % (where, key, 'missing' if key not in data else repr(value)))
    return value


def parse_vllm_bench(data):
    """Summary of a ``vllm bench serve --save-result`` JSON object."""
    where = 'vllm bench serve result'
    if not isinstance(data, dict):
        raise BenchmarkError('%s: a JSON object was expected, got %s' % (where, type(data).__name__))
    missing = [key for key in VLLM_REQUIRED if key not in data]
    if missing:
        raise BenchmarkError('%s: missing %s (run with the default --metric-percentiles or one that '
                             'includes 99)' % (where, ', '.join(missing)))
    completed = int(_number(data, 'completed', where))
    num_prompts = data.get('num_prompts')
    num_prompts = int(num_prompts) if isinstance(num_prompts, (int, float)) and not isinstance(
        num_prompts, bool) else None
    failed = data.get('failed')
    if not isinstance(failed, int) or isinstance(failed, bool):
        # Releases before the "failed" key: what was asked minus what completed.
        failed = (num_prompts - completed) if num_prompts is not None else 0
    return {
        'tool': 'vllm_bench',
        'num_prompts': num_prompts,
        'completed': completed,
        'failed': failed,
        'duration_s': data.get('duration'),
        'request_throughput': float(_number(data, 'request_throughput', where)),
        'output_throughput': float(_number(data, 'output_throughput', where)),
        'ttft_mean_ms': data.get('mean_ttft_ms'),
        'ttft_p50_ms': float(_number(data, 'median_ttft_ms', where)),
        'ttft_p99_ms': float(_number(data, 'p99_ttft_ms', where)),
        'tpot_p50_ms': data.get('median_tpot_ms'),
        'tpot_p99_ms': float(_number(data, 'p99_tpot_ms', where)),
    }


def _successful(metrics, key, field, where):
    summary = metrics.get(key)
    if not isinstance(summary, dict) or not isinstance(summary.get('successful'), dict):
        raise BenchmarkError('%s: metrics.%s.successful is missing' % (where, key))
    successful = summary['successful']
    if field.startswith('p'):
        value = (successful.get('percentiles') or {}).get(field)
        path = 'metrics.%s.successful.percentiles.%s' % (key, field)
    else:
        value = successful.get(field)
        path = 'metrics.%s.successful.%s' % (key, field)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BenchmarkError('%s: %s is %s, a number was expected'
                             % (where, path, 'missing' if value is None else repr(value)))
    return float(value)


def parse_guidellm(data):
    """Summary of the last benchmark of a ``guidellm benchmark`` JSON report."""
    where = 'guidellm report'
    if not isinstance(data, dict) or not isinstance(data.get('benchmarks'), list) or not data['benchmarks']:
        raise BenchmarkError('%s: no benchmarks in the report' % where)
    bench = data['benchmarks'][-1]
    metrics = bench.get('metrics') if isinstance(bench, dict) else None
    if not isinstance(metrics, dict):
        raise BenchmarkError('%s: the benchmark has no metrics' % where)
    totals = metrics.get('request_totals')
    if not isinstance(totals, dict) or not isinstance(totals.get('successful'), int):
        raise BenchmarkError('%s: metrics.request_totals.successful is missing' % where)
    completed = totals['successful']
    failed = int(totals.get('errored') or 0) + int(totals.get('incomplete') or 0)
    total = totals.get('total')
    duration = bench.get('duration')
    return {
        'tool': 'guidellm',
        'num_prompts': int(total) if isinstance(total, int) else completed + failed,
        'completed': completed,
        'failed': failed,
        'duration_s': duration if isinstance(duration, (int, float)) else None,
        'request_throughput': _successful(metrics, 'requests_per_second', 'mean', where),
        'output_throughput': _successful(metrics, 'output_tokens_per_second', 'mean', where),
        'ttft_mean_ms': _successful(metrics, 'time_to_first_token_ms', 'mean', where),
        'ttft_p50_ms': _successful(metrics, 'time_to_first_token_ms', 'p50', where),
        'ttft_p99_ms': _successful(metrics, 'time_to_first_token_ms', 'p99', where),
        'tpot_p50_ms': _successful(metrics, 'time_per_output_token_ms', 'p50', where),
        'tpot_p99_ms': _successful(metrics, 'time_per_output_token_ms', 'p99', where),
    }


def parse_result(data, tool):
    if tool == 'vllm_bench':
        return parse_vllm_bench(data)
    if tool == 'guidellm':
        return parse_guidellm(data)
    raise BenchmarkError('unknown tool %r (known: %s)' % (tool, ', '.join(TOOLS)))


# ------------------------------------------------------------------------------------------ verdict
def _slo(value, name):
    if value is None or value == '':
        return None
    if isinstance(value, bool):
        raise BenchmarkError('%s must be a number or null, got %r' % (name, value))
    try:
        value = float(value)
    except (TypeError, ValueError):
        raise BenchmarkError('%s must be a number or null, got %r' % (name, value))
    if math.isnan(value) or value < 0:
        raise BenchmarkError('%s must be a non-negative number or null, got %r' % (name, value))
    return value


def _fmt(value):
    """Numbers as people read them: 2 decimals, more for values below 0.01 (0.001 stays 0.001)."""
    if value is None:
        return '-'
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    value = float(value)
    if value != 0 and abs(value) < 0.01:
        return ('%.6f' % value).rstrip('0')
    return '%.2f' % value


def judge(summary, slo_ttft_p99_ms=None, slo_output_throughput=None, num_prompts=None):
    """The summary plus ``verdict`` (``pass``/``fail``), ``missed`` (one dict per miss: ``metric``,
    ``slo``, ``measured``, ``message``) and ``slo`` (the objectives, null = not judged).

    Every request must complete (a failed request is a miss of its own); then TTFT p99 must not be above
    *slo_ttft_p99_ms* and the output token throughput not below *slo_output_throughput*.
    """
    ttft_slo = _slo(slo_ttft_p99_ms, 'benchmark_slo_ttft_p99_ms')
    tput_slo = _slo(slo_output_throughput, 'benchmark_slo_output_throughput')
    result = dict(summary)
    if num_prompts is not None and _whole(num_prompts) is None:
        raise BenchmarkError('num_prompts must be a whole number, got %r' % (num_prompts,))
    expected = _whole(num_prompts) if num_prompts is not None else summary.get('num_prompts')
    missed = []
    completed = summary.get('completed') or 0
    if expected is not None and completed < expected:
        missed.append({
            'metric': 'completed', 'slo': expected, 'measured': completed,
            'message': '%d of %d requests completed (%d failed)'
                       % (completed, expected, expected - completed),
        })
    if ttft_slo is not None and summary['ttft_p99_ms'] > ttft_slo:
        missed.append({
            'metric': 'ttft_p99_ms', 'slo': ttft_slo, 'measured': summary['ttft_p99_ms'],
            'message': 'TTFT p99 %s ms is above benchmark_slo_ttft_p99_ms %s ms'
                       % (_fmt(summary['ttft_p99_ms']), _fmt(ttft_slo)),
        })
    if tput_slo is not None and summary['output_throughput'] < tput_slo:
        missed.append({
            'metric': 'output_throughput', 'slo': tput_slo, 'measured': summary['output_throughput'],
            'message': 'output throughput %s tok/s is below benchmark_slo_output_throughput %s tok/s'
                       % (_fmt(summary['output_throughput']), _fmt(tput_slo)),
        })
    result['slo'] = {'ttft_p99_ms': ttft_slo, 'output_throughput': tput_slo}
    result['missed'] = missed
    result['verdict'] = 'fail' if missed else 'pass'
    return result


def summarize(data, tool, slo_ttft_p99_ms=None, slo_output_throughput=None, num_prompts=None):
    return judge(parse_result(data, tool), slo_ttft_p99_ms, slo_output_throughput, num_prompts)


def host_result(data, host, report, tool, labels, error='', slo_ttft_p99_ms=None, slo_output_throughput=None,
                num_prompts=None):
    """A host's benchmark result: the judged summary of ``data`` (the tool's JSON, None when the
    tool wrote none) with the host, the report path and the serving labels; or, when the run
    failed (``error``) or wrote nothing, the reason in ``error`` and no figures."""
    if error or data is None:
        return {'host': host, 'report': report, 'tool': tool, 'labels': labels,
                'error': error or 'the tool wrote no result to %s' % report}
    result = summarize(data, tool, slo_ttft_p99_ms, slo_output_throughput, num_prompts)
    result.update({'host': host, 'report': report, 'labels': labels, 'error': None})
    return result


def load_problem(num_prompts, max_prompts, timeout, poll_interval, model):
    """Why the requested load is refused (it must be bounded and have a model), or ''."""
    if not 1 <= as_int(num_prompts) <= as_int(max_prompts):
        return ('benchmark_num_prompts is %s, it must be between 1 and benchmark_max_prompts (%s)'
                % (num_prompts, max_prompts))
    if as_int(timeout) < 1 or as_int(poll_interval) < 1:
        return 'benchmark_timeout and benchmark_poll_interval must be at least 1 second'
    if not model:
        return 'no served model name: set benchmark_model'
    return ''


def run_error(job, tool_name, timeout):
    """What went wrong with a run (the async job's last status), or '' when it finished with rc 0."""
    job = job or {}
    finished = bool(as_int(job.get('finished', 0)))
    if finished and job.get('rc', 1) == 0:
        return ''
    if not finished or 'maximum time limit' in str(job.get('msg') or ''):
        return '%s did not finish within benchmark_timeout (%s s)' % (tool_name, timeout)
    tail = [line for line in job.get('stderr_lines') or [] if line][-3:]
    return '%s failed (rc %s): %s' % (tool_name, job.get('rc', 'none'),
                                      ' / '.join(tail) or (job['msg'] if 'msg' in job else 'no output'))


def verdict_line(result):
    """One line per host: the verdict and the figures, or why there is no result."""
    if result.get('error'):
        return 'no result - %s' % result['error']
    line = ('%s - %s/%s requests, %.2f req/s, %.2f output tok/s, TTFT p50/p99 %.2f/%.2f ms, TPOT p99 %.2f ms'
            % (result['verdict'], result['completed'], result['num_prompts'], result['request_throughput'],
               result['output_throughput'], result['ttft_p50_ms'], result['ttft_p99_ms'], result['tpot_p99_ms']))
    if result.get('missed'):
        line += '; missed: ' + '; '.join(miss['message'] for miss in result['missed'])
    return line


# ------------------------------------------------------------------------------------------ labels
# Parallelism options of `vllm serve` and their short forms (vllm/engine/arg_utils.py, EngineArgs.add_cli_args).
PARALLEL = (('tp', ('--tensor-parallel-size', '-tp')), ('dp', ('--data-parallel-size', '-dp')),
            ('pp', ('--pipeline-parallel-size', '-pp')))


# Short forms -> the long option they stand for.
_ALIASES = dict((short, names[0]) for names in dict(PARALLEL).values() for short in names[1:])


def _option_values(argv):
    """``--name value`` and ``--name=value`` pairs of a command line, names with ``_`` read as ``-``
    (vLLM accepts both) and short forms as their long option; a later one wins, as argparse does.
    (Abbreviated long options, which argparse also takes, are not read: the role never writes them.)"""
    values = {}
    for index, word in enumerate(argv):
        if not word.startswith('-'):
            continue
        name, sep, value = word.partition('=')
        if not sep:
            value = argv[index + 1] if index + 1 < len(argv) and not argv[index + 1].startswith('-') else ''
        name = '--' + name[2:].replace('_', '-') if name.startswith('--') else name
        values[_ALIASES.get(name, name)] = value
    return values


def unit_argv(unit_text):
    """The command line of a systemd unit's (first) ExecStart= line, as the vllm_service role
    writes it (vllm_service.systemd_exec); [] when the text has none."""
    for line in str(unit_text or '').splitlines():
        if line.startswith('ExecStart='):
            # Prefixes systemd allows before the path (ignore failure, full privileges, ...).
            return systemd_exec_argv(line[len('ExecStart='):].lstrip('@-:+!'))
    return []


def serving_labels(argv, stack=None, served_model=''):
    """What a benchmark measured, so reports of two runs (before and after an upgrade) can be
    compared: the served model and its path, the stack release and versions, TP/DP/PP.

    ``argv``: the service's command line (the unit's ExecStart words; empty when the node has no
    unit of this collection: the sizes are then unknown, not 1). ``stack``: ``ascend_stack``.
    ``served_model``: the name the benchmark sends (wins over the command line's).
    """
    argv = [str(word) for word in argv or []]
    stack = stack or {}
    labels = {'model': served_model or '', 'model_path': '', 'release': stack.get('release') or '',
              'vllm': stack.get('vllm') or '', 'vllm_ascend': stack.get('vllm_ascend') or '',
              'cann': stack.get('cann') or '', 'tp': None, 'dp': None, 'pp': None}
    if 'serve' not in argv:
        return labels
    serve = argv[argv.index('serve') + 1:]
    values = _option_values(serve)
    for key, names in PARALLEL:
        text = values.get(names[0], '1')
        # A label never stops a benchmark: what cannot be read is reported as unknown.
        labels[key] = int(text) if text.isdigit() else None
    labels['model_path'] = serve[0] if serve and not serve[0].startswith('-') else values.get('--model', '')
    if not labels['model']:
        labels['model'] = values.get('--served-model-name') or labels['model_path']
    return labels


def unit_labels(unit_text, stack=None, served_model=''):
    """``serving_labels`` of the command line of the service's unit file text."""
    return serving_labels(unit_argv(unit_text), stack, served_model)


def labels_line(labels):
    """One line naming what was measured (``-`` for what is unknown)."""
    def size(key):
        return '-' if labels.get(key) is None else str(labels[key])
    return '%s (%s) on vLLM %s / vllm-ascend %s (release %s, CANN %s), TP %s x DP %s x PP %s' % (
        labels.get('model') or '-', labels.get('model_path') or '-', labels.get('vllm') or '-',
        labels.get('vllm_ascend') or '-', labels.get('release') or '-', labels.get('cann') or '-',
        size('tp'), size('dp'), size('pp'))


# ------------------------------------------------------------------------------------------ report
TABLE_HEADER = ('Host', 'Completed', 'Request/s', 'Output tok/s', 'TTFT p50 (ms)', 'TTFT p99 (ms)',
                'TPOT p99 (ms)', 'Verdict')


def _cell(text):
    return str(text).replace('|', '\\|').replace('\n', ' ')


LABELS_HEADER = ('Host', 'Model', 'Model path', 'Release', 'vLLM', 'vllm-ascend', 'CANN', 'TP', 'DP', 'PP')


def _labels_table(rows):
    """What each host served: the second table, so two reports can be compared line by line."""
    lines = ['', '| ' + ' | '.join(LABELS_HEADER) + ' |', '|' + '|'.join(['---'] * 7 + ['---:'] * 3) + '|']
    for row in rows:
        labels = row.get('labels') or {}
        cells = [row['host']] + [labels.get(key) or '-' for key in ('model', 'model_path', 'release', 'vllm',
                                                                    'vllm_ascend', 'cann')]
        cells += ['-' if labels.get(key) is None else labels[key] for key in ('tp', 'dp', 'pp')]
        lines.append('| ' + ' | '.join(_cell(c) for c in cells) + ' |')
    return lines


def table(rows):
    """Markdown table, one line per ``{host, summary}`` (summary null: the host has no result, with
    ``error`` saying why); then, when rows carry ``labels`` (``serving_labels``), a table of what each
    host served."""
    lines = ['| ' + ' | '.join(TABLE_HEADER) + ' |',
             '|' + '|'.join(['---'] + ['---:'] * 6 + ['---']) + '|']
    for row in rows:
        summary = row.get('summary')
        if not summary:
            cells = [row['host']] + ['-'] * 6 + ['no result: %s' % (row.get('error') or 'the run did not finish')]
        else:
            expected = summary.get('num_prompts')
            completed = ('%d/%d' % (summary['completed'], expected) if expected is not None
                         else str(summary['completed']))
            verdict = summary.get('verdict', '-')
            if summary.get('missed'):
                verdict += ': ' + '; '.join(m['message'] for m in summary['missed'])
            cells = [row['host'], completed, _fmt(summary['request_throughput']),
                     _fmt(summary['output_throughput']), _fmt(summary['ttft_p50_ms']),
                     _fmt(summary['ttft_p99_ms']), _fmt(summary['tpot_p99_ms']), verdict]
        lines.append('| ' + ' | '.join(_cell(c) for c in cells) + ' |')
    if any(row.get('labels') for row in rows):
        lines.extend(_labels_table(rows))
    return '\n'.join(lines) + '\n'
