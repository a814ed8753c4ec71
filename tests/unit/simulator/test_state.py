"""The node state file: round trip, editing, boot semantics and the command line that drives them."""
import json
import os

import pytest

from ascend_sim import __main__ as cli
from ascend_sim import hccn_tool, state as state_mod
from ascend_sim.state import apply_boot, load_state, locked_state, new_state, save_state


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_SIM_ROOT", str(tmp_path))
    monkeypatch.delenv("ASCEND_SIM_STATE", raising=False)
    monkeypatch.delenv("ASCEND_SIM_HCCN_CONF", raising=False)
    return tmp_path


def write_versions(root, driver=None, firmware=None, install="usr/local/Ascend"):
    for kind, version in (("driver", driver), ("firmware", firmware)):
        path = root / install / kind / "version.info"
        if version is None:
            if path.exists():
                path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        extra = "compatible_version_fw=[7.0.0,7.5.99]\n" if kind == "driver" else "firmware_version=1.0\n"
        path.write_text("Version=%s\n%s" % (version, extra))


def test_state_path_prefers_env_then_rooted_default(root, monkeypatch):
    assert state_mod.state_path() == str(root) + "/etc/ascend-sim/state.json"
    monkeypatch.setenv("ASCEND_SIM_STATE", "/elsewhere/s.json")
    assert state_mod.state_path() == "/elsewhere/s.json"


def test_new_state_has_no_driver_and_schema_fields():
    node = new_state("a2-910b3")
    assert node["profile"] == "a2-910b3"
    assert node["driver"] == {"running": None, "pending": False}
    assert node["firmware"] == {"running": None, "pending": False}
    assert node["install_path"] == "/usr/local/Ascend"
    assert node["processes"] == [] and node["inject"] == {}
    assert sorted(node["hccn"]) == [str(i) for i in range(8)]
    chip = node["chips"][0]
    for key in ("npu_id", "chip_id", "logic_id", "phy_id", "name", "health", "power_w", "temp_c",
                "hugepages_used", "hugepages_total", "bus_id", "aicore_pct", "memory_used_mb",
                "memory_total_mb", "hbm_used_mb", "hbm_total_mb", "numa_node", "cpu_affinity", "pci_device_id"):
        assert key in chip
    assert new_state("a2-910b3", driver="24.1.rc3")["driver"]["running"] == "24.1.rc3"


def test_round_trip_is_lossless_and_atomic(tmp_path):
    path = str(tmp_path / "sub" / "state.json")
    node = new_state("a3-9392", driver="25.3.rc1")
    node["inject"]["installer_kill_after"] = "files"
    save_state(node, path)
    assert load_state(path) == node
    assert os.listdir(tmp_path / "sub") == ["state.json"]  # no temporary file left behind
    with open(path) as handle:
        assert json.load(handle)["board"]["npu_name"] == "9392"


def test_locked_state_saves_changes_and_drops_them_on_error(tmp_path):
    path = str(tmp_path / "state.json")
    save_state(new_state("a2-910b3"), path)
    with locked_state(path) as node:
        node["chips"][3]["health"] = "Alarm"
    assert load_state(path)["chips"][3]["health"] == "Alarm"
    with pytest.raises(RuntimeError):
        with locked_state(path) as node:
            node["chips"][3]["health"] = "Critical"
            raise RuntimeError("installer died")
    assert load_state(path)["chips"][3]["health"] == "Alarm"


def test_set_path_and_assignment_parsing():
    node = new_state("a2-910b3")
    state_mod.set_path(node, "chips.2.health", "Critical")
    state_mod.set_path(node, "hccn.5.link", "DOWN")
    state_mod.set_path(node, "inject.new.flag", True)
    state_mod.set_path(node, "processes.0", {"npu_id": 1, "chip_id": 0, "pid": 7, "name": "x", "memory_mb": 1})
    assert node["chips"][2]["health"] == "Critical"
    assert node["hccn"]["5"]["link"] == "DOWN"
    assert node["inject"] == {"new": {"flag": True}}
    assert node["processes"][0]["pid"] == 7
    assert state_mod.get_path(node, "chips.2.health") == "Critical"
    assert state_mod.parse_assignment('driver.running="24.1.0"') == ("driver.running", "24.1.0")
    assert state_mod.parse_assignment("driver.running=24.1.rc3") == ("driver.running", "24.1.rc3")
    assert state_mod.parse_assignment("driver.pending=true") == ("driver.pending", True)
    assert state_mod.parse_assignment("chips.0.power_w=null") == ("chips.0.power_w", None)
    with pytest.raises(ValueError):
        state_mod.parse_assignment("no-equals-sign")


