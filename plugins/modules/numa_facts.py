#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: numa_facts
short_description: Read the NUMA topology and where the Ascend NPUs sit in it
version_added: "0.1.0"
description:
  - Returns the C(ascend_numa) fact - NUMA nodes with their CPUs, memory and huge page pools,
    the Ascend NPU PCI functions with their NUMA node, and recommended CPU sets per NPU and per
    group of NPUs (one vLLM instance), ready for C(numactl --physcpubind) or C(taskset -c).
  - Everything comes from sysfs. When npu-smi is installed, C(npu-smi info) adds the NPU and
    chip ids and C(npu-smi info -t topo) the firmware's CPU affinity of each NPU; failures of
    these commands are warnings, the sysfs facts stand on their own.
  - A host without NUMA information in sysfs (many VMs and containers) is reported as node 0
    holding every online CPU.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  sysfs_root:
    description:
      - Root of sysfs.
      - Memory of a host without NUMA nodes is read from C(meminfo) in the C(proc) directory
        next to it (C(/proc/meminfo) for C(/sys)).
    type: path
    default: /sys
  npu_smi_path:
    description:
      - Path of the npu-smi binary. When unset, it is looked up in E(PATH), C(/usr/local/bin),
        C(/usr/local/sbin) and C(/usr/local/Ascend/driver/tools); without it only sysfs is read.
    type: path
  gather_topo:
    description:
      - Run C(npu-smi info -t topo) for the CPU affinity of each NPU. The recommendation uses
        that affinity when present, else the NPU's NUMA node.
    type: bool
    default: true
  npu_groups:
    description:
      - Groups of NPUs, by index in C(npus) (PCI address order, from 0), that serve together
        (for example one vLLM instance each). Each gets an entry in C(groups).
      - When unset, there is one group per NUMA node that holds NPUs.
    type: list
    elements: list
notes:
  - Supports check mode; the module never changes the host.
  - Commands run with C(LC_ALL=C).
seealso:
  - module: ascend.vllm.npu_facts
'''

EXAMPLES = r'''
- name: Read the topology
  ascend.vllm.numa_facts:

- name: Two vLLM instances of four NPUs each
  ascend.vllm.numa_facts:
    npu_groups: [[0, 1, 2, 3], [4, 5, 6, 7]]

- name: Bind the first instance to the CPUs and memory local to its NPUs
  ansible.builtin.set_fact:
    vllm_numactl: >-
      numactl --physcpubind={{ ansible_facts.ascend_numa.groups[0].cpus }}
      --membind={{ ansible_facts.ascend_numa.groups[0].numa_nodes | join(',') }}
