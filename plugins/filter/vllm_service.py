# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Filters of the vllm_service role; the logic is in plugins/module_utils/vllm_service.py.
Documentation: one ``<filter name>.yml`` file per filter next to this one."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.ascend.vllm.plugins.plugin_utils.module_utils_on_use import module_utils

pip_check = module_utils('pip_check')
pip_plan = module_utils('pip_plan')
vs = module_utils('vllm_service')


def _call(function, *args):
    try:
        return function(*args)
    except (vs.ServiceError, ValueError, TypeError) as exc:
        raise AnsibleFilterError('%s: %s' % (function.__name__, exc))


def vllm_merge_args(base, *layers):
    return _call(vs.merge_args, base, *layers)


def vllm_serve_argv(args):
    return _call(vs.serve_argv, args)


def vllm_chips_needed(args):
    return _call(vs.chips_needed, args)


def vllm_systemd_exec(argv):
    return _call(vs.systemd_exec, argv)


def vllm_numa_binding(plan, npus, online_nodes=None):
    return _call(vs.numa_binding, plan, npus, online_nodes)


def vllm_pip_check(result, expected):
    """A registered ``pip check`` result -> its verdict against the stack's expected conflicts."""
    if not isinstance(result, dict):
        raise AnsibleFilterError('vllm_pip_check: expected the registered result of pip check, got %r' % (result,))
    return _call(pip_check.verdict, result.get('stdout', ''), result.get('rc', 0), expected)


def vllm_pip_source_builds(report):
    """pip's installation report (parsed JSON) -> the packages it would build from source."""
    return _call(pip_plan.source_builds, report)


def vllm_binding_layer(stack, arch, numa_bind=True, additional_config=None):
    return _call(vs.binding_layer, stack, arch, numa_bind, additional_config)


def vllm_env_lines(env, reader='systemd'):
    return _call(vs.env_lines, env, reader)


def vllm_profile_serve(profile, family, release, common_env=None, multinode=False):
    return _call(vs.profile_serve, profile, family, release, common_env, bool(multinode))


def vllm_multinode_args(args, mode, role, multinode_profile=None, dp=None):
    return _call(vs.multinode_args, args, mode, role, multinode_profile, dp)


def vllm_env_file(text):
    return _call(vs.parse_env_file, text)


def vllm_unit_action(changed, active_state):
    return _call(vs.unit_action, bool(changed), active_state)


def vllm_requirement_names(requirements):
    return _call(vs.requirement_names, requirements)


def vllm_unit_drift(properties, unit, user):
    return _call(vs.unit_drift, unit, properties, user)


def vllm_rollback_plan(files, active_before, role='single', enabled=True):
    return _call(vs.rollback_plan, files, active_before, role, bool(enabled))


def vllm_container_plan(chips, visible, install_path='/usr/local/Ascend', model_dir=None, extra_mounts=None):
    return _call(vs.container_plan, chips, visible, install_path, model_dir, extra_mounts)


def vllm_file_drift(files):
    return _call(vs.service_file_drift, files)


def vllm_write_reasons(files, unit, enabled=True, repaired=False):
    # 'false' from -e or a survey is false, as the systemd module takes it.
    return _call(vs.write_reasons, files, unit, boolean(enabled, strict=False), boolean(repaired, strict=False))


def vllm_env_digests(text):
    return _call(vs.env_file_digests, text)


def vllm_requirement_problems(installed, requirements, where, what):
    return _call(vs.requirement_problems, installed, requirements, where, what)


def vllm_npu_problem(npu, profile, profile_chips, family, check_mode=False):
    return _call(vs.npu_problem, npu, profile, profile_chips, family, bool(check_mode))


def vllm_chip_fit_problem(need, devices, requested, count, mode, host):
    return _call(vs.chip_fit_problem, need, devices, requested, count, mode, host)


def vllm_ray_chips_problem(need, node_chips):
    return _call(vs.ray_chips_problem, need, node_chips)


def vllm_serving_address_problem(host, interface, address, interfaces, addresses, chosen_interface, chosen_address):
    return _call(vs.serving_address_problem, host, interface, address, interfaces, addresses, chosen_interface,
                 chosen_address)


def vllm_package_problems(installed, wanted, venv):
    return _call(vs.package_problems, installed, wanted, venv)


def vllm_unit_state_problems(properties, unit, enabled, where=''):
    return _call(vs.unit_state_problems, unit, properties, bool(enabled), where)


def vllm_container_argv(container, engine, shm_size, env_file, key_file=None):
    return _call(vs.container_argv, container, engine, shm_size, env_file, key_file or None)


def vllm_hub_download(source, repo, path, revision='', offline=False, cli='', endpoint='', token_set=False, token_file=''):
    return _call(vs.hub_download, source, repo, path, revision or '', bool(offline), cli, endpoint or '', bool(token_set),
                 token_file or '')


def vllm_settings_problems(settings):
    return _call(vs.settings_problems, settings)


def vllm_validation_digest(settings, stack=None, npu=None, numa=None, context=None):
    return _call(vs.validation_digest, settings, stack, npu, numa, context)


class FilterModule(object):
    def filters(self):
        return {
            'vllm_merge_args': vllm_merge_args,
            'vllm_file_drift': vllm_file_drift,
            'vllm_write_reasons': vllm_write_reasons,
            'vllm_hub_download': vllm_hub_download,
            'vllm_settings_problems': vllm_settings_problems,
            'vllm_validation_digest': vllm_validation_digest,
            'vllm_container_argv': vllm_container_argv,
            'vllm_package_problems': vllm_package_problems,
            'vllm_unit_state_problems': vllm_unit_state_problems,
            'vllm_npu_problem': vllm_npu_problem,
            'vllm_chip_fit_problem': vllm_chip_fit_problem,
            'vllm_ray_chips_problem': vllm_ray_chips_problem,
            'vllm_serving_address_problem': vllm_serving_address_problem,
            'vllm_requirement_problems': vllm_requirement_problems,
            'vllm_env_digests': vllm_env_digests,
            'vllm_serve_argv': vllm_serve_argv,
            'vllm_chips_needed': vllm_chips_needed,
            'vllm_systemd_exec': vllm_systemd_exec,
            'vllm_numa_binding': vllm_numa_binding,
            'vllm_env_file': vllm_env_file,
            'vllm_pip_check': vllm_pip_check,
            'vllm_pip_source_builds': vllm_pip_source_builds,
            'vllm_binding_layer': vllm_binding_layer,
            'vllm_profile_serve': vllm_profile_serve,
            'vllm_multinode_args': vllm_multinode_args,
            'vllm_env_lines': vllm_env_lines,
            'vllm_container_plan': vllm_container_plan,
            'vllm_unit_action': vllm_unit_action,
            'vllm_rollback_plan': vllm_rollback_plan,
            'vllm_unit_drift': vllm_unit_drift,
            'vllm_requirement_names': vllm_requirement_names,
        }
