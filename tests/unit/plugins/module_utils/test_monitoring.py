"""Scrape targets and alert rules for the site's Prometheus (module_utils/monitoring.py).

The rules are checked and run by Prometheus's own promtool (scripts/setup.sh unpacks Debian's
prometheus package into .cache/prometheus): each alert fires on synthetic series shaped like its
exporter's, with the labels the scrape targets add, and stays quiet just below its threshold.
"""
import json
import os
import subprocess

import pytest
import yaml

from ansible_collections.ascend.vllm.plugins.module_utils import monitoring as mon

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..'))
PROMTOOL = os.path.join(REPO, '.cache', 'prometheus', 'usr', 'bin', 'promtool')

NODES = [
    {'host': 'a2-2', 'address': '10.0.0.12', 'chip_family': '910b', 'release': '2026.09',
     'vllm': {'instance': 'main', 'port': 8000, 'role': 'worker'}},
    {'host': 'a2-1', 'address': '10.0.0.11', 'chip_family': '910b', 'release': '2026.09',
     'vllm': {'instance': 'main', 'port': 8000, 'role': 'head'}},
    {'host': 'a2-3', 'address': 'fd00::13', 'chip_family': '910b', 'release': '2026.09', 'vllm': None},
]
# What npu-exporter labels a chip with (collector/common/metrics_collector.go, CardLabel), plus
# the target's labels. An empty label (vdie_id on a chip without dies) is no label in Prometheus.
CHIP = 'host="a2-1", chip_family="910b", release="2026.09", id="3", model_name="Ascend910B3-910B3-V1", ' \
       'vdie_id="", pcie_bus_info="0000:C1:00.0", job="npu_exporter", instance="10.0.0.11:8082"'
CHIP_LABELS = {'host': 'a2-1', 'chip_family': '910b', 'release': '2026.09', 'id': '3',
               'model_name': 'Ascend910B3-910B3-V1', 'pcie_bus_info': '0000:C1:00.0',
               'job': 'npu_exporter', 'instance': '10.0.0.11:8082'}
VLLM = 'host="a2-1", chip_family="910b", release="2026.09", vllm_instance="main", vllm_role="head", ' \
       'job="vllm", instance="10.0.0.11:8000"'
VLLM_LABELS = {'host': 'a2-1', 'chip_family': '910b', 'release': '2026.09', 'vllm_instance': 'main',
               'vllm_role': 'head', 'job': 'vllm', 'instance': '10.0.0.11:8000'}
UNIT = 'host="a2-2", chip_family="910b", release="2026.09", name="vllm-main.service", job="node_exporter", ' \
       'instance="10.0.0.12:9100"'
UNIT_LABELS = {'host': 'a2-2', 'chip_family': '910b', 'release': '2026.09', 'name': 'vllm-main.service',
               'job': 'node_exporter', 'instance': '10.0.0.12:9100'}

WORKER = 'host="a2-2", chip_family="910b", release="2026.09", vllm_instance="main", vllm_role="worker", ' \
         'job="node_exporter", instance="10.0.0.12:9100"'
WORKER_LABELS = {'host': 'a2-2', 'chip_family': '910b', 'release': '2026.09', 'vllm_instance': 'main',
                 'vllm_role': 'worker', 'job': 'node_exporter', 'instance': '10.0.0.12:9100'}

NODE_NPU = 'host="a2-1", chip_family="910b", release="2026.09", job="npu_exporter", instance="10.0.0.11:8082"'
NODE_NPU_LABELS = {'host': 'a2-1', 'chip_family': '910b', 'release': '2026.09', 'job': 'npu_exporter',
                   'instance': '10.0.0.11:8082'}


def runbook(alert):
    rules = mon.alert_rules()['groups'][0]['rules']
    return [rule for rule in rules if rule['alert'] == alert][0]['annotations']['runbook']


def promtool(*args, cwd=None):
    if not os.access(PROMTOOL, os.X_OK):
        pytest.fail('%s is missing: run scripts/setup.sh' % PROMTOOL)
    return subprocess.run([PROMTOOL] + list(args), cwd=cwd, capture_output=True, text=True, timeout=120, check=False)


