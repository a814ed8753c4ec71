# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The rolling_upgrade role's inventory checks before any node is touched (pure functions).

Nothing here imports Ansible or reads a file: the role passes whether each hook file exists on
the controller. plugins/filter/rolling_upgrade.py exposes ``request_problems`` as the filter
``rolling_upgrade_problems``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

_BATCH = re.compile(r'^[1-9][0-9]*%?$')


def request_problems(request):
    """Every reason ``request`` cannot start, in a fixed order (empty: it can).

    ``request``: ``chip`` (stack_chip_support of the inventory's chip, {} when none is named),
    ``first_batch``, ``batch`` (a count or a percentage), ``drain_file`` / ``undrain_file`` (absolute
    paths, '' for no hook) with ``drain_exists`` / ``undrain_exists``, ``install_method``,
    ``multinode_mode`` (vllm_service_multinode_mode), ``service_nodes`` (the multi-node service's
    nodes: vllm_head then vllm_workers) and ``rollout_hosts`` (the hosts of the rollout, after --limit).
    """
    r = request
    problems = []
    chip = r.get('chip') or {}
    if chip.get('level') == 'unsupported':
        problems.append(chip.get('message') or 'the chip is not supported by the target release')
    for key, example in (('first_batch', '1 or 10%'), ('batch', '2 or 25%')):
        if not _BATCH.match(str(r.get(key))):
            problems.append('rolling_upgrade_%s must be a count or a percentage such as %s, got %s' % (key, example, r.get(key)))
    for hook in ('drain', 'undrain'):
        path = r.get('%s_file' % hook) or ''
        if path and not r.get('%s_exists' % hook):
            problems.append('rolling_upgrade_%s_tasks: no such file on the controller: %s' % (hook, path))
    method = r.get('install_method') or 'venv'
    if method != 'venv':
        problems.append('vllm_service_install_method %s is not supported; a rolling upgrade keeps a virtualenv per release '
                        '(venv)' % method)
    # A multi-node service moves as one unit (plan_batches keeps its nodes in one batch), so every
    # node of it must be in the rollout. Mode ray is refused: its nodes run Ray from the serving
    # virtualenv (ray_cluster role), which a virtualenv per release would leave behind.
    mode = r.get('multinode_mode') or 'none'
    if mode == 'ray':
        problems.append('it serves part of a Ray multi-node service (vllm_service_multinode_mode ray), whose Ray cluster '
                        'runs from the serving virtualenv and is not moved by the rollout; move the service\'s nodes '
                        'together with site.yml in a change window (the release set in the inventory), and leave them '
                        'out of the rolling upgrade with --limit')
    elif mode != 'none':
        rollout = r.get('rollout_hosts') or []
        absent = [host for host in r.get('service_nodes') or [] if host not in rollout]
        if absent:
            problems.append('it serves part of a multi-node service (vllm_service_multinode_mode %s) that moves as one '
                            'unit, but %s of that service %s not in this rollout; include every host of vllm_head and '
                            'vllm_workers, or leave all of them out with --limit'
                            % (mode, ', '.join(absent), 'is' if len(absent) == 1 else 'are'))
    return problems


def batch_size(value, total):
    """Nodes in a batch of ``value`` (a count, or a percentage of ``total`` nodes rounded down, at
    least 1: what Ansible's ``serial`` makes of it)."""
    text = str(value)
    if text.endswith('%'):
        return max(1, int(total * int(text[:-1]) / 100.0))
    return int(text)


def plan_batches(hosts, units, first_batch, batch):
    """The rollout's batches: lists of hosts in inventory order, a unit never split.

    ``hosts``: the rollout's hosts in inventory order; ``units``: host -> the hosts that move with
    it (a multi-node service's nodes, head first; a host missing here moves alone). A batch takes
    whole units while it holds fewer nodes than its size (``first_batch`` for the first,
    ``batch`` for every later one); a unit larger than the size is a batch of its own.

    Returns ``batches``, ``order`` (the hosts batch after batch, for the play's host list) and
    ``serial`` (each batch's size, for the play's ``serial``).
    """
    hosts = list(hosts)
    placed = set()
    ordered_units = []
    for host in hosts:
        if host in placed:
            continue
        unit = [member for member in (units.get(host) or [host]) if member in hosts]
        if host not in unit:
            unit.append(host)
        placed.update(unit)
        ordered_units.append(unit)
    batches = []
    current = []
    for unit in ordered_units:
        size = batch_size(first_batch if not batches else batch, len(hosts))
        if current and len(current) + len(unit) > size:
            batches.append(current)
            current = []
            size = batch_size(batch, len(hosts))
        current = current + unit
        if len(current) >= size:
            batches.append(current)
            current = []
    if current:
        batches.append(current)
    return {'batches': batches, 'order': [host for b in batches for host in b], 'serial': [len(b) for b in batches]}


