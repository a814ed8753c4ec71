"""vllm_dp_ranks: ranks in inventory order, the total, refusals of bad input."""
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.filter import vllm_multinode

FILTERS = vllm_multinode.FilterModule().filters()


def test_filters_are_registered():
    assert sorted(FILTERS) == ['vllm_dp_ranks', 'vllm_known_failures', 'vllm_layout_problems']


def test_two_a2_nodes_of_the_w8a8_profile():
    plan = FILTERS['vllm_dp_ranks'](['head', 'worker-1'], {'head': 2, 'worker-1': 2})
    assert plan == {'total': 4, 'summary': 'head 2, worker-1 2',
                    'nodes': {'head': {'start': 0, 'local': 2, 'last': 1},
                              'worker-1': {'start': 2, 'local': 2, 'last': 3}}}


def test_uneven_sizes_follow_the_order_given():
    plan = FILTERS['vllm_dp_ranks'](['h', 'w2', 'w1'], {'w1': 3, 'w2': '1', 'h': 2, 'other': 9})
    assert [(host, plan['nodes'][host]['start']) for host in ['h', 'w2', 'w1']] == [('h', 0), ('w2', 2), ('w1', 3)]
    assert plan['total'] == 6
    assert 'other' not in plan['nodes']


def test_single_node():
    assert FILTERS['vllm_dp_ranks'](['h'], {'h': 1})['nodes']['h'] == {'start': 0, 'local': 1, 'last': 0}


@pytest.mark.parametrize('hosts, sizes, message', [
    (['h', 'w'], {'h': 2}, 'no local data-parallel size for w'),
    (['h'], {'h': 0}, 'the local data-parallel size of h is 0, it must be at least 1'),
    (['h'], {'h': 'two'}, "the local data-parallel size of h is 'two', not a whole number"),
    (['h', 'h'], {'h': 1}, 'a host is listed twice in h, h'),
    ('h', {'h': 1}, 'hosts must be a list'),
    (['h'], [1], 'sizes must be a dict'),
])
def test_bad_input_is_refused(hosts, sizes, message):
    with pytest.raises(AnsibleFilterError, match='vllm_dp_ranks: ' + message):
        FILTERS['vllm_dp_ranks'](hosts, sizes)


def test_layout_problems_refuses_peer_modes_that_are_not_a_dict():
    with pytest.raises(AnsibleFilterError, match='peer_modes must be a dict'):
        FILTERS['vllm_layout_problems']('dp', 'n1', ['n1'], ['n2'], None, ['dp'])
    assert FILTERS['vllm_layout_problems']('dp', 'n1', ['n1'], ['n2']) == []


def test_known_failures_of_a_worker_journal():
    # The EI0006 line as vllm-project/vllm-ascend issue 5461 quotes it, among systemd's restart lines.
    journal = ('Dec 07 18:01:40 n2 vllm[912]: RuntimeError: [PID: 749] Get_Socket_Timeout(EI0006): Getting socket times '
               'out. Reason: 1. The remote does not initiate a connect request.\n'
               'Dec 07 18:01:43 n2 systemd[1]: vllm-main.service: Scheduled restart job, restart counter is at 4.\n')
    text = FILTERS['vllm_known_failures'](journal)
    assert text.startswith('Known failure (hccl_socket_timeout): HCCL could not connect the NPUs of the service across '
                           'nodes in time')
    assert 'Fix: compare ' in text and text.endswith('The remote does not initiate a connect request.')
    assert FILTERS['vllm_known_failures']('Dec 07 18:01:43 n2 systemd[1]: Stopped vllm-main.service.\n') == ''
    with pytest.raises(AnsibleFilterError, match='expects the journal as text'):
        FILTERS['vllm_known_failures'](None)
