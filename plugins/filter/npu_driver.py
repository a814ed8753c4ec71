# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Filters of the npu_driver role: the problems of a request, and of the NPUs after the work.

The logic lives in ``plugins/module_utils/npu_driver.py``. Documentation: one ``<filter name>.yml``
file per filter next to this one.
"""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.ascend.vllm.plugins.plugin_utils.module_utils_on_use import module_utils

checks = module_utils('npu_driver')
stack_utils = module_utils('stack')


def npu_driver_problems(request):
    """Every problem of an npu_driver request (see module_utils.npu_driver.request_problems)."""
    if not isinstance(request, dict) or not isinstance(request.get('hdk'), dict):
        raise AnsibleFilterError('npu_driver_problems expects a mapping with the hdk names (stack_hdk_packages)')
    try:
        return checks.request_problems(request)
    except stack_utils.StackError as exc:
        raise AnsibleFilterError('npu_driver_problems: %s' % exc)


def npu_driver_verify_problems(state):
    """What is wrong with the NPUs after the work (see module_utils.npu_driver.verify_problems)."""
    if not isinstance(state, dict) or not isinstance(state.get('npu'), dict):
        raise AnsibleFilterError('npu_driver_verify_problems expects a mapping with the npu facts (npu_facts)')
    try:
        return checks.verify_problems(state)
    except stack_utils.StackError as exc:
        raise AnsibleFilterError('npu_driver_verify_problems: %s' % exc)


def npu_driver_reboot_reasons(installed, running, fw_installed, fw_running, fw_flashed=False):
    """Why the NPUs do not run what is installed (see module_utils.npu_driver.reboot_reasons)."""
    try:
        return checks.reboot_reasons(installed or '', running or '', fw_installed or '', fw_running, bool(fw_flashed))
    except stack_utils.StackError as exc:
        raise AnsibleFilterError('npu_driver_reboot_reasons: %s' % exc)


def npu_driver_reboot_action(reasons, reboot_ok, connection, host, check_mode):
    """reboot, report or none (module_utils.npu_driver.reboot_action)."""
    if not isinstance(reasons, (list, tuple)):
        raise AnsibleFilterError('npu_driver_reboot_action expects the list of reasons, got %s' % type(reasons).__name__)
    try:
        return checks.reboot_action(list(reasons), boolean(reboot_ok), str(connection or ''), str(host),
                                    boolean(check_mode))
    except TypeError as exc:
        raise AnsibleFilterError('npu_driver_reboot_action: %s' % exc)


def npu_driver_reboot_notice(reasons, host, check_mode, reboot_ok, on_required):
    """What the play says about a reboot it did not do (module_utils.npu_driver.reboot_notice)."""
    try:
        return checks.reboot_notice(str(host), [str(r) for r in reasons], boolean(check_mode), boolean(reboot_ok),
                                    on_required)
    except (TypeError, ValueError) as exc:
        raise AnsibleFilterError('npu_driver_reboot_notice: %s' % exc)


class FilterModule(object):
    """ascend.vllm npu_driver filters."""

    def filters(self):
        return {'npu_driver_problems': npu_driver_problems, 'npu_driver_reboot_action': npu_driver_reboot_action,
                'npu_driver_reboot_notice': npu_driver_reboot_notice,
                'npu_driver_reboot_reasons': npu_driver_reboot_reasons, 'npu_driver_verify_problems': npu_driver_verify_problems}
