# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Progress lines of long background jobs (pure functions; the job_wait action plugin prints them).

A download says how many bytes have landed, of how many, and how fast; any other job says how long
it has run. Nothing here imports Ansible.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

_UNITS = ('B', 'KiB', 'MiB', 'GiB', 'TiB')


def human_bytes(count):
    """``1536`` -> ``1.5 KiB``; whole bytes below 1 KiB."""
    value = float(count)
    for unit in _UNITS:
        if value < 1024 or unit == _UNITS[-1]:
            return '%d B' % value if unit == 'B' else '%.1f %s' % (value, unit)
        value /= 1024
    return '%d B' % count  # not reached


def human_duration(seconds):
    """``130`` -> ``2m10s``; ``3725`` -> ``1h02m05s``."""
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return '%dh%02dm%02ds' % (hours, minutes, secs)
    if minutes:
        return '%dm%02ds' % (minutes, secs)
    return '%ds' % secs


def progress_line(host, label, elapsed, done=None, total=None, rate=None, waiting=None):
    """One line for the operator: ``host: label: 3.2 GiB of 15.0 GiB (21%), 85.0 MiB/s, 2m10s``.

    ``done``/``total``/``rate`` in bytes (and bytes per second); without ``done`` only the time
    is said. ``waiting``: how many of several jobs are still running (said when more than one ran).
    """
    parts = []
    if done is not None:
        amount = human_bytes(done)
        if total:
            amount += ' of %s (%d%%)' % (human_bytes(total), min(100, int(100 * done / total)))
        parts.append(amount)
        if rate is not None:
            parts.append('%s/s' % human_bytes(max(0, rate)))
    parts.append('running for %s' % human_duration(elapsed))
    if waiting:
        parts.append('%s still running' % waiting)
    return '%s: %s: %s' % (host, label, ', '.join(parts))


def total_size(files):
    """Sum of the ``size`` of ansible.builtin.find's ``files``."""
    return sum(int(item.get('size') or 0) for item in files or [])
