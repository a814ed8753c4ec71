# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Pure parsers of Ray's ``ray status`` output and the join check of the ray_cluster role.

``ray status`` (Ray 2.x autoscaler summary) prints a node section (``Active:``, ``Idle:``,
``Pending:``, ``Recent failures:``), the cluster's ``Total Usage:`` as ``used/total name`` lines,
and with ``-v`` one ``Node: <id>`` block per node with its own ``Usage:`` lines. A node whose
raylet died stays listed for a while, with an empty ``Usage:`` block: only a node with resources
is alive. The per-node ``node:<ip>`` resources are never printed; the ray_cluster role therefore
gives every node a resource ``ascend_host:<inventory name>`` that names it.
"""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

import re

HOST_RESOURCE_PREFIX = 'ascend_host:'
NO_STATUS = 'No cluster status'

_SECTIONS = ('Node status', 'Resources', 'Active:', 'Idle:', 'Pending:', 'Recent failures:', 'Total Usage:', 'From request_resources:',
             'Pending Demands:', 'Usage:', 'Activity:')
_USAGE = re.compile(r'^(?P<used>[0-9.]+[A-Za-z]*)/(?P<total>[0-9.]+[A-Za-z]*) (?P<name>\S+)')
_NODE = re.compile(r'^Node: (?P<id>[0-9a-f]+)')
_COUNT = re.compile(r'^(?P<count>[0-9]+) (?P<type>\S+)$')
_UNITS = {'B': 1, 'KiB': 1024, 'MiB': 1024 ** 2, 'GiB': 1024 ** 3, 'TiB': 1024 ** 4}
_AMOUNT = re.compile(r'^(?P<number>[0-9.]+)(?P<unit>[A-Za-z]*)$')


class RayStatusError(ValueError):
    """Output that is not ``ray status``."""


def _amount(text):
    """'8.0' -> 8.0, '95.37MiB' -> bytes as float."""
    match = _AMOUNT.match(text)
    if not match:
        raise RayStatusError('not an amount: %r' % (text,))
    unit = match.group('unit')
    if unit and unit not in _UNITS:
        raise RayStatusError('unknown unit in %r' % (text,))
    return float(match.group('number')) * _UNITS.get(unit, 1)


def _usage_line(line, into_total, into_used):
    match = _USAGE.match(line)
    if not match:
        return False
    into_total[match.group('name')] = _amount(match.group('total'))
    into_used[match.group('name')] = _amount(match.group('used'))
    return True


def parse_status(text):
    """``ray status [-v]`` stdout -> dict.

    ``ready`` is False (and everything else empty) when the autoscaler has not published a status
    yet (``No cluster status. ...``, printed for a few seconds after the head started).
    ``active`` / ``idle`` / ``pending`` / ``failures`` are lists of the lines of those sections
    (``active``: node type names such as ``node_<id>``); ``total`` and ``used`` map each resource of
    ``Total Usage`` to a number (memory in bytes); ``nodes`` (``-v`` only) lists
    ``{id, total, used, host}`` per ``Node:`` block, ``host`` from the ``ascend_host:`` resource.
    """
    if text is None:
        raise RayStatusError('no output')
    lines = [line.rstrip() for line in str(text).splitlines()]
    result = {'ready': False, 'active': [], 'idle': [], 'pending': [], 'failures': [], 'total': {}, 'used': {},
              'nodes': []}
    if any(line.startswith(NO_STATUS) for line in lines):
        return result
    if not any(line.startswith('======== Autoscaler status') for line in lines):
        first = next((line for line in lines if line.strip()), '')
        raise RayStatusError('not the output of ray status (first line: %r)' % (first[:200],))
    result['ready'] = True
    section = None
    node = None
    for raw in lines:
        line = raw.strip()
        if not line or set(line) <= set('-='):
            continue
        match = _NODE.match(line)
        if match:
            node = {'id': match.group('id'), 'total': {}, 'used': {}, 'host': None}
            result['nodes'].append(node)
            section = 'node'
            continue
        if line in _SECTIONS:
            section = line
            continue
        if line.startswith('(') and line.endswith(')'):
            continue  # "(no pending nodes)", "(none)", ...
        if section in ('Active:', 'Idle:'):
            count = _COUNT.match(line)
            if count:
                key = 'active' if section == 'Active:' else 'idle'
                result[key].extend([count.group('type')] * int(count.group('count')))
        elif section == 'Pending:':
            result['pending'].append(line)
        elif section == 'Recent failures:':
            result['failures'].append(line)
        elif section == 'Total Usage:':
            _usage_line(line, result['total'], result['used'])
        elif section == 'Usage:' and node is not None:
            _usage_line(line, node['total'], node['used'])
    for node in result['nodes']:
        hosts = [name[len(HOST_RESOURCE_PREFIX):] for name in node['total'] if name.startswith(HOST_RESOURCE_PREFIX)]
        node['host'] = hosts[0] if hosts else None
    return result


def join_check(status, expected, resource='NPU'):
    """Which expected hosts are in the cluster with their NPUs.

    ``status``: parse_status() output (of ``ray status -v``); ``expected``: mapping host -> NPU count.
    Returns ``{'ok', 'joined': [hosts], 'missing': [hosts], 'problems': [text per missing host],
    'total': NPU total of the cluster}``. A host is joined when a node block carries its
    ``ascend_host:<host>`` resource and ``resource`` equal to the expected count.
    """
    if not isinstance(expected, dict):
        raise RayStatusError('expected must map host names to NPU counts')
    by_host = {}
    for node in status.get('nodes') or []:
        if node.get('host') and node.get('total'):
            by_host[node['host']] = node
    joined, missing, problems = [], [], []
    for host in sorted(expected):
        want = float(expected[host])
        node = by_host.get(host)
        if node is None:
            missing.append(host)
            problems.append('%s is not in the Ray cluster' % host)
            continue
        have = node['total'].get(resource, 0.0)
        if have != want:
            missing.append(host)
            problems.append('%s has %s %s in the Ray cluster, expected %s' % (host, _number(have), resource, _number(want)))
            continue
        joined.append(host)
    if not status.get('ready'):
        problems.insert(0, 'ray status has no cluster status yet')
    return {'ok': not missing and bool(status.get('ready')), 'joined': joined, 'missing': missing, 'problems': problems,
            'total': _number(status.get('total', {}).get(resource, 0.0))}


def _number(value):
    value = float(value)
    return int(value) if value.is_integer() else value