def test_boot_makes_installed_versions_running(root):
    node = new_state("a2-910b3")
    node["driver"]["pending"] = True
    node["firmware"]["pending"] = True
    write_versions(root, driver="24.1.rc3", firmware="7.5.0.1.129")
    apply_boot(node, root=str(root))
    assert node["driver"] == {"running": "24.1.rc3", "pending": False}
    assert node["firmware"] == {"running": "7.5.0.1.129", "pending": False}


def test_boot_without_installed_driver_leaves_none_running(root):
    node = new_state("a2-910b3", driver="24.1.rc3", firmware="7.5.0.1.129")
    write_versions(root, firmware="7.5.0.1.129")
    apply_boot(node, root=str(root))
    assert node["driver"]["running"] is None
    assert node["firmware"]["running"] == "7.5.0.1.129"


def test_boot_honours_a_non_default_install_path(root):
    node = new_state("a2-910b3", install_path="/opt/Ascend")
    write_versions(root, driver="25.0.rc1", install="opt/Ascend")
    apply_boot(node, root=str(root))
    assert node["driver"]["running"] == "25.0.rc1"
    write_versions(root, driver="25.2.0", install="srv/npu")
    apply_boot(node, install_path="/srv/npu", root=str(root))
    assert node["driver"]["running"] == "25.2.0"


def test_boot_ends_processes_and_restores_idle_memory_and_nic_settings(root):
    node = new_state("a2-910b3", driver="24.1.rc3")
    idle = node["chips"][0]["hbm_used_mb"]
    node["processes"] = [{"npu_id": 0, "chip_id": 0, "pid": 99, "name": "python", "memory_mb": 50000,
                          "container_pid": None}]
    node["chips"][0]["hbm_used_mb"] = idle + 50000
    node["chips"][0]["aicore_pct"] = 87
    node["hccn"]["0"]["address"] = "29.0.0.9"  # set at runtime, never saved to hccn.conf
    hccn_tool.conf_set(hccn_tool.conf_path(), "address", 1, "29.0.0.2")
    hccn_tool.conf_set(hccn_tool.conf_path(), "netmask", 1, "255.255.255.0")
    write_versions(root, driver="24.1.rc3")
    apply_boot(node, root=str(root))
    assert node["processes"] == []
    assert node["chips"][0]["hbm_used_mb"] == idle and node["chips"][0]["aicore_pct"] == 0
    assert node["hccn"]["0"]["address"] is None
    assert node["hccn"]["1"]["address"] == "29.0.0.2" and node["hccn"]["1"]["netmask"] == "255.255.255.0"


def test_cli_init_boot_set_get(root, capsys):
    assert cli.main(["init", "--profile", "310p3-duo"]) == 0
    path = root / "etc" / "ascend-sim" / "state.json"
    assert load_state(str(path))["driver"]["running"] is None
    assert (root / "var/lib/ascend-sim/sys/bus/pci/devices/0000:85:00.0/device").read_text() == "0xd500\n"
    # a second init must not wipe a node silently
    assert cli.main(["init", "--profile", "a2-910b3"]) == 1
    assert load_state(str(path))["profile"] == "310p3-duo"
    assert cli.main(["init", "--profile", "a2-910b3", "--force", "--driver", "24.1.0"]) == 0
    assert load_state(str(path))["driver"]["running"] == "24.1.0"

    write_versions(root, driver="25.0.rc1", firmware="7.7.0.1.231")
    assert cli.main(["set", "driver.pending=true", 'chips.1.health="Warning"']) == 0
    assert load_state(str(path))["driver"]["pending"] is True
    assert cli.main(["boot"]) == 0
    node = load_state(str(path))
    assert node["driver"] == {"running": "25.0.rc1", "pending": False}
    assert node["chips"][1]["health"] == "Warning"
    capsys.readouterr()
    assert cli.main(["get", "firmware.running"]) == 0
    assert capsys.readouterr().out == '"7.7.0.1.231"\n'
    assert cli.main(["get", "chips.99.health"]) == 1


def test_cli_explicit_state_and_sysfs_paths(tmp_path, monkeypatch):
    monkeypatch.delenv("ASCEND_SIM_ROOT", raising=False)
    state_file = tmp_path / "node.json"
    tree = tmp_path / "sys"
    assert cli.main(["init", "--profile", "a3-9392", "--state", str(state_file), "--sysfs-root", str(tree)]) == 0
    assert load_state(str(state_file))["sysfs_root"] == str(tree)
    assert len(os.listdir(tree / "bus" / "pci" / "devices")) == 16


def test_cli_boot_without_state_fails(root):
    assert cli.main(["boot"]) == 1
