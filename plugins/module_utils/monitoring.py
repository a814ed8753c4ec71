# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""What the site's Prometheus needs to watch the fleet: scrape targets and alert rules.

Targets are Prometheus ``file_sd`` groups (``[{"targets": [...], "labels": {...}}]``), one list
per job, built from the inventory: the vLLM API of each node that serves HTTP (a single node or
a data-parallel / Ray head; headless workers have no HTTP server), Huawei's npu-exporter and
node_exporter on every node. Each group carries the labels an operator filters by: host, chip
family, stack release and, for vLLM, the service instance and its role.

The alert rules read metrics whose names and meanings come from their exporters:

- npu-exporter (Ascend/mind-cluster, component/npu-exporter at v26.1.0): every metric is a
  gauge labelled ``id`` (physical chip id), ``model_name``, ``vdie_id``, ``pcie_bus_info``;
  ``npu_chip_info_health_status`` and ``npu_chip_info_network_status`` are 1 healthy, 0
  unhealthy, -1 unknown; ``npu_chip_info_link_status`` 1 up, 0 down, -1 unknown (from
  ``hccn_tool -link``); ``npu_chip_info_temperature`` in degrees Celsius;
  ``npu_chip_info_hbm_used_memory`` / ``_total_memory`` in MB (collector/metrics/
  collector_for_npu.go, collector_for_hbm.go, collector_for_network.go). Default port 8082.
- vLLM's /metrics (vllm/v1/metrics/loggers.py at v0.23.0): ``vllm:num_requests_waiting``,
  ``vllm:kv_cache_usage_perc`` (a fraction, 1 = full; releases before it name it
  ``vllm:gpu_cache_usage_perc``), labelled ``model_name`` and ``engine`` (the data-parallel rank).
