# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""What the kernel_tuning role reads of a node, in one pass (the module ascend.vllm.tuning_state).

The parsers here are pure; the module does the reading. Every value keeps the form the role's
checks (tuning_checks.py) and report (tuning_report.py) take: a sysctl, the CPU frequency
governors and the transparent huge pages policy are ``absent`` (the kernel has no such file),
``ro`` (it exists, but this run cannot write it - a container's /proc/sys) or ``rw``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

_THP_CHOSEN = re.compile(r'\[(\w+)\]')
_SPACE = re.compile(r'\s+')


def file_state(exists, writable):
    """``absent``, ``ro`` or ``rw``."""
    if not exists:
        return 'absent'
    return 'rw' if writable else 'ro'


def sysctl_path(proc_root, name):
    """/proc/sys/kernel/a/b for ``kernel.a.b`` (sysctl's own mapping of dots to directories)."""
    return '%s/sys/%s' % (proc_root.rstrip('/'), name.replace('.', '/'))


def sysctl_value(text):
    """A /proc/sys value as sysctl prints it: whitespace (tabs of multi-value keys, the newline)
    as single spaces, trimmed."""
    return _SPACE.sub(' ', text or '').strip()


def thp_policy(line):
    """``(policy, available)`` of a transparent_hugepage/enabled line such as
    ``always [madvise] never``: the bracketed one ('' when none) and every one offered."""
    line = line or ''
    chosen = _THP_CHOSEN.search(line)
    return (chosen.group(1) if chosen else '', line.replace('[', '').replace(']', '').split())


def governors_in_use(values):
    """The scaling_governor of every CPU, each once, sorted."""
    return sorted(set(value.strip() for value in values if value.strip()))


def sysctl_file_values(text):
    """``{key: value}`` of a sysctl.d file as ansible.posix.sysctl reads it: ``key = value`` lines,
    ``#`` and ``;`` comments and blank lines left out, the value's whitespace as in sysctl_value."""
    values = {}
    for line in (text or '').splitlines():
        line = line.strip()
        if not line or line.startswith(('#', ';')) or '=' not in line:
            continue
        key, value = line.split('=', 1)
        values[key.strip()] = sysctl_value(value)
    return values


def systemctl_properties(stdout):
    """``systemctl show --property=...`` output as a dict (``KEY=value`` lines)."""
    result = {}
    for line in (stdout or '').splitlines():
        if '=' in line:
            key, value = line.split('=', 1)
            result[key] = value
    return result


def limits_memlock(text, user):
    """The memlock values of ``user`` in a limits.d file: ``<user> <soft|hard> memlock <value>`` lines."""
    values = []
    for line in (text or '').splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[0] == user and fields[1] in ('soft', 'hard') and fields[2] == 'memlock':
            values.append(fields[3])
    return values


def _joined(values):
    """The values, each once in the order first seen, joined with /."""
    values = list(values)
    return '/'.join(value for index, value in enumerate(values) if value not in values[:index])


def memlock_summary(user, pam_values=None, file_values=None):
    """What the report shows for the memlock limit: the service user's soft/hard limits as a PAM
    session gets them (one value when they agree); before the user exists, the values of our
    limits file; else ``not set``."""
    if pam_values is not None:
        return _joined(pam_values)
    if file_values:
        return '%s (limits file; no user %s yet)' % (_joined(file_values), user)
    return 'not set'