'''

RETURN = r'''
ansible_facts:
  description: Facts added to the host.
  returned: always
  type: complex
  contains:
    ascend_numa:
      description:
        - Host topology (sample - a 2-socket Kunpeng 920 with four NUMA nodes and eight 910B
          NPUs on nodes 0 and 2; one node and one NPU shown).
      sample:
        node_count: 4
        cpu_count: 192
        online_cpus: 0-191
        nodes:
          - id: 0
            cpus: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
                   23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42,
                   43, 44, 45, 46, 47]
            cpulist: 0-47
            memory_mb: 257436
            hugepages:
              2048kB: {total: 1024, free: 1000}
              1048576kB: {total: 0, free: 0}
        npus:
          - index: 0
            bus_id: "0000:01:00.0"
            device: "0xd802"
            numa_node: 0
            npu_id: 1
            chip_id: 0
            device_index: 1
            cpu_affinity: null
            recommended_cpus: 0-11
        cpus_per_npu: [0-11, 12-23, 24-35, 36-47, 96-107, 108-119, 120-131, 132-143]
        groups:
          - {npus: [0, 1, 2, 3], numa_nodes: [0], cpus: 0-47, cpu_count: 48}
          - {npus: [4, 5, 6, 7], numa_nodes: [2], cpus: 96-143, cpu_count: 48}
      returned: always
      type: dict
      contains:
        node_count:
          description: Number of NUMA nodes.
          type: int
          sample: 4
        cpu_count:
          description: CPUs present (C(devices/system/cpu/present)), as C(nproc --all) counts.
          type: int
          sample: 192
        online_cpus:
          description: Online CPUs of all nodes, as a cpulist.
          type: str
          sample: 0-191
        nodes:
          description: NUMA nodes by id.
          type: list
          elements: dict
          contains:
            id:
              description: Node id.
              type: int
            cpus:
              description: CPU numbers of the node.
              type: list
              elements: int
            cpulist:
              description: The same CPUs as a cpulist string.
              type: str
              sample: 0-47
            memory_mb:
              description: MemTotal of the node in MiB; null when unreadable.
              type: int
            hugepages:
              description: Huge page pools by size, each with C(total) and C(free) pages.
              type: dict
              sample: {"2048kB": {"total": 1024, "free": 1024}, "1048576kB": {"total": 0, "free": 0}}
        npus:
          description: Ascend NPU PCI functions (vendor 0x19e5) in PCI address order.
          type: list
          elements: dict
          contains:
            index:
              description: Position in this list; the index used by O(npu_groups) and C(cpus_per_npu).
              type: int
            bus_id:
              description: PCI address.
              type: str
              sample: "0000:c1:00.0"
            device:
              description: PCI device id (C(0xd802) 910B, C(0xd803) 910_93, C(0xd500) 310P).
              type: str
            numa_node:
              description: NUMA node from sysfs; null when the kernel reports -1.
              type: int
            npu_id:
              description: NPU id from C(npu-smi info), else null.
              type: int
            chip_id:
              description: Chip id from C(npu-smi info), else null.
              type: int
            device_index:
              description:
                - Device number of the chip for ASCEND_RT_VISIBLE_DEVICES - the table's Device
                  column where printed, else its position in C(npu-smi info) (npu-smi lists
                  chips in logic id order); null without npu-smi.
              type: int
            cpu_affinity:
              description: CPU affinity from C(npu-smi info -t topo), else null.
              type: str
            recommended_cpus:
              description: Same as the NPU's entry in C(cpus_per_npu).
              type: str
        cpus_per_npu:
          description:
            - Recommended cpulist per NPU, by index. Each NPU gets an equal, disjoint slice of
              the CPUs local to it (its CPU affinity, else its NUMA node, else every CPU),
              shared with the NPUs local to the same CPUs.
          type: list
          elements: str
          sample: ["0-11", "12-23"]
        groups:
          description: Recommended binding per group (O(npu_groups), else per NUMA node holding NPUs).
          type: list
          elements: dict
          contains:
            npus:
              description: NPU indexes of the group (positions in C(npus), PCI address order).
              type: list
              elements: int
            devices:
              description:
                - Logical device ids of the group's NPUs (their C(device_index), what ASCEND_RT_VISIBLE_DEVICES
                  names), sorted; NPUs without one (npu-smi not readable) are left out. Match a service's devices
                  against this list, not against C(npus) - on an Atlas 800 A2 logical 0 is PCI position 6 of 0-7.
              type: list
              elements: int
            numa_nodes:
              description: NUMA nodes of the group's NPUs (for C(numactl --membind)).
              type: list
              elements: int
            cpus:
              description: Every CPU local to the group's NPUs, as a cpulist.
              type: str
              sample: 0-47
            cpu_count:
              description: Number of CPUs in C(cpus).
              type: int
'''

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ascend.vllm.plugins.module_utils.command import module_runner
from ansible_collections.ascend.vllm.plugins.module_utils.numa import gather_numa_facts
from ansible_collections.ascend.vllm.plugins.module_utils.npu_smi import DEFAULT_INSTALL_PATH, locate_npu_smi


def main():
    module = AnsibleModule(
        argument_spec=dict(
            sysfs_root=dict(type='path', default='/sys'),
            npu_smi_path=dict(type='path'),
            gather_topo=dict(type='bool', default=True),
            npu_groups=dict(type='list', elements='list'),
        ),
        supports_check_mode=True,
    )
    params = module.params
    npu_smi = locate_npu_smi(params['npu_smi_path'], DEFAULT_INSTALL_PATH, os.environ.get('PATH', ''))
    if params['npu_smi_path'] and npu_smi is None:
        module.fail_json(msg='npu_smi_path %s is not an executable file' % params['npu_smi_path'])

    groups = None
    if params['npu_groups'] is not None:
        groups = []
        for group in params['npu_groups']:
            try:
                groups.append([int(index) for index in group])
            except (TypeError, ValueError):
                module.fail_json(msg='npu_groups entries must be lists of NPU indexes, got %r' % (group,))

    sysfs_root = params['sysfs_root']
    meminfo = os.path.join(os.path.dirname(os.path.normpath(sysfs_root)), 'proc', 'meminfo')
    try:
        facts, warnings = gather_numa_facts(
            sysfs_root=sysfs_root, run=module_runner(module), npu_smi=npu_smi,
            gather_topo=params['gather_topo'], npu_groups=groups, meminfo_path=meminfo)
    except ValueError as exc:
        module.fail_json(msg=str(exc))
    for warning in warnings:
        module.warn(warning)
    if not any(node['cpus'] for node in facts['nodes']):
        module.fail_json(msg='no online CPU found under %s/devices/system (is sysfs mounted?)' % sysfs_root)
    module.exit_json(changed=False, ansible_facts={'ascend_numa': facts})


if __name__ == '__main__':
    main()
