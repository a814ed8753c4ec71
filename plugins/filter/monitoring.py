# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Filters of the monitoring configuration; the logic is in plugins/module_utils/monitoring.py.
Documentation: one ``<filter name>.yml`` file per filter next to this one."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.plugin_utils.module_utils_on_use import module_utils

mon = module_utils('monitoring')


def _call(function, *args):
    try:
        return function(*args)
    except (mon.MonitoringError, ValueError, TypeError, KeyError) as exc:
        raise AnsibleFilterError('%s: %s' % (function.__name__, exc))


def _or(value, default_name):
    """``value``, else module_utils/monitoring's constant (read on use, not when this file loads)."""
    return getattr(mon, default_name) if value is None else value


def monitoring_targets(nodes, npu_exporter_port=None, node_exporter_port=None):
    return _call(mon.scrape_targets, nodes, _or(npu_exporter_port, 'NPU_EXPORTER_PORT'),
                 _or(node_exporter_port, 'NODE_EXPORTER_PORT'))


def monitoring_rules(overrides=None):
    return _call(mon.alert_rules, overrides)


def monitoring_settings_problems(config_dir, npu_exporter_port, node_exporter_port, overrides=None):
    return _call(mon.settings_problems, config_dir, npu_exporter_port, node_exporter_port, overrides)


def monitoring_scrape_configs(file_sd_dir, scrape_interval='15s'):
    return _call(mon.scrape_configs, file_sd_dir, scrape_interval)


def monitoring_exporter_plan(address, architecture, install_path, install_dir, npu_exporter_port=None,
                             node_exporter_port=None, update_time=5, version=None, metrics_off=()):
    return _call(mon.exporter_plan, address, architecture, install_path, install_dir,
                 _or(npu_exporter_port, 'NPU_EXPORTER_PORT'), _or(node_exporter_port, 'NODE_EXPORTER_PORT'),
                 update_time, _or(version, 'NPU_EXPORTER_VERSION'), metrics_off)


def monitoring_dashboard(title='Ascend vLLM fleet', uid=None):
    return _call(mon.dashboard, title, _or(uid, 'DASHBOARD_UID'))


def monitoring_exporter_findings(npu_text, node_text, chip_count, units=()):
    return _call(mon.exporter_findings, npu_text, node_text, chip_count, units)


class FilterModule(object):
    def filters(self):
        return {
            'monitoring_targets': monitoring_targets,
            'monitoring_rules': monitoring_rules,
            'monitoring_scrape_configs': monitoring_scrape_configs,
            'monitoring_settings_problems': monitoring_settings_problems,
            'monitoring_exporter_plan': monitoring_exporter_plan,
            'monitoring_dashboard': monitoring_dashboard,
            'monitoring_exporter_findings': monitoring_exporter_findings,
        }
