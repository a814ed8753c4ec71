# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Filters of the bundle role; the logic is in plugins/module_utils/bundle.py.
Documentation: one ``<filter name>.yml`` file per filter next to this one."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.plugin_utils.module_utils_on_use import module_utils

bundle = module_utils('bundle')
stack_utils = module_utils('stack')


def _request(request, name):
    if not isinstance(request, dict):
        raise AnsibleFilterError('%s expects a mapping, got %s' % (name, type(request).__name__))
    return request


def bundle_problems(request):
    """Every reason the bundle cannot be built as asked (module_utils.bundle.problems)."""
    return bundle.problems(_request(request, 'bundle_problems'))


def bundle_plan(request):
    """What the bundle holds and where it comes from (module_utils.bundle.plan)."""
    try:
        return bundle.plan(_request(request, 'bundle_plan'))
    except (bundle.BundleError, stack_utils.StackError) as exc:
        raise AnsibleFilterError('bundle_plan: %s' % exc)


def bundle_vendor_sums(names, sums):
    """SHA256SUMS text of the bundled vendor packages (module_utils.bundle.vendor_sums)."""
    try:
        return bundle.vendor_sums(list(names or []), dict(sums or {}))
    except bundle.BundleError as exc:
        raise AnsibleFilterError('bundle_vendor_sums: %s' % exc)


def bundle_marker_notes(interpreter, arches, pythons):
    """Warnings for targets unlike the downloading Python (module_utils.bundle.marker_notes);
    ``interpreter``: ``{machine, python}``."""
    if not isinstance(interpreter, dict):
        raise AnsibleFilterError('bundle_marker_notes expects {machine, python}, got %s' % type(interpreter).__name__)
    return bundle.marker_notes(list(arches or []), list(pythons or []), interpreter.get('machine'), interpreter.get('python'))


def bundle_pip_failures(results):
    """What failed in the wheel downloads (module_utils.bundle.pip_failures)."""
    return bundle.pip_failures([item for item in results or [] if isinstance(item, dict)])


class FilterModule(object):
    """ascend.vllm bundle filters."""

    def filters(self):
        return {'bundle_problems': bundle_problems, 'bundle_plan': bundle_plan,
                'bundle_vendor_sums': bundle_vendor_sums, 'bundle_marker_notes': bundle_marker_notes,
                'bundle_pip_failures': bundle_pip_failures}
