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

import os

import yaml

from ansible.errors import AnsibleError
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.ascend.vllm.plugins.module_utils import preflight_checks
from ansible_collections.ascend.vllm.plugins.module_utils import vllm_service
from ansible_collections.ascend.vllm.plugins.plugin_utils.controller_action import ControllerAction

_ROLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), 'roles')

# vllm_service's settings check reads these (module_utils/vllm_service.settings_problems); the
# port and parallel sizes are preflight's own service_port / parallel_sizes checks.
_SETTINGS = ('instance', 'model_name', 'model_repo', 'restart_sec', 'start_limit_burst', 'start_limit_interval',
             'model_profile', 'require_api_key', 'api_key', 'env', 'model_source', 'model_controller_dir',
             'model_url', 'download_parallel', 'download_timeout', 'download_poll', 'model_offline',
             'modelscope_domain')
# The ports each mode or feature opens on a node, and Ray's worker port range.
_PORTS = {
    'always': ('vllm_service_port',),
    'dp': ('vllm_service_multinode_rpc_port',),
    'ray': ('ray_cluster_port', 'ray_cluster_node_manager_port', 'ray_cluster_object_manager_port',
            'ray_cluster_dashboard_port'),
    'monitoring': ('monitoring_npu_exporter_port', 'monitoring_node_exporter_port'),
}
_RAY_RANGE = ('ray_cluster_min_worker_port', 'ray_cluster_max_worker_port')


def _yaml(*parts):
    path = os.path.join(_ROLES, *parts)
    if not os.path.isfile(path):
        return {}
    with open(path) as handle:
        return yaml.safe_load(handle) or {}


def role_options():
    """{variable: (role, its argument spec)} over every entry point of every role."""
    options = {}
    for role in sorted(os.listdir(_ROLES)):
        specs = _yaml(role, 'meta', 'argument_specs.yml').get('argument_specs') or {}
        for entry in specs.values():
            for name, option in ((entry or {}).get('options') or {}).items():
                options.setdefault(name, (role, option or {}))
    return options


def literal_defaults():
    """The roles' defaults that are plain values (no template): what a variable left unset is."""
    found = {}
    for role in sorted(os.listdir(_ROLES)):
        for name, value in _yaml(role, 'defaults', 'main.yml').items():
            if not (isinstance(value, str) and '{{' in value):
                found.setdefault(name, value)
    return found


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

        profiles = _yaml('vllm_service', 'vars', 'main.yml').get('__vllm_service_profiles') or {}
        settings = dict((key, value('vllm_service_' + key)) for key in _SETTINGS)
        # Whether a required key is set is preflight's api_key check: not said twice.
        settings['require_api_key'] = False
        settings['profiles'] = sorted(profiles)
        settings['profile_repo'] = (profiles.get(settings['model_profile']) or {}).get('repo', '')
        mode = value('vllm_service_multinode_mode') or 'none'
        groups = ['always'] + ([mode] if mode in _PORTS else [])
        if boolean(value('monitoring_enabled') or False, strict=False):
            groups.append('monitoring')
        ports = [[name, value(name)] for group in groups for name in _PORTS[group] if value(name) is not None]
        ranges = [list(_RAY_RANGE) + [value(_RAY_RANGE[0]), value(_RAY_RANGE[1])]] if mode == 'ray' else []
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
            ports=ports,
            port_ranges=ranges,
            hccn_addresses=addresses,
        )
        return result
