# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Judging a vLLM server's answers and its systemd unit's state (pure; used by vllm_health)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json


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
