"""Stand-in npu-exporter: metric names, labels and values from the node state; flags and start-up
refusals as the real program's main.go; the packaged zip; a real scrape over HTTP."""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile

import pytest

from ascend_sim import npu_exporter, packages
from ascend_sim.state import new_state, save_state

SIM = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "simulator")


def series(text, name):
    """{id: value} of one metric family in the exposition text."""
    found = {}
    for line in text.splitlines():
        if line.startswith(name + "{"):
            labels, rest = line[len(name) + 1:].rsplit("} ", 1)
            value = rest.split()[0]
            fields = dict(item.split("=", 1) for item in labels.split('",') if item)
            found[fields["id"].strip('"')] = float(value)
    return found


def test_healthy_a2_node_exports_every_chip():
    text = npu_exporter.render(new_state("a2-910b3", driver="25.5.0"))
    assert "machine_npu_nums 8\n" in text
    assert "# TYPE npu_chip_info_health_status gauge" in text
    assert series(text, "npu_chip_info_health_status") == {str(i): 1.0 for i in range(8)}
    assert series(text, "npu_chip_info_temperature")["0"] == 50.0
    assert series(text, "npu_chip_info_hbm_total_memory")["3"] == 65536.0
    assert series(text, "npu_chip_info_link_status")["7"] == 1.0
    line = next(x for x in text.splitlines() if x.startswith("npu_chip_info_health_status{"))
    assert line.startswith('npu_chip_info_health_status{container_name="",id="0",model_name="910B3-Ascend-V1",'
                           'namespace="",pcie_bus_info="0000:C1:00.0",pod_name="",vdie_id="800D3BBF ')


def test_unhealthy_hot_chip_and_link_down_change_the_values():
    state = new_state("a2-910b3", driver="25.5.0")
    state["chips"][2]["health"] = "Alarm"
    state["chips"][5]["temp_c"] = 91
    state["hccn"]["4"]["link"] = "DOWN"
    text = npu_exporter.render(state)
    health = series(text, "npu_chip_info_health_status")
    assert health["2"] == 0.0 and health["1"] == 1.0
    assert series(text, "npu_chip_info_temperature")["5"] == 91.0
    assert series(text, "npu_chip_info_link_status")["4"] == 0.0
    # A NIC without a detect address reports Init, which npu-exporter counts as healthy.
    assert series(text, "npu_chip_info_network_status")["0"] == 1.0


def test_network_status_follows_net_health():
    state = new_state("a2-910b3", driver="25.5.0")
    state["hccn"]["1"]["netdetect"] = "192.168.1.254"
    state["hccn"]["2"]["net_health"] = "Detect fail"
    status = series(npu_exporter.render(state), "npu_chip_info_network_status")
    assert (status["1"], status["2"]) == (1.0, 0.0)


def test_chip_samples_carry_the_cache_time():
    text = npu_exporter.render(new_state("a2-910b3", driver="25.5.0"), 1764729600000)
    assert "machine_npu_nums 8\n" in text
    lines = [line for line in text.splitlines() if line.startswith("npu_chip_info_")]
    assert lines and all(line.endswith(" 1764729600000") for line in lines)


def test_310p_has_no_hbm_or_network_metrics():
    text = npu_exporter.render(new_state("310p3-duo", driver="25.5.0"))
    assert "npu_chip_info_health_status{" in text
    assert "npu_chip_info_hbm_used_memory" not in text
    assert "npu_chip_info_network_status" not in text


@pytest.mark.parametrize("argv, expected", [
    (["-ip=127.0.0.1", "-port", "9000"], {"ip": "127.0.0.1", "port": "9000", "updateTime": "5"}),
    (["--ip", "10.0.0.1", "-updateTime=2"], {"ip": "10.0.0.1", "port": "8082", "updateTime": "2"}),
])
def test_go_style_flags(argv, expected):
    flags = npu_exporter.parse_flags(argv)
    assert {key: flags[key] for key in expected} == expected


def test_unknown_flag_is_a_usage_error(capsys):
    assert npu_exporter.main(["-listen=1.2.3.4"]) == 2
    assert "flag provided but not defined: -listen" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["-port=8082"], "the listen ip is invalid"),
    (["-ip=127.0.0.1", "-port=80"], "the port is invalid"),
    (["-ip=127.0.0.1", "-updateTime=61"], "the updateTime is invalid"),
])
def test_bad_values_are_logged_and_end_with_status_0(tmp_path, capsys, argv, message):
    log = tmp_path / "npu-exporter.log"
    assert npu_exporter.main(argv + ["-logFile=%s" % log]) == 0
    assert log.read_text().splitlines()[-1].endswith(message)
    # hwlog writes to standard output as well.
    assert capsys.readouterr().out.splitlines()[-1].endswith(message)


def test_other_options_of_the_real_program_are_accepted():
    flags = npu_exporter.parse_flags(["-ip=127.0.0.1", "-containerMode=containerd", "-limitIPReq=20/1",
                                      "-deviceResetTimeout", "60"])
    assert flags["ip"] == "127.0.0.1"


def test_another_platform_is_refused(capsys):
    assert npu_exporter.main(["-platform=Telegraf"]) == 0
    assert capsys.readouterr().err == "platform is not supported:Telegraf\n"


def test_no_dcmi_library_no_start(tmp_path, monkeypatch):
    monkeypatch.setenv("LD_LIBRARY_PATH", str(tmp_path))
    log = tmp_path / "npu-exporter.log"
    assert npu_exporter.main(["-ip=127.0.0.1", "-logFile=%s" % log]) == 0
    assert log.read_text().splitlines()[-1].endswith(
        "new npu collector failed, error is dcmi lib load failed, libdcmi.so not found on LD_LIBRARY_PATH")


