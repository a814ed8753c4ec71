# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Filters of the verify role; the logic is in plugins/module_utils/verify_report.py.
Documentation: one ``<filter name>.yml`` file per filter next to this one."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.plugin_utils.module_utils_on_use import module_utils

vr = module_utils('verify_report')


def _call(function, *args):
    try:
        return function(*args)
    except (vr.VerifyReportError, ValueError, TypeError, KeyError) as exc:
        raise AnsibleFilterError('%s: %s' % (function.__name__, exc))


def verify_skipped_rows(skip):
    return _call(vr.skipped_rows, skip)


def verify_table(rows):
    return _call(vr.table_lines, rows)


def verify_drift(rows):
    return _call(vr.drift, rows)


def verify_stats(results):
    return _call(vr.awx_stats, results)


def verify_junit(results, hosts, timestamp):
    return _call(vr.junit_xml, hosts, results, timestamp)


class FilterModule(object):
    def filters(self):
        return {
            'verify_skipped_rows': verify_skipped_rows,
            'verify_table': verify_table,
            'verify_drift': verify_drift,
            'verify_junit': verify_junit,
            'verify_stats': verify_stats,
        }
