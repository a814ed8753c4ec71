# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Filters of the hccn role: the fleet's NPU NIC address plan, the peers of a node, the report table.

The logic lives in ``plugins/module_utils/hccn_plan.py`` and ``hccn.py``. Documentation: one
``<filter name>.yml`` file per filter next to this one.
"""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.plugin_utils.module_utils_on_use import module_utils

hccn = module_utils('hccn')
hccn_plan = module_utils('hccn_plan')


def hccn_fleet_plan(requests):
    """``{'plan': {host: [devices]}, 'errors': [...]}`` of the nodes' requests, in play order."""
    if not isinstance(requests, list) or not all(isinstance(r, dict) and 'host' in r for r in requests):
        raise AnsibleFilterError('hccn_fleet_plan expects a list of requests with a host key')
    return hccn_plan.plan_fleet(requests)


def hccn_peers(plan, host):
    """The planned NPU addresses of every node but ``host``."""
    return hccn_plan.peers_of(plan, host)


def hccn_table(reports):
    """Report lines: node, device, address, link, health, TLS, pings ok/total; each node's clock."""
    if not isinstance(reports, dict):
        raise AnsibleFilterError('hccn_table expects a mapping of node to its hccn_check result')
    return hccn.table(reports)


def hccn_fleet_problems(reports, clock_skew_max_ms=1000):
    """What keeps the nodes' NPUs from linking, across nodes (module_utils.hccn.fleet_problems)."""
    if not isinstance(reports, dict):
        raise AnsibleFilterError('hccn_fleet_problems expects a mapping of node to its hccn_check result')
    try:
        limit = float(clock_skew_max_ms)
    except (TypeError, ValueError):
        raise AnsibleFilterError('hccn_fleet_problems: clock_skew_max_ms must be a number, got %r' % (clock_skew_max_ms,))
    return hccn.fleet_problems(reports, limit)


class FilterModule(object):

    def filters(self):
        return {
            'hccn_fleet_plan': hccn_fleet_plan,
            'hccn_fleet_problems': hccn_fleet_problems,
            'hccn_peers': hccn_peers,
            'hccn_table': hccn_table,
        }
