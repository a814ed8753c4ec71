"""ray_status / ray_join_check filters: registered, and errors as filter errors."""
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.filter import ray_cluster

FILTERS = ray_cluster.FilterModule().filters()


def test_filters_are_registered():
    assert sorted(FILTERS) == ['ray_join_check', 'ray_start_argv', 'ray_status']


def test_round_trip():
    text = ('======== Autoscaler status: x ========\nActive:\n 1 node_ab\nResources\nTotal Usage:\n 0.0/8.0 NPU\n'
            ' 0.0/1.0 ascend_host:h1\n\nNode: ab (node_ab)\n Usage:\n  0.0/8.0 NPU\n  0.0/1.0 ascend_host:h1\n')
    check = FILTERS['ray_join_check'](FILTERS['ray_status'](text), {'h1': 8})
    assert check['ok'] and check['joined'] == ['h1']


def test_errors_are_filter_errors():
    with pytest.raises(AnsibleFilterError, match='parse_status: not the output of ray status'):
        FILTERS['ray_status']('Traceback (most recent call last):')
    with pytest.raises(AnsibleFilterError, match='join_check'):
        FILTERS['ray_join_check']({}, ['h1'])
