# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The head/worker layout of a multi-node vLLM service, checked from the inventory alone.

One set of rules and sentences for preflight (a report row per host) and the vllm_service role
(a refusal before any node changes). Nothing here imports Ansible; plugins/filter/vllm_multinode.py
exposes ``layout_problems`` as the filter ``vllm_layout_problems``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

MODES = ('none', 'dp', 'ray')
MULTI = ('dp', 'ray')


def _problem(what, variable, fix):
    return {'what': what, 'variable': variable, 'fix': fix}


def _names(hosts):
    return [str(host) for host in (hosts or [])]


def layout_problems(mode, host, head, workers, ascend_nodes=None, peer_modes=None, who='this host'):
    """Problems of ``host``'s place in the service of ``mode`` (none, dp or ray).

    ``head``/``workers``: the hosts of groups vllm_head and vllm_workers. ``ascend_nodes``: the
    hosts of group ascend_nodes (None: not checked). ``peer_modes``: {host: its
    vllm_service_multinode_mode} of the other hosts of the service (None: not checked). ``who``
    names the host in the sentences. Returns ``[{what, variable, fix}]``, empty when the layout is
    sound, in a fixed order.
    """
    mode = 'none' if mode is None else str(mode)
    head, workers = _names(head), _names(workers)
    cluster = head + [worker for worker in workers if worker not in head]
    multi = mode in MULTI
    problems = []
    if mode not in MODES:
        problems.append(_problem('vllm_service_multinode_mode is %s, not one of %s' % (mode, ', '.join(MODES)),
                                 'vllm_service_multinode_mode',
                                 'use none (one node serves alone), dp (vLLM data parallel across nodes) or ray '
                                 '(Ray executor)'))
    if multi and len(head) != 1:
        problems.append(_problem('multi-node mode %s needs exactly one host in group vllm_head, it has %d%s'
                                 % (mode, len(head), (': ' + ', '.join(head)) if head else ''),
                                 "groups['vllm_head']",
                                 'put exactly one node (the one that runs the API server) in group vllm_head'))
    if multi and not workers:
        problems.append(_problem('multi-node mode %s needs at least one host in group vllm_workers, it has none' % mode,
                                 "groups['vllm_workers']", 'put the other nodes of the service in group vllm_workers'))
    if multi and host not in cluster:
        problems.append(_problem('%s runs multi-node mode %s but is in neither vllm_head nor vllm_workers' % (who, mode),
                                 'vllm_service_multinode_mode',
                                 'add the host to vllm_head or vllm_workers, or set vllm_service_multinode_mode: none '
                                 'for it'))
    if host in head and host in workers:
        problems.append(_problem('%s is in both vllm_head and vllm_workers' % who,
                                 "groups['vllm_head'], groups['vllm_workers']", 'keep it in one of the two groups'))
    if mode == 'none' and host in cluster:
        problems.append(_problem('%s is in %s but its vllm_service_multinode_mode is none'
                                 % (who, 'vllm_head' if host in head else 'vllm_workers'),
                                 'vllm_service_multinode_mode',
                                 'set vllm_service_multinode_mode (dp or ray) for the hosts of vllm_head and '
                                 'vllm_workers, or take it out of the group'))
    if multi and ascend_nodes is not None:
        outside = [node for node in cluster if node not in _names(ascend_nodes)]
        if outside:
            problems.append(_problem('hosts of vllm_head/vllm_workers are not in group ascend_nodes: '
                                     + ', '.join(outside), "groups['ascend_nodes']",
                                     'every NPU server belongs to group ascend_nodes: add them there'))
    if multi and host in cluster and peer_modes is not None:
        disagree = ['%s=%s' % (peer, 'none' if peer_modes.get(peer) is None else peer_modes.get(peer))
                    for peer in cluster if peer != host and str(peer_modes.get(peer) or 'none') != mode]
        if disagree:
            problems.append(_problem('hosts of the same service disagree on the multi-node mode (%s here): %s'
                                     % (mode, ', '.join(disagree)), 'vllm_service_multinode_mode',
                                     'give every host of vllm_head and vllm_workers the same '
                                     'vllm_service_multinode_mode'))
    return problems