def test_no_driver_running_no_start(tmp_path, monkeypatch):
    (tmp_path / "libdcmi.so").write_text("")
    monkeypatch.setenv("LD_LIBRARY_PATH", str(tmp_path))
    state_file = tmp_path / "state.json"
    save_state(new_state("a2-910b3"), str(state_file))
    monkeypatch.setenv("ASCEND_SIM_STATE", str(state_file))
    log = tmp_path / "npu-exporter.log"
    assert npu_exporter.main(["-ip=127.0.0.1", "-logFile=%s" % log]) == 0
    assert log.read_text().splitlines()[-1].endswith("new npu collector failed, error is dcmi init failed, ret = -8005")


def _free_port():
    """A free port in npu-exporter's range (1025-40000; the kernel's own picks lie above it)."""
    for port in range(31000, 31100):
        with socket.socket() as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise AssertionError("no free port in 31000-31099")


def test_serves_metrics_over_http_and_rereads_the_state(tmp_path):
    (tmp_path / "libdcmi.so").write_text("")
    state_file = tmp_path / "state.json"
    state = new_state("a2-910b3", driver="25.5.0")
    save_state(state, str(state_file))
    port = _free_port()
    env = dict(os.environ, PYTHONPATH=SIM, LD_LIBRARY_PATH=str(tmp_path), ASCEND_SIM_STATE=str(state_file))
    proc = subprocess.Popen([sys.executable, "-m", "ascend_sim", "npu-exporter", "-ip=127.0.0.1", "-port=%d" % port,
                             "-updateTime=1", "-logFile=%s" % (tmp_path / "log")], env=env)
    try:
        url = "http://127.0.0.1:%d/metrics" % port
        text = ""
        for _ in range(50):
            try:
                text = urllib.request.urlopen(url, timeout=2).read().decode()
                break
            except OSError:
                time.sleep(0.1)
        assert text, (tmp_path / "log").read_text()
        assert series(text, "npu_chip_info_health_status")["6"] == 1.0
        state["chips"][6]["health"] = "Critical"
        save_state(state, str(state_file))
        for _ in range(30):
            text = urllib.request.urlopen(url, timeout=2).read().decode()
            if series(text, "npu_chip_info_health_status")["6"] == 0.0:
                break
            time.sleep(0.2)
        assert series(text, "npu_chip_info_health_status")["6"] == 0.0
    finally:
        proc.terminate()
        proc.wait(10)


def test_package_zip_holds_the_release_layout(tmp_path):
    name, status = packages.build_npu_exporter(str(tmp_path), "aarch64")
    assert (name, status) == ("Ascend-mindxdl-npu-exporter_26.0.0_linux-aarch64.zip", "built")
    first = (tmp_path / name).read_bytes()
    assert packages.build_npu_exporter(str(tmp_path), "aarch64")[1] == "up-to-date"
    assert (tmp_path / name).read_bytes() == first
    with zipfile.ZipFile(str(tmp_path / name)) as archive:
        modes = {info.filename: (info.external_attr >> 16) & 0o777 for info in archive.infolist()}
    assert modes == {"npu-exporter": 0o500, "metricConfiguration.json": 0o400, "pluginConfiguration.json": 0o400}
    with zipfile.ZipFile(str(tmp_path / name)) as archive:
        groups = json.loads(archive.read("metricConfiguration.json"))
        plugins = json.loads(archive.read("pluginConfiguration.json"))
    assert [g["metricsGroup"] for g in groups][:5] == ["ddr", "hccs", "npu", "network", "network-npu"]
    assert {g["state"] for g in groups} == {"ON"}
    assert plugins == [{"metricsGroup": "text", "state": "ON"}, {"metricsGroup": "MyPlugin", "state": "OFF"}]


class _Log(object):
    def __init__(self):
        self.lines = []

    def write(self, level, where, message):
        self.lines.append((level, message))


def test_metric_groups_come_from_usr_local_only(tmp_path, monkeypatch):
    # metrics_config.go at v26.0.0: /usr/local/metricConfiguration.json; missing -> every group.
    monkeypatch.setenv("ASCEND_SIM_ROOT", str(tmp_path))
    log = _Log()
    assert npu_exporter.load_groups(log) == set(npu_exporter.GROUPS)
    assert log.lines == [("WARN", "load config from file /usr/local/metricConfiguration.json failed, use default config")]
    (tmp_path / "usr" / "local").mkdir(parents=True)
    config = tmp_path / "usr" / "local" / "metricConfiguration.json"
    config.write_text(json.dumps([{"metricsGroup": g, "state": "OFF" if g == "hbm" else "ON"} for g in npu_exporter.GROUPS]))
    groups = npu_exporter.load_groups(log)
    assert groups == set(npu_exporter.GROUPS) - {"hbm"}
    text = npu_exporter.render(new_state("a2-910b3", driver="25.5.0"), groups=groups)
    assert series(text, "npu_chip_info_hbm_used_memory") == {} and len(series(text, "npu_chip_info_health_status")) == 8
    # Not JSON: logged, and no group at all (initConfiguration returns before filling the list).
    config.write_text("{not json")
    log = _Log()
    assert npu_exporter.load_groups(log) == set()
    assert log.lines[0][0] == "ERROR" and log.lines[0][1].startswith("unmarshal config byte failed: ")
    assert npu_exporter.render(new_state("a2-910b3", driver="25.5.0"), groups=set()) == "\n"
