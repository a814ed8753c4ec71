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
    # A head or worker of a multi-node service: the serial batches would split it.
    ({'multinode_mode': 'dp'},
     ["it serves part of a multi-node service (vllm_service_multinode_mode dp), which the serial batches would split; "
      "move the service's nodes together with site.yml in a change window (the release set in the inventory), and "
      "leave them out of the rolling upgrade with --limit"]),
    ({'multinode_mode': 'none'}, []),
])
def test_request_problems(change, problems):
    request = dict(GOOD, **change)
    assert request_problems(request) == problems
    assert FILTERS['rolling_upgrade_problems'](request) == problems


def test_the_filter_refuses_what_is_not_a_mapping():
    with pytest.raises(AnsibleFilterError, match='expects a mapping, got list'):
        FILTERS['rolling_upgrade_problems']([])


def test_filters_are_registered():
    assert sorted(FILTERS) == ['rolling_upgrade_lines', 'rolling_upgrade_problems', 'rolling_upgrade_stopped',
                               'rolling_upgrade_summary']


# What the nodes of a stopped rollout recorded: n1 upgraded, n2 rolled back, n3 never reached.
FACTS = {
    'n1': {'rolling_upgrade_from': '0.18.0', 'rolling_upgrade_to': '0.23.0', 'rolling_upgrade_result': 'upgraded'},
    'n2': {'rolling_upgrade_from': '0.18.0', 'rolling_upgrade_to': '0.23.0', 'rolling_upgrade_result': 'rolled back',
           'rolling_upgrade_error': 'the health gate timed out'},
    'n3': {'inventory_hostname': 'n3'},
}


def test_summary_rows_read_each_host_and_mark_the_unreached():
    rows = FILTERS['rolling_upgrade_summary'](FACTS, ['n1', 'n2', 'n3'])
    assert rows == [
        {'host': 'n1', 'from': '0.18.0', 'to': '0.23.0', 'result': 'upgraded', 'error': ''},
        {'host': 'n2', 'from': '0.18.0', 'to': '0.23.0', 'result': 'rolled back', 'error': 'the health gate timed out'},
        {'host': 'n3', 'from': None, 'to': None, 'result': 'not reached', 'error': ''},
    ]
    assert FILTERS['rolling_upgrade_lines'](rows) == [
        'n1: 0.18.0 -> 0.23.0: upgraded',
        'n2: 0.18.0 -> 0.23.0: rolled back (the health gate timed out)',
        'n3: ? -> ?: not reached',
    ]


def test_stop_message_names_each_node_that_did_not_move():
    rows = FILTERS['rolling_upgrade_summary'](FACTS, ['n1', 'n2', 'n3'])
    assert FILTERS['rolling_upgrade_stopped'](rows) == (
        'rolling_upgrade: the rollout stopped. n2: rolled back to 0.18.0 after the health gate timed out.'
        ' Not reached (still on their release): n3.')
    failed = [dict(rows[1], result='failed', error='')]
    assert FILTERS['rolling_upgrade_stopped'](failed) == (
        'rolling_upgrade: the rollout stopped. n2: failed after an unknown error.'
        ' Not reached (still on their release): none.')


def test_no_stop_message_when_every_node_moved():
    rows = [{'host': 'n1', 'from': '0.23.0', 'to': '0.23.0', 'result': 'unchanged', 'error': ''}]
    assert FILTERS['rolling_upgrade_stopped'](rows) == ''


def test_summary_refuses_an_unknown_host():
    with pytest.raises(AnsibleFilterError, match='expects hostvars and the play hosts'):
        FILTERS['rolling_upgrade_summary'](FACTS, ['n9'])
