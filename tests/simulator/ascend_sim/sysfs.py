"""A sysfs-shaped tree describing the simulated PCI devices and NUMA layout.

The collection's fact modules read ``<sysfs_root>/bus/pci/devices/*`` and
``<sysfs_root>/devices/system/node/*`` (``sysfs_root`` defaults to /sys in production); inside a
container the real /sys cannot be written, so the sandbox points them at this tree instead.
Every file holds one value and a newline, like sysfs attributes do.
"""
import os

HUGEPAGE_SIZES_KB = (2048, 1048576)


def _write(path, value):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="ascii") as handle:
        handle.write("%s\n" % value)


def _cpu_list(first, count):
    return "%d-%d" % (first, first + count - 1) if count > 1 else str(first)


def pci_device_dir(root, bus_id):
    """``<root>/bus/pci/devices/0000:c1:00.0`` - sysfs names devices in lower case."""
    return os.path.join(root, "bus", "pci", "devices", bus_id.lower())


def build_sysfs(root, state):
    """Write the tree for ``state`` under ``root``; return the PCI device directories written."""
    board = state["board"]
    written = []
    for chip in state["chips"]:
        path = pci_device_dir(root, chip["bus_id"])
        device_id = int(str(chip.get("pci_device_id") or "%x" % board["pci_device_id"]), 16)
        _write(os.path.join(path, "vendor"), "0x%04x" % board["pci_vendor_id"])
        _write(os.path.join(path, "device"), "0x%04x" % device_id)
        _write(os.path.join(path, "subsystem_vendor"), "0x%04x" % board["subsystem_vendor_id"])
        _write(os.path.join(path, "subsystem_device"), "0x%04x" % board["subsystem_device_id"])
        _write(os.path.join(path, "class"), "0x%06x" % board.get("pci_class", 0x120000))
        numa_node = chip.get("numa_node")
        _write(os.path.join(path, "numa_node"), -1 if numa_node is None else numa_node)
        _write(os.path.join(path, "local_cpulist"), chip.get("cpu_affinity") or "")
        written.append(path)
    numa = state.get("numa") or {}
    nodes = int(numa.get("nodes", 1))
    per = int(numa.get("cpus_per_node", 1))
    mem_kb = int(numa.get("mem_mb_per_node", 0)) * 1024
    system = os.path.join(root, "devices", "system")
    _write(os.path.join(system, "node", "online"), _cpu_list(0, nodes))
    _write(os.path.join(system, "node", "possible"), _cpu_list(0, nodes))
    _write(os.path.join(system, "cpu", "online"), _cpu_list(0, nodes * per))
    _write(os.path.join(system, "cpu", "possible"), _cpu_list(0, nodes * per))
    for node in range(nodes):
        node_dir = os.path.join(system, "node", "node%d" % node)
        _write(os.path.join(node_dir, "cpulist"), _cpu_list(node * per, per))
        meminfo = "\n".join([
            "Node %d MemTotal:       %8d kB" % (node, mem_kb),
            "Node %d MemFree:        %8d kB" % (node, mem_kb * 9 // 10),
            "Node %d HugePages_Total:     0" % node,
            "Node %d HugePages_Free:      0" % node,
            "Node %d HugePages_Surp:      0" % node,
        ])
        _write(os.path.join(node_dir, "meminfo"), meminfo)
        for size in HUGEPAGE_SIZES_KB:
            pages = os.path.join(node_dir, "hugepages", "hugepages-%dkB" % size)
            for name in ("nr_hugepages", "free_hugepages", "surplus_hugepages"):
                _write(os.path.join(pages, name), 0)
    return written
