# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Stack-matrix filters: resolve ascend_stack_release, and the checks preflight runs with it.

The logic lives in ``plugins/module_utils/stack.py``; these wrappers only turn its StackError
into AnsibleFilterError, so a bad stack fails the task with the resolver's own message.
Documentation: one ``<filter name>.yml`` file per filter next to this one.
"""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.plugin_utils.module_utils_on_use import module_utils

pip_plan_utils = module_utils('pip_plan')
stack_utils = module_utils('stack')

_COMPARISONS = {
    '<': lambda result: result < 0,
    'lt': lambda result: result < 0,
    '<=': lambda result: result <= 0,
    'le': lambda result: result <= 0,
    '==': lambda result: result == 0,
    '=': lambda result: result == 0,
    'eq': lambda result: result == 0,
    '!=': lambda result: result != 0,
    'ne': lambda result: result != 0,
    '>=': lambda result: result >= 0,
    'ge': lambda result: result >= 0,
    '>': lambda result: result > 0,
    'gt': lambda result: result > 0,
}


def _call(function, *args):
    try:
        return function(*args)
    except stack_utils.StackError as exc:
        raise AnsibleFilterError(str(exc))


def stack_resolve(release=None, overrides=None, allow_unlisted=False):
    """Resolve a release plus overrides into one stack (see module_utils.stack.resolve_stack)."""
    return _call(stack_utils.resolve_stack, release, overrides, allow_unlisted)


def stack_resolution(release=None, overrides=None, allow_unlisted=False):
    """{stack, error}: the resolved stack and '', or None and the resolver's message; never fails.

    For the one place that resolves the stack of a run (the node_facts role): preflight reports the
    message among its other findings, every other role refuses with it before changing anything.
    """
    try:
        return {'stack': stack_utils.resolve_stack(release, overrides, allow_unlisted), 'error': ''}
    except stack_utils.StackError as exc:
        return {'stack': None, 'error': str(exc)}


def stack_matrix(release=None):
    """The whole matrix (input None, '' or 'all'), or one release's row."""
    if release is None or (isinstance(release, str) and release.strip().lower() in ('', 'all')):
        return stack_utils.matrix_data()
    return _call(stack_utils.release_row, release)


def ascend_version_compare(left, right, operator=None):
    """-1/0/1 for two Ascend versions, or a boolean when an operator is given."""
    result = _call(stack_utils.compare_versions, left, right)
    if operator is None:
        return result
    if operator not in _COMPARISONS:
        raise AnsibleFilterError('ascend_version_compare: unknown operator %r; use one of: %s'
                                 % (operator, ', '.join(sorted(_COMPARISONS))))
    return _COMPARISONS[operator](result)


def stack_package_names(stack, chip, arch):
    """CANN package file names (toolkit, ops, nnal) of a stack for a chip family and arch."""
    return _call(stack_utils.package_names, stack, chip, arch)


def stack_hdk_packages(version, chip, arch, firmware=None):
    """HDK driver and firmware file names (see module_utils.stack.hdk_packages); never fails."""
    return stack_utils.hdk_packages(version, chip, arch, firmware)


def stack_chip_support(stack, chip):
    """{family, level, message} for running a stack on a chip."""
    level, message = _call(stack_utils.chip_support, stack, chip)
    return {'family': stack_utils.chip_family(chip), 'level': level, 'message': message}


def stack_python_ok(stack, version):
    """True when a Python version is inside the stack's range."""
    return _call(stack_utils.python_ok, stack, version)


def stack_pip_plan(stack, arch, family, index_url=None, extra_index_urls=None, wheelhouse=False, accept=None):
    """The pip steps of a resolved stack on one node (see module_utils.pip_plan.pip_plan)."""
    try:
        return pip_plan_utils.pip_plan(stack_utils._as_stack(stack), arch, family, index_url, extra_index_urls,
                                       bool(wheelhouse), accept)
    except (pip_plan_utils.PlanError, stack_utils.StackError) as exc:
        raise AnsibleFilterError('stack_pip_plan: %s' % exc)


class FilterModule(object):
    """ascend.vllm stack-matrix filters."""

    def filters(self):
        return {
            'stack_resolve': stack_resolve,
            'stack_resolution': stack_resolution,
            'stack_matrix': stack_matrix,
            'ascend_version_compare': ascend_version_compare,
            'stack_package_names': stack_package_names,
            'stack_hdk_packages': stack_hdk_packages,
            'stack_chip_support': stack_chip_support,
            'stack_python_ok': stack_python_ok,
            'stack_pip_plan': stack_pip_plan,
        }
