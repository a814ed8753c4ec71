# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The os_prerequisites role's inputs and whether it must run; the rule is plugins/module_utils/os_prerequisites.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: os_prerequisites_inputs
author:
  - ascend.vllm maintainers (@ascend-vllm)
version_added: 0.1.0
short_description: The os_prerequisites role's inputs, and whether an earlier run of this play run covers them
description:
  - Takes, from the variables of the task it is templated in, what the os_prerequisites role plans from
    (C(os_prerequisites_stages), C(os_prerequisites_packages), C(os_prerequisites_extra) and the running kernel of the
    facts) and compares them with the runs of the role in this play run that left nothing missing.
  - The stage roles include os_prerequisites for their own stage only when its C(needed) is true, so after site.yml's
    os_prerequisites stage made sure of their packages that costs one skipped task instead of the role's argument
    validation and its skipped include; the role decides with the same values.
  - A caller may leave C(os_prerequisites_extra) unset only for stages without C(monitoring) (the role's default is
    then empty); otherwise C(needed) is true and the role decides.
  - Reads nothing on the node and changes nothing.
options: {}
"""

EXAMPLES = r"""
- name: OS packages of a venv install (unless this play run made sure of them already)
  ansible.builtin.include_role:
    name: ascend.vllm.os_prerequisites
  vars:
    os_prerequisites_stages: [serving_venv]
  when: lookup('ascend.vllm.os_prerequisites_inputs').needed
"""

RETURN = r"""
_raw:
  description:
    - One dict - C(wanted) (C(stages), C(packages), C(extra), C(python), C(kernel)), the inputs as the role records them after a
      run that left nothing missing; C(needed), true when C(os_prerequisites_refresh) asks for a run, an input is not
      known, or no earlier run of this play run had the same package names and kernel and at least these stages and
      extra packages.
  type: list
  elements: dict
"""

from ansible_collections.ascend.vllm.plugins.module_utils import os_prerequisites
from ansible_collections.ascend.vllm.plugins.plugin_utils.role_inputs import RoleInputsLookup


class LookupModule(RoleInputsLookup):
    def decide(self, get, variables):
        # The running kernel names driver_build's header packages.
        return os_prerequisites.run_inputs(get, (variables.get('ansible_facts') or {}).get('kernel', ''))
