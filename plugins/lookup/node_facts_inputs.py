# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The node_facts role's inputs and whether it must run; the rule is plugins/module_utils/node_facts.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: node_facts_inputs
author:
  - ascend.vllm maintainers (@ascend-vllm)
version_added: 0.1.0
short_description: The node_facts role's inputs, and whether this run must resolve the stack or read the node again
description:
  - Takes, from the variables of the task it is templated in, what the node_facts role resolves the stack from
    (C(ascend_stack_release), C(ascend_stack_overrides), C(ascend_stack_allow_unlisted)) and reads the node with
    (C(ascend_install_path), C(node_facts_sysfs_root); the role's defaults when unset), and compares them with the
    inputs of the last resolution and read of this run that the role recorded.
  - The stage roles include node_facts only when its C(needed) is true, so a role whose facts are current costs one skipped
    task instead of the role's argument validation and its skipped include; node_facts decides with the same values.
  - Reads nothing on the node and changes nothing.
options: {}
"""

EXAMPLES = r"""
- name: The stack and the node's facts of this run (again only when their inputs changed)
  ansible.builtin.include_role:
    name: ascend.vllm.node_facts
  when: lookup('ascend.vllm.node_facts_inputs').needed
"""

RETURN = r"""
_raw:
  description:
    - One dict - C(stack) (C(release), C(overrides), C(allow_unlisted)) and C(hardware) (C(install_path),
      C(sysfs_root)), the inputs as the role records them; C(stack_stale), true when a stack input differs from the
      last resolution of this run; C(hardware_stale), true when C(node_facts_refresh) asks for a read or a hardware
      input differs from the last read; C(stale), either; C(needed), C(stale) or the last resolution or read left
      C(ascend_stack_error) or C(ascend_node_facts_error).
  type: list
  elements: dict
"""

from ansible_collections.ascend.vllm.plugins.module_utils import node_facts
from ansible_collections.ascend.vllm.plugins.plugin_utils.role_inputs import RoleInputsLookup


class LookupModule(RoleInputsLookup):
    def decide(self, get, variables):
        return node_facts.inputs(get)
