"""The monitoring filters wrap module_utils.monitoring and turn its errors into filter errors."""
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.filter import monitoring

FILTERS = monitoring.FilterModule().filters()


def test_filters_are_registered():
    assert sorted(FILTERS) == ['monitoring_dashboard', 'monitoring_exporter_findings', 'monitoring_exporter_plan',
                               'monitoring_rules', 'monitoring_scrape_configs', 'monitoring_settings_problems',
                               'monitoring_targets']


def test_targets_ports_and_rules_thresholds_pass_through():
    jobs = FILTERS['monitoring_targets']([{'host': 'n1', 'address': '10.0.0.1', 'vllm': None}], 9000, 9200)
    assert jobs['npu_exporter'][0]['targets'] == ['10.0.0.1:9000']
    assert jobs['node_exporter'][0]['targets'] == ['10.0.0.1:9200']
    assert jobs['vllm'] == []
    hot = [rule for rule in FILTERS['monitoring_rules']({'temperature_celsius': 90})['groups'][0]['rules']
           if rule['alert'] == 'AscendNpuHot'][0]
    assert hot['expr'] == 'npu_chip_info_temperature >= 90'
    assert FILTERS['monitoring_scrape_configs']('/etc/p/', '30s')[0] == {
        'job_name': 'vllm', 'scrape_interval': '30s', 'file_sd_configs': [{'files': ['/etc/p/vllm.json']}]}
    assert FILTERS['monitoring_settings_problems']('/etc/p', 8082, 9100, {'restarts': 0}) == [
        'monitoring_thresholds: restarts must be a positive number, got 0']


def test_errors_become_filter_errors():
    with pytest.raises(AnsibleFilterError, match='alert_rules: temperature is not a threshold'):
        FILTERS['monitoring_rules']({'temperature': 80})
    with pytest.raises(AnsibleFilterError, match='scrape_targets: n1 is listed twice'):
        FILTERS['monitoring_targets']([{'host': 'n1'}, {'host': 'n1'}])


def test_exporter_plan_passes_ports_and_refuses_a_host_name():
    plan = FILTERS['monitoring_exporter_plan']('10.0.0.1', 'x86_64', '/usr/local/Ascend', '/opt/npu-exporter', 9000, 9200, 3)
    assert plan['npu_exporter']['argv'][1:4] == ['-ip=10.0.0.1', '-port=9000', '-updateTime=3']
    assert plan['node_exporter']['args'][0] == '--web.listen-address=10.0.0.1:9200'
    with pytest.raises(AnsibleFilterError, match="exporter_plan: monitoring_address must be an IP address"):
        FILTERS['monitoring_exporter_plan']('n1', 'x86_64', '/usr/local/Ascend', '/opt/npu-exporter')
