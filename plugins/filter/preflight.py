# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Filters of the preflight role; the rules are in plugins/module_utils/preflight_checks.py.
Documentation: one ``<filter name>.yml`` file per filter next to this one."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

import platform
import sys

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.plugin_utils.module_utils_on_use import module_utils

pip_plan = module_utils('pip_plan')
pc = module_utils('preflight_checks')
stack = module_utils('stack')


def _call(name, function, *args):
    try:
        return function(*args)
    except (pc.PreflightError, stack.StackError, pip_plan.PlanError, ValueError, TypeError, KeyError) as exc:
        raise AnsibleFilterError('%s: %s' % (name, exc))


def preflight_inventory_results(variables):
    return _call('preflight_inventory_results', pc.inventory_results, variables)


def preflight_host_plan(variables):
    return _call('preflight_host_plan', pc.host_plan, variables)


def preflight_wheelhouse_runs(plan, python_read):
    """The dry runs of the controller's pip (this interpreter: ansible-playbook's) against the wheelhouse."""
    return _call('preflight_wheelhouse_runs', pc.wheelhouse_runs, plan, python_read or {}, platform.machine(),
                 '%d.%d' % sys.version_info[:2])


def preflight_host_results(plan, variables):
    return _call('preflight_host_results', pc.host_results, plan, variables)


def preflight_report_hosts(hosts, layer, hostvars):
    """``hostvars``: Ansible's, read here because a host that dropped out early lacks the
    variables, and Jinja's map(attribute=..., default=...) does not default on hostvars."""
    hosts = list(hosts)
    found = [hostvars.get(host) or {} for host in hosts]
    return _call('preflight_report_hosts', pc.report_hosts, hosts, layer,
                 [vars_.get('__preflight_layers') or {} for vars_ in found],
                 [vars_.get('ascend_stack') for vars_ in found])


def preflight_summary(results, layer):
    return _call('preflight_summary', pc.summary, results, layer)


def preflight_ansible_python_problem(version_text, ansible_version, interpreter):
    return _call('preflight_ansible_python_problem', pc.ansible_python_problem, version_text, ansible_version,
                 interpreter)


def preflight_failure(results, host, layer, report_path=''):
    return _call('preflight_failure', pc.failure_message, results, host, layer, report_path or '')


class FilterModule(object):
    def filters(self):
        return {
            'preflight_inventory_results': preflight_inventory_results,
            'preflight_ansible_python_problem': preflight_ansible_python_problem,
            'preflight_host_plan': preflight_host_plan,
            'preflight_host_results': preflight_host_results,
            'preflight_wheelhouse_runs': preflight_wheelhouse_runs,
            'preflight_report_hosts': preflight_report_hosts,
            'preflight_summary': preflight_summary,
            'preflight_failure': preflight_failure,
        }
