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
    ``multinode_mode`` (vllm_service_multinode_mode).
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
    # The serial batches take hosts in inventory order: a head would move without its workers (or
    # the other way round), and vllm_service refuses to run part of a multi-node service, which
    # is not rolled back either. Refused until the rollout moves a service as one unit.
    mode = r.get('multinode_mode') or 'none'
    if mode != 'none':
        problems.append('it serves part of a multi-node service (vllm_service_multinode_mode %s), which the serial '
                        'batches would split; move the service\'s nodes together with site.yml in a change window '
                        '(the release set in the inventory), and leave them out of the rolling upgrade with --limit' % mode)
    return problems


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
                     'error': facts.get('rolling_upgrade_error', '') or ''})
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
