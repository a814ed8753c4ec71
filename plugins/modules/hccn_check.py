#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: hccn_check
short_description: Check the RoCE NICs of NPU devices - address, link, net health and peer pings
version_added: "0.1.0"
description:
  - For every listed NPU device reads C(hccn_tool -i N -ip -g), C(-link -g), C(-net_health -g) and
    C(-tls -g) (the TLS switch, which must be equal across the nodes, see P(ascend.vllm.hccn_fleet_problems#filter)),
    then pings every peer address from that device with
    C(hccn_tool -i N -ping -g address PEER pkt COUNT) - the whole ping matrix of the node in one
    module call.
  - Reads the node's clock from its time daemon, C(chronyc -c tracking) or, for a running systemd-timesyncd,
    C(timedatectl timesync-status), so that the clocks of the nodes can be compared (RV(clock)).
  - Read-only. Does not fail on a bad result - RV(failures) lists them, naming node, device and
    peer, so that the caller can print a report of every node before failing.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  devices:
    description: The devices to check, with the address they should have.
    type: list
    elements: dict
    required: true
    suboptions:
      device:
        description: Device id, as C(hccn_tool -i) takes it.
        type: int
        required: true
      address:
        description: The planned address; a different one is reported.
        type: str
      netmask:
        description: The planned netmask; a different one is reported.
        type: str
      gateway:
        description: The planned gateway; a different one is reported.
        type: str
      netdetect:
        description: The planned detect address; a different one is reported.
        type: str
  peers:
    description: The NPU addresses of the other nodes, each pinged from every device.
    type: list
    elements: dict
    default: []
    suboptions:
      node:
        description: The peer's node name (for the report).
        type: str
        required: true
      device:
        description: The peer's device id (for the report).
        type: int
        required: true
      address:
        description: The address pinged.
        type: str
        required: true
  ping_count:
    description: Packets per ping (C(pkt) of hccn_tool); a ping passes when one reply comes back.
    type: int
    default: 3
  ping_retries:
    description:
      - Pings sent again to a peer that did not answer (the first packets to a peer can be lost
        while its address is resolved on the fabric).
    type: int
    default: 1
  node:
    description: Name of this node in RV(failures); the host name when unset.
    type: str
  tool_path:
    description:
      - Path of hccn_tool. When unset, it is looked up in E(PATH), then C(<install_path>/driver/tools).
    type: path
  install_path:
    description: Ascend install prefix.
    type: path
    default: /usr/local/Ascend
  clock_wait:
    description:
      - Seconds to wait for a time daemon that runs but has not synchronised the clock yet (right after a
        reboot), asking again every 5 seconds. C(0) reads once.
    type: int
    default: 60
  conf_path:
    description:
      - The file HCCL reads the device addresses from (hccn_tool writes it with every setting). Each device's
        C(address_N) there must be the address the device has; a stale entry leaves that NPU unreachable
        (vllm-project/vllm-ascend PR 16847), a missing file fails multi-node HCCL.
    type: path
    default: /etc/hccn.conf
seealso:
  - module: ascend.vllm.hccn_config
'''

EXAMPLES = r'''
- name: Check the NPU network of this node against its peers
  ascend.vllm.hccn_check:
    node: "{{ inventory_hostname }}"
    devices:
      - {device: 0, address: 10.20.0.1}
    peers:
      - {node: node-2, device: 0, address: 10.20.0.17}
  register: hccn_result
'''

RETURN = r'''
tool:
  description: The hccn_tool that ran.
  returned: always
  type: str
ok:
  description: No failure on this node.
  returned: always
  type: bool
devices:
  description: One entry per device.
  returned: always
  type: list
  elements: dict
  contains:
    device:
      description: Device id.
      type: int
    address:
      description: The address read (null when none is set).
      type: str
    netmask:
      description: The netmask read.
      type: str
    gateway:
      description: The gateway read (null when none is set).
      type: str
    netdetect:
      description: The detect address read (null when none is set).
      type: str
    link:
      description: C(UP) or C(DOWN).
      type: str
    health:
      description: Net health state (C(Success), C(Init), C(Socket fail), ...).
      type: str
    tls:
      description: The TLS switch of the device's links, C(0) (disabled) or C(1) (enabled); null when this
        hccn_tool cannot read it.
      type: int
    pings_ok:
      description: Peers that answered.
      type: int
    pings_total:
      description: Peers pinged.
      type: int
    unreachable:
      description: The peers (C(node), C(device), C(address)) that did not answer.
      type: list
      elements: dict
    problems:
      description: What else is wrong with the device (a setting not as planned, link, health).
      type: list
      elements: str
clock:
  description: The node's clock as its time daemon reports it; every key null when neither chronyd nor
    systemd-timesyncd runs.
  returned: always
  type: dict
  contains:
    daemon:
      description: C(chrony) or C(timesyncd).
      type: str
    source:
      description: The time source it follows.
      type: str
    synchronised:
      description: Whether the daemon has synchronised the clock (its leap status is not "not synchronised").
      type: bool
    offset:
      description: Seconds the clock is ahead (positive) or behind (negative) of the source's time.
      type: float
  sample: {daemon: chrony, source: ntp1.example.net, synchronised: true, offset: -0.000012}
failures:
  description: One line per failing device, naming node, device and the peers without reply.
  returned: always
  type: list
  elements: str
  sample: ["node-1 device 0 (10.20.0.1): no reply from node-2 device 3 (10.20.0.20)"]
'''

import os
import socket

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ascend.vllm.plugins.module_utils.command import module_runner
from ansible_collections.ascend.vllm.plugins.module_utils.hccn import (
    HccnError, failures, parse_conf, read_clock, verify, locate_tool)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            devices=dict(type='list', elements='dict', required=True, options=dict(
                device=dict(type='int', required=True),
                address=dict(type='str'),
                netmask=dict(type='str'),
                gateway=dict(type='str'),
                netdetect=dict(type='str'),
            )),
            peers=dict(type='list', elements='dict', default=[], options=dict(
                node=dict(type='str', required=True),
                device=dict(type='int', required=True),
                address=dict(type='str', required=True),
            )),
            ping_count=dict(type='int', default=3),
            ping_retries=dict(type='int', default=1),
            node=dict(type='str'),
            tool_path=dict(type='path'),
            install_path=dict(type='path', default='/usr/local/Ascend'),
            conf_path=dict(type='path', default='/etc/hccn.conf'),
            clock_wait=dict(type='int', default=60),
        ),
        supports_check_mode=True,
    )
    if not 1 <= module.params['ping_count'] <= 1000:
        module.fail_json(msg='ping_count must be 1 to 1000 (hccn_tool pkt), got %d' % module.params['ping_count'])
    if module.params['ping_retries'] < 0:
        module.fail_json(msg='ping_retries must be 0 or more, got %d' % module.params['ping_retries'])
    tool, error = locate_tool(module.params['tool_path'], module.params['install_path'], os.environ.get('PATH', ''))
    if error:
        module.fail_json(msg=error)
    node = module.params['node'] or socket.gethostname()
    conf = None
    if os.path.exists(module.params['conf_path']):
        with open(module.params['conf_path']) as handle:
            conf = parse_conf(handle.read())
    run = module_runner(module)
    try:
        rows = verify(run, tool, module.params['devices'], module.params['peers'],
                      module.params['ping_count'], module.params['ping_retries'], conf)
        clock = read_clock(run, wait=max(0, module.params['clock_wait']))
    except HccnError as exc:
        module.fail_json(msg=str(exc), tool=tool)
    lines = failures(node, rows)
    module.exit_json(changed=False, tool=tool, ok=not lines, devices=rows, clock=clock, failures=lines)


if __name__ == '__main__':
    main()
