# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Judging a vLLM server's answers and its systemd unit's state (pure; used by vllm_health)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

from ansible_collections.ascend.vllm.plugins.module_utils.monitoring import parse_exposition

# vLLM prefixes each line of its processes with "(<process> pid=<n>) " (v0.23.0: APIServer,
# EngineCore, EngineCore_DP0, Worker, ...), and the lines its logger writes with
# "<LEVEL> <mm-dd hh:mm:ss> [<file>:<line>] " (a traceback logged with logger.exception).
_PROCESS_PREFIX = re.compile(r'^\([^()]*? pid=\d+\) (?:(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) '
                             r'\d\d-\d\d \d\d:\d\d:\d\d \[[^\]]*\] )?')
_EXCEPTION_LINE = re.compile(r'^(?:[A-Za-z_]\w*\.)*[A-Z]\w*(?:Error|Exception)(?:: .*)?$')
# What a process says when another one failed first: vLLM's API server after its engine core
# died (vllm/v1/engine/utils.py at v0.23.0, wait_for_engine_startup).
_POINTS_ABOVE = 'See root cause above'


def root_cause(journal):
    """The exception line a process died of, when the journal ends with another process saying
    only that the cause is above ("... See root cause above."); None when it does not, or when no
    earlier exception line is there. ``journal``: the unit's journal text, oldest line first."""
    lines = (journal or '').splitlines()
    texts = [_PROCESS_PREFIX.sub('', line).strip() for line in lines]
    wrappers = [index for index, text in enumerate(texts) if _EXCEPTION_LINE.match(text) and _POINTS_ABOVE in text]
    if not wrappers:
        return None
    for index in range(wrappers[-1] - 1, -1, -1):
        if _EXCEPTION_LINE.match(texts[index]) and _POINTS_ABOVE not in texts[index]:
            return lines[index].strip()
    return None


def parse_show(text):
    """``systemctl show -p A,B`` output -> dict."""
    state = {}
    for line in (text or '').splitlines():
        if '=' in line:
            key, value = line.split('=', 1)
            state[key.strip()] = value.strip()
    return state


def unit_problem(state, restarts_before):
    """Why waiting for the server is pointless, or None. ``state`` from parse_show (None: no unit)."""
    if state is None:
        return None
    active = state.get('ActiveState', 'unknown')
    if active in ('failed', 'inactive', 'unknown'):
        result = state.get('Result')
        return '%s%s' % (active, (' (result %s, exit status %s)' % (result, state.get('ExecMainStatus', '?')))
                         if result and result != 'success' else '')
    if restarts_before is not None and state.get('NRestarts') not in (None, restarts_before):
        return 'restarting (systemd restarted it %s time(s) since the gate began; the server keeps exiting)' % (
            int(state['NRestarts']) - int(restarts_before))
    return None


def _json(text):
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return None


def _error(status, text):
    data = _json(text)
    detail = text
    if isinstance(data, dict):
        err = data.get('error', data)
        if isinstance(err, dict):
            detail = err.get('message', err)
        else:
            detail = err
    return 'HTTP %s: %s' % (status, str(detail)[:300])


def check_models(status, text, name):
    """(model ids, problem or None) for a /v1/models answer."""
    if status != 200:
        return [], _error(status, text)
    data = _json(text)
    if not isinstance(data, dict) or not isinstance(data.get('data'), list):
        return [], 'not a model list: %s' % str(text)[:300]
    models = [m.get('id') for m in data['data'] if isinstance(m, dict)]
    if name not in models:
        return models, 'the served model %s is not listed (listed: %s)' % (name, ', '.join(map(str, models)) or 'none')
    return models, None


def check_completion(status, text):
    """(completion tokens, text, problem or None) for a /v1/completions answer."""
    if status != 200:
        return None, None, _error(status, text)
    data = _json(text)
    try:
        output = data['choices'][0]['text']
        tokens = int(data['usage']['completion_tokens'])
    except (TypeError, KeyError, IndexError, ValueError):
        return None, None, 'not a completion: %s' % str(text)[:300]
    if tokens < 1:
        return tokens, output, 'the completion returned no tokens'
    # Tokens that decode to nothing (only special tokens, or an end of sequence at once): the
    # engine ran, but the model or its tokenizer is not what the service should answer with.
    if not output:
        return tokens, output, 'the completion returned %d token(s) but no text' % tokens
    return tokens, output, None


