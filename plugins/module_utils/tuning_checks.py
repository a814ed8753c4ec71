# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The kernel_tuning role's checks before any change (pure functions).

``request_problems`` finds what is wrong with the request itself (names, values, huge page
pools against the node's NUMA nodes and memory), ``kernel_refusals`` what this kernel will not
take (absent or read-only knobs, no cpufreq, a memlock limit root cannot grant), and
``failure_message`` says both at once, with the kernel_tuning_skip value that would get past
the refusals; ``apply_reasons`` says what of the request is not yet so, running or persisted, so
that a run with nothing to do skips the apply step. No Ansible imports, so pytest covers every
refusal.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

from ansible_collections.ascend.vllm.plugins.module_utils.hugepages import SIZES_KB
from ansible_collections.ascend.vllm.plugins.module_utils.numbers import as_int
from ansible_collections.ascend.vllm.plugins.module_utils.tuning_state import sysctl_file_values, sysctl_value

# The settings other than sysctl names, as kernel_tuning_skip names them.
SETTING_NAMES = ('cpu_governor', 'thp', 'irqbalance', 'memlock', 'hugepages')
THP_MODES = ('', 'never', 'madvise', 'always')
_SYSCTL_NAME = re.compile(r'^[a-z0-9_]+([.][A-Za-z0-9_-]+)+$')
_LIMIT = re.compile(r'^(unlimited|[0-9]+)$')
_COUNT = re.compile(r'^[0-9]+$')

# Why a knob may be missing, for the refusal.
ABSENT_HINTS = {
    'kernel.sched_migration_cost_ns': 'Linux 5.13 moved it to debugfs (/sys/kernel/debug/sched/migration_cost_ns), '
                                      'it is no sysctl on this kernel',
}


def managed(wanted, skip):
    """The settings this run manages: set and not skipped."""
    skip = set(skip or ())
    return {
        'cpu_governor': bool(wanted.get('cpu_governor')) and 'cpu_governor' not in skip,
        'thp': bool(wanted.get('thp')) and 'thp' not in skip,
        'memlock': bool(wanted.get('memlock_user')) and 'memlock' not in skip,
        'hugepages': bool(wanted.get('hugepages')) and 'hugepages' not in skip,
    }


def _pool_problems(pools, nodes):
    problems = []
    seen = set()
    node_ids = [node.get('id') for node in nodes]
    for pool in pools:
        node = pool.get('node')
        where = 'host-wide' if node is None else 'node %s' % node
        label = 'hugepages %s %s' % (pool.get('size', '?'), where)
        if pool.get('size', '') not in SIZES_KB or 'count' not in pool or not _COUNT.match(str(pool['count'])):
            problems.append('%s: each entry needs size 2M or 1G and a count of 0 or more, got %s'
                            % (label, json.dumps(pool)))
            continue
        if label in seen:
            problems.append('%s: listed twice' % label)
            continue
        if node is not None and as_int(node) not in node_ids:
            problems.append('%s: no NUMA node %s (nodes: %s)' % (label, node, ', '.join(str(i) for i in node_ids)))
            continue
        seen.add(label)
        kb = SIZES_KB[pool['size']]
        key = '%dkB' % kb
        on = nodes if node is None else [entry for entry in nodes if entry.get('id') == as_int(node)]
        if any(key not in (entry.get('hugepages') or {}) for entry in on):
            problems.append('%s: this kernel has no %s huge pages' % (label, key))
            continue
        allocated = sum(as_int(entry['hugepages'][key].get('total')) for entry in on)
        memory_mb = sum(as_int(entry.get('memory_mb')) for entry in on)
        requested_mb = int(pool['count']) * kb // 1024
        if memory_mb > 0 and requested_mb > memory_mb:
            problems.append('%s: requested %s pages (%d MiB), more than the %d MiB of memory %s; allocated now: %d pages.'
                            ' Lower the count' % (label, pool['count'], requested_mb, memory_mb,
                                                  'of the host' if node is None else 'of the node', allocated))
    return problems


def request_problems(wanted, skip, nodes):
    """What is wrong with the request: unknown skip names, values, huge page pools.

    ``wanted`` as for tuning_report.report_rows; ``nodes``: ``ansible_facts.ascend_numa.nodes``.
    """
    skip = list(skip or ())
    on = managed(wanted, skip)
    # Any sysctl name may be skipped (an inventory may skip one the request no longer has).
    known = list(SETTING_NAMES) + list((wanted.get('sysctl') or {}).keys())
    unknown = [name for name in skip if name not in known and not _SYSCTL_NAME.match(str(name))]
    problems = []
    if unknown:
        problems.append('kernel_tuning_skip names unknown settings %s (known: %s or another sysctl name)'
                        % (', '.join(unknown), ', '.join(known)))
    thp = wanted.get('thp') or ''
    if thp not in THP_MODES:
        problems.append('kernel_tuning_thp must be never, madvise, always or empty, got %s' % thp)
    limit = str(wanted.get('memlock_limit'))
    if on['memlock'] and not _LIMIT.match(limit):
        problems.append('kernel_tuning_memlock_limit must be unlimited or a number of KiB, got %s' % limit)
    if on['hugepages']:
        problems.extend(_pool_problems(wanted.get('hugepages') or [], nodes or []))
    return problems


def kernel_refusals(wanted, skip, state, thp_file):
    """``[{name, why}]`` of what this kernel does not take (``state``: tasks/read.yml's state)."""
    on = managed(wanted, skip)
    refused = []
    sysctl = state.get('sysctl') or {}
    for key in [name for name, value in sysctl.items() if value == 'absent']:
        hint = ABSENT_HINTS.get(key)
        refused.append({'name': key, 'why': 'no /proc/sys/%s on kernel %s%s'
                        % (key.replace('.', '/'), state.get('kernel'), ' (%s)' % hint if hint else '')})
    for key in [name for name, value in sysctl.items() if value == 'ro']:
        refused.append({'name': key, 'why': '/proc/sys/%s is read-only here' % key.replace('.', '/')})
    if on['cpu_governor']:
        governor = wanted['cpu_governor']
        if state.get('governor_state') == 'absent':
            refused.append({'name': 'cpu_governor', 'why': 'no cpufreq in /sys/devices/system/cpu/cpu*/cpufreq (no frequency'
                                                           ' scaling driver: the firmware controls the clocks, or a VM)'})
        elif state.get('governor_state') == 'ro':
            refused.append({'name': 'cpu_governor', 'why': 'scaling_governor is read-only here'})
        elif governor not in (state.get('governors_available') or []):
            refused.append({'name': 'cpu_governor', 'why': 'governor %s is not offered (available: %s)'
                            % (governor, ', '.join(state.get('governors_available') or []))})
    limit = str(wanted.get('memlock_limit'))
    if on['memlock'] and not state.get('memlock_grantable') and _LIMIT.match(limit):
        refused.append({'name': 'memlock', 'why': 'a session cannot get the memlock limit %s here: the hard limit is %s'
                        ' (KiB) and raising it needs CAP_SYS_RESOURCE, which root lacks on this host'
                        % (limit, state.get('memlock_hard_now'))})
    if on['thp']:
        if state.get('thp_state') == 'absent':
            refused.append({'name': 'thp', 'why': 'no %s (kernel without transparent huge pages)' % thp_file})
        elif state.get('thp_state') == 'ro':
            refused.append({'name': 'thp', 'why': '%s is read-only here' % thp_file})
    return refused


def failure_message(host, problems, refused, skip):
    """One message with every refusal and problem, and the kernel_tuning_skip that passes the refusals."""
    parts = ['kernel_tuning on %s:' % host]
    if refused:
        names = [r['name'] for r in refused]
        them = 'it' if len(refused) == 1 else 'them'
        new_skip = []
        for name in list(skip or ()) + names:
            if name not in new_skip:
                new_skip.append(name)
        parts.append('the kernel refuses %s - %s. Remove %s from the request or list %s in kernel_tuning_skip'
                     ' (kernel_tuning_skip: %s).'
                     % (', '.join(names), '; '.join('%s: %s' % (r['name'], r['why']) for r in refused), them, them,
                        json.dumps(new_skip)))
    if problems:
        parts.append('; '.join(problems) + '.')
    parts.append('Nothing was changed.')
    return ' '.join(parts)


# What the role's own files must be (tasks/apply.yml writes them with these).
_OWN_FILE = {'mode': '0644', 'uid': 0, 'gid': 0}
# irqbalance.service as tasks/apply.yml leaves it: stopped and not enabled.
_STOPPED = ('inactive', 'failed')
_NOT_ENABLED = ('disabled', 'masked')


def _file_differs(read, text):
    """Why the role's file ``read`` (tuning_state's files entry) is not ``text`` as the role writes it, or ''."""
    if not read or not read.get('exists'):
        return 'missing'
    if read.get('text') != text:
        return 'content differs'
    owned = dict((key, read.get(key)) for key in _OWN_FILE)
    if owned != _OWN_FILE:
        return 'mode or owner differs'
    return ''


def apply_reasons(plan, state):
    """What the apply step would change, one text each; empty when the node is as ``plan`` asks.

    ``plan``: ``sysctl`` ({key: value} managed), ``sysctl_unset`` (keys to drop from the file),
    ``sysctl_file``, ``governor`` and ``thp`` (wanted values, '' when not managed), ``unit_file``
    and ``unit_text`` (the boot unit as the role renders it), ``unit_absent`` (neither value wanted
    nor skipped: the unit must go), ``irqbalance`` (stop it), ``memlock`` (managed), ``limits_file``
    and ``limits_text``, ``limits_absent`` (no user: the file must go), ``hugepages`` (managed).
    ``state``: ascend.vllm.tuning_state's, read with the three files and the unit.

    Huge page pools are always applied when managed: ascend.vllm.hugepages reads each pool and its
    persistence (sysctl, boot loader, tmpfiles) itself and changes only what differs.
    """
    files = state.get('files') or {}
    reasons = []
    if plan.get('hugepages'):
        reasons.append('huge page pools (ascend.vllm.hugepages compares them)')
    running = state.get('sysctl_values') or {}
    persisted = sysctl_file_values((files.get(plan.get('sysctl_file')) or {}).get('text'))
    for key in sorted(plan.get('sysctl') or {}):
        wanted = sysctl_value(str(plan['sysctl'][key]))
        if sysctl_value(running.get(key)) != wanted:
            reasons.append('sysctl %s: running %s, wanted %s' % (key, running.get(key), wanted))
        if persisted.get(key) != wanted:
            reasons.append('sysctl %s: %s has %s, wanted %s' % (key, plan.get('sysctl_file'), persisted.get(key), wanted))
    for key in sorted(set(plan.get('sysctl_unset') or []) & set(persisted)):
        reasons.append('sysctl %s: still in %s' % (key, plan.get('sysctl_file')))
    unit = files.get(plan.get('unit_file')) or {}
    if plan.get('governor') or plan.get('thp'):
        differs = _file_differs(unit, plan.get('unit_text'))
        if differs:
            reasons.append('%s: %s' % (plan.get('unit_file'), differs))
        if (state.get('unit') or {}).get('UnitFileState') != 'enabled':
            reasons.append('%s: not enabled' % plan.get('unit_file'))
        if plan.get('governor') and state.get('governors') != [plan['governor']]:
            reasons.append('cpu_governor: %s, wanted %s' % (', '.join(state.get('governors') or []), plan['governor']))
        if plan.get('thp') and state.get('thp') != plan['thp']:
            reasons.append('thp: %s, wanted %s' % (state.get('thp'), plan['thp']))
    elif plan.get('unit_absent') and unit.get('exists'):
        reasons.append('%s: no longer wanted' % plan.get('unit_file'))
    irqbalance = state.get('irqbalance') or {}
    if plan.get('irqbalance') and irqbalance.get('LoadState') == 'loaded' and (
            irqbalance.get('ActiveState') not in _STOPPED or irqbalance.get('UnitFileState') not in _NOT_ENABLED):
        reasons.append('irqbalance: %s, %s' % (irqbalance.get('ActiveState'), irqbalance.get('UnitFileState')))
    limits = files.get(plan.get('limits_file')) or {}
    if plan.get('memlock'):
        differs = _file_differs(limits, plan.get('limits_text'))
        if differs:
            reasons.append('%s: %s' % (plan.get('limits_file'), differs))
    elif plan.get('limits_absent') and limits.get('exists'):
        reasons.append('%s: no longer wanted' % plan.get('limits_file'))
    return reasons
