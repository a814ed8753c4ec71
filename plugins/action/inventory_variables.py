# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""ascend.vllm.inventory_variables on the controller: the host's variables against the stage roles.

Every variable the host's inventory (or the play) sets that a stage role's argument spec knows is
templated here and checked against that spec; vllm_service's settings check runs on the same
values; the ports the enabled services listen on are collected for a collision check. The
decisions are in module_utils (preflight_checks, vllm_service); this gathers. No node is contacted,
and no value leaves: only problems, names and ports are returned.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleError

from ansible_collections.ascend.vllm.plugins.module_utils import preflight_checks
from ansible_collections.ascend.vllm.plugins.module_utils import site_requirements
from ansible_collections.ascend.vllm.plugins.module_utils import vllm_service
from ansible_collections.ascend.vllm.plugins.plugin_utils.controller_action import (
    ControllerAction, literal_defaults, role_options, role_yaml)

# vllm_service's settings check reads these (module_utils/vllm_service.settings_problems); the
# port and parallel sizes are preflight's own service_port / parallel_sizes checks.
_SETTINGS = ('instance', 'model_name', 'model_repo', 'restart_sec', 'start_limit_burst', 'start_limit_interval',
             'model_profile', 'require_api_key', 'api_key', 'env', 'model_source', 'model_controller_dir',
             'model_url', 'download_parallel', 'download_timeout', 'download_poll', 'model_offline',
             'modelscope_domain')


class ActionModule(ControllerAction):
    """Read the host's variables on the controller and judge them without the node."""

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        task_vars = task_vars or {}
        if self._task.args:
            result.update(failed=True, msg='ascend.vllm.inventory_variables takes no options, got: %s'
                          % ', '.join(sorted(self._task.args)))
            return result
        options = role_options()
        values, deferred = {}, []
        for name in sorted(options):
            if name in task_vars:
                try:
                    values[name] = self._templar.template(task_vars[name])
                except AnsibleError:
                    # It names a fact or another value only the host has: the role checks it there.
                    deferred.append(name)
        defaults = literal_defaults()

        def value(name):
            return values[name] if name in values else defaults.get(name)

        profiles = role_yaml('vllm_service', 'vars', 'main.yml').get('__vllm_service_profiles') or {}
        settings = dict((key, value('vllm_service_' + key)) for key in _SETTINGS)
        # Whether a required key is set is preflight's api_key check: not said twice.
        settings['require_api_key'] = False
        settings['profiles'] = sorted(profiles)
        settings['profile_repo'] = (profiles.get(settings['model_profile']) or {}).get('repo', '')
        profile = profiles.get(settings['model_profile']) or {}
        source = settings['model_source'] or profile.get('source') or 'huggingface'
        # What the model stage will download, for preflight's free-space check of the model directory.
        model = {
            'size_gb': profile.get('size_gb'),
            'path': '%s/%s' % (value('vllm_service_model_dir') or '', settings['model_name'] or profile.get('model_name') or ''),
            'downloads': source in ('http', 'huggingface', 'modelscope'),
            'margin_gb': value('vllm_service_model_free_margin_gb') or 0,
        }
        mode = value('vllm_service_multinode_mode') or 'none'
        ports, ranges = site_requirements.service_ports(value, mode, value('monitoring_enabled'))
        # The firewall's openings (os_prerequisites_firewall): the ports clients reach, and the
        # service's other nodes by their serving address (or inventory address).
        groups = task_vars.get('groups') or {}
        cluster = list(groups.get('vllm_head') or []) + list(groups.get('vllm_workers') or [])
        me = task_vars.get('inventory_hostname')
        role = ('single' if mode == 'none' or me not in cluster
                else 'head' if me in (groups.get('vllm_head') or []) else 'worker')
        peers = []
        for host in cluster:
            if host == me or host not in (task_vars.get('hostvars') or {}):
                continue
            found = host
            for name in ('ansible_host', 'vllm_service_multinode_address'):
                try:
                    found = self._templar.template(task_vars['hostvars'][host].get(name)) or found
                except AnsibleError:
                    pass  # names a fact of that node (its default route): its inventory address stands
            peers.append(found)
        firewall = site_requirements.firewall_plan(role, mode, ports, peers)
        # Explicit NPU NIC addresses of every host of the play: one address planned twice is refused.
        addresses = {}
        hostvars = task_vars.get('hostvars') or {}
        for host in task_vars.get('ansible_play_hosts_all') or []:
            try:
                planned = self._templar.template(hostvars[host].get('hccn_addresses'))
            except AnsibleError:
                continue
            if planned:
                addresses[host] = list(planned)
        result.update(
            changed=False,
            checked=len(values),
            deferred=deferred,
            problems=preflight_checks.spec_problems(options, values),
            settings_problems=vllm_service.settings_problems(settings),
            profile=settings['model_profile'],
            model=model,
            firewall=firewall,
            ports=ports,
            port_ranges=ranges,
            hccn_addresses=addresses,
        )
        return result
