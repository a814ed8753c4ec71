#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: npu_facts
short_description: Read Huawei Ascend NPUs with npu-smi and sysfs
version_added: "0.1.0"
description:
  - Runs C(npu-smi info) once and one C(npu-smi info -t board) query on the first chip (for the
    SoC name), and returns the NPUs as the C(ascend_npu) fact. Further queries run only when
    listed in O(gather).
  - Parses the C(npu-smi info) table by its own header and cell borders, so the 98, 106 (310P)
    and 116 (driver 26.x) character layouts, Atlas A3 (two chips per NPU) and future column
    changes are read alike. Output cut short returns the complete rows and a warning.
  - Without npu-smi, Ascend PCI functions (vendor 0x19e5) found in sysfs still make
    C(present) true, with a warning that the driver is missing; without either, C(present) is
    false and the module succeeds unless O(required=true).
  - A failing sub-query (board, topo, ...) leaves the facts of C(npu-smi info) in place and
    adds a warning naming the command, its exit status and stderr.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  npu_smi_path:
    description:
      - Path of the npu-smi binary.
      - When unset, it is looked up in E(PATH), C(/usr/local/bin), C(/usr/local/sbin) and
        C(<install_path>/driver/tools), in that order.
    type: path
  install_path:
    description:
      - Ascend install prefix; C(driver/version.info) and C(firmware/version.info) below it
        give C(driver_version) and C(firmware_version).
    type: path
    default: /usr/local/Ascend
  gather:
    description:
      - Extra npu-smi queries.
      - V(topo) (one call) fills C(cpu_affinity) of every chip.
      - V(mapping) (one call, C(npu-smi info -m)) fills C(device_id), the logic id, and C(phy_id) where the table
        has none and C(-m) prints a C(Chip Phy-ID) column.
      - V(board), V(memory), V(health), V(usages), V(power), V(temp) run
        C(npu-smi info -t <name> -i <npu> -c <chip>) once per chip and store the key/value
        output in C(chips[].details.<name>). When the first chip's query fails the remaining
        chips are skipped with one warning.
    type: list
    elements: str
    choices: [board, health, mapping, memory, power, temp, topo, usages]
    default: []
  required:
    description:
      - Fail when no NPU is found (neither npu-smi nor an Ascend PCI function).
    type: bool
    default: false
  on_npu_smi_failure:
    description:
      - What a failing C(npu-smi info) does.
      - V(fail) fails the module, naming the command, its exit status and stderr.
      - V(pci) returns the facts the PCI bus gives (as without npu-smi - C(present), the counts, C(chip_family)),
        with C(npu_smi_error) set and a warning; for roles that repair a driver which is installed but not
        running (an unfinished install, a pending reboot).
    type: str
    choices: [fail, pci]
    default: fail
  sysfs_root:
    description:
      - Root of sysfs, where PCI devices are read (C(<sysfs_root>/bus/pci/devices)) for the
        NUMA node of each chip and, when npu-smi is missing, to detect NPUs.
    type: path
    default: /sys
