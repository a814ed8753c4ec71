#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: hccn_config
short_description: Set the RoCE NIC address, netmask, gateway and detect address of NPU devices
version_added: "0.1.0"
description:
  - Reads the current settings of every listed NPU device with C(hccn_tool -i N -ip -g),
    C(-gateway -g) and C(-netdetect -g), then sets only what differs with
    C(hccn_tool -i N -ip -s address A netmask M), C(-gateway -s gateway G) and
    C(-netdetect -s address D). hccn_tool itself persists the values in C(/etc/hccn.conf)
    (C(address_N=), C(netmask_N=), C(gateway_N=), C(netdetect_N=)), which the driver restores
    at start.
  - After a change every setting is read back; a value the tool did not take is a failure.
  - Supports check mode (reads, plans, changes nothing) and diff mode.
  - A gateway or detect address that is not requested is left as it is (hccn_tool cannot clear one).
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  devices:
    description: The wanted settings, one entry per NPU device.
    type: list
    elements: dict
    required: true
    suboptions:
      device:
        description:
          - Device id, as C(hccn_tool -i) takes it - the physical id (C(Phy-ID) of npu-smi), which the logic id
            stands in for where npu-smi prints none.
        type: int
        required: true
      address:
        description: IPv4 address of the device's RoCE NIC.
        type: str
        required: true
      netmask:
        description: Its netmask in dotted form.
        type: str
        required: true
      gateway:
        description: Default gateway of the NIC (inside the address's segment); unset leaves it alone.
        type: str
      netdetect:
        description: Address the firmware probes for the net health state; unset leaves it alone.
        type: str
  tool_path:
    description:
      - Path of hccn_tool. When unset, it is looked up in E(PATH), then
        C(<install_path>/driver/tools) where the NPU driver package installs it.
    type: path
  install_path:
    description: Ascend install prefix.
    type: path
    default: /usr/local/Ascend
notes:
  - Products without RoCE NICs (Atlas 300I Duo) answer "The command is not supported on this
    product."; the module fails with that answer and the command.
seealso:
  - module: ascend.vllm.hccn_check
'''

EXAMPLES = r'''
- name: Address the NPU NICs planned for this node
  ascend.vllm.hccn_config:
    devices: "{{ hccn_fleet.plan[inventory_hostname] }}"
  check_mode: true
  register: hccn_would_change

- name: One device, with a gateway and detect address
  ascend.vllm.hccn_config:
    devices:
      - device: 0
        address: 10.20.0.1
        netmask: 255.255.0.0
        gateway: 10.20.255.254
        netdetect: 10.20.255.254
'''

RETURN = r'''
tool:
  description: The hccn_tool that ran.
  returned: always
  type: str
  sample: /usr/local/Ascend/driver/tools/hccn_tool
devices:
  description: One entry per requested device, in the order given.
  returned: always
  type: list
  elements: dict
  contains:
    device:
      description: Device id.
      type: int
    changed:
      description: Whether a setting of this device was (or in check mode would be) changed.
      type: bool
    changed_keys:
      description: The settings that differed (C(address), C(netmask), C(gateway), C(netdetect)).
      type: list
      elements: str
    commands:
      description: The setter command lines run (or, in check mode, that would run).
      type: list
      elements: str
    before:
      description: C(address), C(netmask), C(gateway), C(netdetect) as read before (null where unset).
      type: dict
    after:
      description: The same, read back after the change (planned values in check mode).
      type: dict
'''

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ascend.vllm.plugins.module_utils.command import module_runner
from ansible_collections.ascend.vllm.plugins.module_utils.hccn import SETTINGS, HccnError, configure, locate_tool


def main():
    module = AnsibleModule(
        argument_spec=dict(
            devices=dict(type='list', elements='dict', required=True, options=dict(
                device=dict(type='int', required=True),
                address=dict(type='str', required=True),
                netmask=dict(type='str', required=True),
                gateway=dict(type='str'),
                netdetect=dict(type='str'),
            )),
            tool_path=dict(type='path'),
            install_path=dict(type='path', default='/usr/local/Ascend'),
        ),
        supports_check_mode=True,
    )
    tool, error = locate_tool(module.params['tool_path'], module.params['install_path'], os.environ.get('PATH', ''))
    if error:
        module.fail_json(msg=error)
    try:
        results = configure(module_runner(module), tool, module.params['devices'], module.check_mode)
    except HccnError as exc:
        module.fail_json(msg=str(exc), tool=tool)
    changed = any(item['changed'] for item in results)
    result = dict(changed=changed, tool=tool, devices=results)
    if module._diff:
        def render(key):
            return ''.join('%s_%s=%s\n' % (name, item['device'], item[key][name])
                           for item in results for name in SETTINGS if item[key].get(name))
        result['diff'] = dict(before_header='hccn settings', after_header='hccn settings',
                              before=render('before'), after=render('after'))
    module.exit_json(**result)


if __name__ == '__main__':
    main()
