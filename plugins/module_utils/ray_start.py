# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The ``ray start`` command line of a node of the vLLM Ray cluster.

Options are Ray's own (``ray start --help``, ray-project/ray python/ray/scripts/scripts.py at the
pinned Ray): ``--block`` keeps the process in the foreground for systemd; fixed ports so a
firewall can be opened for them; ``--num-gpus=0`` and the NPUs as a custom resource, since Ray
counts no Ascend device by itself; a resource per host (``ascend_host:<name>``), by which
ray_status finds each node in ``ray status``; ``--temp-dir`` below the role's directory.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.ascend.vllm.plugins.module_utils.ray_status import HOST_RESOURCE_PREFIX

_REQUIRED = ('venv_dir', 'address', 'host', 'npus', 'node_manager_port', 'object_manager_port', 'min_worker_port',
             'max_worker_port', 'temp_dir')


def start_argv(settings):
    """argv of ``ray start`` from ``settings``:

    ``venv_dir``, ``address`` (this node's serving address), ``host`` (inventory name), ``npus``,
    the ports (``node_manager_port``, ``object_manager_port``, ``min_worker_port``,
    ``max_worker_port``), ``temp_dir``, optional ``resources`` (extra custom resources),
    ``num_cpus``, ``object_store_memory``, ``extra_args``; ``head`` (bool) with ``port``,
    ``dashboard`` and ``dashboard_port`` for the head, ``head_address`` (host:port) for a worker.
    """
    missing = [key for key in _REQUIRED if settings.get(key) in (None, '')]
    if missing:
        raise ValueError('ray start needs %s' % ', '.join(missing))
    resources = {'NPU': int(settings['npus']), HOST_RESOURCE_PREFIX + str(settings['host']): 1}
    resources.update(settings.get('resources') or {})
    if settings.get('head'):
        part = ['--head', '--port=%s' % settings['port'],
                '--include-dashboard=%s' % str(bool(settings.get('dashboard'))).lower()]
        if settings.get('dashboard'):
            part += ['--dashboard-host=%s' % settings['address'], '--dashboard-port=%s' % settings['dashboard_port']]
    else:
        if not settings.get('head_address'):
            raise ValueError('a worker needs head_address (ray_cluster_address)')
        part = ['--address=%s' % settings['head_address']]
    common = ['--block', '--node-ip-address=%s' % settings['address'],
              '--node-manager-port=%s' % settings['node_manager_port'],
              '--object-manager-port=%s' % settings['object_manager_port'],
              '--min-worker-port=%s' % settings['min_worker_port'],
              '--max-worker-port=%s' % settings['max_worker_port'],
              '--num-gpus=0', '--resources=%s' % json.dumps(resources, sort_keys=True),
              '--temp-dir=%s/tmp' % settings['temp_dir'], '--disable-usage-stats']
    # Unset is None (ansible-core 2.19 templating) or '' (earlier releases render none so).
    if settings.get('num_cpus') not in (None, ''):
        common.append('--num-cpus=%s' % settings['num_cpus'])
    if settings.get('object_store_memory') not in (None, ''):
        common.append('--object-store-memory=%s' % settings['object_store_memory'])
    return ['%s/bin/ray' % settings['venv_dir'], 'start'] + part + common + list(settings.get('extra_args') or [])
