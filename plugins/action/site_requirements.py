# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""ascend.vllm.site_requirements on the controller: what the play's hosts need, from the inventory.

Reads each host's variables (templated; the roles' literal defaults where unset) and hands them to
module_utils/site_requirements, which decides. No node is contacted; the API key is never read.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleError

from ansible_collections.ascend.vllm.plugins.module_utils import site_requirements
from ansible_collections.ascend.vllm.plugins.plugin_utils.controller_action import (
    ControllerAction, literal_defaults, role_yaml)

_OPTIONS = ('generated',)


class ActionModule(ControllerAction):
    """Work out the site requirements report of the play's hosts."""

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        task_vars = task_vars or {}
        unknown = sorted(set(self._task.args) - set(_OPTIONS))
        if unknown:
            result.update(failed=True, msg='ascend.vllm.site_requirements: unknown options %s (it takes: %s)'
                          % (', '.join(unknown), ', '.join(_OPTIONS)))
            return result
        defaults = literal_defaults()
        vllm_vars = role_yaml('vllm_service', 'vars', 'main.yml')
        profiles = vllm_vars.get('__vllm_service_profiles') or {}
        packages = {}
        for family in site_requirements.OS_FAMILIES:
            packages[family] = (role_yaml('os_prerequisites', 'vars', family + '.yml').get('__os_prerequisites_os')
                                or {}).get('packages') or {}
        groups = task_vars.get('groups') or {}
        hostvars = task_vars.get('hostvars') or {}
        hosts = list(task_vars.get('ansible_play_hosts_all') or [])
        deferred = {}

        def reader(host):
            cache = {}

            def value(name):
                if name == '__role':
                    return ('head' if host in (groups.get('vllm_head') or [])
                            else 'worker' if host in (groups.get('vllm_workers') or []) else 'single')
                if name in cache:
                    return cache[name]
                got = None
                if name in hostvars[host]:
                    if 'api_key' in name or 'token' in name or 'password' in name:
                        got = None  # never read: no secret reaches the report
                    else:
                        try:
                            got = self._templar.template(hostvars[host][name])
                        except AnsibleError:
                            # It names a fact: only the host can say; the role default stands in.
                            deferred.setdefault(host, []).append(name)
                            got = defaults.get(name)
                else:
                    got = defaults.get(name)
                cache[name] = got
                return got
            return value

        data = site_requirements.report(hosts, dict((host, reader(host)) for host in hosts), profiles, packages,
                                        vllm_vars.get('__vllm_service_common_env') or {})
        data['deferred'] = deferred
        generated = self._task.args.get('generated') or ''
        result.update(changed=False, report=data, files=site_requirements.files(data, generated),
                      problems=data['problems'])
        return result
