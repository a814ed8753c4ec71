"""hccn_tool: settings persisted in hccn.conf, getters, error texts and exit codes, ping reachability."""
import io
import json

import pytest

from ascend_sim import hccn_tool
from ascend_sim.state import apply_boot, load_state, new_state, save_state


class Node:
    """A simulated node in tmp_path, driven through hccn_tool.main like the shell would."""

    def __init__(self, root, profile="a2-910b3"):
        self.root = root
        self.state_file = str(root / "etc" / "ascend-sim" / "state.json")
        save_state(new_state(profile, driver="24.1.rc3"), self.state_file)
        self.peers = {}
        self.resolvable = set()
        self.hostname = "node-a"

    def resolve(self, name):
        if name not in self.resolvable:
            raise OSError("Name or service not known")
        return "10.88.0.%d" % (len(name) + 1)

    def run(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        rc = hccn_tool.main(list(argv), peers=self.peers, hostname=self.hostname, resolve=self.resolve,
                            stdout=out, stderr=err)
        return rc, out.getvalue(), err.getvalue()

    @property
    def state(self):
        return load_state(self.state_file)

    def conf(self):
        path = self.root / "etc" / "hccn.conf"
        return path.read_text() if path.exists() else ""


@pytest.fixture
def node(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_SIM_ROOT", str(tmp_path))
    for var in ("ASCEND_SIM_STATE", "ASCEND_SIM_HCCN_CONF", "ASCEND_SIM_PEERS"):
        monkeypatch.delenv(var, raising=False)
    return Node(tmp_path)


def configure(node, device, address, netmask="255.255.255.0"):
    assert node.run("-i", str(device), "-ip", "-s", "address", address, "netmask", netmask)[0] == 0


def test_ip_set_persists_in_state_and_hccn_conf(node):
    rc, out, err = node.run("-i", "0", "-ip", "-s", "address", "29.0.0.1", "netmask", "255.255.255.0")
    assert (rc, out, err) == (0, "Cmd executed successfully!\n", "")
    configure(node, 1, "29.0.0.2")
    assert node.conf() == ("address_0=29.0.0.1\nnetmask_0=255.255.255.0\n"
                           "address_1=29.0.0.2\nnetmask_1=255.255.255.0\n")
    assert node.state["hccn"]["1"]["address"] == "29.0.0.2"
    assert node.run("-i", "1", "-ip", "-g") == (0, "ipaddr:29.0.0.2\nnetmask:255.255.255.0\n", "")
    # changing an address rewrites its line in place
    configure(node, 0, "29.0.1.1", "255.255.0.0")
    assert node.conf().splitlines()[:2] == ["address_0=29.0.1.1", "netmask_0=255.255.0.0"]


def test_conf_keeps_foreign_lines(node):
    (node.root / "etc").mkdir(exist_ok=True)
    (node.root / "etc" / "hccn.conf").write_text("mtu_3=9000\naddress_0=1.1.1.1\n")
    configure(node, 0, "29.0.0.1")
    assert node.conf() == "mtu_3=9000\naddress_0=29.0.0.1\nnetmask_0=255.255.255.0\n"


def test_ip_get_without_address(node):
    assert node.run("-i", "4", "-ip", "-g") == (13, "", "Get ipconf failed, because no ip was preset there!\n")


@pytest.mark.parametrize("address, netmask", [("29.0.0.256", "255.255.255.0"), ("29.0.0.1", "255.0.255.0"),
                                              ("abc", "255.255.255.0"), ("29.0.0.1", "0.0.0.0")])
def test_ip_set_rejects_invalid_values(node, address, netmask):
    rc, out, err = node.run("-i", "0", "-ip", "-s", "address", address, "netmask", netmask)
    assert (rc, out, err) == (6, "", "The ip address you configured is invalid!\n")
    assert node.conf() == ""


def test_ip_set_conflicts(node):
    configure(node, 0, "29.0.0.1")
    assert node.run("-i", "1", "-ip", "-s", "address", "29.0.0.1", "netmask", "255.255.255.0") == \
        (7, "", "The ip address configured is conflicted!\n")
    # the device vNIC host network is off limits
    assert node.run("-i", "2", "-ip", "-s", "address", "192.168.1.20", "netmask", "255.255.255.0")[0] == 7


def test_argument_errors(node):
    assert node.run("-i", "0", "-ip", "-s", "address", "29.0.0.1") == \
        (4, "", "The total count of input parameters is wrong!\n")
    assert node.run("-i", "0", "-ip", "-x") == (3, "", "Get unknown option!\n")
    assert node.run("-i", "0", "-ip", "-s", "addr", "29.0.0.1", "netmask", "255.255.255.0")[0] == 3
    assert node.run("-i", "0", "-bogus", "-g") == \
        (3, "", "Get invalid major cmd.\nEnter [ hccn_tool -h ] for more details.\n")
    assert node.run("-x", "0", "-ip", "-g")[0] == 1
    assert node.run("-i")[0] == 2


@pytest.mark.parametrize("device", ["8", "99", "123", "a"])
def test_invalid_device(node, device):
    assert node.run("-i", device, "-link", "-g") == (4, "", "Get invalid device id.\n")


def test_no_driver_means_no_device(node):
    state = node.state
    state["driver"]["running"] = None
    save_state(state, node.state_file)
    assert node.run("-i", "0", "-link", "-g") == (4, "", "Get invalid device id.\n")


def test_missing_state_file_means_no_device(node):
    import os
    os.unlink(node.state_file)
    assert node.run("-i", "0", "-ip", "-g") == (4, "", "Get invalid device id.\n")


def test_310p_cards_have_no_roce_port(tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_SIM_ROOT", str(tmp_path))
    duo = Node(tmp_path, profile="310p3-duo")
    assert duo.run("-i", "0", "-ip", "-g") == (13, "The command is not supported on this product.\n", "")


def test_gateway_rules(node):
    assert node.run("-i", "0", "-gateway", "-s", "gateway", "29.0.0.254") == \
        (26, "", "Unable to configure gateway, because ip is not configured!\n")
    configure(node, 0, "29.0.0.1")
    assert node.run("-i", "0", "-gateway", "-g") == \
        (2, "", "Get gateway failed, because no gateway was preset there!\n")
    assert node.run("-i", "0", "-gateway", "-s", "gateway", "30.0.0.254") == \
        (8, "", "The segment of configured gateway doesn't match that of the configured ip adress!\n")
    assert node.run("-i", "0", "-gateway", "-s", "gateway", "29.0.0.254")[0] == 0
    assert node.run("-i", "0", "-gateway", "-g") == (0, "default gateway:29.0.0.254, Iface:eth0\n", "")
    assert "gateway_0=29.0.0.254\n" in node.conf()
    # moving the address to another segment drops the gateway that no longer fits
    configure(node, 0, "30.0.0.1")
    assert "gateway_0" not in node.conf()
    assert node.state["hccn"]["0"]["gateway"] is None


def test_netdetect_and_net_health(node):
    assert node.run("-i", "3", "-net_health", "-g") == (0, "net health status: Init\n", "")
    assert node.run("-i", "3", "-netdetect", "-g") == (0, "netdetect address: 0.0.0.0\n", "")
    assert node.run("-i", "3", "-netdetect", "-s", "address", "29.0.0.254")[0] == 0
    assert node.run("-i", "3", "-netdetect", "-g") == (0, "netdetect address: 29.0.0.254\n", "")
    assert node.run("-i", "3", "-net_health", "-g") == (0, "net health status: Success\n", "")
    assert "netdetect_3=29.0.0.254\n" in node.conf()
    assert node.run("-i", "3", "-netdetect", "-s", "address", "255.255.255.255") == \
        (0x25, "", "Can not config broadcast address!\n")
    state = node.state
    state["hccn"]["3"]["net_health"] = "Fault"
    save_state(state, node.state_file)
    assert node.run("-i", "3", "-net_health", "-g")[1] == "net health status: Fault\n"


def test_link_and_lldp(node):
    assert node.run("-i", "5", "-link", "-g") == (0, "link status: UP\n", "")
    rc, out, _ = node.run("-i", "5", "-lldp", "-g")
    assert rc == 0 and "\tIfname: 400GE1/3/5:2\n" in out and out.startswith("Chassis ID TLV\n")
    state = node.state
    state["hccn"]["5"]["link"] = "DOWN"
    save_state(state, node.state_file)
    assert node.run("-i", "5", "-link", "-g") == (0, "link status: DOWN\n", "")
    assert node.run("-i", "5", "-lldp", "-g") == (22, "", "Execute failed: Link status is down.\n")
    assert node.run("-i", "5", "-net_health", "-g")[1] == "net health status: Fault\n"


# hicann/hccl docs/zh/user_guide/fault_diagnosis/tls_info_config_inconsistent_EI0016.md: the output of
# "hccn_tool -i 0 -tls -g" (device 0, TLS off).
TLS_CAPTURE = """dev_id:0, tls switch[0](0:disable, 1:enable), tls alarm time threshold[60]days
dev_id:0, [pub cert] info:
         issuer[/C=CN/ST=GD/O=HUAWEI/OU=2012/CN=2_1thCA]
         start_time[Wed Feb 19 03:19:21 2020 GMT]
         end_time[Sat Feb 16 03:19:21 2030 GMT]
dev_id:0, [ca1 cert] info:
         issuer[/C=CN/ST=GD/L=SZ/O=HUAWEI/CN=1thCA]
         start_time[Wed Feb 19 03:19:07 2020 GMT]
         end_time[Sat Feb 16 03:19:07 2030 GMT]
dev_id:0, [ca2 cert] info:
         issuer[/C=CN/ST=GD/L=SZ/O=HUAWEI/CN=1thCA]
         start_time[Wed Feb 19 03:19:10 2020 GMT]
         end_time[Sat Feb 16 03:19:10 2030 GMT]
"""


def test_tls_get_prints_the_published_layout(node):
    assert node.run("-i", "0", "-tls", "-g") == (0, TLS_CAPTURE, "")
    state = node.state
    state["hccn"]["6"]["tls"] = 1
    save_state(state, node.state_file)
    rc, out, _ = node.run("-i", "6", "-tls", "-g")
    assert rc == 0 and out.splitlines()[0] == "dev_id:6, tls switch[1](0:disable, 1:enable), tls alarm time threshold[60]days"
    assert node.run("-i", "6", "-tls", "-x")[0] != 0


def test_ping_reaches_only_resolvable_other_nodes(node):
    configure(node, 0, "29.0.0.1")
    node.peers = {"node-a": ["29.0.0.1", "29.0.0.2"], "node-b": ["29.0.0.11", "29.0.0.12"],
                  "node-c": ["29.0.0.21"]}
    node.resolvable = {"node-a", "node-b"}
    rc, out, err = node.run("-i", "0", "-ping", "-g", "address", "29.0.0.11")
    lines = out.splitlines()
    assert rc == 0 and err == ""
    assert lines[0] == "device 0 PING 29.0.0.11"
    assert [line.split(",")[0] for line in lines[1:4]] == ["recv seq=0", "recv seq=1", "recv seq=2"]
    assert all(line.endswith("ms") and ",time=0." in line for line in lines[1:4])
    assert lines[4] == "3 packets transmitted, 3 received, 0.00% packet loss"
    # the node's own NPU addresses, unknown addresses and nodes that do not resolve time out
    for target in ("29.0.0.2", "29.0.0.99", "29.0.0.21"):
        rc, out, err = node.run("-i", "0", "-ping", "-g", "address", target)
        assert rc == 100 and err == "Cmd execute failed!\n"
        assert out.splitlines()[1:] == ["recv time out seq=0", "recv time out seq=1", "recv time out seq=2",
                                        "3 packets transmitted, 0 received, 100.00% packet loss"]


def test_ping_needs_a_route_and_an_address(node):
    node.peers = {"node-b": ["30.0.0.11"]}
    node.resolvable = {"node-b"}
    assert node.run("-i", "0", "-ping", "-g", "address", "30.0.0.11")[0] == 13
    configure(node, 0, "29.0.0.1")
    assert node.run("-i", "0", "-ping", "-g", "address", "30.0.0.11")[0] == 100
    assert node.run("-i", "0", "-gateway", "-s", "gateway", "29.0.0.254")[0] == 0
    rc, out, _ = node.run("-i", "0", "-ping", "-g", "address", "30.0.0.11", "pkt", "5")
    assert rc == 0 and out.splitlines()[-1] == "5 packets transmitted, 5 received, 0.00% packet loss"


def test_ping_output_is_deterministic(node):
    configure(node, 0, "29.0.0.1")
    node.peers = {"node-b": ["29.0.0.11"]}
    node.resolvable = {"node-b"}
    assert node.run("-i", "0", "-ping", "-g", "address", "29.0.0.11") == \
        node.run("-i", "0", "-ping", "-g", "address", "29.0.0.11")


def test_ping_reads_peer_file_and_resolver_defaults(node, monkeypatch):
    configure(node, 2, "29.0.0.3")
    peers = node.root / "etc" / "ascend-sim" / "peers.json"
    peers.write_text(json.dumps({"localhost": ["29.0.0.40"], "no-such-host.invalid": ["29.0.0.41"]}))
    monkeypatch.setattr(hccn_tool.socket, "gethostname", lambda: "node-a")

    def fake_dns(name):  # no lookups leave the machine
        if name != "localhost":
            raise hccn_tool.socket.gaierror(-2, "Name or service not known")
        return "127.0.0.1"
    monkeypatch.setattr(hccn_tool.socket, "gethostbyname", fake_dns)
    out, err = io.StringIO(), io.StringIO()
    assert hccn_tool.main(["-i", "2", "-ping", "-g", "address", "29.0.0.40"], stdout=out, stderr=err) == 0
    assert hccn_tool.main(["-i", "2", "-ping", "-g", "address", "29.0.0.41"], stdout=out, stderr=err) == 100


def test_boot_restores_settings_saved_in_hccn_conf(node, tmp_path):
    configure(node, 0, "29.0.0.1")
    assert node.run("-i", "0", "-netdetect", "-s", "address", "29.0.0.254")[0] == 0
    state = node.state
    state["hccn"]["0"]["address"] = "29.9.9.9"
    state["hccn"]["6"]["address"] = "29.0.0.7"  # runtime only
    apply_boot(state, root=str(tmp_path))
    assert state["hccn"]["0"]["address"] == "29.0.0.1"
    assert state["hccn"]["0"]["netdetect"] == "29.0.0.254"
    assert state["hccn"]["6"]["address"] is None


def test_cfg_recovery_commands(node):
    configure(node, 1, "29.0.0.2")
    state = node.state
    state["hccn"]["1"]["address"] = None
    save_state(state, node.state_file)
    assert node.run("-i", "1", "-cfg", "recovery") == (0, "Cmd executed successfully!\n", "")
    assert node.state["hccn"]["1"]["address"] == "29.0.0.2"
    state = node.state
    state["hccn"]["1"]["address"] = None
    save_state(state, node.state_file)
    assert node.run("-a", "-cfg", "recovery") == (0, "Cmd executed successfully!\n", "")
    assert node.state["hccn"]["1"]["address"] == "29.0.0.2"


def test_conf_path_env_override(node, tmp_path, monkeypatch):
    monkeypatch.setenv("ASCEND_SIM_HCCN_CONF", str(tmp_path / "custom.conf"))
    configure(node, 0, "29.0.0.1")
    assert (tmp_path / "custom.conf").read_text().startswith("address_0=29.0.0.1\n")
    assert node.conf() == ""


def test_help(node):
    rc, out, _ = node.run("-h")
    assert rc == 0 and "-ping -g address" in out
