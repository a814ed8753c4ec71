# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Filters of the rolling_upgrade role; the logic is in plugins/module_utils/rolling_upgrade.py.
Documentation: one ``<filter name>.yml`` file per filter next to this one."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.plugin_utils.module_utils_on_use import module_utils

checks = module_utils('rolling_upgrade')


def rolling_upgrade_problems(request):
    """Every reason a rollout cannot start (module_utils.rolling_upgrade.request_problems)."""
    if not isinstance(request, dict):
        raise AnsibleFilterError('rolling_upgrade_problems expects a mapping, got %s' % type(request).__name__)
    return checks.request_problems(request)


def rolling_upgrade_plan(hosts, units, first_batch, batch):
    """The rollout's batches, a multi-node service in one (module_utils.rolling_upgrade.plan_batches)."""
    if not isinstance(units, dict):
        raise AnsibleFilterError('rolling_upgrade_plan expects a mapping of host to its unit, got %s' % type(units).__name__)
    try:
        return checks.plan_batches(list(hosts), units, first_batch, batch)
    except (TypeError, ValueError) as exc:
        raise AnsibleFilterError('rolling_upgrade_plan: %s' % exc)


def rolling_upgrade_slo(before, after, slo):
    """A batch's benchmark before and after the upgrade, judged (module_utils.rolling_upgrade.slo_verdict)."""
    try:
        return checks.slo_verdict(before, after, slo)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise AnsibleFilterError('rolling_upgrade_slo: %s' % exc)


def rolling_upgrade_summary(facts_of, hosts):
    """One result row per host of the play (module_utils.rolling_upgrade.summary_rows)."""
    try:
        return checks.summary_rows(list(hosts), facts_of)
    except (KeyError, TypeError, AttributeError) as exc:
        raise AnsibleFilterError('rolling_upgrade_summary expects hostvars and the play hosts: %s' % exc)


def rolling_upgrade_lines(rows):
    """One line per result row (module_utils.rolling_upgrade.summary_line)."""
    return [checks.summary_line(row) for row in rows]


def rolling_upgrade_stopped(rows):
    """Why the rollout stopped; '' when every node moved (module_utils.rolling_upgrade.stop_message)."""
    return checks.stop_message(rows)


class FilterModule(object):
    """ascend.vllm rolling_upgrade filters."""

    def filters(self):
        return {'rolling_upgrade_lines': rolling_upgrade_lines, 'rolling_upgrade_plan': rolling_upgrade_plan,
                'rolling_upgrade_problems': rolling_upgrade_problems, 'rolling_upgrade_slo': rolling_upgrade_slo,
                'rolling_upgrade_stopped': rolling_upgrade_stopped, 'rolling_upgrade_summary': rolling_upgrade_summary}
