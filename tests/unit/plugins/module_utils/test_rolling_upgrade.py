"""module_utils rolling_upgrade: every reason a rolling upgrade cannot start, from the inventory alone."""
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.filter.rolling_upgrade import FilterModule
from ansible_collections.ascend.vllm.plugins.module_utils.rolling_upgrade import request_problems

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
    assert sorted(FILTERS) == ['rolling_upgrade_lines', 'rolling_upgrade_plan', 'rolling_upgrade_problems',
                               'rolling_upgrade_slo', 'rolling_upgrade_stopped', 'rolling_upgrade_summary']


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
        {'host': 'n1', 'from': '0.18.0', 'to': '0.23.0', 'result': 'upgraded', 'error': '', 'slo': {}},
        {'host': 'n2', 'from': '0.18.0', 'to': '0.23.0', 'result': 'rolled back', 'error': 'the health gate timed out',
         'slo': {}},
        {'host': 'n3', 'from': None, 'to': None, 'result': 'not reached', 'error': '', 'slo': {}},
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


# --- one unit per multi-node service ---------------------------------------------------------------

from ansible_collections.ascend.vllm.plugins.module_utils.rolling_upgrade import plan_batches, slo_verdict  # noqa: E402

PAIR = {'h': ['h', 'w'], 'w': ['h', 'w']}


@pytest.mark.parametrize('change, problems', [
    ({'multinode_mode': 'dp', 'service_nodes': ['h', 'w'], 'rollout_hosts': ['a', 'h', 'w']}, []),
    ({'multinode_mode': 'dp', 'service_nodes': ['h', 'w'], 'rollout_hosts': ['h']},
     ['it serves part of a multi-node service (vllm_service_multinode_mode dp) that moves as one unit, but w of that '
      'service is not in this rollout; include every host of vllm_head and vllm_workers, or leave all of them out '
      'with --limit']),
    ({'multinode_mode': 'ray', 'service_nodes': ['h', 'w'], 'rollout_hosts': ['h', 'w']},
     ["it serves part of a Ray multi-node service (vllm_service_multinode_mode ray), whose Ray cluster runs from the "
      "serving virtualenv and is not moved by the rollout; move the service's nodes together with site.yml in a "
      "change window (the release set in the inventory), and leave them out of the rolling upgrade with --limit"]),
])
def test_a_multinode_service_moves_whole(change, problems):
    assert request_problems(dict(GOOD, **change)) == problems


@pytest.mark.parametrize('hosts, units, first, batch, batches', [
    # Single nodes: what Ansible's serial makes of 1 then 25 % of 8 (2).
    (['n1', 'n2', 'n3', 'n4', 'n5', 'n6', 'n7', 'n8'], {}, 1, '25%',
     [['n1'], ['n2', 'n3'], ['n4', 'n5'], ['n6', 'n7'], ['n8']]),
    # The pair is one unit, head first, even where the worker comes first in the inventory.
    (['w', 'a', 'h', 'b'], PAIR, 1, 1, [['h', 'w'], ['a'], ['b']]),
    (['a', 'h', 'w', 'b'], PAIR, 1, 1, [['a'], ['h', 'w'], ['b']]),
    # A batch of 2 does not take half of the pair: it closes, and the pair makes the next one.
    (['a', 'h', 'w', 'b'], PAIR, 2, 2, [['a'], ['h', 'w'], ['b']]),
    (['a', 'b', 'h', 'w'], PAIR, 2, 2, [['a', 'b'], ['h', 'w']]),
    (['h', 'w', 'a', 'b', 'c'], PAIR, '50%', 3, [['h', 'w'], ['a', 'b', 'c']]),
    # A unit member outside the rollout (refused by request_problems) is not invented.
    (['h', 'a'], PAIR, 1, 1, [['h'], ['a']]),
])
def test_plan_batches(hosts, units, first, batch, batches):
    plan = plan_batches(hosts, units, first, batch)
    assert plan['batches'] == batches
    assert plan['order'] == [host for b in batches for host in b]
    assert plan['serial'] == [len(b) for b in batches]
    assert FILTERS['rolling_upgrade_plan'](hosts, units, first, batch) == plan


def test_the_plan_filter_refuses_what_is_not_a_mapping():
    with pytest.raises(AnsibleFilterError, match='expects a mapping of host to its unit, got list'):
        FILTERS['rolling_upgrade_plan'](['a'], [], 1, 1)


RUN = {'error': None, 'failed': 0, 'output_throughput': 200.0, 'ttft_p99_ms': 100.0}


@pytest.mark.parametrize('after, slo, messages', [
    ({}, {'throughput_drop_pct': 10, 'latency_rise_pct': 20}, []),
    ({'output_throughput': 181.0, 'ttft_p99_ms': 119.0}, {'throughput_drop_pct': 10, 'latency_rise_pct': 20}, []),
    ({'output_throughput': 150.0}, {'throughput_drop_pct': 10},
     ['output throughput fell 25.0 % (200.0 -> 150.0 tok/s), more than throughput_drop_pct 10']),
    ({'output_throughput': 150.0, 'ttft_p99_ms': 300.0}, {'latency_rise_pct': 20},
     ['TTFT p99 rose 200.0 % (100.0 -> 300.0 ms), more than latency_rise_pct 20']),
    ({'failed': 3}, {'throughput_drop_pct': 10}, ["3 of the benchmark's requests failed after the upgrade"]),
    ({'error': 'vllm bench serve exited with 1'}, {},
     ['the benchmark after the upgrade did not run: vllm bench serve exited with 1']),
])
def test_slo_verdict(after, slo, messages):
    verdict = slo_verdict(RUN, dict(RUN, **after), slo)
    assert verdict['messages'] == messages
    assert verdict['regressed'] is bool(messages)
    assert FILTERS['rolling_upgrade_slo'](RUN, dict(RUN, **after), slo) == verdict


def test_slo_figures_say_both_runs():
    verdict = slo_verdict(RUN, dict(RUN, output_throughput=150.0, ttft_p99_ms=150.0), {})
    assert verdict['figures'] == {'output_throughput': [200.0, 150.0], 'throughput_change_pct': -25.0,
                                  'ttft_p99_ms': [100.0, 150.0], 'ttft_p99_change_pct': 50.0}
    assert not verdict['regressed']