def write_rules(tmp_path, overrides=None):
    path = tmp_path / 'rules.yml'
    path.write_text(yaml.safe_dump(mon.alert_rules(overrides), sort_keys=False))
    return path


def run_cases(tmp_path, cases, overrides=None):
    write_rules(tmp_path, overrides)
    (tmp_path / 'tests.yml').write_text(yaml.safe_dump(
        {'rule_files': ['rules.yml'], 'evaluation_interval': '1m', 'tests': cases}, sort_keys=False))
    return promtool('test', 'rules', 'tests.yml', cwd=str(tmp_path))


def case(series, values, alert, eval_time, expected):
    """One promtool test: ``expected`` is a list of (labels, summary) that must fire, [] none."""
    return {'interval': '1m',
            'input_series': [{'series': series, 'values': values}],
            'alert_rule_test': [{'eval_time': eval_time, 'alertname': alert, 'exp_alerts': [
                {'exp_labels': labels, 'exp_annotations': {'summary': summary, 'runbook': runbook(alert)}}
                for labels, summary in expected]}]}


# --------------------------------------------------------------------------- rules file
def test_promtool_accepts_the_rules_file(tmp_path):
    run = promtool('check', 'rules', str(write_rules(tmp_path)))
    assert run.returncode == 0, run.stdout + run.stderr
    assert 'SUCCESS: 12 rules found' in run.stdout


def test_every_rule_has_a_severity_a_summary_and_a_runbook():
    rules = mon.alert_rules()['groups'][0]['rules']
    assert [rule['alert'] for rule in rules] == [
        'AscendNpuUnhealthy', 'AscendNpuHealthUnknown', 'AscendNpuHot', 'AscendNpuHbmNearlyFull',
        'AscendNpuNetworkUnhealthy', 'AscendRoceLinkDown', 'VllmMetricsDown', 'VllmWorkerMissing', 'VllmUnitNotActive',
        'VllmUnitRestarting', 'VllmRequestsWaiting', 'VllmKvCacheFull']
    for rule in rules:
        assert rule['labels']['severity'] in ('critical', 'warning')
        assert rule['annotations']['summary'] and rule['annotations']['runbook'].endswith('.')


def test_thresholds_go_into_the_expressions():
    rules = {rule['alert']: rule['expr'] for rule in mon.alert_rules({'temperature_celsius': 80})['groups'][0]['rules']}
    assert rules['AscendNpuHot'] == 'npu_chip_info_temperature >= 80'
    assert rules['VllmKvCacheFull'] == '(vllm:kv_cache_usage_perc or vllm:gpu_cache_usage_perc) > 0.95'
    assert rules['VllmUnitNotActive'] == 'node_systemd_unit_state{name=~"vllm-.+\\\\.service",state="active"} == 0'


def test_bad_thresholds_are_refused_naming_each():
    with pytest.raises(mon.MonitoringError) as exc:
        mon.thresholds({'temperature': 80, 'restarts': 0, 'requests_waiting': True})
    assert str(exc.value) == (
        'requests_waiting must be a positive number, got True; restarts must be a positive number, got 0; '
        'temperature is not a threshold (known: hbm_used_ratio, kv_cache_ratio, requests_waiting, restarts, '
        'temperature_celsius)')
    with pytest.raises(mon.MonitoringError) as exc:
        mon.thresholds({'hbm_used_ratio': 97})
    assert str(exc.value) == 'hbm_used_ratio is a fraction of 1, got 97'


