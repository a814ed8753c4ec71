# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Filters of the cann role's validation: the chip family the packages are for, the problems of a request.

The logic lives in ``plugins/module_utils/cann_checks.py``. Documentation: one ``<filter name>.yml``
file per filter next to this one.
"""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.plugin_utils.module_utils_on_use import module_utils

cann_checks = module_utils('cann_checks')
stack_utils = module_utils('stack')


def cann_chip_choice(soc, pci_family=None, wanted=None):
    """{chip, read, families} for a node's SoC name and PCI family and the cann_chip asked for."""
    return cann_checks.chip_choice(soc, pci_family, wanted or '')


def cann_ops_kind(cann, stack_ok=True):
    """``kernels`` (CANN up to 8.3) or ``ops`` (from 8.5.0): the name of the chip operators package."""
    try:
        return cann_checks.ops_kind(cann, bool(stack_ok))
    except ValueError as exc:
        raise AnsibleFilterError('cann_ops_kind: %s' % exc)


def cann_python_requirements(cann):
    """The service virtualenv's Python requirements for CANN ``cann`` (cann_checks.python_requirements)."""
    try:
        return cann_checks.python_requirements(cann)
    except stack_utils.StackError as exc:
        raise AnsibleFilterError('cann_python_requirements: %s' % exc)


def cann_request_problems(request):
    """Every problem of a cann request (see module_utils.cann_checks.request_problems)."""
    if not isinstance(request, dict):
        raise AnsibleFilterError('cann_request_problems expects a mapping, got %s' % type(request).__name__)
    return cann_checks.request_problems(request)


def cann_verify_problems(state):
    """What is wrong with CANN after the work (module_utils.cann_checks.verify_problems)."""
    if not isinstance(state, dict):
        raise AnsibleFilterError('cann_verify_problems expects a mapping, got %s' % type(state).__name__)
    try:
        return cann_checks.verify_problems(state)
    except stack_utils.StackError as exc:
        raise AnsibleFilterError('cann_verify_problems: %s' % exc)


class FilterModule(object):
    """ascend.vllm cann validation filters."""

    def filters(self):
        return {
            'cann_chip_choice': cann_chip_choice,
            'cann_ops_kind': cann_ops_kind,
            'cann_python_requirements': cann_python_requirements,
            'cann_request_problems': cann_request_problems,
            'cann_verify_problems': cann_verify_problems,
        }
