# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Read the host's NUMA topology from sysfs and recommend CPU sets for NPUs.

Pure functions of a sysfs root (and an injected command runner for npu-smi), without
ansible-core imports, so tests build sysfs trees in a temporary directory.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

from ansible_collections.ascend.vllm.plugins.module_utils.command import describe_failure
from ansible_collections.ascend.vllm.plugins.module_utils.npu_smi import (
    NpuSmiParseError,
    chip_mapping_by_chip,
    parse_info,
    parse_topo,
)
from ansible_collections.ascend.vllm.plugins.module_utils.pci import list_npu_devices, read_text

_NODE_DIR_RE = re.compile(r'^node(\d+)$')
_POOL_DIR_RE = re.compile(r'^hugepages-(\d+)kB$')


def parse_cpu_list(text):
    """Kernel cpulist format (``0-3,8,10-11``) -> sorted list of ints. Empty -> []."""
    cpus = set()
    text = (text or '').strip()
    if not text:
        return []
    for part in text.split(','):
        part = part.strip()
        if not part:
            continue
        stride = 1
        if ':' in part:  # 0-15:2/4 style strides are legal in kernel cpulists
            part, stride_text = part.split(':', 1)
            stride = int(stride_text.split('/')[0])
        if '-' in part:
            low, high = part.split('-', 1)
            low, high = int(low), int(high)
            if high < low:
                raise ValueError('bad CPU range %r' % part)
            cpus.update(range(low, high + 1, stride))
        else:
            cpus.add(int(part))
    return sorted(cpus)


def format_cpu_list(cpus):
    """Sorted ints -> compact cpulist (``0-3,8``), as numactl and taskset accept it."""
    cpus = sorted(set(cpus))
    ranges = []
    start = prev = None
    for cpu in cpus:
        if start is None:
            start = prev = cpu
        elif cpu == prev + 1:
            prev = cpu
        else:
            ranges.append((start, prev))
            start = prev = cpu
    if start is not None:
        ranges.append((start, prev))
    return ','.join(str(a) if a == b else '%d-%d' % (a, b) for a, b in ranges)


def _read_int(path):
    value = read_text(path)
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def read_hugepage_pools(directory):
    """``<dir>/hugepages-<k>kB/{nr,free}_hugepages`` -> ``{"2048kB": {total, free}}``."""
    pools = {}
    try:
        names = os.listdir(directory)
    except OSError:
        return pools
    sizes = []
    for name in names:
        match = _POOL_DIR_RE.match(name)
        if match:
            sizes.append((int(match.group(1)), name))
    for size_kb, name in sorted(sizes):
        path = os.path.join(directory, name)
        pools['%dkB' % size_kb] = {
            'total': _read_int(os.path.join(path, 'nr_hugepages')),
            'free': _read_int(os.path.join(path, 'free_hugepages')),
        }
    return pools


def parse_meminfo_total_kb(text):
    """MemTotal in kB from /proc/meminfo or a node's meminfo (``Node 0 MemTotal: ...``)."""
    for raw in (text or '').splitlines():
        match = re.match(r'^(?:Node\s+\d+\s+)?MemTotal:\s+(\d+)\s*kB', raw.strip())
        if match:
            return int(match.group(1))
    return None


def read_nodes(sysfs_root, meminfo_path=None):
    """NUMA nodes from ``<sysfs_root>/devices/system/node``.

    A host without NUMA information (or with the directory missing, as in some VMs and
    containers) is reported as node 0 holding every online CPU, with memory from
    ``meminfo_path`` and the global hugepage pools.
    """
    base = os.path.join(sysfs_root, 'devices', 'system', 'node')
    nodes = []
    try:
        names = os.listdir(base)
    except OSError:
        names = []
    for name in names:
        match = _NODE_DIR_RE.match(name)
        if not match:
            continue
        path = os.path.join(base, name)
        mem_kb = parse_meminfo_total_kb(read_text(os.path.join(path, 'meminfo')))
        nodes.append({
            'id': int(match.group(1)),
            'cpus': parse_cpu_list(read_text(os.path.join(path, 'cpulist'))),
            'memory_mb': mem_kb // 1024 if mem_kb is not None else None,
            'hugepages': read_hugepage_pools(os.path.join(path, 'hugepages')),
        })
    nodes.sort(key=lambda n: n['id'])
    if nodes:
        return nodes
    online = read_text(os.path.join(sysfs_root, 'devices', 'system', 'cpu', 'online'))
    mem_kb = parse_meminfo_total_kb(read_text(meminfo_path)) if meminfo_path else None
    return [{
        'id': 0,
        'cpus': parse_cpu_list(online),
        'memory_mb': mem_kb // 1024 if mem_kb is not None else None,
        'hugepages': read_hugepage_pools(os.path.join(sysfs_root, 'kernel', 'mm', 'hugepages')),
    }]