# --------------------------------------------------------------------------- alerts firing
def test_an_unhealthy_chip_fires_after_a_minute(tmp_path):
    metric = 'npu_chip_info_health_status{%s}' % CHIP
    fired = dict(CHIP_LABELS, severity='critical')
    run = run_cases(tmp_path, [
        case(metric, '1 1 0 0 0', 'AscendNpuUnhealthy', '3m',
             [(fired, 'NPU 3 on a2-1 reports an unhealthy state')]),
        # Pending for its first minute, and a healthy chip never fires.
        case(metric, '1 1 0 0 0', 'AscendNpuUnhealthy', '2m', []),
        case(metric, '1 1 1 1 1', 'AscendNpuUnhealthy', '4m', []),
    ])
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_chip_whose_health_is_not_exported_is_unknown(tmp_path):
    # npu-exporter drops a health it cannot read: the series is missing while it counts the chip.
    count = 'machine_npu_nums{%s}' % NODE_NPU
    unknown = [(dict(NODE_NPU_LABELS, severity='warning'),
                'npu-exporter on a2-1 reads the health of fewer NPUs than the 2 it counts')]
    chip = 'npu_chip_info_health_status{%s, id="%%d", model_name="910B3-Ascend-V1"}' % NODE_NPU

    def unknown_case(health_values, expected):
        series = [{'series': count, 'values': '2x6'}]
        series += [{'series': chip % number, 'values': values} for number, values in enumerate(health_values)]
        return {'interval': '1m', 'input_series': series, 'alert_rule_test': [
            {'eval_time': '5m', 'alertname': 'AscendNpuHealthUnknown', 'exp_alerts': [
                {'exp_labels': labels, 'exp_annotations': {'summary': summary, 'runbook': runbook('AscendNpuHealthUnknown')}}
                for labels, summary in expected]}]}

    run = run_cases(tmp_path, [
        unknown_case(['1x6'], unknown),         # one of two chips reported
        unknown_case([], unknown),              # none reported
        unknown_case(['1x6', '0x6'], []),       # both reported: quiet (the unhealthy one is another alert)
    ])
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_hot_chip_fires_at_the_threshold_not_below(tmp_path):
    metric = 'npu_chip_info_temperature{%s}' % CHIP
    run = run_cases(tmp_path, [
        case(metric, '85x6', 'AscendNpuHot', '5m',
             [(dict(CHIP_LABELS, severity='warning'), 'NPU 3 on a2-1 at 85 degrees C')]),
        case(metric, '84x6', 'AscendNpuHot', '5m', []),
    ])
    assert run.returncode == 0, run.stdout + run.stderr


def test_hbm_above_what_vllm_reserves_fires(tmp_path):
    def hbm(used):
        return {'interval': '1m', 'input_series': [
            {'series': 'npu_chip_info_hbm_used_memory{%s}' % CHIP, 'values': '%dx16' % used},
            {'series': 'npu_chip_info_hbm_total_memory{%s}' % CHIP, 'values': '65536x16'}]}
    full = dict(hbm(64225), alert_rule_test=[{'eval_time': '15m', 'alertname': 'AscendNpuHbmNearlyFull', 'exp_alerts': [
        {'exp_labels': dict(CHIP_LABELS, severity='warning'),
         'exp_annotations': {'summary': 'NPU 3 on a2-1 has 98% of its HBM in use',
                             'runbook': runbook('AscendNpuHbmNearlyFull')}}]}])
    # 90 %: what vLLM takes at --gpu-memory-utilization 0.9.
    serving = dict(hbm(58982), alert_rule_test=[{'eval_time': '15m', 'alertname': 'AscendNpuHbmNearlyFull',
                                                 'exp_alerts': []}])
    run = run_cases(tmp_path, [full, serving])
    assert run.returncode == 0, run.stdout + run.stderr


def test_network_and_link_down_fire(tmp_path):
    run = run_cases(tmp_path, [
        case('npu_chip_info_link_status{%s}' % CHIP, '1 0 0 0', 'AscendRoceLinkDown', '3m',
             [(dict(CHIP_LABELS, severity='critical'), 'The RoCE link of NPU 3 on a2-1 is down')]),
        case('npu_chip_info_link_status{%s}' % CHIP, '1 -1 -1 -1', 'AscendRoceLinkDown', '3m', []),
        case('npu_chip_info_network_status{%s}' % CHIP, '0x4', 'AscendNpuNetworkUnhealthy', '3m',
             [(dict(CHIP_LABELS, severity='critical'), 'The network of NPU 3 on a2-1 is unhealthy')]),
    ])
    assert run.returncode == 0, run.stdout + run.stderr


