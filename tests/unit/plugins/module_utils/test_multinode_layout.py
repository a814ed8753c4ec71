"""multinode_layout: the head/worker rules preflight reports and vllm_service refuses on."""
import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.multinode_layout import layout_problems


def whats(*args, **kwargs):
    return [problem['what'] for problem in layout_problems(*args, **kwargs)]


def test_a_sound_service_has_no_problems():
    assert layout_problems('dp', 'n1', ['n1'], ['n2'], ['n1', 'n2'], {'n2': 'dp'}) == []
    assert layout_problems('none', 'n3', ['n1'], ['n2']) == []
    assert layout_problems(None, 'n3', [], []) == []


def test_no_head_no_workers_names_each_gap_with_its_variable_and_fix():
    problems = layout_problems('dp', 'n1', [], [])
    assert [(p['what'], p['variable']) for p in problems] == [
        ('multi-node mode dp needs exactly one host in group vllm_head, it has 0', "groups['vllm_head']"),
        ('multi-node mode dp needs at least one host in group vllm_workers, it has none', "groups['vllm_workers']"),
        ('this host runs multi-node mode dp but is in neither vllm_head nor vllm_workers', 'vllm_service_multinode_mode')]
    assert problems[0]['fix'] == 'put exactly one node (the one that runs the API server) in group vllm_head'


def test_two_heads_and_a_host_in_both_groups():
    assert whats('ray', 'n2', ['n1', 'n2'], ['n2'], who='n2') == [
        'multi-node mode ray needs exactly one host in group vllm_head, it has 2: n1, n2',
        'n2 is in both vllm_head and vllm_workers']


def test_unknown_mode_and_mode_none_inside_the_service():
    assert whats('mpi', 'n1', [], []) == ['vllm_service_multinode_mode is mpi, not one of none, dp, ray']
    assert whats('none', 'n2', ['n1'], ['n2']) == ['this host is in vllm_workers but its vllm_service_multinode_mode is none']


@pytest.mark.parametrize('nodes, peers, expected', [
    (['n1'], None, ['hosts of vllm_head/vllm_workers are not in group ascend_nodes: n2']),
    (None, {'n2': None}, ['hosts of the same service disagree on the multi-node mode (dp here): n2=none']),
    (None, {'n2': 'ray'}, ['hosts of the same service disagree on the multi-node mode (dp here): n2=ray']),
    (None, {'n2': 'dp'}, []),
])
def test_group_membership_and_peer_modes_only_when_given(nodes, peers, expected):
    assert whats('dp', 'n1', ['n1'], ['n2'], nodes, peers) == expected