notes:
  - Commands run with C(LC_ALL=C).
  - Supports check mode; the module never changes the host.
  - C(npu-smi) prints Bus-Id as C(0000:C1:00.0); the facts use the sysfs spelling
    C(0000:c1:00.0) so they can be joined with P(ascend.vllm.numa_facts#module) output.
seealso:
  - module: ascend.vllm.numa_facts
'''

EXAMPLES = r'''
- name: Read the NPUs
  ascend.vllm.npu_facts:

- name: Require NPUs and read CPU affinity and logic ids as well
  ascend.vllm.npu_facts:
    required: true
    gather: [topo, mapping]

- name: Refuse to go on with an unhealthy chip
  ansible.builtin.assert:
    that: ansible_facts.ascend_npu.healthy
    fail_msg: >-
      NPU health: {{ ansible_facts.ascend_npu.chips | map(attribute='health') | list }}

- name: Build vllm-ascend for the detected SoC
  ansible.builtin.debug:
    msg: "SOC_VERSION={{ ansible_facts.ascend_npu.soc_version }}"
'''

RETURN = r'''
ansible_facts:
  description: Facts added to the host.
  returned: always
  type: complex
  contains:
    ascend_npu:
      description:
        - The NPUs of the host (sample - an Atlas 800 A2 with 8 x 910B2, one chip and one
          process shown).
      sample:
        present: true
        npu_smi_path: /usr/local/sbin/npu-smi
        npu_smi_version: 24.1.0
        driver_version: 24.1.0
        firmware_version: 7.5.0.1.129
        npu_count: 8
        chip_count: 8
        chip_name: 910B2
        chip_family: 910b
        soc_version: ascend910b2
        healthy: true
        chips:
          - npu_id: 0
            chip_id: 0
            device_id: null
            phy_id: null
            name: 910B2
            health: OK
            power_w: 91.1
            temp_c: 49
            hugepages_used: 0
            hugepages_total: 0
            bus_id: "0000:c1:00.0"
            aicore_pct: 0
            memory_used_mb: 0
            memory_total_mb: 0
            hbm_used_mb: 3372
            hbm_total_mb: 65536
            numa_node: 2
            cpu_affinity: null
            details: {}
        processes:
          - npu_id: 0
            chip_id: 0
            pid: 485946
            name: python3
            memory_mb: 5175
            container_pid: null
        npu_smi_error: null
      returned: always
      type: dict
      contains:
        present:
          description: An NPU was found, by npu-smi or as an Ascend PCI function.
          type: bool
          sample: true
        npu_smi_path:
          description: The npu-smi binary used; null when none was found.
          type: str
          sample: /usr/local/sbin/npu-smi
        npu_smi_version:
          description: Version in the header of the C(npu-smi info) table.
          type: str
          sample: 24.1.0
        pci_functions:
          description:
            - The Ascend NPU functions of the PCI bus in address order, with or without a driver - C(bus_id),
              C(device) (the PCI device id) and C(family) (its chip family as in RV(ansible_facts.ascend_npu.chip_family),
              null for an Ascend-style device id this collection does not know).
          type: list
          elements: dict
          sample: [{bus_id: "0000:c1:00.0", device: "0xd802", family: 910b}]
        npu_smi_error:
          description:
            - Why C(npu-smi info) failed (command, exit status, stderr) when O(on_npu_smi_failure=pci) read the PCI
              bus instead; null otherwise.
          type: str
          sample: null
        driver_version:
          description: C(Version=) of C(<install_path>/driver/version.info), else null.
          type: str
          sample: 24.1.0
        firmware_version:
          description: C(Version=) of C(<install_path>/firmware/version.info), else null.
          type: str
          sample: 7.5.0.1.129
        npu_count:
          description:
            - Distinct NPU ids. Without npu-smi, the number of Ascend PCI functions.
          type: int
          sample: 8
        chip_count:
          description: Chip rows (Atlas A3 and 300I Duo have two chips per NPU).
          type: int
          sample: 16
        chip_name:
          description: Name column of the first chip.
          type: str
          sample: 910B3
        chip_family:
          description:
            - Chip family of the NPUs as the vendor packages name it (C(910b), C(910_93), C(310p); C(910),
              C(310), C(310b) for chips vLLM does not serve), from the PCI device id of the first NPU
              function - known before any driver is installed; null without an Ascend PCI function.
          type: str
          sample: 910b
        soc_version:
          description:
            - SoC name for CANN/vllm-ascend builds (C(ascend910b3), C(ascend910_9392),
              C(ascend310p3)), from the board query, else from the chip name; null when
              unknown.
          type: str
          sample: ascend910b3
        healthy:
          description: Every chip reports health C(OK) (false when there is no chip).
          type: bool
          sample: true
        chips:
          description: One entry per chip row of C(npu-smi info), in its order.
          type: list
          elements: dict
          contains:
            npu_id:
              description: NPU id (C(-i) of npu-smi); 310P cards use ids such as 32768.
              type: int
            chip_id:
              description: Chip id within the NPU (C(-c) of npu-smi).
              type: int
            device_id:
              description:
                - Logic id (the number in ASCEND_RT_VISIBLE_DEVICES). From the table's
                  Device column (310P) or from O(gather=mapping); null otherwise.
              type: int
            phy_id:
              description: Physical id (the id C(hccn_tool -i) takes) - the table's Phy-ID column or the C(-m) Chip Phy-ID column (Atlas A3), else null.
              type: int
            name:
              description: Chip name as printed (C(910B3), C(Ascend910), C(310P3)).
              type: str
            health:
              description: C(OK), C(Warning), C(Alarm) or C(Critical).
              type: str
            power_w:
              description: Power in watts; null where npu-smi prints C(-) or C(NA).
              type: float
            temp_c:
              description: Temperature in degrees Celsius.
              type: int
            hugepages_used:
              description: Device huge pages in use.
              type: int
            hugepages_total:
              description: Device huge pages in total.
              type: int
            bus_id:
              description: PCI address in sysfs spelling (lower case).
              type: str
              sample: "0000:c1:00.0"
            aicore_pct:
              description: AI Core utilisation in percent.
              type: int
            memory_used_mb:
              description: Used DDR memory (310P device memory).
              type: int
            memory_total_mb:
              description: Total DDR memory.
              type: int
            hbm_used_mb:
              description: Used HBM; null when the table has no HBM column (310P).
              type: int
            hbm_total_mb:
              description: Total HBM; null when the table has no HBM column.
              type: int
            numa_node:
              description: NUMA node of the PCI function from sysfs; null when unknown.
              type: int
            cpu_affinity:
              description: CPU list from C(npu-smi info -t topo) (O(gather=topo)), else null.
              type: str
              sample: 144-167
            details:
              description:
                - Key/value output of the per-chip queries named in O(gather), by query name.
              type: dict
              sample: {"memory": {"HBM Capacity(MB)": "65536"}}
        processes:
          description: Processes holding NPUs, from the process table of C(npu-smi info).
          type: list
          elements: dict
          contains:
            npu_id:
              description: NPU id.
              type: int
            chip_id:
              description: Chip id.
              type: int
            pid:
              description: Process id on the host.
              type: int
            name:
              description: Process name; may be empty.
              type: str
            memory_mb:
              description: Device memory the process holds.
              type: int
            container_pid:
              description: Process id inside its container (driver 26.x), else null.
              type: int
            unit:
              description:
                - What holds the process, from its C(/proc/<pid>/cgroup) - the systemd unit (C(vllm-default.service))
                  or C(container <id>) for a podman, docker, CRI-O or containerd container; null when neither shows
                  or the process is gone.
              type: str
'''

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ascend.vllm.plugins.module_utils.command import CommandFailed, module_runner
from ansible_collections.ascend.vllm.plugins.module_utils.npu_smi import (
    DEFAULT_INSTALL_PATH,
    GATHER_CHOICES,
    NpuSmiParseError,
    gather_npu_facts,
    locate_npu_smi,
    npu_smi_search_dirs,
)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            npu_smi_path=dict(type='path'),
            install_path=dict(type='path', default=DEFAULT_INSTALL_PATH),
            gather=dict(type='list', elements='str', choices=list(GATHER_CHOICES), default=[]),
            required=dict(type='bool', default=False),
            on_npu_smi_failure=dict(type='str', choices=['fail', 'pci'], default='fail'),
            sysfs_root=dict(type='path', default='/sys'),
        ),
        supports_check_mode=True,
    )
    params = module.params
    npu_smi = locate_npu_smi(params['npu_smi_path'], params['install_path'], os.environ.get('PATH', ''))
    if params['npu_smi_path'] and npu_smi is None:
        module.fail_json(msg='npu_smi_path %s is not an executable file' % params['npu_smi_path'])

    try:
        facts, warnings = gather_npu_facts(
            module_runner(module), npu_smi,
            install_path=params['install_path'],
            sysfs_root=params['sysfs_root'],
            gather=params['gather'],
            on_failure=params['on_npu_smi_failure'],
        )
    except CommandFailed as exc:
        module.fail_json(msg=str(exc), cmd=exc.argv, rc=exc.rc, stdout=exc.stdout, stderr=exc.stderr)
    except NpuSmiParseError as exc:
        module.fail_json(msg='%s. Run `%s info` by hand and report the output if the driver is '
                             'working.' % (exc, npu_smi))

    for warning in warnings:
        module.warn(warning)
    if params['required'] and not facts['present']:
        module.fail_json(
            msg='no Ascend NPU found: npu-smi is not installed (looked in PATH, %s) and '
                '%s/bus/pci/devices has no Huawei (0x19e5) NPU function'
                % (', '.join(npu_smi_search_dirs(params['install_path'])), params['sysfs_root']),
            ansible_facts={'ascend_npu': facts})
    module.exit_json(changed=False, ansible_facts={'ascend_npu': facts})


if __name__ == '__main__':
    main()
