"""rollout_checks: every reason a rolling upgrade cannot start, from the inventory alone."""
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.filter.rolling_upgrade import FilterModule
from ansible_collections.ascend.vllm.plugins.module_utils.rollout_checks import request_problems

FILTERS = FilterModule().filters()
GOOD = {'chip': {'family': '910b', 'level': 'supported', 'message': ''}, 'first_batch': 1, 'batch': '25%',
        'drain_file': '/srv/hooks/lb-drain.yml', 'drain_exists': True, 'undrain_file': '', 'undrain_exists': False,
        'install_method': 'venv'}
UNSUPPORTED = 'Atlas 300I Duo (Ascend 310P) is not supported by vllm-ascend 0.9.1 (supported: 910b, 910_93)'


@pytest.mark.parametrize('change, problems', [
    ({}, []),
    ({'chip': {}}, []),
    ({'chip': {'family': '310p', 'level': 'experimental', 'message': 'experimental'}}, []),
    ({'chip': {'family': '310p', 'level': 'unsupported', 'message': UNSUPPORTED}, 'batch': 'half'},
     [UNSUPPORTED, 'rolling_upgrade_batch must be a count or a percentage such as 2 or 25%, got half']),
    ({'first_batch': 0}, ['rolling_upgrade_first_batch must be a count or a percentage such as 1 or 10%, got 0']),
    ({'first_batch': '10%', 'batch': 3}, []),
    ({'batch': '25 %'}, ['rolling_upgrade_batch must be a count or a percentage such as 2 or 25%, got 25 %']),
    ({'drain_exists': False, 'undrain_file': '/srv/hooks/lb-undrain.yml'},
     ['rolling_upgrade_drain_tasks: no such file on the controller: /srv/hooks/lb-drain.yml',
      'rolling_upgrade_undrain_tasks: no such file on the controller: /srv/hooks/lb-undrain.yml']),
    ({'install_method': 'container'},
     ['vllm_service_install_method container is not supported; a rolling upgrade keeps a virtualenv per release (venv)']),
    ({'install_method': None}, []),
])
def test_request_problems(change, problems):
    request = dict(GOOD, **change)
    assert request_problems(request) == problems
    assert FILTERS['rolling_upgrade_problems'](request) == problems


def test_the_filter_refuses_what_is_not_a_mapping():
    with pytest.raises(AnsibleFilterError, match='expects a mapping, got list'):
        FILTERS['rolling_upgrade_problems']([])
