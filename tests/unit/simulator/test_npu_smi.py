"""npu-smi behaviour beyond the captured layouts: errors, exit codes, queries, state effects."""
import io

import pytest

from ascend_sim import npu_smi
from ascend_sim.state import new_state, save_state


def run(argv, state):
    out = io.StringIO()
    rc = npu_smi.main(argv, state=state, stdout=out)
    return rc, out.getvalue()


@pytest.fixture
def a2():
    return new_state("a2-910b3", driver="24.1.rc3", firmware="7.5.0.1.129")


@pytest.fixture(autouse=True)
def isolated_root(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_SIM_ROOT", str(tmp_path))
    monkeypatch.delenv("ASCEND_SIM_STATE", raising=False)
    return tmp_path


def mark_installed(root):
    info = root / "etc" / "ascend_install.info"
    info.parent.mkdir(parents=True, exist_ok=True)
    info.write_text("UserName=HwHiAiUser\nUserGroup=HwHiAiUser\nDriver_Install_Status=complete\n")


def test_no_running_driver_fails_like_dcmi(a2):
    a2["driver"]["running"] = None
    for argv in (["info"], ["info", "-m"], ["-v"], ["info", "-t", "board", "-i", "0"]):
        rc, out = run(argv, a2)
        assert (rc, out) == (187, "dcmi module initialize failed. ret is -8005\n")


def test_injected_busy_device(a2):
    a2["inject"]["dcmi_init_ret"] = -8020
    rc, out = run(["info"], a2)
    assert rc == 0xFF & -8020
    assert out == "dcmi model initialized failed, because the device is used. ret is -8020\n"


def test_missing_state_file_means_no_driver(isolated_root):
    out = io.StringIO()
    assert npu_smi.main(["info"], stdout=out) == 187
    assert "dcmi module initialize failed" in out.getvalue()


def test_state_file_is_read_when_no_state_given(a2, isolated_root):
    save_state(a2, str(isolated_root / "etc" / "ascend-sim" / "state.json"))
    out = io.StringIO()
    assert npu_smi.main(["-v"], stdout=out) == 0
    assert out.getvalue() == "npu-smi version: 24.1.rc3\n"


def test_version_and_help(a2):
    assert run(["-v"], a2) == (0, "npu-smi version: 24.1.rc3\n")
    a2["npu_smi_version"] = "24.1.rc3.b080"
    assert run(["-v"], a2)[1] == "npu-smi version: 24.1.rc3.b080\n"
    rc, out = run(["-h"], a2)
    assert rc == 0 and out.startswith("Usage: npu-smi <Command|-h|-v> [Options...]\n")
    assert "\tinfo          Show hardware details\n" in out


def test_no_arguments_and_unknown_command(a2):
    rc, out = run([], a2)
    assert rc == 215 and out.startswith("Usage: npu-smi")
    rc, out = run(["profile"], a2)
    assert rc == 211 and out.startswith("Command or option is not found.\nUsage: npu-smi")


def test_invalid_card_id(a2):
    for bad in ("8", "-1", "x"):
        rc, out = run(["info", "-t", "board", "-i", bad], a2)
        assert rc == 215
        assert out.startswith("Invalid card id.\nError parameter of -i\nUsage: npu-smi info <watch|proc|")
        assert out.endswith("       -p %d          Chip Physical ID\n")


def test_invalid_chip_id(a2):
    rc, out = run(["info", "-t", "board", "-i", "0", "-c", "2"], a2)
    assert rc == 215 and out.startswith("Invalid chip id.\nError parameter of -c\n")


def test_query_without_card_id_and_unknown_type(a2):
    rc, out = run(["info", "-t", "board"], a2)
    assert rc == 215 and out.startswith("\nThis command must input card id.\n\n")
    rc, out = run(["info", "-t", "nonsense", "-i", "0"], a2)
    assert rc == 215 and out.startswith("Error parameter of -t\n")
    rc, out = run(["info", "-t", "board", "-m"], a2)
    assert rc == 215 and out.startswith("Error parameter of -m\n")


def test_driver_install_warning_follows_install_info(a2, isolated_root):
    rc, out = run(["info"], a2)
    assert rc == 0
    assert out.endswith("[WARNING]The driver package may not be completely installed, "
                        "which may cause function abnormal. Please reinstall it.\n")
    mark_installed(isolated_root)
    rc, out = run(["info"], a2)
    assert out == npu_smi.render_info(a2)


def test_table_shows_health_processes_and_versions(a2, isolated_root):
    mark_installed(isolated_root)
    a2["chips"][2]["health"] = "Critical"
    a2["processes"] = [
        {"npu_id": 2, "chip_id": 0, "pid": 4242, "name": "python3", "memory_mb": 61000, "container_pid": None},
        {"npu_id": 2, "chip_id": 0, "pid": 4243, "name": "", "memory_mb": 12, "container_pid": None},
    ]
    lines = run(["info"], a2)[1].splitlines()
    assert lines[1].startswith("| npu-smi 24.1.rc3                 Version: 24.1.rc3 ")
    assert any(line.startswith("| 2     910B3               | Critical      | 90.0        49 ") for line in lines)
    assert "| 2       0                 | 4242          | python3                  | 61000                   |" in lines
    assert "| 2       0                 | 4243          |                          | 12                      |" in lines
    assert not any("No running processes found in NPU 2 " in line for line in lines)
    assert sum("No running processes found" in line for line in lines) == 7


def test_driver_26_switches_to_the_wide_table(a2, isolated_root):
    mark_installed(isolated_root)
    a2["driver"]["running"] = "26.0.rc1"
    a2["processes"] = [{"npu_id": 0, "chip_id": 0, "pid": 7, "name": "vllm", "memory_mb": 100, "container_pid": 31}]
    lines = run(["info"], a2)[1].splitlines()
    assert {len(line) for line in lines} == {116}
    assert "| 0       0                 | 7             | vllm               | 100                   | 31" \
           "                      |" in lines


def test_board_queries(a2):
    out = run(["info", "-t", "board", "-i", "3"], a2)[1]
    assert "\tSoftware Version               : 24.1.rc3\n" in out
    assert "\tFirmware Version               : 7.5.0.1.129\n" in out
    assert "\tPCIe Bus Info                  : 0000:82:00.0\n" in out
    assert "\tPCI Device ID                  : 0xD802\n" in out
    chip = run(["info", "-t", "board", "-i", "3", "-c", "0"], a2)[1]
    assert chip.startswith("\tNPU ID                         : 3\n\tChip ID                        : 0\n"
                           "\tChip Type                      : Ascend\n\tChip Name                      : 910B3\n")
    mcu = run(["info", "-t", "board", "-i", "3", "-c", "1"], a2)[1]
    assert "\tChip Name                      : MCU\n" in mcu
    a2["firmware"]["running"] = None
    assert "\tFirmware Version               : NA\n" in run(["info", "-t", "board", "-i", "3"], a2)[1]


def test_a3_board_and_mapping():
    a3 = new_state("a3-9392", driver="25.3.rc1")
    chip = run(["info", "-t", "board", "-i", "5", "-c", "1"], a3)[1]
    assert chip.startswith("\tNPU ID                         : 5\n\tNPU Name                       : 9392\n"
                           "\tChip ID                        : 1\n\tChip Name                      : Ascend910\n")
    assert "Chip Type" not in chip
    mapping = run(["info", "-m"], a3)[1].splitlines()
    assert mapping[0].split() == ["NPU", "ID", "Chip", "ID", "Chip", "Logic", "ID", "Chip", "Phy-ID", "Chip", "Name"]
    assert mapping[12].split() == ["5", "1", "11", "11", "Ascend910"]
    assert len(mapping) == 17  # no MCU rows on A3


def test_health_queries(a2):
    out = run(["info", "-t", "health", "-i", "1", "-c", "0"], a2)[1]
    assert out == ("\tHealth Status                  : OK\n\tError Code                     : NA\n"
                   "\tError Information              : NA\n")
    a2["chips"][1].update({"health": "Warning", "error_codes": [0x80E01801],
                           "error_info": ["node type=SOC, sensor type=Temperature"]})
    out = run(["info", "-t", "health", "-i", "1"], a2)[1]
    assert "\tHealth Status                  : Warning\n" in out
    assert "\tError Code                     : 80E01801\n" in out
    assert "\tError Information              : node type=SOC, sensor type=Temperature\n" in out
    assert out.endswith("\tChip ID                        : 0\n")


def test_usages_follow_memory_in_state(a2):
    a2["chips"][4]["hbm_used_mb"] = 58982
    a2["chips"][4]["aicore_pct"] = 63
    out = run(["info", "-t", "usages", "-i", "4"], a2)[1]
    assert "\tHBM Usage Rate(%)              : 89\n" in out
    assert "\tAicore Usage Rate(%)           : 63\n" in out
    duo = new_state("310p3-duo", driver="24.1.0.1")
    out = run(["info", "-t", "usages", "-i", "32768", "-c", "1"], duo)[1]
    assert "\tDDR Capacity(MB)               : 21527\n\tDDR Usage Rate(%)              : 8\n" in out
    assert "HBM" not in out and out.count("Chip ID") == 1


def test_memory_temp_power_common_ecc(a2):
    memory = run(["info", "-t", "memory", "-i", "0"], a2)[1]
    assert "\tHBM Capacity(MB)               : 65536\n\tHBM Clock Speed(MHz)           : 1600\n" in memory
    temp = run(["info", "-t", "temp", "-i", "0"], a2)[1]
    assert "\tNPU Temperature (C)            : 50\n" in temp and "LM75A_TE (C)" in temp
    power = run(["info", "-t", "power", "-i", "7"], a2)[1]
    assert "\tNPU Real-time Power(W)         : 93.3\n" in power
    common = run(["info", "-t", "common", "-i", "0"], a2)[1]
    assert "\tAicore Count                   : 20\n" in common and "\tChip Name                      : mcu\n" in common
    ecc = run(["info", "-t", "ecc", "-i", "0"], a2)[1]
    assert "\tHBM Double Bit Error Count               : 0\n" in ecc
    a3 = new_state("a3-9392", driver="25.3.rc1")
    assert "\tNPU Real-time Power(W)         : NA\n" in run(["info", "-t", "power", "-i", "2", "-c", "1"], a3)[1]


def test_list_for_cards_names_product_and_serial():
    duo = new_state("310p3-duo", driver="24.1.0.1")
    out = run(["info", "-l"], duo)[1]
    assert out.startswith("\tTotal Count                    : 4\n\n\tNPU ID                         : 0\n"
                          "\tProduct Name                   : Atlas 300I Duo\n")
    assert out.count("Chip Count                     : 2") == 4
    assert out.endswith(": 2\n\n")  # npu-smi ends every entry with a blank line


def test_topology_of_cards_and_a3():
    duo = new_state("310p3-duo", driver="24.1.0.1")
    lines = run(["info", "-t", "topo"], duo)[1].splitlines()
    assert lines[1].split()[:3] == ["NPU0", "X", "PHB"]
    assert lines[1].split()[4:6] == ["SYS", "SYS"]  # chips on the other socket
    a3 = new_state("a3-9392", driver="25.3.rc1")
    lines = run(["info", "-t", "topo"], a3)[1].splitlines()
    assert lines[0].startswith("\t   Phy-ID0    Phy-ID1")
    assert "CPU Affinity" not in lines[0]
    assert lines[1].split()[:4] == ["Phy-ID0", "X", "SIO", "HCCS_SW"]


def test_310p_fault_count_and_no_card():
    duo = new_state("310p3-duo", driver="24.1.0.1")
    duo["chips"][3]["health"] = "Alarm"
    assert "\tChip Fault                     : 1\n" in run(["info", "-t", "board", "-i", "96"], duo)[1]
    assert "\tChip Fault                     : 0\n" in run(["info", "-t", "board", "-i", "0"], duo)[1]
    empty = dict(duo, chips=[])
    assert run(["info"], empty) == (0, "There is no NPU card on this server.\n")