def test_vllm_down_not_active_and_restarting_fire(tmp_path):
    run = run_cases(tmp_path, [
        case('up{%s}' % VLLM, '1 0 0 0', 'VllmMetricsDown', '3m',
             [(dict(VLLM_LABELS, severity='critical'), 'vLLM main on a2-1 does not answer on /metrics')]),
        case('node_systemd_unit_state{%s, state="active", type="simple"}' % UNIT, '1 0 0 0', 'VllmUnitNotActive', '3m',
             [(dict(UNIT_LABELS, state='active', type='simple', severity='critical'),
               'vllm-main.service on a2-2 is not active')]),
        case('node_systemd_unit_state{%s, state="active", type="simple"}' % UNIT, '1x4', 'VllmUnitNotActive', '3m', []),
        case('node_systemd_service_restart_total{%s}' % UNIT, '0 0 1 2 3 3', 'VllmUnitRestarting', '5m',
             [(dict(UNIT_LABELS, severity='warning'), 'vllm-main.service on a2-2 restarted 3 times in 15 minutes')]),
        case('node_systemd_service_restart_total{%s}' % UNIT, '0 0 0 0 1 1', 'VllmUnitRestarting', '5m', []),
        case('up{%s}' % WORKER, '1 0 0 0', 'VllmWorkerMissing', '3m',
             [(dict(WORKER_LABELS, severity='critical'), 'Worker a2-2 of the multi-node vLLM main does not answer')]),
        case('up{%s}' % WORKER, '1 1 1 1', 'VllmWorkerMissing', '3m', []),
        # A single node's node_exporter is not a worker.
        case('up{%s}' % UNIT.replace('name="vllm-main.service", ', ''), '0 0 0 0', 'VllmWorkerMissing', '3m', []),
    ])
    assert run.returncode == 0, run.stdout + run.stderr


def test_queue_and_kv_cache_fire_for_every_release_name(tmp_path):
    waiting = {'interval': '1m', 'input_series': [
        {'series': 'vllm:num_requests_waiting{%s, model_name="r1", engine="0"}' % VLLM, 'values': '6x6'},
        {'series': 'vllm:num_requests_waiting{%s, model_name="r1", engine="1"}' % VLLM, 'values': '6x6'}],
        'alert_rule_test': [{'eval_time': '5m', 'alertname': 'VllmRequestsWaiting', 'exp_alerts': [
            {'exp_labels': {'host': 'a2-1', 'vllm_instance': 'main', 'model_name': 'r1', 'severity': 'warning'},
             'exp_annotations': {'summary': '12 requests wait on vLLM main on a2-1',
                                 'runbook': runbook('VllmRequestsWaiting')}}]}]}
    run = run_cases(tmp_path, [
        waiting,
        case('vllm:kv_cache_usage_perc{%s, model_name="r1", engine="0"}' % VLLM, '0.99x6', 'VllmKvCacheFull', '5m',
             [(dict(VLLM_LABELS, model_name='r1', engine='0', severity='warning'),
               'The KV cache of vLLM main on a2-1 is 99% full')]),
        # vLLM 0.9.1's name for the same gauge.
        case('vllm:gpu_cache_usage_perc{%s, model_name="r1"}' % VLLM, '0.96x6', 'VllmKvCacheFull', '5m',
             [(dict(VLLM_LABELS, model_name='r1', severity='warning'), 'The KV cache of vLLM main on a2-1 is 96% full')]),
        case('vllm:kv_cache_usage_perc{%s, model_name="r1", engine="0"}' % VLLM, '0.5x6', 'VllmKvCacheFull', '5m', []),
    ])
    assert run.returncode == 0, run.stdout + run.stderr


def test_a_threshold_override_moves_the_alert(tmp_path):
    metric = 'npu_chip_info_temperature{%s}' % CHIP
    run = run_cases(tmp_path, [
        case(metric, '80x6', 'AscendNpuHot', '5m',
             [(dict(CHIP_LABELS, severity='warning'), 'NPU 3 on a2-1 at 80 degrees C')]),
    ], overrides={'temperature_celsius': 80})
    assert run.returncode == 0, run.stdout + run.stderr