def _split_evenly(cpus, parts):
    """Split sorted CPUs into ``parts`` contiguous chunks whose sizes differ by at most one."""
    size, extra = divmod(len(cpus), parts)
    chunks = []
    start = 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        chunks.append(cpus[start:end])
        start = end
    return chunks


def npu_base_cpus(npu, nodes_by_id, all_cpus):
    """CPUs local to one NPU: its npu-smi CPU affinity, else its NUMA node, else every CPU."""
    online = set(all_cpus)
    if npu.get('cpu_affinity'):
        try:
            cpus = [c for c in parse_cpu_list(npu['cpu_affinity']) if c in online]
        except ValueError:
            cpus = []
        if cpus:
            return cpus
    node = nodes_by_id.get(npu.get('numa_node'))
    if node is not None and node['cpus']:
        return list(node['cpus'])
    return list(all_cpus)


def recommend(nodes, npus, npu_groups=None):
    """Recommended CPU sets.

    ``cpus_per_npu[i]``: a slice of the CPUs local to NPU i (by PCI order); NPUs sharing the
    same local CPUs get disjoint, equal slices so per-NPU worker threads do not contend.
    ``groups``: for each group of NPUs (``npu_groups``, else one group per NUMA node that holds
    NPUs) every CPU local to its members, the NUMA nodes to bind memory to, and the members'
    logical device ids (``devices``, where npu-smi gave them).
    Raises ValueError for a group naming an NPU index that does not exist.
    """
    nodes_by_id = dict((node['id'], node) for node in nodes)
    all_cpus = sorted(set(cpu for node in nodes for cpu in node['cpus']))
    bases = [npu_base_cpus(npu, nodes_by_id, all_cpus) for npu in npus]
    sharing = {}
    for index, base in enumerate(bases):
        sharing.setdefault(tuple(base), []).append(index)
    per_npu = [None] * len(npus)
    for base, members in sharing.items():
        for index, chunk in zip(members, _split_evenly(list(base), len(members))):
            per_npu[index] = chunk

    if npu_groups is None:
        with_node = sorted(set(n['numa_node'] for n in npus if n['numa_node'] is not None))
        npu_groups = [[i for i, n in enumerate(npus) if n['numa_node'] == node_id] for node_id in with_node]
        unknown = [i for i, n in enumerate(npus) if n['numa_node'] is None]
        if unknown:
            npu_groups.append(unknown)
    groups = []
    for members in npu_groups:
        members = list(members)
        for index in members:
            if not isinstance(index, int) or index < 0 or index >= len(npus):
                raise ValueError('NPU index %r in npu_groups does not exist (%d NPU(s) found, '
                                 'indexed by PCI address from 0)' % (index, len(npus)))
        cpus = sorted(set(cpu for index in members for cpu in bases[index]))
        groups.append({
            'npus': members,
            # What ASCEND_RT_VISIBLE_DEVICES names: logical ids, not PCI positions. On an A2 the
            # two orders differ (NPU 0 sits at bus C1, PCI position 6 of 0-7), so a binding looked
            # up by PCI index pins the service to another NPU's CPUs. Unknown ids (npu-smi not
            # readable) are left out: such a group binds no device.
            'devices': sorted(npus[i]['device_index'] for i in members
                              if npus[i].get('device_index') is not None),
            'numa_nodes': sorted(set(npus[i]['numa_node'] for i in members
                                     if npus[i]['numa_node'] is not None)),
            'cpus': format_cpu_list(cpus),
            'cpu_count': len(cpus),
        })
    return [format_cpu_list(chunk) for chunk in per_npu], groups


def plan_groups(facts, npu_groups=None):
    """The recommended binding per group of NPUs from the ``ascend_numa`` facts of an earlier read.

    The topology is read once per run (gather_numa_facts); a role that serves its own groups
    (``npu_groups``) takes them from that read instead of reading sysfs and npu-smi again. Without
    groups the read's own ``groups`` stand. Raises ValueError as ``recommend`` does.
    """
    if not npu_groups:
        return list(facts['groups'])
    return recommend(facts['nodes'], facts['npus'], npu_groups)[1]


