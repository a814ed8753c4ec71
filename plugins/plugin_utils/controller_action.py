# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The base of the collection's actions that are answered on the controller alone, and the
readers of the roles' own files (argument specs, defaults, vars) those actions judge a host by."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import yaml

from ansible.plugins.action import ActionBase

ROLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), 'roles')


def role_yaml(*parts):
    """A YAML file of the collection's roles (``role_yaml('vllm_service', 'vars', 'main.yml')``), {} when absent."""
    path = os.path.join(ROLES, *parts)
    if not os.path.isfile(path):
        return {}
    with open(path) as handle:
        return yaml.safe_load(handle) or {}


def role_options():
    """{variable: (role, its argument spec)} over every entry point of every role."""
    options = {}
    for role in sorted(os.listdir(ROLES)):
        specs = role_yaml(role, 'meta', 'argument_specs.yml').get('argument_specs') or {}
        for entry in specs.values():
            for name, option in ((entry or {}).get('options') or {}).items():
                options.setdefault(name, (role, option or {}))
    return options


def literal_defaults():
    """The roles' defaults that are plain values (no template): what a variable left unset is."""
    found = {}
    for role in sorted(os.listdir(ROLES)):
        for name, value in role_yaml(role, 'defaults', 'main.yml').items():
            if not (isinstance(value, str) and '{{' in value):
                found.setdefault(name, value)
    return found


class ControllerAction(ActionBase):
    """An action that never contacts the node: no connection, no files to transfer, check mode supported."""

    TRANSFERS_FILES = False
    _supports_check_mode = True
    _requires_connection = False
