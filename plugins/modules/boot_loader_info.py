#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: boot_loader_info
short_description: Read how the node's GRUB gets its kernel command line
version_added: "0.1.0"
description:
  - Reads what decides how a change of C(GRUB_CMDLINE_LINUX) in C(/etc/default/grub) reaches the
    next boot - the firmware (UEFI when C(/sys/firmware/efi) exists, else BIOS), the tools
    C(update-grub), C(grub2-mkconfig), C(grub-mkconfig) and C(grubby), the generated C(grub.cfg)
    files (C(/boot/grub), C(/boot/grub2) and each vendor directory of C(/boot/efi/EFI)) and whether
    each is a stub forwarding to another, and Boot Loader Specification entries.
  - With O(hugepages_1g), also returns the plan for that many 1 GiB pages of the whole host - the
    commands to run after the defaults file changed, or the reason there is none.
  - Reads only; changes nothing.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  hugepages_1g:
    description: 1 GiB pages of the whole host the kernel command line should ask for; 0 removes them.
    type: int
notes:
  - Supports check mode; it never changes anything.
seealso:
  - module: ascend.vllm.hugepages
'''

EXAMPLES = r'''
- name: Read the boot loader layout and plan 16 pages of 1 GiB
  ascend.vllm.boot_loader_info:
    hugepages_1g: 16
  register: boot

- name: Refuse before changing anything
  ansible.builtin.assert:
    that: boot.plan.problem | length == 0
    fail_msg: "{{ boot.plan.problem }}"
'''

RETURN = r'''
layout:
  description: What was read.
  returned: always
  type: dict
  contains:
    firmware:
      description: C(uefi) or C(bios).
      type: str
      sample: uefi
    tools:
      description: The boot loader tools found, name to path.
      type: dict
      sample: {grub2-mkconfig: /usr/sbin/grub2-mkconfig, grubby: /usr/sbin/grubby}
    configs:
      description: The C(grub.cfg) files found; C(stub) - it only hands over to another with C(configfile).
      type: list
      elements: dict
      sample: [{path: /boot/efi/EFI/openEuler/grub.cfg, stub: false, efi: true}]
    defaults_file:
      description: Whether C(/etc/default/grub) exists.
      type: bool
    bls:
      description: Whether boot entries are Boot Loader Specification files (C(GRUB_ENABLE_BLSCFG=true) and entries present).
      type: bool
    bls_options:
      description:
        - The C(options) line of each entry in C(/boot/loader/entries) - what grubby changes. The old C(hugepagesz=1G
          hugepages=N) pair is removed by its exact values; entries that also set another C(hugepagesz=) are refused,
          since grubby keeps one value per argument name.
      type: list
      elements: str
plan:
  description: With O(hugepages_1g) - the commands that carry the defaults file to the next boot, the grub.cfg written, or the problem.
  returned: when O(hugepages_1g) is set
  type: dict
  sample: {commands: [[/usr/sbin/grub2-mkconfig, -o, /boot/efi/EFI/openEuler/grub.cfg]],
           config: /boot/efi/EFI/openEuler/grub.cfg, problem: '', fix: ''}
'''

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ascend.vllm.plugins.module_utils.boot_loader import TOOLS, cmdline_plan, read_layout


def main():
    module = AnsibleModule(
        argument_spec=dict(hugepages_1g=dict(type='int')),
        supports_check_mode=True,
    )
    # sbin directories: the tools live there and a become user's PATH may not have them.
    tools = dict((name, module.get_bin_path(name, opt_dirs=['/usr/sbin', '/sbin'])) for name in TOOLS)
    layout = read_layout(tools)
    result = dict(changed=False, layout=layout)
    if module.params['hugepages_1g'] is not None:
        result['plan'] = cmdline_plan(layout, module.params['hugepages_1g'])
    module.exit_json(**result)


if __name__ == '__main__':
    main()