def slo_verdict(before, after, slo):
    """Compare two benchmark results of a batch (benchmark role's ``benchmark_result``).

    ``slo``: ``throughput_drop_pct`` (the output token throughput may fall by at most this
    percentage) and ``latency_rise_pct`` (TTFT p99 may rise by at most this percentage); a missing
    or null key is not judged. A run with an error or a failed request is a regression of its own.
    Returns ``regressed`` (bool), ``messages`` (one per regression) and both runs' figures.
    """
    slo = slo or {}
    messages = []
    for name, run in (('before', before), ('after', after)):
        if not run or run.get('error'):
            messages.append('the benchmark %s the upgrade did not run: %s' % (name, (run or {}).get('error') or 'no result'))
        elif (run.get('failed') or 0) > 0:
            messages.append('%s of the benchmark\'s requests failed %s the upgrade' % (run['failed'], name))
    figures = {}
    if not messages:
        drop_allowed = slo.get('throughput_drop_pct')
        rise_allowed = slo.get('latency_rise_pct')
        old, new = float(before['output_throughput']), float(after['output_throughput'])
        drop = (old - new) / old * 100.0 if old > 0 else 0.0
        old_l, new_l = float(before['ttft_p99_ms']), float(after['ttft_p99_ms'])
        rise = (new_l - old_l) / old_l * 100.0 if old_l > 0 else 0.0
        figures = {'output_throughput': [old, new], 'throughput_change_pct': round(-drop, 1),
                   'ttft_p99_ms': [old_l, new_l], 'ttft_p99_change_pct': round(rise, 1)}
        if drop_allowed is not None and drop > float(drop_allowed):
            messages.append('output throughput fell %.1f %% (%.1f -> %.1f tok/s), more than throughput_drop_pct %s'
                            % (drop, old, new, drop_allowed))
        if rise_allowed is not None and rise > float(rise_allowed):
            messages.append('TTFT p99 rose %.1f %% (%.1f -> %.1f ms), more than latency_rise_pct %s'
                            % (rise, old_l, new_l, rise_allowed))
    return {'regressed': bool(messages), 'messages': messages, 'figures': figures,
            'before': before or {}, 'after': after or {}}


# Results that count as moved: the node runs the target release (upgraded now, or already).
MOVED = ('upgraded', 'unchanged')


def summary_rows(hosts, facts_of):
    """One row per host of the play, from the facts each node recorded during the rollout.

    ``facts_of``: a mapping host -> that host's variables (Ansible's hostvars); a host the rollout
    never reached has no ``rolling_upgrade_result`` and is 'not reached'.
    """
    rows = []
    for host in hosts:
        facts = facts_of[host]
        rows.append({'host': host,
                     'from': facts.get('rolling_upgrade_from'),
                     'to': facts.get('rolling_upgrade_to'),
                     'result': facts.get('rolling_upgrade_result', 'not reached'),
                     'error': facts.get('rolling_upgrade_error', '') or '',
                     'slo': facts.get('rolling_upgrade_slo_result') or {}})
    return rows


def summary_line(row):
    """'<host>: <from> -> <to>: <result>[ (<error>)]', '?' for an unknown release."""
    line = '%s: %s -> %s: %s' % (row['host'], row.get('from') or '?', row.get('to') or '?', row['result'])
    return line + (' (%s)' % row['error'] if row.get('error') else '')


def stop_message(rows):
    """Why the rollout stopped, naming each node that did not move; '' when every node moved."""
    stuck = [row for row in rows if row['result'] not in MOVED]
    if not stuck:
        return ''
    parts = ['rolling_upgrade: the rollout stopped.']
    for row in stuck:
        if row['result'] == 'not reached':
            continue
        back = ' to %s' % row['from'] if row['result'] == 'rolled back' else ''
        parts.append('%s: %s%s after %s.' % (row['host'], row['result'], back, row.get('error') or 'an unknown error'))
    unreached = [row['host'] for row in stuck if row['result'] == 'not reached']
    parts.append('Not reached (still on their release): %s.' % (', '.join(unreached) or 'none'))
    return ' '.join(parts)
