# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Filters of the rolling_upgrade role; the logic is in plugins/module_utils/rollout_checks.py.
Documentation: one ``<filter name>.yml`` file per filter next to this one."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.module_utils import rollout_checks


def rolling_upgrade_problems(request):
    """Every reason a rollout cannot start (module_utils.rollout_checks.request_problems)."""
    if not isinstance(request, dict):
        raise AnsibleFilterError('rolling_upgrade_problems expects a mapping, got %s' % type(request).__name__)
    return rollout_checks.request_problems(request)


class FilterModule(object):
    """ascend.vllm rolling_upgrade filters."""

    def filters(self):
        return {'rolling_upgrade_problems': rolling_upgrade_problems}
