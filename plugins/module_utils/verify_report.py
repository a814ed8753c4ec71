# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The verify role's report (pure functions): the rows of checks left out, the table it prints and
the JUnit XML it writes.

A row is ``{check, wanted, actual, ok}``, plus ``skipped: true`` for a check that was not made
(left out by ``verify_skip``, or a kernel-tuning setting left out by ``kernel_tuning_skip``). A
skipped row is never drift; JUnit shows it as ``<skipped/>`` so CI does not count it as a pass.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import xml.etree.ElementTree as ET

# verify_skip names (the argument spec's choices) -> the checks each leaves out, in verify's order.
SKIPPABLE = (
    ('npu', ('npu_present', 'npu_health', 'npu_temperature')),
    ('driver', ('driver_installed', 'driver_running')),
    ('cann', ('cann',)),
    ('kernel_tuning', ('kernel_tuning',)),
    ('hccn', ('hccn',)),
    ('ray_cluster', ('ray_cluster',)),
    ('vllm_service', ('vllm_service',)),
    ('monitoring', ('monitoring',)),
)
SKIP_NAMES = tuple(pair[0] for pair in SKIPPABLE)


class VerifyReportError(ValueError):
    pass


def skipped_rows(skip):
    """Rows for the checks ``verify_skip`` leaves out, so the reports show what was not checked."""
    skip = set(skip or ())
    return [{'check': check, 'wanted': 'checked', 'actual': 'skipped (verify_skip)', 'ok': True, 'skipped': True}
            for name, checks in SKIPPABLE if name in skip for check in checks]


def is_skipped(row):
    return bool(row.get('skipped'))


def _state(row):
    if is_skipped(row):
        return 'skip'
    return 'ok' if row.get('ok') else 'DRIFT'


def table_lines(rows):
    """The lines the role prints: state (ok, DRIFT, skip), check, wanted and actual."""
    return ['%-5s %s: wanted %s; actual %s' % (_state(row), row['check'], row['wanted'], row['actual'])
            for row in rows or []]


def drift(rows):
    """Names of the checks that found drift (skipped rows never do)."""
    return [row['check'] for row in rows or [] if not row.get('ok') and not is_skipped(row)]


def awx_stats(results):
    """What each host publishes to AWX (``ascend_verify``): {host: {drift, failed_checks, checks}}
    from {host: its rows}."""
    stats = {}
    for host, rows in sorted((results or {}).items()):
        failed = drift(rows)
        stats[host] = {'drift': bool(failed), 'failed_checks': failed, 'checks': len(rows or [])}
    return stats


def _counts(rows):
    rows = rows or []
    return {'tests': len(rows), 'failures': len(drift(rows)),
            'skipped': len([row for row in rows if is_skipped(row)])}


def junit_xml(hosts, results, timestamp):
    """JUnit XML of a verify run: one testsuite per host, one testcase per row.

    ``hosts``: the play's hosts in order; ``results``: host -> rows, or None for a host that
    dropped out before verify (one errored testcase ``reachable``). ``timestamp``: when the
    run wrote the report (ISO 8601 in UTC, without a zone designator), on every testsuite.

    The attributes are those of the JUnit schema Jenkins' xUnit plugin validates against
    (jenkinsci/xunit-plugin, .../model/xsd/junit-10.xsd): ``skipped``, ``timestamp`` and
    ``hostname`` belong to a testsuite; the testsuites root carries only name and totals.
    """
    if not isinstance(results, dict):
        raise VerifyReportError('results must be a dict of host: rows, got %r' % (results,))
    suites = []
    totals = {'tests': 0, 'failures': 0, 'errors': 0, 'skipped': 0}
    for host in hosts:
        rows = results.get(host)
        suite = ET.Element('testsuite', name=str(host), hostname=str(host))
        if rows is None:
            counts = {'tests': 1, 'failures': 0, 'errors': 1, 'skipped': 0}
            case = ET.SubElement(suite, 'testcase', classname=str(host), name='reachable')
            ET.SubElement(case, 'error', message='%s dropped out before verify (unreachable or failed earlier)' % host)
        else:
            counts = dict(_counts(rows), errors=0)
            for row in rows:
                case = ET.SubElement(suite, 'testcase', classname=str(host), name=str(row['check']))
                if is_skipped(row):
                    ET.SubElement(case, 'skipped', message=str(row['actual']))
                elif not row.get('ok'):
                    ET.SubElement(case, 'failure', message='wanted %s; actual %s' % (row['wanted'], row['actual']))
        for key in ('tests', 'failures', 'errors', 'skipped'):
            suite.set(key, str(counts[key]))
            totals[key] += counts[key]
        suite.set('timestamp', str(timestamp))
        suites.append(suite)
    root = ET.Element('testsuites', name='ascend.vllm verify')
    for key in ('tests', 'failures', 'errors'):
        root.set(key, str(totals[key]))
    root.extend(suites)
    ET.indent(root, space='  ')
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding='unicode') + '\n'
