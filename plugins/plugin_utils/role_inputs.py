# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The base of the lookups that take a role's inputs from the variables of the task they are
templated in (ascend.vllm.node_facts_inputs, ascend.vllm.os_prerequisites_inputs)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.plugins.lookup import LookupBase


class RoleInputsLookup(LookupBase):
    """Answers ``decide(get, variables)``: ``get(name, default)`` is the task's value of a variable,
    templated (a role default is itself a template), or ``default`` when the task has none."""

    def decide(self, get, variables):
        raise NotImplementedError

    def run(self, terms, variables=None, **kwargs):
        variables = variables or {}

        def get(name, default):
            if name not in variables:
                return default
            return self._templar.template(variables[name])

        return [self.decide(get, variables)]
