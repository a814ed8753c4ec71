# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Filters of the ray_cluster role; the logic is in plugins/module_utils/ray_status.py and ray_start.py.
Documentation: one ``<filter name>.yml`` file per filter next to this one."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.plugin_utils.module_utils_on_use import module_utils

ray_start = module_utils('ray_start')
rs = module_utils('ray_status')


def _call(function, *args):
    try:
        return function(*args)
    except (rs.RayStatusError, ValueError, TypeError) as exc:
        raise AnsibleFilterError('%s: %s' % (function.__name__, exc))


def ray_status(text):
    return _call(rs.parse_status, text)


def ray_join_check(status, expected, resource='NPU'):
    return _call(rs.join_check, status, expected, resource)


def ray_start_argv(settings):
    if not isinstance(settings, dict):
        raise AnsibleFilterError('ray_start_argv: expected the settings as a mapping, got %r' % (settings,))
    return _call(ray_start.start_argv, settings)


class FilterModule(object):
    def filters(self):
        return {
            'ray_status': ray_status,
            'ray_join_check': ray_join_check,
            'ray_start_argv': ray_start_argv,
        }
