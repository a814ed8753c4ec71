"""``hccn_tool``: the NPU RoCE NIC configuration tool, backed by the simulator state.

Output texts, error texts and exit statuses follow the published hccn_tool sources and
captures: getters print ``ipaddr:A`` / ``netmask:M``, ``netdetect address: A``,
``default gateway:G, Iface:ethN``, ``link status: UP``, ``net health status: Success``;
setters print ``Cmd executed successfully!`` and persist ``<key>_<device>=<value>`` lines in
/etc/hccn.conf; failures print the tool's own message on stderr and exit with the low byte of
its UDA error code (e.g. 13 for "Get ipconf failed, because no ip was preset there!").

``-ping -g address A`` succeeds only when A is an NPU address of another sandbox node: peers
come from a JSON file ``{"node-name": ["29.0.0.1", ...]}`` and a peer is reachable when its
node name resolves. Both the peer list and the resolver can be passed in for unit tests.
"""
import hashlib
import ipaddress
import json
import os
import socket
import sys

from .paths import rooted
from .state import default_hccn_entry, load_state, locked_state

HCCN_CONF_ENV = "ASCEND_SIM_HCCN_CONF"
DEFAULT_HCCN_CONF = "/etc/hccn.conf"
PEERS_ENV = "ASCEND_SIM_PEERS"
DEFAULT_PEERS = "/etc/ascend-sim/peers.json"

# UDA return codes of hccn_tool (the process exits with their low byte)
UDA_MAJOR_CMD_TYPE_ERR = 0x1001
UDA_MAJOR_CMD_NUM_ERR = 0x1002
UDA_MAJOR_CMD_INVALID_ERR = 0x1003
UDA_MAJOR_CMD_DEV_ID_ERR = 0x1004
UDA_PARAM_OP_NOT_SUPPORT_ERR = 0x2003
UDA_PARAM_CMD_COUNT_ERR = 0x2004
UDA_PARAM_IP_INVALID_ERR = 0x2006
UDA_PARAM_CONFLICT_IP_ADDR_ERR = 0x2007
UDA_PARAM_DIFF_SEGMT_GTWY_ERR = 0x2008
UDA_TOOL_CMD_UNSUPPORT_ON_PRODUCT_ERR = 0x300D
UDA_TOOL_GATEWAY_NO_IP_CONF_ERR = 0x301A
UDA_TOOL_COFNIG_BROAD_ADDRESS_ERR = 0x3025
UDA_DSMI_GATEWAY_NOT_PRESET_ERR = 0x4002
UDA_DSMI_IPCONF_NOT_PRESET_ERR = 0x400D
UDA_DSMI_LINK_IS_DOWN_ERR = 0x4016
PING_INNER_ERROR = 100

# (message, printed on stdout instead of stderr)
_MESSAGES = {
    UDA_MAJOR_CMD_TYPE_ERR: (['Get invalid major cmd type. The valid major cmd type should be "-a" or "-i".',
                              "Enter [ hccn_tool -h ] for more details."], False),
    UDA_MAJOR_CMD_NUM_ERR: (["Get invalid major cmd number. Please check your input.",
                             "Enter [ hccn_tool -h ] for more details."], False),
    UDA_MAJOR_CMD_INVALID_ERR: (["Get invalid major cmd.", "Enter [ hccn_tool -h ] for more details."], False),
    UDA_MAJOR_CMD_DEV_ID_ERR: (["Get invalid device id."], False),
    UDA_PARAM_OP_NOT_SUPPORT_ERR: (["Get unknown option!"], False),
    UDA_PARAM_CMD_COUNT_ERR: (["The total count of input parameters is wrong!"], False),
    UDA_PARAM_IP_INVALID_ERR: (["The ip address you configured is invalid!"], False),
    UDA_PARAM_CONFLICT_IP_ADDR_ERR: (["The ip address configured is conflicted!"], False),
    UDA_PARAM_DIFF_SEGMT_GTWY_ERR: (
        ["The segment of configured gateway doesn't match that of the configured ip adress!"], False),
    UDA_TOOL_CMD_UNSUPPORT_ON_PRODUCT_ERR: (["The command is not supported on this product."], True),
    UDA_TOOL_GATEWAY_NO_IP_CONF_ERR: (["Unable to configure gateway, because ip is not configured!"], False),
    UDA_TOOL_COFNIG_BROAD_ADDRESS_ERR: (["Can not config broadcast address!"], False),
    UDA_DSMI_GATEWAY_NOT_PRESET_ERR: (["Get gateway failed, because no gateway was preset there!"], False),
    UDA_DSMI_IPCONF_NOT_PRESET_ERR: (["Get ipconf failed, because no ip was preset there!"], False),
    UDA_DSMI_LINK_IS_DOWN_ERR: (["Execute failed: Link status is down."], False),
}

