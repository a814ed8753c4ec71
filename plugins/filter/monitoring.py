# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Filters of the monitoring configuration; the logic is in plugins/module_utils/monitoring.py.
Documentation: one ``<filter name>.yml`` file per filter next to this one."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.module_utils import monitoring as mon


def _call(function, *args):
    try:
        return function(*args)
    except (mon.MonitoringError, ValueError, TypeError, KeyError) as exc:
        raise AnsibleFilterError('%s: %s' % (function.__name__, exc))


def monitoring_targets(nodes, npu_exporter_port=mon.NPU_EXPORTER_PORT, node_exporter_port=mon.NODE_EXPORTER_PORT):
    return _call(mon.scrape_targets, nodes, npu_exporter_port, node_exporter_port)


def monitoring_rules(overrides=None):
    return _call(mon.alert_rules, overrides)


def monitoring_settings_problems(config_dir, npu_exporter_port, node_exporter_port, overrides=None):
    return _call(mon.settings_problems, config_dir, npu_exporter_port, node_exporter_port, overrides)


def monitoring_scrape_configs(file_sd_dir, scrape_interval='15s'):
    return _call(mon.scrape_configs, file_sd_dir, scrape_interval)


def monitoring_exporter_plan(address, architecture, install_path, install_dir, npu_exporter_port=mon.NPU_EXPORTER_PORT,
                             node_exporter_port=mon.NODE_EXPORTER_PORT, update_time=5, version=mon.NPU_EXPORTER_VERSION):
    return _call(mon.exporter_plan, address, architecture, install_path, install_dir, npu_exporter_port,
                 node_exporter_port, update_time, version)


def monitoring_dashboard(title='Ascend vLLM fleet', uid=mon.DASHBOARD_UID):
    return _call(mon.dashboard, title, uid)


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