- node_exporter's systemd collector (prometheus/node_exporter collector/systemd_linux.go):
  ``node_systemd_unit_state{name, state, type}`` (1 for the unit's current state) and, with
  ``--collector.systemd.enable-restarts-metrics``, ``node_systemd_service_restart_total{name}``
  (systemd's NRestarts). Default port 9100.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

NPU_EXPORTER_PORT = 8082
NODE_EXPORTER_PORT = 9100

# Each alert: its threshold variable (None when it has none), severity, the expression with
# {threshold} where the threshold goes, how long it must hold, and a runbook line: what to look
# at first on the node, with this collection's own tools where one fits.
_ALERTS = (
    ('AscendNpuUnhealthy', None, 'critical',
     'npu_chip_info_health_status == 0', '1m',
     'NPU {{ $labels.id }} on {{ $labels.host }} reports an unhealthy state',
     'Run `npu-smi info -t health -i <card>` on the node and the diagnostics playbook; the chip serves '
     'nothing reliable until the driver reports it OK (a reset or a replacement through the vendor).'),
    ('AscendNpuHealthUnknown', None, 'warning',
     'npu_chip_info_health_status == -1', '5m',
     'npu-exporter cannot read the health of NPU {{ $labels.id }} on {{ $labels.host }}',
     'npu-smi fails on the node while another process holds the device or the driver is gone: '
     'run `npu-smi info` there, then the verify playbook.'),
    ('AscendNpuHot', 'temperature_celsius', 'warning',
     'npu_chip_info_temperature >= {threshold}', '5m',
     'NPU {{ $labels.id }} on {{ $labels.host }} at {{ $value }} degrees C',
     'Check the server\'s fans and inlet temperature (BMC); a chip that stays hot throttles and '
     'then reports unhealthy.'),
    ('AscendNpuHbmNearlyFull', 'hbm_used_ratio', 'warning',
     'npu_chip_info_hbm_used_memory / npu_chip_info_hbm_total_memory > {threshold}', '15m',
     'NPU {{ $labels.id }} on {{ $labels.host }} has {{ $value | humanizePercentage }} of its HBM in use',
     'vLLM reserves --gpu-memory-utilization of the HBM at start; more than that means another '
     'process holds memory on the chip (`npu-smi info` lists the processes).'),
    ('AscendNpuNetworkUnhealthy', None, 'critical',
     'npu_chip_info_network_status == 0', '2m',
     'The network of NPU {{ $labels.id }} on {{ $labels.host }} is unhealthy',
     'Read the chip\'s RoCE state with `hccn_tool -i <id> -net_health -g` and the hccn playbook\'s '
     'check; multi-node serving over this chip stalls.'),
    ('AscendRoceLinkDown', None, 'critical',
     'npu_chip_info_link_status == 0', '1m',
     'The RoCE link of NPU {{ $labels.id }} on {{ $labels.host }} is down',
     'Check the cable and the switch port (`hccn_tool -i <id> -link -g`); data-parallel and Ray '
     'traffic between servers uses this link.'),
    ('VllmMetricsDown', None, 'critical',
     'up{{job="vllm"}} == 0', '2m',
     'vLLM {{ $labels.vllm_instance }} on {{ $labels.host }} does not answer on /metrics',
     'The server is down or not yet loaded: `systemctl status vllm-<instance>` and its journal on the '
     'node; the verify playbook names what drifted.'),
    ('VllmUnitNotActive', None, 'critical',
     'node_systemd_unit_state{{name=~"vllm-.+\\\\.service",state="active"}} == 0', '2m',
     '{{ $labels.name }} on {{ $labels.host }} is not active',
     'A stopped or failing unit; on a data-parallel worker the head stops serving. '
     '`journalctl -u <unit>` on the node, then the vllm_service playbook.'),
    ('VllmUnitRestarting', 'restarts', 'warning',
     'increase(node_systemd_service_restart_total{{name=~"vllm-.+\\\\.service"}}[15m]) >= {threshold}', '0m',
     '{{ $labels.name }} on {{ $labels.host }} restarted {{ $value }} times in 15 minutes',
     'systemd keeps restarting the server: its journal shows why it exits (a missing CANN '
     'environment, an NPU another process holds, an out-of-memory kill).'),
    ('VllmRequestsWaiting', 'requests_waiting', 'warning',
     'sum by (host, vllm_instance, model_name) (vllm:num_requests_waiting) > {threshold}', '5m',
     '{{ $value }} requests wait on vLLM {{ $labels.vllm_instance }} on {{ $labels.host }}',
     'The service is saturated: add data-parallel ranks or nodes, or lower the load; the benchmark '
     'playbook measures what the service sustains.'),
    ('VllmKvCacheFull', 'kv_cache_ratio', 'warning',
     '(vllm:kv_cache_usage_perc or vllm:gpu_cache_usage_perc) > {threshold}', '5m',
     'The KV cache of vLLM {{ $labels.vllm_instance }} on {{ $labels.host }} is '
     '{{ $value | humanizePercentage }} full',
     'Requests get preempted and recomputed: lower --max-num-seqs or --max-model-len in the '
     'profile, or add NPUs.'),
)

DEFAULT_THRESHOLDS = {
    # The seed's NPU temperature limit (preflight and verify use the same).
    'temperature_celsius': 85,
    # Above what vLLM reserves at its default --gpu-memory-utilization of 0.9.
    'hbm_used_ratio': 0.97,
    'restarts': 2,
    'requests_waiting': 10,
    'kv_cache_ratio': 0.95,
}

_LABEL_VALUE = re.compile(r'^[^\n]*$')


class MonitoringError(ValueError):
    pass


def threshold_problems(overrides=None):
    """What is wrong with ``overrides`` (unknown names, values that are not positive numbers,
    ratios above 1), one message each; [] when they are fine."""
    try:
        thresholds(overrides)
    except MonitoringError as exc:
        return str(exc).split('; ')
    return []


def _port(value, low, high):
    try:
        return low <= int(value) <= high
    except (TypeError, ValueError):
        return False


def settings_problems(config_dir, npu_exporter_port, node_exporter_port, overrides=None):
    """What is wrong with the role's variables, each message naming its variable; [] when fine."""
    problems = []
    if not isinstance(config_dir, str) or not config_dir.startswith('/'):
        problems.append('monitoring_config_dir must be an absolute path, got %s' % (config_dir,))
    if not _port(npu_exporter_port, 1025, 40000):
        problems.append('monitoring_npu_exporter_port must be in 1025-40000 (what npu-exporter accepts), got %s'
                        % (npu_exporter_port,))
    if not _port(node_exporter_port, 1, 65535):
        problems.append('monitoring_node_exporter_port must be a port, got %s' % (node_exporter_port,))
    return problems + ['monitoring_thresholds: ' + problem for problem in threshold_problems(overrides)]


def thresholds(overrides=None):
    """DEFAULT_THRESHOLDS with ``overrides`` applied; each must be a positive number."""
    if overrides is not None and not isinstance(overrides, dict):
        raise MonitoringError('the thresholds must be a mapping, got %r' % (overrides,))
    merged = dict(DEFAULT_THRESHOLDS)
    problems = []
    for name, value in sorted((overrides or {}).items()):
        if name not in DEFAULT_THRESHOLDS:
            problems.append('%s is not a threshold (known: %s)' % (name, ', '.join(sorted(DEFAULT_THRESHOLDS))))
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            problems.append('%s must be a positive number, got %r' % (name, value))
        elif name in ('hbm_used_ratio', 'kv_cache_ratio') and value > 1:
            problems.append('%s is a fraction of 1, got %r' % (name, value))
        else:
            merged[name] = value
    if problems:
        raise MonitoringError('; '.join(problems))
    return merged


def alert_rules(overrides=None, group='ascend-vllm'):
    """The alert rules file (Prometheus rule_files format) as a dict."""
    values = thresholds(overrides)
    rules = []
    for name, threshold, severity, expr, duration, summary, runbook in _ALERTS:
        rule = {
            'alert': name,
            'expr': expr.format(threshold=values[threshold] if threshold else ''),
            'labels': {'severity': severity},
            'annotations': {'summary': summary, 'runbook': runbook},
        }
        if duration != '0m':
            rule['for'] = duration
        rules.append(rule)
    return {'groups': [{'name': group, 'rules': rules}]}


def _labels(node, extra=None):
    labels = {'host': node['host'], 'chip_family': node.get('chip_family') or 'unknown',
              'release': node.get('release') or 'unknown'}
    labels.update(extra or {})
    for key, value in labels.items():
        if not isinstance(value, str) or not _LABEL_VALUE.match(value):
            raise MonitoringError('%s: label %s must be one line of text, got %r' % (node['host'], key, value))
    return labels


def _address(node, port):
    address = node.get('address') or node['host']
    if ':' in address and not address.startswith('['):
        address = '[%s]' % address  # IPv6
    return '%s:%d' % (address, port)


def scrape_targets(nodes, npu_exporter_port=NPU_EXPORTER_PORT, node_exporter_port=NODE_EXPORTER_PORT):
    """``nodes``: [{host, address, chip_family, release, vllm: {instance, port, role} or None}]
    -> {job: file_sd groups}. vLLM is scraped where it serves HTTP (role single or head)."""
    seen = set()
    jobs = {'vllm': [], 'npu_exporter': [], 'node_exporter': []}
    for node in sorted(nodes, key=lambda item: item['host']):
        if node['host'] in seen:
            raise MonitoringError('%s is listed twice' % node['host'])
        seen.add(node['host'])
        jobs['npu_exporter'].append({'targets': [_address(node, npu_exporter_port)], 'labels': _labels(node)})
        jobs['node_exporter'].append({'targets': [_address(node, node_exporter_port)], 'labels': _labels(node)})
        service = node.get('vllm')
        if service and service.get('role', 'single') in ('single', 'head'):
            jobs['vllm'].append({'targets': [_address(node, int(service['port']))],
                                 'labels': _labels(node, {'vllm_instance': service['instance'],
                                                          'vllm_role': service.get('role', 'single')})})
    return jobs


def scrape_configs(file_sd_dir, scrape_interval='15s'):
    """The ``scrape_configs`` entries of prometheus.yml that read the target files
    (``<file_sd_dir>/<job>.json``)."""
    return [{'job_name': job, 'scrape_interval': scrape_interval,
             'file_sd_configs': [{'files': ['%s/%s.json' % (file_sd_dir.rstrip('/'), job)]}]}
            for job in ('vllm', 'npu_exporter', 'node_exporter')]
