# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""What the site's Prometheus needs to watch the fleet: scrape targets and alert rules.

Targets are Prometheus ``file_sd`` groups (``[{"targets": [...], "labels": {...}}]``), one list
per job, built from the inventory: the vLLM API of each node that serves HTTP (a single node or
a data-parallel / Ray head; headless workers have no HTTP server), Huawei's npu-exporter and
node_exporter on every node. Each group carries the labels an operator filters by: host, chip
family, stack release and, for vLLM, the service instance and its role.

The alert rules read metrics whose names and meanings come from their exporters:

- npu-exporter (Ascend/mind-cluster, component/npu-exporter at v26.0.0): every metric is a
  gauge labelled ``id`` (physical chip id), ``model_name``, ``vdie_id``, ``pcie_bus_info``;
  ``npu_chip_info_health_status`` 1 healthy, 0 otherwise (a failed read too);
  ``npu_chip_info_network_status`` 1 for net health Success or Init, 0 otherwise;
  ``npu_chip_info_link_status`` 1 up, 0 down; a value it cannot read (-1) is dropped, not
  exported (collector/metrics/common_utils.go validateNum), so "unknown" is a missing series;
  ``machine_npu_nums`` counts the chips; ``npu_chip_info_temperature`` in degrees Celsius;
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

import ipaddress
import re

NPU_EXPORTER_PORT = 8082
NODE_EXPORTER_PORT = 9100
# The MindCluster release installed on the nodes: its package is
# Ascend-mindxdl-npu-exporter_<version>_linux-<uname -m>.zip (Ascend/mind-cluster releases), holding
# the program and its metricConfiguration.json / pluginConfiguration.json.
NPU_EXPORTER_VERSION = '26.0.0'
# Where that release reads its metric groups and plugins: fixed paths, no flag
# (component/npu-exporter/collector/config/metrics_config.go PresetConfigPath / PluginConfigPath at
# v26.0.0 and v26.0.1; v26.1.0 moved them to /user/mind-cluster/npu-exporter-config/). The copies in
# the release's zip are never read. A missing file means the built-in defaults (every group on);
# a file that is not valid JSON is logged and leaves no group at all (initConfiguration returns
# before filling the list), so the role writes both files itself.
NPU_EXPORTER_CONFIG = {'metrics': '/usr/local/metricConfiguration.json',
                       'plugins': '/usr/local/pluginConfiguration.json'}
# The metric groups of that release, in the order of its build/metricConfiguration.json (all "ON"),
# and its build/pluginConfiguration.json's plugin groups.
NPU_EXPORTER_GROUPS = ('ddr', 'hccs', 'npu', 'network', 'network-npu', 'pcie', 'roce', 'sio', 'vnpu', 'version',
                       'optical', 'hbm', 'ub', 'optical-npu')
NPU_EXPORTER_PLUGINS = (('text', 'ON'), ('MyPlugin', 'OFF'))
NPU_EXPORTER_ARCHES = ('x86_64', 'aarch64')
# npu-exporter's default -logFile (cmd/npu-exporter/main.go); its directory is the unit's only writable path.
NPU_EXPORTER_LOG = '/var/log/mindx-dl/npu-exporter/npu-exporter.log'
# The units node_exporter's systemd collector reports: the ones the alert rules and dashboard read.
# "[.]" instead of a backslash: systemd treats backslashes in the drop-in's ExecStart as escapes.
SYSTEMD_UNITS = '(vllm-.+|ray-.+|npu-exporter)[.]service'

