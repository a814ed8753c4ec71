"""hccn filters: thin wrappers over module_utils.hccn_plan / hccn."""
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.filter.hccn import FilterModule


FILTERS = FilterModule().filters()


def test_fleet_plan_peers_and_table():
    fleet = FILTERS['hccn_fleet_plan']([
        {'host': 'a', 'devices': [0], 'base_cidr': '10.20.0.0/16'},
        {'host': 'b', 'devices': [0], 'base_cidr': '10.20.0.0/16'},
    ])
    assert fleet['errors'] == []
    assert FILTERS['hccn_peers'](fleet['plan'], 'a') == [{'node': 'b', 'device': 0, 'address': '10.20.0.17'}]
    table = FILTERS['hccn_table']({'a': [{'device': 0, 'address': '10.20.0.1', 'link': 'UP', 'health': 'Success',
                                          'pings_ok': 1, 'pings_total': 1}]})
    assert table[1].split() == ['a', '0', '10.20.0.1', 'UP', 'Success', '-', '1/1']
    reports = {'a': {'devices': [{'device': 0, 'tls': 0}], 'clock': {'daemon': 'chrony', 'synchronised': True,
                                                                     'offset': 0.0}},
               'b': {'devices': [{'device': 0, 'tls': 0}], 'clock': {'daemon': 'chrony', 'synchronised': True,
                                                                     'offset': 0.9}}}
    assert FILTERS['hccn_fleet_problems'](reports) == []
    assert FILTERS['hccn_fleet_problems'](reports, '500')[0].startswith('the clocks of the nodes differ by 0.900 s, '
                                                                        'more than hccn_clock_skew_max_ms (500 ms)')
    with pytest.raises(AnsibleFilterError, match='expects a mapping'):
        FILTERS['hccn_fleet_problems']([])
    with pytest.raises(AnsibleFilterError, match='clock_skew_max_ms must be a number'):
        FILTERS['hccn_fleet_problems'](reports, 'soon')
    with pytest.raises(AnsibleFilterError, match='expects a mapping'):
        FILTERS['hccn_table']([])


def test_fleet_plan_refuses_what_is_no_request_list():
    with pytest.raises(AnsibleFilterError, match='expects a list of requests with a host key'):
        FILTERS['hccn_fleet_plan']([{'devices': [0]}])