# The load gauges and counters of vLLM's Prometheus endpoint (vllm/v1/metrics/loggers.py at v0.23.0)
# that verify reports, by the key the module returns. Counters end in _total in the exposition.
LOAD_METRICS = (
    ('requests_running', 'vllm:num_requests_running'),
    ('requests_waiting', 'vllm:num_requests_waiting'),
    ('kv_cache_usage_perc', 'vllm:kv_cache_usage_perc'),
    ('generation_tokens', 'vllm:generation_tokens_total'),
)


def parse_metrics(text):
    """The ``LOAD_METRICS`` of a Prometheus text exposition, each summed over its series (one per
    engine and model), as ``{key: float or None}``; None for a metric the text does not have."""
    sums = {}
    for name, _labels, value in parse_exposition(text):
        sums[name] = sums.get(name, 0.0) + value
    return dict((key, sums.get(name)) for key, name in LOAD_METRICS)


def describe_load(metrics):
    """One phrase for verify: ``2 running, 0 waiting, KV cache 3.1 %, 1234 tokens generated``; ''
    when no metric was read."""
    if not metrics or all(value is None for value in metrics.values()):
        return ''
    parts = []
    for key, label in (('requests_running', 'running'), ('requests_waiting', 'waiting')):
        if metrics.get(key) is not None:
            parts.append('%d %s' % (metrics[key], label))
    if metrics.get('kv_cache_usage_perc') is not None:
        parts.append('KV cache %.1f %%' % (metrics['kv_cache_usage_perc'] * 100))
    if metrics.get('generation_tokens') is not None:
        parts.append('%d tokens generated' % metrics['generation_tokens'])
    return ', '.join(parts)


def _option(argv, name):
    """The value of ``--name value`` or ``--name=value`` in ``argv`` (the last one), else None."""
    value = None
    for index, word in enumerate(argv):
        if word == name and index + 1 < len(argv):
            value = argv[index + 1]
        elif word.startswith(name + '='):
            value = word[len(name) + 1:]
    return value


def unit_address(unit_text, key_text=None):
    """Where the server a unit file runs answers, as that file says: ``(url, served_model_name,
    api_key)``.

    ``unit_text`` is the unit file (its ``ExecStart=`` line, as the role writes it: the ``vllm
    serve`` argv, directly or through the container engine); ``key_text`` the API key file (the
    ``VLLM_API_KEY=`` line a unit reads, or the bare key the container reads), None when there is
    none. The gate after a rollback asks the restored files, not the values of the failed run.
    Raises ValueError when the unit runs no ``vllm serve``."""
    from ansible_collections.ascend.vllm.plugins.module_utils.vllm_service import parse_env_file, systemd_exec_argv

    lines = [line[len('ExecStart='):] for line in (unit_text or '').splitlines() if line.startswith('ExecStart=')]
    argv = systemd_exec_argv(lines[-1]) if lines else []
    if 'serve' not in argv:
        raise ValueError('the unit file runs no "vllm serve" (ExecStart=%s)' % (lines[-1] if lines else ''))
    serve = argv[argv.index('serve'):]
    host = _option(serve, '--host') or ''
    port = _option(serve, '--port') or '8000'
    names = []
    if '--served-model-name' in serve:
        for word in serve[serve.index('--served-model-name') + 1:]:
            if word.startswith('--'):
                break
            names.append(word)
    name = names[0] if names else (serve[1] if len(serve) > 1 else '')
    host = '127.0.0.1' if host in ('0.0.0.0', '::', '') else host
    key = None
    if key_text is not None:
        key = (parse_env_file(key_text).get('VLLM_API_KEY') if key_text.startswith('VLLM_API_KEY=')
               else key_text.rstrip('\n')) or None
    return 'http://%s:%s' % ('[%s]' % host if ':' in host else host, port), name, key


def run_began(state, now, monotonic_now):
    """The epoch second at which the unit's current run began, from ``systemctl show``'s
    ``InactiveExitTimestampMonotonic`` (microseconds of CLOCK_MONOTONIC, the clock
    ``time.monotonic()`` reads) and the time now on both clocks; None when the unit never ran."""
    try:
        began = int((state or {}).get('InactiveExitTimestampMonotonic') or 0)
    except (TypeError, ValueError):
        return None
    if began <= 0:
        return None
    return now - (monotonic_now - began / 1e6)