# Each alert: its threshold variable (None when it has none), severity, the expression with
# {threshold} where the threshold goes, how long it must hold, and a runbook line: what to look
# at first on the node, with this collection's own tools where one fits.
_ALERTS = (
    ('AscendNpuUnhealthy', None, 'critical',
     'npu_chip_info_health_status == 0', '1m',
     'NPU {{ $labels.id }} on {{ $labels.host }} reports an unhealthy state',
     'Run `npu-smi info -t health -i <card>` on the node and the diagnostics playbook; the chip serves '
     'nothing reliable until the driver reports it OK (a reset or a replacement through the vendor).'),
    # npu-exporter drops a value it cannot read (-1) instead of exporting it: a chip whose health it
    # cannot read is a missing series, seen against the chips it counts.
    ('AscendNpuHealthUnknown', None, 'warning',
     'machine_npu_nums > on (instance) group_left count by (instance) (npu_chip_info_health_status)'
     ' or (machine_npu_nums > 0 unless on (instance) npu_chip_info_health_status)', '5m',
     'npu-exporter on {{ $labels.host }} reads the health of fewer NPUs than the {{ $value }} it counts',
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
    ('VllmWorkerMissing', None, 'critical',
     'up{{job="node_exporter",vllm_role="worker"}} == 0', '2m',
     'Worker {{ $labels.host }} of the multi-node vLLM {{ $labels.vllm_instance }} does not answer',
     'The node (or its node_exporter) is gone: the head cannot serve without every rank. Reach the '
     'node, then run the vllm_service playbook for the group; verify names the missing host.'),
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
        service = node.get('vllm')
        # The nodes of a multi-node service carry its instance and their role on every job, so an
        # alert can name the worker that is missing.
        group = ({'vllm_instance': service['instance'], 'vllm_role': service['role']}
                 if service and service.get('role') in ('head', 'worker') else {})
        jobs['npu_exporter'].append({'targets': [_address(node, npu_exporter_port)], 'labels': _labels(node, group)})
        jobs['node_exporter'].append({'targets': [_address(node, node_exporter_port)], 'labels': _labels(node, group)})
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


def _groups_json(groups):
    return '[\n%s\n]\n' % ',\n'.join('  {"metricsGroup": "%s", "state": "%s"}' % group for group in groups)


def exporter_plan(address, architecture, install_path, install_dir, npu_exporter_port=NPU_EXPORTER_PORT,
                  node_exporter_port=NODE_EXPORTER_PORT, update_time=5, version=NPU_EXPORTER_VERSION,
                  metrics_off=()):
    """How the two exporters run on one node.

    npu-exporter listens on one IP address (its ``-ip`` takes no host name and refuses an empty
    one) and loads the driver's libdcmi.so through LD_LIBRARY_PATH (<install_path>/driver/lib64/
    driver and common); node_exporter gets the same address, the systemd collector and its
    restart counter (the rules read both). npu-exporter's two configuration files (``config``: path
    -> content) turn the groups in ``metrics_off`` off and keep the release's defaults otherwise.
    -> {'address', 'npu_exporter': {package, dir, binary, argv, log_dir, environment, config},
    'node_exporter': {args}}."""
    problems = []
    try:
        ip = str(ipaddress.ip_address(u'%s' % (address,)))
    except ValueError:
        ip = None
        problems.append('monitoring_address must be an IP address of the node for the exporters to listen on '
                        "(npu-exporter's -ip takes no host name), got %r" % (address,))
    if architecture not in NPU_EXPORTER_ARCHES:
        problems.append('npu-exporter is published for %s, not %r' % (' and '.join(NPU_EXPORTER_ARCHES), architecture))
    if isinstance(update_time, bool) or not _port(update_time, 1, 60):
        problems.append('monitoring_npu_exporter_update_time must be 1-60 seconds (its -updateTime), got %r'
                        % (update_time,))
    if not isinstance(install_dir, str) or not install_dir.startswith('/'):
        problems.append('monitoring_npu_exporter_dir must be an absolute path, got %r' % (install_dir,))
    metrics_off = metrics_off or ()
    unknown = [group for group in metrics_off if group not in NPU_EXPORTER_GROUPS]
    if unknown or isinstance(metrics_off, str):
        problems.append('monitoring_npu_exporter_metrics_off must list metric groups of npu-exporter %s (%s), got %r'
                        % (version, ', '.join(NPU_EXPORTER_GROUPS), metrics_off))
    if problems:
        raise MonitoringError('; '.join(problems))
    listen = '[%s]' % ip if ':' in ip else ip
    directory = '%s/%s' % (install_dir.rstrip('/'), version)
    binary = directory + '/npu-exporter'
    driver = install_path.rstrip('/') + '/driver/lib64'
    return {
        'address': ip,
        'npu_exporter': {
            'package': 'Ascend-mindxdl-npu-exporter_%s_linux-%s.zip' % (version, architecture),
            'dir': directory,
            'binary': binary,
            'argv': [binary, '-ip=%s' % ip, '-port=%d' % int(npu_exporter_port), '-updateTime=%d' % int(update_time),
                     '-logFile=%s' % NPU_EXPORTER_LOG],
            'log_dir': NPU_EXPORTER_LOG.rsplit('/', 1)[0],
            'environment': {'LD_LIBRARY_PATH': '%s/driver:%s/common' % (driver, driver)},
            'config': {
                NPU_EXPORTER_CONFIG['metrics']: _groups_json(
                    (group, 'OFF' if group in metrics_off else 'ON') for group in NPU_EXPORTER_GROUPS),
                NPU_EXPORTER_CONFIG['plugins']: _groups_json(NPU_EXPORTER_PLUGINS),
            },
        },
        'node_exporter': {
            'args': ['--web.listen-address=%s:%d' % (listen, int(node_exporter_port)), '--collector.systemd',
                     '--collector.systemd.enable-restarts-metrics',
                     '--collector.systemd.unit-include=%s' % SYSTEMD_UNITS],
        },
    }


# The Grafana dashboard: one row per concern, every query filtered by the host variable. Metric
# names as the alert rules (npu-exporter, vLLM, node_exporter); vLLM's latency histograms
# vllm:time_to_first_token_seconds and vllm:e2e_request_latency_seconds keep their names across the
# stack's releases, the KV-cache gauge does not (hence the "or").
_DASHBOARD_ROWS = (
    ('NPUs (npu-exporter)', (
        ('NPU health (1 healthy, 0 unhealthy)', 'state-timeline', 'none',
         'npu_chip_info_health_status{host=~"$host"}', '{{host}} NPU {{id}}'),
        ('NPU temperature', 'timeseries', 'celsius', 'npu_chip_info_temperature{host=~"$host"}', '{{host}} NPU {{id}}'),
        ('HBM used', 'timeseries', 'percentunit',
         'npu_chip_info_hbm_used_memory{host=~"$host"} / npu_chip_info_hbm_total_memory{host=~"$host"}',
         '{{host}} NPU {{id}}'),
        ('AI core utilization', 'timeseries', 'percent', 'npu_chip_info_utilization{host=~"$host"}', '{{host}} NPU {{id}}'),
    )),
    ('vLLM', (
        ('Generated tokens per second', 'timeseries', 'none',
         'sum by (host, vllm_instance) (rate(vllm:generation_tokens_total{host=~"$host"}[1m]))',
         '{{host}} {{vllm_instance}}'),
        ('Time to first token, p95', 'timeseries', 's',
         'histogram_quantile(0.95, sum by (le, host, vllm_instance) '
         '(rate(vllm:time_to_first_token_seconds_bucket{host=~"$host"}[5m])))', '{{host}} {{vllm_instance}}'),
        ('End-to-end request latency, p95', 'timeseries', 's',
         'histogram_quantile(0.95, sum by (le, host, vllm_instance) '
         '(rate(vllm:e2e_request_latency_seconds_bucket{host=~"$host"}[5m])))', '{{host}} {{vllm_instance}}'),
        ('Requests running and waiting', 'timeseries', 'none',
         'sum by (host, vllm_instance) (vllm:num_requests_running{host=~"$host"})', 'running {{host}} {{vllm_instance}}',
         'sum by (host, vllm_instance) (vllm:num_requests_waiting{host=~"$host"})', 'waiting {{host}} {{vllm_instance}}'),
        ('KV cache used', 'timeseries', 'percentunit',
         'max by (host, vllm_instance) (vllm:kv_cache_usage_perc{host=~"$host"} or vllm:gpu_cache_usage_perc{host=~"$host"})',
         '{{host}} {{vllm_instance}}'),
    )),
    ('Services (node_exporter)', (
        ('Units active', 'state-timeline', 'none', 'node_systemd_unit_state{host=~"$host",state="active"}',
         '{{host}} {{name}}'),
        ('Unit restarts in 15 minutes', 'timeseries', 'none',
         'increase(node_systemd_service_restart_total{host=~"$host"}[15m])', '{{host}} {{name}}'),
    )),
)
DASHBOARD_UID = 'ascend-vllm-fleet'
# Grafana's dashboard JSON model version written (Grafana 10.4 and later read it as it is).
DASHBOARD_SCHEMA_VERSION = 39


def dashboard(title='Ascend vLLM fleet', uid=DASHBOARD_UID):
    """The Grafana dashboard (JSON model) of the fleet: per-node NPU health, temperature, HBM and
    utilization; vLLM throughput, latency, queue and KV cache; the units' state and restarts.
    Its data source is a variable, so it imports into any Grafana with a Prometheus."""
    source = {'type': 'prometheus', 'uid': '${datasource}'}
    panels = []
    y = 0
    for row_title, row_panels in _DASHBOARD_ROWS:
        panels.append({'type': 'row', 'title': row_title, 'collapsed': False, 'id': len(panels) + 1,
                       'gridPos': {'h': 1, 'w': 24, 'x': 0, 'y': y}, 'panels': []})
        y += 1
        for index, spec in enumerate(row_panels):
            panel_title, kind, unit = spec[:3]
            pairs = list(zip(spec[3::2], spec[4::2]))
            panels.append({
                'type': kind,
                'title': panel_title,
                'id': len(panels) + 1,
                'datasource': source,
                'gridPos': {'h': 8, 'w': 12, 'x': 12 * (index % 2), 'y': y + 8 * (index // 2)},
                'fieldConfig': {'defaults': {'unit': unit}, 'overrides': []},
                'options': {'legend': {'displayMode': 'list', 'placement': 'bottom', 'showLegend': True}},
                'targets': [{'refId': chr(ord('A') + number), 'datasource': source, 'expr': expr,
                             'legendFormat': legend}
                            for number, (expr, legend) in enumerate(pairs)],
            })
        y += 8 * ((len(row_panels) + 1) // 2)
    return {
        'uid': uid,
        'title': title,
        'tags': ['ascend', 'vllm', 'npu'],
        'timezone': 'browser',
        'editable': True,
        'schemaVersion': DASHBOARD_SCHEMA_VERSION,
        'refresh': '30s',
        'time': {'from': 'now-6h', 'to': 'now'},
        'templating': {'list': [
            {'name': 'datasource', 'label': 'Prometheus', 'type': 'datasource', 'query': 'prometheus'},
            {'name': 'host', 'label': 'Node', 'type': 'query', 'datasource': source,
             'query': {'query': 'label_values(npu_chip_info_health_status, host)', 'refId': 'hosts'},
             'definition': 'label_values(npu_chip_info_health_status, host)', 'refresh': 2,
             'multi': True, 'includeAll': True, 'current': {'text': 'All', 'value': '$__all'}},
        ]},
        'annotations': {'list': []},
        'panels': panels,
    }


def dashboard_queries(model):
    """Every PromQL expression of a dashboard, in panel order (for checking them)."""
    return [target['expr'] for panel in model.get('panels', []) for target in panel.get('targets', [])]


_SAMPLE = re.compile(r'^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\S+)?$')
_LABEL = re.compile(r'([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse_exposition(text):
    """The samples of a Prometheus text exposition as [(name, {label: value}, float)]; comments,
    blank lines and values that are not numbers are left out."""
    samples = []
    for line in (text or '').splitlines():
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        match = _SAMPLE.match(line)
        if not match:
            continue
        try:
            value = float(match.group(3))
        except ValueError:
            continue
        labels = dict((key, raw.replace('\\"', '"').replace('\\n', '\n').replace('\\\\', '\\'))
                      for key, raw in _LABEL.findall(match.group(2) or ''))
        samples.append((match.group(1), labels, value))
    return samples


def exporter_findings(npu_text, node_text, chip_count, units=()):
    """What verify reports from the two exporters' /metrics: npu-exporter sees ``chip_count``
    chips (npu-smi's count; None when npu-smi failed) and each one healthy, node_exporter reports each of ``units`` active.
    -> {'ok': bool, 'detail': str}; ``npu_text`` / ``node_text`` None when the exporter did not answer."""
    problems = []
    parts = []
    if npu_text is None:
        problems.append('npu-exporter does not answer on /metrics')
    else:
        health = dict((labels.get('id'), value) for name, labels, value in parse_exposition(npu_text)
                      if name == 'npu_chip_info_health_status')
        unhealthy = sorted((chip for chip, value in health.items() if value != 1), key=lambda chip: int(chip or 0))
        # None: npu-smi could not be read, so there is no count to hold the exporter to.
        if chip_count is not None and len(health) != int(chip_count):
            problems.append('npu-exporter reports %d chips, npu-smi %d' % (len(health), int(chip_count)))
        if unhealthy:
            problems.append('npu-exporter reports NPU %s not healthy' % ', '.join(unhealthy))
        parts.append('npu-exporter: %d chips, %d healthy' % (len(health), len(health) - len(unhealthy)))
    if node_text is None:
        problems.append('node_exporter does not answer on /metrics')
    else:
        active = set(labels.get('name') for name, labels, value in parse_exposition(node_text)
                     if name == 'node_systemd_unit_state' and labels.get('state') == 'active' and value == 1)
        missing = [unit for unit in units if unit not in active]
        if missing:
            problems.append('node_exporter does not report %s active' % ', '.join(missing))
        parts.append('node_exporter: %s active' % (', '.join(unit for unit in units if unit in active) or 'answers'))
    return {'ok': not problems, 'detail': '; '.join(problems or parts)}
