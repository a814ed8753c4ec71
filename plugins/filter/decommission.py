# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Filters of the decommission role; the logic is in plugins/module_utils/decommission.py.
Documentation: one ``<filter name>.yml`` file per filter next to this one."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

import base64

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.plugin_utils.module_utils_on_use import module_utils

decommission = module_utils('decommission')


def decommission_problems(request):
    """Every reason the decommission cannot start (module_utils.decommission.request_problems)."""
    if not isinstance(request, dict):
        raise AnsibleFilterError('decommission_problems expects a mapping, got %s' % type(request).__name__)
    return decommission.request_problems(request)


def _unit(item):
    """``{path, content}`` from a slurp result (source, base64 content) or as given."""
    if item.get('encoding') == 'base64':
        return {'path': item['source'], 'content': base64.b64decode(item['content']).decode('utf-8', 'replace')}
    return {'path': item['path'], 'content': item.get('content') or ''}


def decommission_plan(units, settings):
    """What goes, in the order it goes (module_utils.decommission.plan). ``units``: slurp results
    of the unit files, or ``{path, content}``."""
    if not isinstance(settings, dict):
        raise AnsibleFilterError('decommission_plan expects the settings as a mapping, got %s' % type(settings).__name__)
    try:
        return decommission.plan([_unit(item) for item in units or []], settings)
    except (KeyError, TypeError, AttributeError) as exc:
        raise AnsibleFilterError('decommission_plan expects slurp results or [{path, content}] units: %s' % exc)


def decommission_report(plan, packages):
    """What went: the plan's sentences and the packages uninstalled (module_utils.decommission.report_lines)."""
    if not isinstance(plan, dict):
        raise AnsibleFilterError('decommission_report expects the plan as a mapping, got %s' % type(plan).__name__)
    return decommission.report_lines(plan, [item for item in packages or [] if isinstance(item, dict)])


class FilterModule(object):
    """ascend.vllm decommission filters."""

    def filters(self):
        return {'decommission_plan': decommission_plan, 'decommission_problems': decommission_problems,
                'decommission_report': decommission_report}