def test_promtool_test_fails_when_an_alert_does_not_fire(tmp_path):
    """The harness above can fail: an alert expected on a healthy chip is reported missing."""
    metric = 'npu_chip_info_health_status{%s}' % CHIP
    run = run_cases(tmp_path, [case(metric, '1x4', 'AscendNpuUnhealthy', '3m',
                                    [(dict(CHIP_LABELS, severity='critical'), 'NPU 3 on a2-1 reports an unhealthy state')])])
    assert run.returncode == 1
    assert 'alertname: AscendNpuUnhealthy' in run.stdout + run.stderr


# --------------------------------------------------------------------------- targets
def test_targets_per_job_with_the_labels_operators_filter_by():
    jobs = mon.scrape_targets(NODES)
    assert jobs['vllm'] == [{'targets': ['10.0.0.11:8000'], 'labels': {
        'host': 'a2-1', 'chip_family': '910b', 'release': '2026.09', 'vllm_instance': 'main', 'vllm_role': 'head'}}]
    assert [group['targets'] for group in jobs['npu_exporter']] == [['10.0.0.11:8082'], ['10.0.0.12:8082'], ['[fd00::13]:8082']]
    assert [group['targets'] for group in jobs['node_exporter']] == [['10.0.0.11:9100'], ['10.0.0.12:9100'], ['[fd00::13]:9100']]
    assert jobs['node_exporter'][2]['labels'] == {'host': 'a2-3', 'chip_family': '910b', 'release': '2026.09'}
    # The nodes of a multi-node service: its instance and their role on every job.
    assert jobs['node_exporter'][1]['labels'] == {'host': 'a2-2', 'chip_family': '910b', 'release': '2026.09',
                                                  'vllm_instance': 'main', 'vllm_role': 'worker'}
    assert jobs['npu_exporter'][0]['labels']['vllm_role'] == 'head'
    json.dumps(jobs)  # what file_sd reads


def test_targets_refuse_a_duplicate_host_and_a_label_with_a_newline():
    with pytest.raises(mon.MonitoringError) as exc:
        mon.scrape_targets([NODES[0], dict(NODES[0])])
    assert str(exc.value) == 'a2-2 is listed twice'
    with pytest.raises(mon.MonitoringError) as exc:
        mon.scrape_targets([dict(NODES[1], release='2026.09\nx')])
    assert str(exc.value) == "a2-1: label release must be one line of text, got '2026.09\\nx'"


def test_prometheus_reads_the_generated_configuration(tmp_path):
    """promtool check config on a prometheus.yml with the scrape configs, the target files and the rules."""
    sd = tmp_path / 'file_sd'
    sd.mkdir()
    for job, groups in mon.scrape_targets(NODES).items():
        (sd / ('%s.json' % job)).write_text(json.dumps(groups))
    write_rules(tmp_path)
    (tmp_path / 'prometheus.yml').write_text(yaml.safe_dump({
        'global': {'scrape_interval': '15s'}, 'rule_files': ['rules.yml'],
        'scrape_configs': mon.scrape_configs(str(sd))}))
    run = promtool('check', 'config', str(tmp_path / 'prometheus.yml'))
    assert run.returncode == 0, run.stdout + run.stderr
    assert 'SUCCESS: 1 rule files found' in run.stdout


def test_threshold_problems_lists_each_or_none():
    assert mon.threshold_problems({'kv_cache_ratio': 0.9}) == []
    assert mon.threshold_problems(None) == []
    assert mon.threshold_problems({'restarts': -1, 'kv_cache_ratio': 2}) == [
        'kv_cache_ratio is a fraction of 1, got 2', 'restarts must be a positive number, got -1']
    assert mon.threshold_problems({'kv_cache_ratio': 2}) == ['kv_cache_ratio is a fraction of 1, got 2']
    assert mon.threshold_problems([80]) == ['the thresholds must be a mapping, got [80]']


