"""The sysfs-like tree: one directory per NPU PCI function, NUMA nodes with cpu lists and hugepages."""
import os

import pytest

from ascend_sim.profiles import profile_names
from ascend_sim.state import new_state
from ascend_sim.sysfs import build_sysfs


def read(path):
    with open(path) as handle:
        return handle.read()


def test_pci_devices_of_the_a2_profile(tmp_path):
    state = new_state("a2-910b3")
    written = build_sysfs(str(tmp_path), state)
    devices = tmp_path / "bus" / "pci" / "devices"
    assert sorted(os.listdir(devices)) == sorted(c["bus_id"].lower() for c in state["chips"])
    assert len(written) == 8
    c1 = devices / "0000:c1:00.0"
    assert sorted(os.listdir(c1)) == ["class", "device", "local_cpulist", "numa_node", "subsystem_device",
                                      "subsystem_vendor", "vendor"]
    assert read(c1 / "vendor") == "0x19e5\n"
    assert read(c1 / "device") == "0xd802\n"
    assert read(c1 / "class") == "0x120000\n"
    assert read(c1 / "numa_node") == "6\n"
    assert read(c1 / "local_cpulist") == "144-167\n"
    assert read(devices / "0000:01:00.0" / "numa_node") == "0\n"


@pytest.mark.parametrize("profile, device, count", [("a3-9392", "0xd803", 16), ("310p3-duo", "0xd500", 8)])
def test_device_ids_per_profile(tmp_path, profile, device, count):
    build_sysfs(str(tmp_path), new_state(profile))
    devices = tmp_path / "bus" / "pci" / "devices"
    assert len(os.listdir(devices)) == count
    assert {read(devices / name / "device") for name in os.listdir(devices)} == {device + "\n"}


def test_numa_nodes_match_device_affinity(tmp_path):
    state = new_state("a2-910b3")
    build_sysfs(str(tmp_path), state)
    nodes = tmp_path / "devices" / "system" / "node"
    assert read(nodes / "online") == "0-7\n"
    assert read(tmp_path / "devices" / "system" / "cpu" / "online") == "0-191\n"
    for chip in state["chips"]:
        node_dir = nodes / ("node%d" % chip["numa_node"])
        assert read(node_dir / "cpulist") == chip["cpu_affinity"] + "\n"
    meminfo = read(nodes / "node3" / "meminfo")
    assert meminfo.startswith("Node 3 MemTotal:       %8d kB\n" % (130048 * 1024))
    assert read(nodes / "node3" / "hugepages" / "hugepages-2048kB" / "nr_hugepages") == "0\n"
    assert read(nodes / "node3" / "hugepages" / "hugepages-1048576kB" / "free_hugepages") == "0\n"


def test_rebuild_is_idempotent(tmp_path):
    state = new_state("310p3-duo")
    build_sysfs(str(tmp_path), state)
    first = {p: read(os.path.join(d, p)) for d, _, files in os.walk(tmp_path) for p in files}
    build_sysfs(str(tmp_path), state)
    second = {p: read(os.path.join(d, p)) for d, _, files in os.walk(tmp_path) for p in files}
    assert first == second


def test_every_profile_builds(tmp_path):
    for name in profile_names():
        root = tmp_path / name
        build_sysfs(str(root), new_state(name))
        assert (root / "bus" / "pci" / "devices").is_dir()
