"""ray status (Ray 2.58.0 and 2.48.0, captured on loopback) and the join check of the ray_cluster role."""
import os

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import ray_status as rs

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'fixtures', 'ray')


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


def test_two_nodes_verbose():
    status = rs.parse_status(fixture('two_nodes_verbose.txt'))
    assert status['ready']
    assert status['active'] == ['node_c0889fca5be31c649c8a29d29a0d2dd5f99b72b1576135b773ebfddb',
                                'node_3ba1ca6427d6fd809a235e1e178a3525a5ab10329e666b61bb3dbd3e']
    assert status['pending'] == [] and status['failures'] == []
    assert status['total']['NPU'] == 16.0 and status['total']['CPU'] == 2.0
    assert status['used']['NPU'] == 0.0
    assert status['total']['object_store_memory'] == pytest.approx(190.73 * 1024 ** 2)
    assert status['total']['ascend_host:node-b'] == 1.0
    assert [node['id'][:8] for node in status['nodes']] == ['c0889fca', '3ba1ca64']
    assert [node['host'] for node in status['nodes']] == [None, 'node-b']
    assert status['nodes'][1]['total']['NPU'] == 8.0
    assert status['nodes'][0]['total']['memory'] == pytest.approx(23.28 * 1024 ** 3)


def test_plain_output_has_no_node_blocks():
    status = rs.parse_status(fixture('two_nodes.txt'))
    assert status['ready'] and len(status['active']) == 2 and status['nodes'] == []
    assert status['total']['NPU'] == 16.0


def test_dead_worker_is_listed_without_resources():
    status = rs.parse_status(fixture('worker_dead_verbose.txt'))
    assert len(status['active']) == 2
    assert status['total']['NPU'] == 8.0
    assert status['nodes'][1]['total'] == {} and status['nodes'][1]['host'] is None
    check = rs.join_check(status, {'node-a': 8, 'node-b': 8})
    assert not check['ok']
    assert check['missing'] == ['node-a', 'node-b']
    assert check['problems'] == ['node-a is not in the Ray cluster', 'node-b is not in the Ray cluster']
    assert check['total'] == 8


def test_join_check_all_joined():
    status = rs.parse_status(fixture('two_nodes_verbose.txt'))
    check = rs.join_check(status, {'node-b': 8})
    assert check == {'ok': True, 'joined': ['node-b'], 'missing': [], 'problems': [], 'total': 16}


def test_join_check_wrong_npu_count():
    status = rs.parse_status(fixture('two_nodes_verbose.txt'))
    check = rs.join_check(status, {'node-b': 16})
    assert not check['ok']
    assert check['problems'] == ['node-b has 8 NPU in the Ray cluster, expected 16']


def test_no_cluster_status_yet():
    status = rs.parse_status(fixture('no_status.txt'))
    assert not status['ready'] and status['nodes'] == []
    check = rs.join_check(status, {'h': 8})
    assert not check['ok']
    assert check['problems'] == ['ray status has no cluster status yet', 'h is not in the Ray cluster']


def test_not_ray_status_is_an_error_quoting_the_line():
    with pytest.raises(rs.RayStatusError, match='first line: .*Failed to connect to GCS'):
        rs.parse_status(fixture('no_gcs.txt'))
    with pytest.raises(rs.RayStatusError, match='no output'):
        rs.parse_status(None)


def test_unknown_unit_is_an_error():
    text = '======== Autoscaler status: x ========\nResources\nTotal Usage:\n 0B/3.0XiB memory\n'
    with pytest.raises(rs.RayStatusError, match='unknown unit'):
        rs.parse_status(text)


def test_join_check_needs_a_mapping():
    with pytest.raises(rs.RayStatusError):
        rs.join_check({'ready': True}, ['h'])


def test_placement_group_and_fractional_usage():
    text = ('======== Autoscaler status: x ========\nActive:\n 2 node_a\nIdle:\n (no idle nodes)\n'
            'Resources\nTotal Usage:\n 1.0/2.0 CPU (1.0 used of 1.0 reserved in placement groups)\n 0.5/16.0 NPU\n')
    status = rs.parse_status(text)
    assert status['active'] == ['node_a', 'node_a']
    assert status['used'] == {'CPU': 1.0, 'NPU': 0.5}


# Ray 2.48.0, the version vllm-ascend's images install (fixtures/ray/2.48.0/README.txt).
def fixture_248(name):
    return fixture(os.path.join('2.48.0', name))


def test_ray_2_48_two_nodes_with_their_hosts():
    status = rs.parse_status(fixture_248('two_nodes_verbose.txt'))
    assert status['ready'] and len(status['active']) == 2
    assert status['total']['NPU'] == 16.0
    assert sorted(node['host'] for node in status['nodes']) == ['node-a', 'node-b']
    assert rs.join_check(status, {'node-a': 8, 'node-b': 8}) == {
        'ok': True, 'joined': ['node-a', 'node-b'], 'missing': [], 'problems': [], 'total': 16}
    plain = rs.parse_status(fixture_248('two_nodes.txt'))
    assert plain['ready'] and len(plain['active']) == 2 and plain['nodes'] == []


def test_ray_2_48_dead_worker_leaves_the_cluster():
    status = rs.parse_status(fixture_248('worker_dead_verbose.txt'))
    assert len(status['active']) == 1 and status['total']['NPU'] == 8.0
    check = rs.join_check(status, {'node-a': 8, 'node-b': 8})
    assert check['missing'] == ['node-b']
    assert check['problems'] == ['node-b is not in the Ray cluster']
    # Seconds after the kill the head still lists it: the wait must not stop at the first answer.
    early = rs.parse_status(fixture_248('worker_killed_3s_verbose.txt'))
    assert rs.join_check(early, {'node-a': 8, 'node-b': 8})['ok'] is True


def test_ray_2_48_without_gcs_is_an_error():
    with pytest.raises(rs.RayStatusError, match='first line: .*Failed to connect to GCS'):
        rs.parse_status(fixture_248('no_gcs.txt'))
