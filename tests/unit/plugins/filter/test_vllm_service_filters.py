"""The vllm_service filters wrap module_utils.vllm_service and turn its errors into filter errors."""
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.filter import vllm_service

FILTERS = vllm_service.FilterModule().filters()


def test_filters_are_registered():
    assert sorted(FILTERS) == ['vllm_binding_layer', 'vllm_chip_fit_problem',
                               'vllm_chips_needed', 'vllm_container_argv', 'vllm_container_plan', 'vllm_env_digests',
                               'vllm_env_file', 'vllm_env_lines', 'vllm_file_drift',
                               'vllm_hub_download', 'vllm_merge_args',
                               'vllm_multinode_args', 'vllm_npu_problem', 'vllm_numa_binding',
                               'vllm_package_problems', 'vllm_pip_check',
                               'vllm_pip_source_builds', 'vllm_profile_serve', 'vllm_ray_chips_problem',
                               'vllm_requirement_names', 'vllm_requirement_problems', 'vllm_rollback_plan',
                               'vllm_serve_argv', 'vllm_serving_address_problem', 'vllm_settings_problems',
                               'vllm_systemd_exec',
                               'vllm_unit_action', 'vllm_unit_drift', 'vllm_unit_state_problems', 'vllm_validation_digest',
                               'vllm_write_reasons']


def test_settings_problems_filter_reads_the_roles_settings():
    assert FILTERS['vllm_settings_problems']({'instance': 'main', 'start_limit_burst': 1, 'model_profile': 'nope',
                                              'profiles': ['p'], 'model_source': 'local', 'download_parallel': 1,
                                              'download_timeout': 1, 'download_poll': 1}) == [
        'vllm_service: vllm_service_model_profile nope is not one of p.']


def test_pip_source_builds_failure_names_the_filter():
    with pytest.raises(AnsibleFilterError, match=r'^source_builds: the pip installation report has no "install" list'):
        FILTERS['vllm_pip_source_builds']({'version': '1'})


def test_rollback_plan_filter_reads_registered_results():
    plan = FILTERS['vllm_rollback_plan']([{'path': '/u', 'result': {'changed': True, 'backup_file': '/u.1~'}}], 'active', 'single', 'yes')
    assert plan['possible'] and plan['restore'] == [['/u.1~', '/u']]


def test_profile_serve_failure_names_the_filter():
    with pytest.raises(AnsibleFilterError, match=r"^profile_serve: the profile does not support chip family '310p'"):
        FILTERS['vllm_profile_serve']({'chips': {'910b': {}}}, '310p', '0.23.0')


def test_merge_then_argv():
    merged = FILTERS['vllm_merge_args']({'dtype': 'bfloat16', 'seed': 0}, {'seed': 7}, None)
    assert FILTERS['vllm_serve_argv'](merged) == ['--dtype', 'bfloat16', '--seed', '7']


def test_errors_become_filter_errors():
    with pytest.raises(AnsibleFilterError, match='chips_needed: --tensor-parallel-size is 0, it must be at least 1'):
        FILTERS['vllm_chips_needed']({'tensor-parallel-size': 0})
    with pytest.raises(AnsibleFilterError, match='container_plan: device 3 is not one of the 1 chips'):
        FILTERS['vllm_container_plan']([{'device_id': 0}], [3])


def test_pip_check_filter_reads_a_registered_result():
    expected = [{'package': 'vllm', 'requires': 'torch'}]
    result = {'rc': 1, 'stdout': 'vllm 0.23.0 has requirement torch==2.11.0, but you have torch 2.10.0.\n'}
    assert FILTERS['vllm_pip_check'](result, expected) == {
        'ok': True, 'expected': ['vllm 0.23.0 has requirement torch==2.11.0, but you have torch 2.10.0.'],
        'unexpected': []}
    with pytest.raises(AnsibleFilterError, match='registered result of pip check'):
        FILTERS['vllm_pip_check']('rc 1', expected)