# the firmware's net health states (hccn_tool's status table)
NET_HEALTH_STATES = ("Success", "Socket fail", "Receive timeout", "Unreachable", "Time exceeded",
                     "Fault", "Init", "Thread error", "Detect ip set", "Unknown")

# the device vNIC's host side lives in 192.168.1.0/24: hccn_tool refuses any address there
_VNIC_HOST_NET = ipaddress.ip_network("192.168.1.0/24")

_COMMANDS = ("-ip", "-netdetect", "-gateway", "-link", "-net_health", "-lldp", "-ping", "-cfg", "-tls")
_CONF_KEYS = ("address", "netmask", "netdetect", "gateway")


class HccnError(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


def conf_path(root=None):
    """/etc/hccn.conf, or ``$ASCEND_SIM_HCCN_CONF``, re-rooted by ``ASCEND_SIM_ROOT``."""
    env = os.environ.get(HCCN_CONF_ENV)
    if env:
        return env
    return rooted(DEFAULT_HCCN_CONF, root)


def peers_path(root=None):
    env = os.environ.get(PEERS_ENV)
    if env:
        return env
    return rooted(DEFAULT_PEERS, root)


# --------------------------------------------------------------------------- hccn.conf


def read_conf(path):
    """The ``key=value`` lines of hccn.conf as an ordered dict (empty when the file is absent)."""
    entries = {}
    try:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                key, sep, value = line.strip().partition("=")
                if sep and key:
                    entries[key.strip()] = value.strip()
    except FileNotFoundError:
        pass
    return entries


def _write_conf(path, entries):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        for key, value in entries.items():
            handle.write("%s=%s\n" % (key, value))
    os.chmod(tmp, 0o640)
    os.replace(tmp, path)


def conf_set(path, key, device, value):
    """Set ``<key>_<device>`` in hccn.conf, keeping every other line where it was."""
    entries = read_conf(path)
    entries["%s_%d" % (key, device)] = value
    _write_conf(path, entries)


def conf_del(path, key, device):
    entries = read_conf(path)
    if entries.pop("%s_%d" % (key, device), None) is not None:
        _write_conf(path, entries)


def recover_from_conf(state, path):
    """Runtime NIC settings after a driver start: what hccn.conf holds, nothing else."""
    if not state.get("hccn"):
        return state
    entries = read_conf(path)
    for device, entry in state["hccn"].items():
        for key in _CONF_KEYS:
            entry[key] = entries.get("%s_%s" % (key, device))
    return state


# --------------------------------------------------------------------------- helpers


def _ipv4(text):
    try:
        return ipaddress.IPv4Address(text)
    except (ipaddress.AddressValueError, ValueError):
        raise HccnError(UDA_PARAM_IP_INVALID_ERR)


def _netmask(text):
    mask = _ipv4(text)
    bits = int(mask)
    inverted = ~bits & 0xFFFFFFFF
    if bits == 0 or inverted & (inverted + 1):
        raise HccnError(UDA_PARAM_IP_INVALID_ERR)
    return mask


def _same_segment(a, b, mask):
    m = int(ipaddress.IPv4Address(mask))
    return int(ipaddress.IPv4Address(a)) & m == int(ipaddress.IPv4Address(b)) & m


def net_health(entry):
    """Explicit state value, else what the firmware reports: Init until a detect address is set."""
    if entry.get("net_health"):
        return entry["net_health"]
    if entry.get("link", "UP") != "UP":
        return "Fault"
    return "Success" if entry.get("netdetect") else "Init"


def _chassis_mac(switch_name):
    digest = hashlib.sha256(switch_name.encode()).hexdigest()
    return "0c:e4:a0:%s:%s:%s" % (digest[0:2], digest[2:4], digest[4:6])


def render_lldp(entry):
    ifname = entry.get("lldp_ifname") or "400GE1/1/5:1"
    return "\n".join([
        "Chassis ID TLV",
        "\tMAC: %s" % entry.get("lldp_chassis_mac", _chassis_mac(entry.get("lldp_system_name", "leaf-1"))),
        "Port ID TLV",
        "\tIfname: %s" % ifname,
        "Time to Live TLV",
        "\t121",
        "Port Description TLV",
        "\t%s" % ifname,
        "System Name TLV",
        "\t%s" % entry.get("lldp_system_name", "leaf-1"),
        "System Description TLV",
        "\tHuawei Versatile Routing Platform Software",
        "System Capabilities TLV",
        "\tSystem capabilities:  Bridge, Router",
        "\tEnabled capabilities: Bridge, Router",
        "End of LLDPDU TLV",
    ]) + "\n"


def _ping_time_ms(device, address, seq):
    digest = hashlib.sha256(("%d/%s/%d" % (device, address, seq)).encode()).digest()
    return 0.040 + digest[0] % 90 / 1000.0


def load_peers(path):
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except FileNotFoundError:
        return {}
    return {str(name): [str(a) for a in addrs] for name, addrs in data.items()}


def peer_reachable(address, peers, hostname, resolve):
    """True when ``address`` belongs to another node of the bed and that node's name resolves."""
    short = hostname.split(".")[0] if hostname else ""
    for name, addresses in sorted(peers.items()):
        if name in (hostname, short) or address not in addresses:
            continue
        try:
            resolve(name)
        except OSError:
            continue
        return True
    return False


# --------------------------------------------------------------------------- commands


class _Context:
    def __init__(self, state, device, conf, out, err, peers, hostname, resolve):
        self.state = state
        self.device = device
        self.conf = conf
        self.out = out
        self.err = err
        self.peers = peers
        self.hostname = hostname
        self.resolve = resolve
        self.changed = False

    @property
    def entry(self):
        return self.state["hccn"][str(self.device)]


def _cmd_ip(ctx, args):
    if not args:
        raise HccnError(UDA_PARAM_CMD_COUNT_ERR)
    if args[0] == "-g":
        if len(args) != 1:
            raise HccnError(UDA_PARAM_CMD_COUNT_ERR)
        entry = ctx.entry
        if not entry.get("address"):
            raise HccnError(UDA_DSMI_IPCONF_NOT_PRESET_ERR)
        ctx.out.write("ipaddr:%s\nnetmask:%s\n" % (entry["address"], entry["netmask"]))
        return True
    if args[0] != "-s":
        raise HccnError(UDA_PARAM_OP_NOT_SUPPORT_ERR)
    if len(args) != 5:
        raise HccnError(UDA_PARAM_CMD_COUNT_ERR)
    values = {}
    for key, value in (args[1:3], args[3:5]):
        if key not in ("address", "netmask"):
            raise HccnError(UDA_PARAM_OP_NOT_SUPPORT_ERR)
        values[key] = value
    if set(values) != {"address", "netmask"}:
        raise HccnError(UDA_PARAM_OP_NOT_SUPPORT_ERR)
    address = _ipv4(values["address"])
    mask = _netmask(values["netmask"])
    if address in _VNIC_HOST_NET:
        raise HccnError(UDA_PARAM_CONFLICT_IP_ADDR_ERR)
    for other, entry in ctx.state["hccn"].items():
        if other != str(ctx.device) and entry.get("address") == str(address):
            raise HccnError(UDA_PARAM_CONFLICT_IP_ADDR_ERR)
    entry = ctx.entry
    entry["address"], entry["netmask"] = str(address), str(mask)
    # a gateway outside the new segment is dropped, as hccn_tool does when the address changes
    if entry.get("gateway") and not _same_segment(entry["address"], entry["gateway"], entry["netmask"]):
        entry["gateway"] = None
        conf_del(ctx.conf, "gateway", ctx.device)
    conf_set(ctx.conf, "address", ctx.device, entry["address"])
    conf_set(ctx.conf, "netmask", ctx.device, entry["netmask"])
    ctx.changed = True
    return False


def _cmd_netdetect(ctx, args):
    if args == ["-g"]:
        ctx.out.write("netdetect address: %s\n" % (ctx.entry.get("netdetect") or "0.0.0.0"))
        return True
    if not args or args[0] != "-s":
        raise HccnError(UDA_PARAM_OP_NOT_SUPPORT_ERR)
    if len(args) != 3:
        raise HccnError(UDA_PARAM_CMD_COUNT_ERR)
    if args[1] != "address":
        raise HccnError(UDA_PARAM_OP_NOT_SUPPORT_ERR)
    address = _ipv4(args[2])
    if int(address) == 0xFFFFFFFF:
        raise HccnError(UDA_TOOL_COFNIG_BROAD_ADDRESS_ERR)
    ctx.entry["netdetect"] = str(address)
    conf_set(ctx.conf, "netdetect", ctx.device, str(address))
    ctx.changed = True
    return False


def _cmd_gateway(ctx, args):
    entry = ctx.entry
    if args == ["-g"]:
        if not entry.get("gateway"):
            raise HccnError(UDA_DSMI_GATEWAY_NOT_PRESET_ERR)
        ctx.out.write("default gateway:%s, Iface:eth%d\n" % (entry["gateway"], ctx.device))
        return True
    if not args or args[0] != "-s":
        raise HccnError(UDA_PARAM_OP_NOT_SUPPORT_ERR)
    if len(args) != 3:
        raise HccnError(UDA_PARAM_CMD_COUNT_ERR)
    if args[1] != "gateway":
        raise HccnError(UDA_PARAM_OP_NOT_SUPPORT_ERR)
    if not entry.get("address"):
        raise HccnError(UDA_TOOL_GATEWAY_NO_IP_CONF_ERR)
    gateway = _ipv4(args[2])
    if not _same_segment(entry["address"], gateway, entry["netmask"]):
        raise HccnError(UDA_PARAM_DIFF_SEGMT_GTWY_ERR)
    entry["gateway"] = str(gateway)
    conf_set(ctx.conf, "gateway", ctx.device, str(gateway))
    ctx.changed = True
    return False


def _cmd_link(ctx, args):
    if args != ["-g"]:
        raise HccnError(UDA_PARAM_OP_NOT_SUPPORT_ERR)
    ctx.out.write("link status: %s\n" % ("UP" if ctx.entry.get("link", "UP") == "UP" else "DOWN"))
    return True


def _cmd_net_health(ctx, args):
    if len(args) != 1:
        raise HccnError(UDA_PARAM_CMD_COUNT_ERR)
    if args[0] != "-g":
        raise HccnError(UDA_PARAM_OP_NOT_SUPPORT_ERR)
    ctx.out.write("net health status: %s\n" % net_health(ctx.entry))
    return True


# The certificate lines of ``-tls -g`` as hicann/hccl docs/zh/user_guide/fault_diagnosis/
# tls_info_config_inconsistent_EI0016.md prints them for each device.
_TLS_CERTS = (
    ("pub", "/C=CN/ST=GD/O=HUAWEI/OU=2012/CN=2_1thCA", "Wed Feb 19 03:19:21 2020 GMT", "Sat Feb 16 03:19:21 2030 GMT"),
    ("ca1", "/C=CN/ST=GD/L=SZ/O=HUAWEI/CN=1thCA", "Wed Feb 19 03:19:07 2020 GMT", "Sat Feb 16 03:19:07 2030 GMT"),
    ("ca2", "/C=CN/ST=GD/L=SZ/O=HUAWEI/CN=1thCA", "Wed Feb 19 03:19:10 2020 GMT", "Sat Feb 16 03:19:10 2030 GMT"),
)


def _cmd_tls(ctx, args):
    """``-tls -g``: the TLS switch of the device's links (the entry's ``tls``, 0 as in the
    published capture when unset) and its certificates."""
    if args != ["-g"]:
        raise HccnError(UDA_PARAM_OP_NOT_SUPPORT_ERR)
    device = ctx.device
    ctx.out.write("dev_id:%d, tls switch[%d](0:disable, 1:enable), tls alarm time threshold[60]days\n"
                  % (device, 1 if ctx.entry.get("tls") else 0))
    for name, issuer, start, end in _TLS_CERTS:
        ctx.out.write("dev_id:%d, [%s cert] info:\n         issuer[%s]\n         start_time[%s]\n"
                      "         end_time[%s]\n" % (device, name, issuer, start, end))
    return True


def _cmd_lldp(ctx, args):
    if len(args) != 1:
        raise HccnError(UDA_PARAM_CMD_COUNT_ERR)
    if args[0] != "-g":
        raise HccnError(UDA_PARAM_OP_NOT_SUPPORT_ERR)
    if ctx.entry.get("link", "UP") != "UP":
        raise HccnError(UDA_DSMI_LINK_IS_DOWN_ERR)
    ctx.out.write(render_lldp(ctx.entry))
    return True


def _cmd_ping(ctx, args):
    if not args or args[0] != "-g":
        raise HccnError(UDA_PARAM_OP_NOT_SUPPORT_ERR)
    options = args[1:]
    if len(options) not in (2, 4):
        raise HccnError(UDA_PARAM_CMD_COUNT_ERR)
    pairs = dict(zip(options[0::2], options[1::2]))
    if "address" not in pairs or set(pairs) - {"address", "pkt"}:
        raise HccnError(UDA_PARAM_OP_NOT_SUPPORT_ERR)
    target = str(_ipv4(pairs["address"]))
    try:
        count = int(pairs.get("pkt", "3"))
    except ValueError:
        raise HccnError(UDA_PARAM_OP_NOT_SUPPORT_ERR)
    if not 1 <= count <= 1000:
        raise HccnError(UDA_PARAM_OP_NOT_SUPPORT_ERR)
    entry = ctx.entry
    if not entry.get("address"):
        raise HccnError(UDA_DSMI_IPCONF_NOT_PRESET_ERR)
    if entry.get("link", "UP") != "UP":
        raise HccnError(UDA_DSMI_LINK_IS_DOWN_ERR)
    routable = _same_segment(entry["address"], target, entry["netmask"]) or bool(entry.get("gateway"))
    ok = routable and peer_reachable(target, ctx.peers, ctx.hostname, ctx.resolve)
    lines = ["device %d PING %s" % (ctx.device, target)]
    for seq in range(count):
        if ok:
            lines.append("recv seq=%d,time=%.6fms" % (seq, _ping_time_ms(ctx.device, target, seq)))
        else:
            lines.append("recv time out seq=%d" % seq)
    received = count if ok else 0
    lines.append("%d packets transmitted, %d received, %.2f%% packet loss"
                 % (count, received, 100.0 * (count - received) / count))
    ctx.out.write("\n".join(lines) + "\n")
    if not ok:
        raise HccnError(PING_INNER_ERROR)
    return True


def _cmd_cfg(ctx, args):
    if args != ["recovery"]:
        raise HccnError(UDA_PARAM_OP_NOT_SUPPORT_ERR)
    entries = read_conf(ctx.conf)
    for key in _CONF_KEYS:
        ctx.entry[key] = entries.get("%s_%d" % (key, ctx.device))
    ctx.changed = True
    return False


_HANDLERS = {
    "-ip": _cmd_ip,
    "-netdetect": _cmd_netdetect,
    "-gateway": _cmd_gateway,
    "-link": _cmd_link,
    "-net_health": _cmd_net_health,
    "-lldp": _cmd_lldp,
    "-ping": _cmd_ping,
    "-cfg": _cmd_cfg,
    "-tls": _cmd_tls,
}

HELP = [
    ("-i %d -ip -s address %s netmask %s", "set the ip address and netmask of the device"),
    ("-i %d -ip -g", "get the ip address and netmask of the device"),
    ("-i %d -netdetect -s address %s", "set the net detect ip address of the device"),
    ("-i %d -netdetect -g", "get the net detect ip address of the device"),
    ("-i %d -gateway -s gateway %s", "set the default gateway of the device"),
    ("-i %d -gateway -g", "get the default gateway of the device"),
    ("-i %d -link -g", "get the link status of the device"),
    ("-i %d -net_health -g", "get the net health status of the device"),
    ("-i %d -lldp -g", "get the lldp neighbor information of the device"),
    ("-i %d -ping -g address %s [pkt %d]", "ping the ip address from the device"),
    ("-i %d -cfg recovery", "recover the configuration of the device from hccn.conf"),
    ("-i %d -tls -g", "get the tls switch and certificates of the device"),
]


def _print_error(code, out, err):
    lines, to_stdout = _MESSAGES.get(code, (["Cmd execute failed!"], False))
    (out if to_stdout else err).write("\n".join(lines) + "\n")


def _hccn_devices(state):
    """Device ids hccn_tool can address: none while no driver runs."""
    if not (state.get("driver") or {}).get("running"):
        return set()
    return {c["phy_id"] for c in state.get("chips", [])}


def main(argv, state=None, state_file=None, peers=None, hostname=None, resolve=None,
         stdout=None, stderr=None):
    """Run ``hccn_tool`` with ``argv`` (arguments after the program name); return the exit status.

    When ``state`` is None the node's state file is used and saved back after a setting
    changes. ``peers`` (dict), ``hostname`` and ``resolve`` replace the peer file, the local
    host name and ``socket.gethostbyname`` for ``-ping``.
    """
    out = stdout or sys.stdout
    err = stderr or sys.stderr
    argv = list(argv)
    if argv in (["-h"], ["--help"]):
        for usage, desc in HELP:
            out.write("hccn_tool %-40s\t: %s\n" % (usage, desc))
        return 0
    try:
        if len(argv) < 2:
            raise HccnError(UDA_MAJOR_CMD_NUM_ERR)
        if argv[0] not in ("-i", "-a"):
            raise HccnError(UDA_MAJOR_CMD_TYPE_ERR)
        if argv[0] == "-a":
            return _global(argv[1:], state, state_file, out, err)
        if len(argv) < 3 or argv[2] not in _COMMANDS:
            raise HccnError(UDA_MAJOR_CMD_INVALID_ERR)
        text = argv[1]
        if not text.isdigit() or len(text) > 2:
            raise HccnError(UDA_MAJOR_CMD_DEV_ID_ERR)
        device = int(text)
        own_state = state is None
        if own_state:
            try:
                state = load_state(state_file)
            except FileNotFoundError:
                # no simulated hardware: the driver finds no device to address
                raise HccnError(UDA_MAJOR_CMD_DEV_ID_ERR)
        if device not in _hccn_devices(state):
            raise HccnError(UDA_MAJOR_CMD_DEV_ID_ERR)
        if not state.get("hccn"):
            raise HccnError(UDA_TOOL_CMD_UNSUPPORT_ON_PRODUCT_ERR)
        state["hccn"].setdefault(str(device), default_hccn_entry(device))
        ctx = _Context(state, device, conf_path(), out, err,
                       load_peers(peers_path()) if peers is None else peers,
                       socket.gethostname() if hostname is None else hostname,
                       resolve or socket.gethostbyname)
        is_get = _HANDLERS[argv[2]](ctx, argv[3:])
        if ctx.changed and own_state:
            with locked_state(state_file) as fresh:
                fresh.setdefault("hccn", {})[str(device)] = state["hccn"][str(device)]
    except HccnError as exc:
        _print_error(exc.code, out, err)
        return exc.code & 0xFF
    if not is_get:
        out.write("Cmd executed successfully!\n")
    return 0


def _global(args, state, state_file, out, err):
    """``hccn_tool -a -cfg recovery``: every device back to what hccn.conf holds."""
    if args != ["-cfg", "recovery"]:
        raise HccnError(UDA_MAJOR_CMD_INVALID_ERR)
    if state is None:
        with locked_state(state_file) as fresh:
            recover_from_conf(fresh, conf_path())
    else:
        recover_from_conf(state, conf_path())
    out.write("Cmd executed successfully!\n")
    return 0


if __name__ == "__main__":  # pragma: no cover - exercised through ``python3 -m ascend_sim hccn_tool``
    sys.exit(main(sys.argv[1:]))
