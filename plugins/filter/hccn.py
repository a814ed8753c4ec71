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


def hccn_table(rows_by_node):
    """Report lines: node, device, address, link, health, pings ok/total."""
    return hccn.table(rows_by_node)


def hccn_tls_mismatch(rows_by_node):
    """Why the nodes' TLS switches cannot link, or '' (module_utils.hccn.tls_mismatch)."""
    if not isinstance(rows_by_node, dict):
        raise AnsibleFilterError('hccn_tls_mismatch expects a mapping of node to its device rows')
    return hccn.tls_mismatch(rows_by_node)


class FilterModule(object):

    def filters(self):
        return {
            'hccn_fleet_plan': hccn_fleet_plan,
            'hccn_peers': hccn_peers,
            'hccn_table': hccn_table,
            'hccn_tls_mismatch': hccn_tls_mismatch,
        }
