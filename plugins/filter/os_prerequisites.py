# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Filters of the os_prerequisites role; the logic is in plugins/module_utils/os_prerequisites.py.
Documentation: one ``<filter name>.yml`` file per filter next to this one."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.plugin_utils.module_utils_on_use import module_utils

osp = module_utils('os_prerequisites')


def _call(function, *args):
    try:
        return function(*args)
    except (osp.PrerequisitesError, ValueError, TypeError, KeyError) as exc:
        raise AnsibleFilterError('%s: %s' % (function.__name__, exc))


def os_prerequisites_vars_files(facts):
    return _call(osp.vars_candidates, facts)


def os_prerequisites_stages(driver_build, install_method, extra_stages=None):
    return _call(osp.stages_for, driver_build, install_method, extra_stages or ())


def os_prerequisites_monitoring(node_exporter_package):
    return _call(osp.monitoring_packages, node_exporter_package)


def os_prerequisites_plan(os_packages, facts, stages, overrides=None, extra=None, extra_var='os_prerequisites_extra',
                          python_package=''):
    return _call(osp.plan, os_packages, facts, stages, overrides, extra or (), extra_var, python_package or '')


def os_prerequisites_missing(plan, query):
    return _call(osp.missing_of, plan, query)


def os_prerequisites_unavailable(plan, names, availability):
    return _call(osp.unavailable_problem, plan, names, availability)


class FilterModule(object):
    def filters(self):
        return {
            'os_prerequisites_vars_files': os_prerequisites_vars_files,
            'os_prerequisites_stages': os_prerequisites_stages,
            'os_prerequisites_monitoring': os_prerequisites_monitoring,
            'os_prerequisites_plan': os_prerequisites_plan,
            'os_prerequisites_missing': os_prerequisites_missing,
            'os_prerequisites_unavailable': os_prerequisites_unavailable,
        }
