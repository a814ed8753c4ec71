# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Filters of the cann role: the variables the CANN set_env.sh scripts set, as an EnvironmentFile.

The logic lives in ``plugins/module_utils/cann_env.py``; these wrappers turn its errors into
AnsibleFilterError. Documentation: one ``<filter name>.yml`` file per filter next to this one.
"""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.plugin_utils.module_utils_on_use import module_utils

cann_env = module_utils('cann_env')


def _call(function, *args):
    try:
        return function(*args)
    except cann_env.CannEnvError as exc:
        raise AnsibleFilterError(str(exc))


def cann_env_file(variables, header=None):
    """An EnvironmentFile (sorted NAME=value lines) of ``variables``."""
    return _call(cann_env.env_file_lines, variables, header)


class FilterModule(object):

    def filters(self):
        return {
            'cann_env_file': cann_env_file,
        }
