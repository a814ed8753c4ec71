# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The kernel_tuning role's read-back report: one row per managed setting (pure functions).

``report_rows`` compares what was asked with what the node shows after the role's work
(``state``, as tasks/read.yml gathers it) and ``table_lines`` prints the rows as the
fixed-width table the role shows. No Ansible imports, so pytest covers every row kind.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.ascend.vllm.plugins.module_utils.hugepages import SIZES_KB
# Jinja's ``| int`` (0 for what is no integer): the verify entry point reports, it does not validate.
from ansible_collections.ascend.vllm.plugins.module_utils.numbers import as_int

IRQBALANCE_WANTED = 'stopped, disabled'
_STOPPED = ('inactive', 'failed')
_DISABLED = ('disabled', 'masked', 'masked-runtime')


def _text(value):
    """A wanted value as the table shows it (Jinja's ``| string``)."""
    return str(value)


def _row(setting, wanted, actual, ok):
    return {'setting': setting, 'wanted': wanted, 'actual': actual, 'ok': bool(ok)}


def _skipped(setting, wanted):
    # Marked, so the verify role's JUnit shows it as skipped rather than passed.
    return dict(_row(setting, wanted, 'skipped', True), skipped=True)


def _pool_label(pool):
    node = pool.get('node')
    return 'hugepages %s %s' % (pool.get('size'), 'host-wide' if node is None else 'node %s' % node)


def _pool_total(nodes, pool):
    """Pages of the pool's size on its node (or on every node for a host-wide pool); 0 for a size
    this kernel or this collection does not know."""
    kb = SIZES_KB.get(str(pool.get('size')).upper())
    if kb is None:
        return 0
    key = '%dkB' % kb
    node = pool.get('node')
    total = 0
    for entry in nodes or []:
        if node is not None and entry.get('id') != as_int(node):
            continue
        total += as_int(((entry.get('hugepages') or {}).get(key) or {}).get('total'))
    return total


def report_rows(wanted, state, skip=(), hugepage_results=()):
    """Rows ``{setting, wanted, actual, ok}`` for every setting of ``wanted``.

    ``wanted``: ``sysctl`` (name -> value; null or empty: not managed), ``cpu_governor``, ``thp``
    (empty: not managed), ``irqbalance`` (bool), ``memlock_user`` (empty: not managed),
    ``memlock_limit``, ``hugepages`` (pools ``{size, count, node}``). ``state``: tasks/read.yml's
    ``__kernel_tuning_state``. ``skip``: kernel_tuning_skip (a skipped setting shows as ``skipped``,
    is ok and carries ``skipped: true``). ``hugepage_results``: the hugepages module's loop results (``item``, ``reboot_required``):
    a pool waiting for the next boot is ok, with the rest shown as pending.
    """
    skip = set(skip or ())
    rows = []
    values = state.get('sysctl_values') or {}
    for key, value in (wanted.get('sysctl') or {}).items():
        if key in skip:
            rows.append(_skipped(key, _text(value)))
        elif value is not None and _text(value) != '':
            actual = values.get(key, 'absent')
            rows.append(_row(key, _text(value), actual, actual == re.sub(r'\s+', ' ', _text(value)).strip()))

    governor = wanted.get('cpu_governor') or ''
    if governor:
        if 'cpu_governor' in skip:
            rows.append(_skipped('cpu_governor', governor))
        else:
            governors = list(state.get('governors') or [])
            rows.append(_row('cpu_governor', governor, ','.join(governors) or state.get('governor_state'),
                             governors == [governor]))

    thp = wanted.get('thp') or ''
    if thp:
        if 'thp' in skip:
            rows.append(_skipped('thp', thp))
        else:
            rows.append(_row('thp', thp, state.get('thp') or state.get('thp_state'), state.get('thp') == thp))

    if wanted.get('irqbalance'):
        irq = state.get('irqbalance') or {}
        if 'irqbalance' in skip:
            rows.append(_skipped('irqbalance', IRQBALANCE_WANTED))
        elif irq.get('LoadState', 'not-found') != 'loaded':
            rows.append(_row('irqbalance', IRQBALANCE_WANTED, 'not installed', True))
        else:
            rows.append(_row('irqbalance', IRQBALANCE_WANTED,
                             '%s, %s' % (irq.get('ActiveState', '?'), irq.get('UnitFileState', '?')),
                             irq.get('ActiveState', '') in _STOPPED and irq.get('UnitFileState', '') in _DISABLED))

    user = wanted.get('memlock_user') or ''
    if user:
        label = 'memlock ' + user
        limit = _text(wanted.get('memlock_limit'))
        if 'memlock' in skip:
            rows.append(_skipped(label, limit))
        else:
            memlock = state.get('memlock') or ''
            rows.append(_row(label, limit, memlock, memlock.split(' ')[0] == limit))

    for pool in wanted.get('hugepages') or []:
        label = _pool_label(pool)
        count = as_int(pool.get('count'))
        if 'hugepages' in skip:
            rows.append(_skipped(label, _text(pool.get('count'))))
            continue
        actual = _pool_total(state.get('hugepages'), pool)
        result = next((r for r in hugepage_results or [] if r.get('item') == pool), {})
        pending = bool(result.get('reboot_required'))
        rows.append(_row(label, _text(pool.get('count')),
                         '%d%s' % (actual, ' (rest at the next boot)' if pending and actual != count else ''),
                         actual == count or pending))
    return rows


def table_lines(rows, check_mode=False):
    """The rows as ``setting  wanted  actual`` lines, a mismatch marked (``would change`` in check mode)."""
    width = max([7] + [len(row['setting']) for row in rows])
    wide = max([6] + [len(row['wanted']) for row in rows])
    line = '%%-%ds  %%-%ds  %%s' % (width, wide)
    lines = [line % ('setting', 'wanted', 'actual')]
    for row in rows:
        mark = '' if row['ok'] else ('   <- would change' if check_mode else '   <- MISMATCH')
        lines.append(line % (row['setting'], row['wanted'], '%s%s' % (row['actual'], mark)))
    return lines
