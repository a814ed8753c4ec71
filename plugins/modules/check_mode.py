#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: check_mode
short_description: Tell whether the task runs in check mode
version_added: "0.1.0"
description:
  - Returns C(check_mode), true when the task runs in check mode - from C(--check), or from C(check_mode) set on
    the play, block, role or task. C(ansible_check_mode) reflects C(--check) only.
  - Runs on the controller (an action plugin); the node is not contacted.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options: {}
notes:
  - Supports check mode; it never changes anything.
'''

EXAMPLES = r'''
- name: Tell whether this run is in check mode
  ascend.vllm.check_mode:
  register: check

- name: Plan only
  ansible.builtin.debug:
    msg: nothing will be installed
  when: check.check_mode
'''

RETURN = r'''
check_mode:
  description: Whether the task runs in check mode.
  returned: always
  type: bool
  sample: false
'''

from ansible.module_utils.basic import AnsibleModule


def main():
    # Reached only when the action plugin is not used (it answers on the controller).
    module = AnsibleModule(argument_spec={}, supports_check_mode=True)
    module.exit_json(changed=False, check_mode=module.check_mode)


if __name__ == '__main__':
    main()