def _attach_npu_smi(npus, run, npu_smi, gather_topo, warnings):
    """Add npu-smi's view (npu/chip ids, table position, CPU affinity) to the PCI NPUs."""
    argv = [npu_smi, 'info']
    rc, out, err = run(argv)
    if rc != 0:
        warnings.append('%s; NPU ids and CPU affinity not gathered' % describe_failure(argv, rc, out, err))
        return
    try:
        chips = parse_info(out)['chips']
    except NpuSmiParseError as exc:
        warnings.append('%s; NPU ids and CPU affinity not gathered' % exc)
        return
    _attach_logic_ids(chips, run, npu_smi, warnings)
    by_bus = dict((npu['bus_id'], npu) for npu in npus)
    for position, chip in enumerate(chips):
        npu = by_bus.get(chip['bus_id'])
        if npu is None:
            continue
        npu['npu_id'] = chip['npu_id']
        npu['chip_id'] = chip['chip_id']
        npu['device_index'] = chip['device_id'] if chip['device_id'] is not None else position
    if not gather_topo:
        return
    argv = [npu_smi, 'info', '-t', 'topo']
    rc, out, err = run(argv)
    if rc != 0:
        warnings.append('%s; CPU affinity not gathered' % describe_failure(argv, rc, out, err))
        return
    affinity = parse_topo(out)
    ids = [chip['device_id'] for chip in chips]
    use_ids = all(i is not None for i in ids) and len(set(ids)) == len(ids)
    for position, chip in enumerate(chips):
        npu = by_bus.get(chip['bus_id'])
        if npu is not None:
            npu['cpu_affinity'] = affinity.get(chip['device_id'] if use_ids else position)


def _attach_logic_ids(chips, run, npu_smi, warnings):
    """Fill each chip's ``device_id`` from ``npu-smi info -m`` (Chip Logic ID) where the table
    has none (it has a Device column on 310P only). Without it the table position stands in:
    npu-smi lists the chips in logic id order on the captures at hand, but says so nowhere."""
    if all(chip['device_id'] is not None for chip in chips):
        return
    argv = [npu_smi, 'info', '-m']
    rc, out, err = run(argv)
    if rc != 0:
        warnings.append('%s; logic ids taken from the table order' % describe_failure(argv, rc, out, err))
        return
    rows = chip_mapping_by_chip(out)
    for chip in chips:
        if chip['device_id'] is None and (chip['npu_id'], chip['chip_id']) in rows:
            chip['device_id'] = rows[(chip['npu_id'], chip['chip_id'])]['logic_id']


def gather_numa_facts(sysfs_root='/sys', run=None, npu_smi=None, gather_topo=True,
                      npu_groups=None, meminfo_path=None):
    """Collect ``ascend_numa`` facts. Returns ``(facts, warnings)``.

    ``run(argv) -> (rc, stdout, stderr)`` and ``npu_smi`` (path or None) are only used for the
    npu-smi part; its failures become warnings because the sysfs part stands on its own.
    """
    warnings = []
    nodes = read_nodes(sysfs_root, meminfo_path)
    npus = []
    for index, device in enumerate(list_npu_devices(sysfs_root)):
        npus.append({
            'index': index,
            'bus_id': device['bus_id'],
            'device': device['device'],
            'numa_node': device['numa_node'],
            'npu_id': None,
            'chip_id': None,
            'device_index': None,
            'cpu_affinity': None,
            'recommended_cpus': None,
        })
    if npu_smi and run is not None and npus:
        _attach_npu_smi(npus, run, npu_smi, gather_topo, warnings)
    cpus_per_npu, groups = recommend(nodes, npus, npu_groups)
    for npu, cpus in zip(npus, cpus_per_npu):
        npu['recommended_cpus'] = cpus
    all_cpus = sorted(set(cpu for node in nodes for cpu in node['cpus']))
    present = read_text(os.path.join(sysfs_root, 'devices', 'system', 'cpu', 'present'))
    try:
        present_cpus = parse_cpu_list(present)
    except ValueError:
        present_cpus = []
    facts = {
        'node_count': len(nodes),
        'cpu_count': len(present_cpus) if present_cpus else len(all_cpus),
        'online_cpus': format_cpu_list(all_cpus),
        'nodes': [dict(node, cpulist=format_cpu_list(node['cpus'])) for node in nodes],
        'npus': npus,
        'cpus_per_npu': cpus_per_npu,
        'groups': groups,
    }
    return facts, warnings
