#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: inventory_variables
short_description: Check a host's variables against the stage roles, without the host
version_added: "0.1.0"
description:
  - Templates every variable the host's inventory or the play sets that a stage role's argument spec
    (C(roles/*/meta/argument_specs.yml)) knows, and checks it against that spec (type, choices, elements,
    sub-options), so a typo in a choice is refused before any host is contacted.
  - Runs the vllm_service role's settings check on the same values (the model profile, the model source and the
    setting it reads, the API key when one is required, the environment and restart settings), with the role's
    defaults for what is not set.
  - Collects the explicit NPU NIC addresses of every host of the play (C(hccn_addresses)), so one address planned
    twice is refused.
  - Collects the ports the enabled services listen on (the service, the data-parallel RPC port, Ray's ports and
    worker range, the exporters) for preflight's collision check.
  - A variable whose value names something only the host has (a fact) is left to the roles and listed in
    RV(deferred).
  - Runs on the controller (an action plugin); the node is not contacted. No value is returned, only problems and
    names.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options: {}
notes:
  - Supports check mode; it never changes anything.
  - Used by the preflight role's inventory layer (C(--tags inventory)).
'''

EXAMPLES = r'''
- name: Read the variables
  ascend.vllm.inventory_variables:
  register: variables

- name: Refuse what no host is needed for
  ansible.builtin.assert:
    that: variables.problems | length == 0
    fail_msg: "{{ variables.problems | map(attribute='what') | join('; ') }}"
'''

RETURN = r'''
checked:
  description: How many variables were checked against an argument spec.
  returned: success
  type: int
deferred:
  description: Variables whose value needs the host (they name a fact); the roles check them there.
  returned: success
  type: list
  elements: str
problems:
  description: One C({what, variable, fix}) for each value its argument spec refuses.
  returned: success
  type: list
  elements: dict
settings_problems:
  description: The vllm_service role's settings check, one message per refusal.
  returned: success
  type: list
  elements: str
profile:
  description: The model profile the service would serve.
  returned: success
  type: str
model:
  description:
    - What the model stage downloads - C(size_gb) (the profile's), C(path) (the model's directory on the node),
      C(downloads) (its source is http or a hub) and C(margin_gb) (C(vllm_service_model_free_margin_gb)).
  returned: success
  type: dict
firewall:
  description:
    - What the node's firewall lets in (os_prerequisites_firewall) - C(ports) (C({port, proto, variable}) that
      clients reach, from anywhere - the API port on the head or a single node, the exporters) and C(peers) (the
      addresses of the multi-node service's other nodes, from which every port is let in - vLLM's data-parallel
      ranks also bind ports they pick at start).
  returned: success
  type: dict
ports:
  description: C([variable, port]) for each port the enabled services listen on.
  returned: success
  type: list
  elements: list
port_ranges:
  description: C([first variable, last variable, first, last]) for Ray's worker ports in Ray mode.
  returned: success
  type: list
  elements: list
hccn_addresses:
  description: The explicit NPU NIC addresses (C(hccn_addresses)) of every host of the play that sets them.
  returned: success
  type: dict
'''

from ansible.module_utils.basic import AnsibleModule


def main():
    # Reached only when the action plugin is not used (it answers on the controller).
    module = AnsibleModule(argument_spec={}, supports_check_mode=True)
    module.fail_json(msg='ascend.vllm.inventory_variables runs on the controller (its action plugin)')


if __name__ == '__main__':
    main()
