# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Filters of the vllm_service role's multi-node modes.
Documentation: one ``<filter name>.yml`` file per filter next to this one."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.plugin_utils.module_utils_on_use import module_utils

multinode_layout = module_utils('multinode_layout')
known_failures = module_utils('known_failures')


def _positive(host, value):
    try:
        number = int(str(value))
    except ValueError:
        raise AnsibleFilterError('vllm_dp_ranks: the local data-parallel size of %s is %r, not a whole number' % (host, value))
    if number < 1:
        raise AnsibleFilterError('vllm_dp_ranks: the local data-parallel size of %s is %d, it must be at least 1' % (host, number))
    return number


def vllm_dp_ranks(hosts, sizes):
    """Data-parallel ranks of the nodes of one service, in the order given (the head first,
    then the workers in inventory order): each node owns ``local`` consecutive ranks starting
    where the previous node's end.

    ``hosts``: host names; ``sizes``: {host: local size}. Returns
    ``{'total': sum, 'nodes': {host: {'start': first rank, 'local': size, 'last': last rank}},
    'summary': 'host size, ...'}``.
    """
    if not isinstance(hosts, (list, tuple)):
        raise AnsibleFilterError('vllm_dp_ranks: hosts must be a list, got %r' % (hosts,))
    if not isinstance(sizes, dict):
        raise AnsibleFilterError('vllm_dp_ranks: sizes must be a dict of host: local size, got %r' % (sizes,))
    if len(set(hosts)) != len(hosts):
        raise AnsibleFilterError('vllm_dp_ranks: a host is listed twice in %s' % (', '.join(hosts),))
    nodes = {}
    start = 0
    for host in hosts:
        if host not in sizes:
            raise AnsibleFilterError('vllm_dp_ranks: no local data-parallel size for %s' % (host,))
        local = _positive(host, sizes[host])
        nodes[host] = {'start': start, 'local': local, 'last': start + local - 1}
        start += local
    return {'total': start, 'nodes': nodes,
            'summary': ', '.join('%s %d' % (host, nodes[host]['local']) for host in hosts)}


def vllm_layout_problems(mode, host, head, workers, ascend_nodes=None, peer_modes=None, who='this host'):
    if peer_modes is not None and not isinstance(peer_modes, dict):
        raise AnsibleFilterError('vllm_layout_problems: peer_modes must be a dict of host: mode, got %r' % (peer_modes,))
    return multinode_layout.layout_problems(mode, host, head, workers, ascend_nodes, peer_modes, who)


def vllm_known_failures(text):
    """Cause and fix of each known failure a journal shows, '' when none (module_utils.known_failures)."""
    if not isinstance(text, str):
        raise AnsibleFilterError('vllm_known_failures expects the journal as text, got %s' % type(text).__name__)
    return known_failures.diagnosis_text(known_failures.diagnose(text))


class FilterModule(object):
    def filters(self):
        return {
            'vllm_dp_ranks': vllm_dp_ranks,
            'vllm_known_failures': vllm_known_failures,
            'vllm_layout_problems': vllm_layout_problems,
        }
