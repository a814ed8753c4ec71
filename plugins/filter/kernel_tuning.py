# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Filters of the kernel_tuning role: the checks before any change, what to apply, the read-back report and its table.

The logic lives in ``plugins/module_utils/tuning_checks.py`` and ``tuning_report.py``. Documentation: one
``<filter name>.yml`` file per filter next to this one.
"""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.plugin_utils.module_utils_on_use import module_utils

boot_loader = module_utils('boot_loader')
numa = module_utils('numa')
tuning_checks = module_utils('tuning_checks')
tuning_report = module_utils('tuning_report')


def kernel_tuning_check(wanted, state, skip=None, nodes=None, thp_file='/sys/kernel/mm/transparent_hugepage/enabled',
                        host='', boot_plan=None):
    """{problems, refused, message}: what is wrong with the request, what the kernel refuses, and the failure."""
    if not isinstance(wanted, dict) or not isinstance(state, dict):
        raise AnsibleFilterError('kernel_tuning_check expects the wanted settings and the state read as mappings')
    skip = list(skip or [])
    problems = tuning_checks.request_problems(wanted, skip, nodes or [])
    if boot_plan and boot_plan.get('problem'):
        problems.append('%s (kernel_tuning_hugepages). Fix: %s' % (boot_plan['problem'], boot_plan.get('fix') or ''))
    refused = tuning_checks.kernel_refusals(wanted, skip, state, thp_file)
    return {'problems': problems, 'refused': refused,
            'message': tuning_checks.failure_message(host, problems, refused, skip)}


def kernel_tuning_report(wanted, state, skip=None, hugepage_results=None):
    """Rows {setting, wanted, actual, ok} of every managed setting."""
    if not isinstance(wanted, dict) or not isinstance(state, dict):
        raise AnsibleFilterError('kernel_tuning_report expects the wanted settings and the state read as mappings')
    try:
        return tuning_report.report_rows(wanted, state, skip or [], hugepage_results or [])
    except (KeyError, ValueError, TypeError) as exc:
        raise AnsibleFilterError('kernel_tuning_report: %s' % exc)


def kernel_tuning_apply_reasons(plan, state):
    """What the apply step would change, one text each; empty when the node is as asked (tuning_checks.apply_reasons)."""
    if not isinstance(plan, dict) or not isinstance(state, dict):
        raise AnsibleFilterError('kernel_tuning_apply_reasons expects the plan and the state read as mappings')
    return tuning_checks.apply_reasons(plan, state)


def kernel_tuning_cmdline_pages(hugepages, skip=None):
    """[count] of the 1G pages of the whole host in kernel_tuning_hugepages (they go on the kernel command line), or []."""
    if not isinstance(hugepages, list):
        raise AnsibleFilterError('kernel_tuning_cmdline_pages expects kernel_tuning_hugepages as a list')
    return boot_loader.cmdline_pages(hugepages, list(skip or []))


def kernel_tuning_numa_plan(facts, npu_groups=None):
    """ascend_numa_plan: the binding per group of NPUs, from node_facts' read of the topology (numa.plan_groups)."""
    if not isinstance(facts, dict) or not all(key in facts for key in ('nodes', 'npus', 'groups')):
        raise AnsibleFilterError('kernel_tuning_numa_plan expects ansible_facts.ascend_numa (ascend.vllm.numa_facts, '
                                 'read by ascend.vllm.node_facts)')
    if npu_groups is not None and not isinstance(npu_groups, list):
        raise AnsibleFilterError('kernel_tuning_npu_groups must be a list of lists of NPU indexes')
    groups = []
    for group in npu_groups or []:
        # Indexes may come as text (an AWX survey, JSON extra vars), as numa_facts' npu_groups took them.
        try:
            groups.append([int(index) for index in group])
        except (TypeError, ValueError):
            raise AnsibleFilterError('kernel_tuning_npu_groups entries must be lists of NPU indexes, got %r' % (group,))
    try:
        return numa.plan_groups(facts, groups)
    except (ValueError, TypeError) as exc:
        raise AnsibleFilterError('kernel_tuning_npu_groups: %s' % exc)


def kernel_tuning_table(rows, check_mode=False):
    """The report as fixed-width lines."""
    return tuning_report.table_lines(rows, bool(check_mode))


class FilterModule(object):
    """ascend.vllm kernel_tuning filters."""

    def filters(self):
        return {
            'kernel_tuning_apply_reasons': kernel_tuning_apply_reasons,
            'kernel_tuning_check': kernel_tuning_check,
            'kernel_tuning_cmdline_pages': kernel_tuning_cmdline_pages,
            'kernel_tuning_numa_plan': kernel_tuning_numa_plan,
            'kernel_tuning_report': kernel_tuning_report,
            'kernel_tuning_table': kernel_tuning_table,
        }