def test_settings_problems_name_each_variable_in_order():
    assert mon.settings_problems('/etc/prometheus/ascend-vllm', 8082, '9100', {}) == []
    assert mon.settings_problems('relative/dir', 80, 'x', {'temperature': 80, 'kv_cache_ratio': 2}) == [
        'monitoring_config_dir must be an absolute path, got relative/dir',
        'monitoring_npu_exporter_port must be in 1025-40000 (what npu-exporter accepts), got 80',
        'monitoring_node_exporter_port must be a port, got x',
        'monitoring_thresholds: kv_cache_ratio is a fraction of 1, got 2',
        'monitoring_thresholds: temperature is not a threshold (known: hbm_used_ratio, kv_cache_ratio, '
        'requests_waiting, restarts, temperature_celsius)']


def test_exporter_plan_for_an_aarch64_node():
    plan = mon.exporter_plan('10.0.0.5', 'aarch64', '/usr/local/Ascend', '/opt/npu-exporter/', 8083, 9101, 2)
    assert plan['address'] == '10.0.0.5'
    assert sorted(plan['npu_exporter'].pop('config')) == ['/usr/local/metricConfiguration.json',
                                                          '/usr/local/pluginConfiguration.json']
    assert plan['npu_exporter'] == {
        'package': 'Ascend-mindxdl-npu-exporter_26.0.0_linux-aarch64.zip',
        'dir': '/opt/npu-exporter/26.0.0',
        'binary': '/opt/npu-exporter/26.0.0/npu-exporter',
        'argv': ['/opt/npu-exporter/26.0.0/npu-exporter', '-ip=10.0.0.5', '-port=8083', '-updateTime=2',
                 '-logFile=/var/log/mindx-dl/npu-exporter/npu-exporter.log'],
        'log_dir': '/var/log/mindx-dl/npu-exporter',
        'environment': {'LD_LIBRARY_PATH': '/usr/local/Ascend/driver/lib64/driver:/usr/local/Ascend/driver/lib64/common'},
    }
    assert plan['node_exporter']['args'] == [
        '--web.listen-address=10.0.0.5:9101', '--collector.systemd', '--collector.systemd.enable-restarts-metrics',
        '--collector.systemd.unit-include=(vllm-.+|ray-.+|npu-exporter)[.]service']


def test_exporter_plan_ipv6_listen_address_is_bracketed_for_node_exporter_only():
    plan = mon.exporter_plan('fd00::5', 'x86_64', '/usr/local/Ascend', '/opt/npu-exporter')
    assert plan['npu_exporter']['argv'][1] == '-ip=fd00::5'
    assert plan['node_exporter']['args'][0] == '--web.listen-address=[fd00::5]:9100'
    assert plan['npu_exporter']['package'].endswith('_linux-x86_64.zip')


def test_exporter_plan_refuses_naming_each_variable():
    with pytest.raises(mon.MonitoringError) as err:
        mon.exporter_plan('node-1.example', 'ppc64le', '/usr/local/Ascend', 'opt', update_time=0)
    assert str(err.value) == (
        "monitoring_address must be an IP address of the node for the exporters to listen on (npu-exporter's -ip "
        "takes no host name), got 'node-1.example'; npu-exporter is published for x86_64 and aarch64, not 'ppc64le'; "
        "monitoring_npu_exporter_update_time must be 1-60 seconds (its -updateTime), got 0; "
        "monitoring_npu_exporter_dir must be an absolute path, got 'opt'")


# --------------------------------------------------------------------------- exporters' /metrics
NPU_TEXT = '''# HELP npu_chip_info_health_status the npu health status
# TYPE npu_chip_info_health_status gauge
npu_chip_info_health_status{container_name="",id="0",model_name="910B3-Ascend-V1",namespace="",pcie_bus_info="0000:C1:00.0",pod_name="",vdie_id=""} 1
npu_chip_info_health_status{container_name="",id="1",model_name="910B3-Ascend-V1",namespace="",pcie_bus_info="0000:C2:00.0",pod_name="",vdie_id=""} 0
npu_chip_info_temperature{id="0"} 51 1606402000
'''
NODE_TEXT = '''node_systemd_unit_state{name="vllm-main.service",state="active",type="simple"} 1
node_systemd_unit_state{name="vllm-main.service",state="failed",type="simple"} 0
node_systemd_unit_state{name="npu-exporter.service",state="active",type="simple"} 0
node_systemd_unit_state{name="npu-exporter.service",state="activating",type="simple"} 1
'''


def test_parse_exposition_reads_labels_values_and_timestamps():
    samples = mon.parse_exposition(NPU_TEXT + 'up 1\nbad{a="b"} NaNx\nescaped{a="x\\"y"} 2\n')
    assert samples[0] == ('npu_chip_info_health_status', {
        'container_name': '', 'id': '0', 'model_name': '910B3-Ascend-V1', 'namespace': '',
        'pcie_bus_info': '0000:C1:00.0', 'pod_name': '', 'vdie_id': ''}, 1.0)
    assert samples[2] == ('npu_chip_info_temperature', {'id': '0'}, 51.0)
    assert samples[3:] == [('up', {}, 1.0), ('escaped', {'a': 'x"y'}, 2.0)]


def test_exporter_findings_name_each_problem():
    found = mon.exporter_findings(NPU_TEXT, NODE_TEXT, 8, ['npu-exporter.service', 'vllm-main.service'])
    assert found == {'ok': False, 'detail': 'npu-exporter reports 2 chips, npu-smi 8; npu-exporter reports NPU 1 not '
                                            'healthy; node_exporter does not report npu-exporter.service active'}
    # npu-smi failed: no count to compare, the health still counts.
    assert mon.exporter_findings(NPU_TEXT, None, None) == {
        'ok': False, 'detail': 'npu-exporter reports NPU 1 not healthy; node_exporter does not answer on /metrics'}
    assert mon.exporter_findings(None, None, 8) == {
        'ok': False, 'detail': 'npu-exporter does not answer on /metrics; node_exporter does not answer on /metrics'}


def test_exporter_findings_when_all_is_well():
    text = NPU_TEXT.replace('} 0\n', '} 1\n')
    assert mon.exporter_findings(text, NODE_TEXT, 2, ['vllm-main.service']) == {
        'ok': True, 'detail': 'npu-exporter: 2 chips, 2 healthy; node_exporter: vllm-main.service active'}


def test_exporter_plan_writes_the_configuration_where_npu_exporter_reads_it():
    # Reverting to the release's unpacked copies leaves the exporter on its built-in defaults:
    # 26.0.0 reads only /usr/local/metricConfiguration.json and /usr/local/pluginConfiguration.json.
    plan = mon.exporter_plan('10.0.0.5', 'aarch64', '/usr/local/Ascend', '/opt/npu-exporter', metrics_off=['hbm', 'ub'])
    config = plan['npu_exporter']['config']
    assert sorted(config) == ['/usr/local/metricConfiguration.json', '/usr/local/pluginConfiguration.json']
    groups = json.loads(config['/usr/local/metricConfiguration.json'])
    assert [g['metricsGroup'] for g in groups] == list(mon.NPU_EXPORTER_GROUPS)
    assert [g['metricsGroup'] for g in groups if g['state'] == 'OFF'] == ['hbm', 'ub']
    assert json.loads(config['/usr/local/pluginConfiguration.json']) == [
        {'metricsGroup': 'text', 'state': 'ON'}, {'metricsGroup': 'MyPlugin', 'state': 'OFF'}]
    # Without metrics_off, the release's own file: every group on.
    default = mon.exporter_plan('10.0.0.5', 'aarch64', '/usr/local/Ascend', '/opt/npu-exporter')['npu_exporter']
    assert all(g['state'] == 'ON' for g in json.loads(default['config']['/usr/local/metricConfiguration.json']))


def test_exporter_plan_refuses_an_unknown_metric_group():
    with pytest.raises(mon.MonitoringError) as err:
        mon.exporter_plan('10.0.0.5', 'aarch64', '/usr/local/Ascend', '/opt/npu-exporter', metrics_off=['hbm', 'gpu'])
    assert str(err.value).startswith("monitoring_npu_exporter_metrics_off must list metric groups of npu-exporter 26.0.0 "
                                     "(ddr, hccs, npu,")
