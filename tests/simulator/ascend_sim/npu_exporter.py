"""Stand-in for Huawei's npu-exporter (MindCluster), serving the node state as Prometheus metrics.

Sources (Ascend/mind-cluster at v26.0.0, ``component/``):

- ``npu-exporter/cmd/npu-exporter/main.go``: Go ``flag`` options ``-ip`` (no default: an empty or
  unparsable address logs "the listen ip is invalid" and the program ends with status 0), ``-port``
  (8082, 1025-40000, "the port is invalid"), ``-updateTime`` (5, 1-60 s, "the updateTime is
  invalid"), ``-logFile`` (default /var/log/mindx-dl/npu-exporter/npu-exporter.log), ``-version``
  ("NPU-exporter version: ..."), ``-platform`` (Prometheus; another value prints "platform is not
  supported:<value>"); a collector that cannot start logs "new npu collector failed, error is ..."
  and the program ends with status 0; "npu exporter starting ..." is logged once the device
  manager started, "listen on: <ip>:<port>" once the listener is open; the server answers
  ``/metrics`` and an index page on ``/``.
- ``npu-exporter/utils/logger/logger.go`` with ``ascend-common/common-utils/hwlog/api.go``: the
  log lines go to the log file and to standard output.
- ``npu-exporter/collector/metrics/collector_for_npu.go``: ``machine_npu_nums`` and the
  ``npu_chip_info_*`` gauges (``utilization``, ``temperature`` in degrees Celsius, ``power``,
  ``health_status`` - 1 healthy, 0 otherwise, a failing DCMI read counts as unhealthy -,
  ``network_status`` - 1 for net health Success or Init, 0 otherwise -, ``name`` with value 1 and
  label ``name``); ``collector_for_hbm.go``: ``npu_chip_info_hbm_used_memory`` /
  ``_hbm_total_memory`` (MB); ``collector_for_network.go``: ``npu_chip_info_link_status`` (1 UP,
  0 otherwise). ``collector/metrics/common_utils.go`` (``validateNum``) drops a value of -1, so a
  metric the chip cannot report is a missing series: 310P cards (not training cards) have no
  network or link series, and no HBM ones.
- ``npu-exporter/collector/testdata/prometheus_metrics``: the label set ``container_name``,
  ``id``, ``model_name``, ``namespace``, ``pcie_bus_info``, ``pod_name``, ``vdie_id`` (empty
  container labels on a host without containers), the ``model_name`` layout
  ``<name>-<type>-<version>`` and a timestamp (ms) on every sample, the time of the cache update.
- ``npu-exporter/collector/config/metrics_config.go``: the metric groups come from
  ``/usr/local/metricConfiguration.json`` only (no flag; the copy in the release's zip is not read).
  A missing file logs "load config from file /usr/local/metricConfiguration.json failed, use default
  config" and turns every group on; a file that is not JSON logs "unmarshal config byte failed: ..."
  and leaves no group (``initConfiguration`` returns before filling the list). A group with state
  "OFF" is not collected: here ``npu`` holds the chip gauges of ``collector_for_npu.go``, ``hbm``
  the HBM pair, ``network`` the network and link status.
- The library: the driver's ``libdcmi.so`` through ``LD_LIBRARY_PATH`` (an installation guide's
  ``LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64/driver:...``).

Not simulated: the ldconfig-cache fallback for libdcmi.so and its owner/mode checks
(``ascend-common/common-utils/utils/path.go``), container runtimes, Telegraf; the other options
are accepted and ignored. Assumed (no public capture): the error text when libdcmi.so is missing
or no driver runs.
"""
import datetime
import ipaddress
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from . import hccn_tool, state as state_mod
from .paths import rooted

VERSION = "v26.0.0"
DEFAULT_LOG = "/var/log/mindx-dl/npu-exporter/npu-exporter.log"
LABELS = ("container_name", "id", "model_name", "namespace", "pcie_bus_info", "pod_name", "vdie_id")

CONFIG = "/usr/local/metricConfiguration.json"
GROUPS = ("ddr", "hccs", "npu", "network", "network-npu", "pcie", "roce", "sio", "vnpu", "version", "optical", "hbm",
          "ub", "optical-npu")
_OPTIONS = {"ip": "", "port": "8082", "updateTime": "5", "logFile": DEFAULT_LOG, "platform": "Prometheus",
            "version": None}
# Accepted and ignored (main.go defines them; they tune what the stand-in does not do).
_IGNORED = ("containerMode", "containerd", "endpoint", "concurrency", "logLevel", "maxAge", "maxBackups", "cacheSize",
            "limitIPConn", "limitTotalConn", "limitIPReq", "poll_interval", "profilingTime", "hccsBWProfilingTime",
            "deviceResetTimeout", "textMetricsFilePath")


class UsageError(Exception):
    pass


def parse_flags(argv):
    """Go's flag package: -name=value, --name=value, -name value; booleans take no value."""
    values = {key: value for key, value in _OPTIONS.items() if value is not None}
    values["version"] = False
    args = list(argv)
    while args:
        arg = args.pop(0)
        if not arg.startswith("-") or arg in ("-", "--"):
            break
        name, sep, value = arg.lstrip("-").partition("=")
        if name not in _OPTIONS and name not in _IGNORED:
            raise UsageError("flag provided but not defined: -%s" % name)
        if name == "version":
            values["version"] = (value or "true").lower() in ("1", "t", "true")
            continue
        if not sep:
            if not args:
                raise UsageError("flag needs an argument: -%s" % name)
            value = args.pop(0)
        values[name] = value
    return values


def _int(text, name):
    try:
        return int(text)
    except ValueError:
        raise UsageError('invalid value "%s" for flag -%s: parse error' % (text, name))


class Log(object):
    """hwlog's line layout: [LEVEL] date time pid file:line message."""

    def __init__(self, path):
        self.path = path

    def write(self, level, where, message):
        stamp = datetime.datetime.now().strftime("%Y/%m/%d %H:%M:%S.%f")
        line = "%-10s %s %-7d %s    %s\n" % ("[%s]" % level, stamp, os.getpid(), where, message)
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(line)
        sys.stdout.write(line)
        sys.stdout.flush()


def find_dcmi():
    """The driver's libdcmi.so on LD_LIBRARY_PATH, as the dynamic loader would find it."""
    for directory in os.environ.get("LD_LIBRARY_PATH", "").split(":"):
        if directory and os.path.isfile(rooted(os.path.join(directory, "libdcmi.so"))):
            return os.path.join(directory, "libdcmi.so")
    return None


def _health(text):
    return 1 if text == "OK" else 0


def chip_labels(chip, board):
    return {
        "container_name": "",
        "id": str(chip["phy_id"]),
        "model_name": "%s-%s-%s" % (chip.get("name"), board.get("chip_type", "Ascend"), board.get("chip_version", "V1")),
        "namespace": "",
        "pcie_bus_info": chip.get("bus_id", ""),
        "pod_name": "",
        "vdie_id": chip.get("vdie_id", ""),
    }


def _fmt_labels(labels):
    return "{%s}" % ",".join('%s="%s"' % (key, str(labels[key]).replace('"', '\\"')) for key in sorted(labels))


def load_groups(log):
    """The metric groups switched on, read as metrics_config.go loadConfiguration does."""
    try:
        with open(rooted(CONFIG), "rb") as handle:
            text = handle.read()
    except OSError:
        log.write("WARN", "config/metrics_config.go:109", "load config from file %s failed, use default config" % CONFIG)
        return set(GROUPS)
    try:
        configs = json.loads(text.decode("utf-8"))
        if not isinstance(configs, list):
            raise ValueError("json: cannot unmarshal into Go value of type []map[string]string")
    except ValueError as err:
        log.write("ERROR", "config/metrics_config.go:132", "unmarshal config byte failed: %s" % err)
        return set()
    return set(c.get("metricsGroup") for c in configs if isinstance(c, dict) and c.get("state") == "ON")


def render(state, stamp_ms=None, groups=GROUPS):
    """The exposition text for one node state and the groups switched on; the chips' samples carry
    ``stamp_ms`` when given."""
    board = state.get("board", {})
    family = board.get("family")
    chips = state.get("chips", [])
    hccn = state.get("hccn", {})
    stamp = "" if stamp_ms is None else " %d" % stamp_ms
    families = []
    if "npu" in groups:
        families += [
            ("machine_npu_nums", "Amount of npu installed on the machine.", None),
            ("npu_chip_info_utilization", "the ai core utilization", lambda c: c.get("aicore_pct", 0)),
            ("npu_chip_info_temperature", "the npu temperature", lambda c: c.get("temp_c", 0)),
            ("npu_chip_info_power", "the npu power", lambda c: c.get("power_w", 0)),
            ("npu_chip_info_health_status", "the npu health status", lambda c: _health(c.get("health"))),
        ]
    if family != "310p" and "hbm" in groups:
        families += [
            ("npu_chip_info_hbm_total_memory", "the npu hbm total memory",
             lambda c: c.get("hbm_total_mb", 0)),
            ("npu_chip_info_hbm_used_memory", "the npu hbm used memory",
             lambda c: c.get("hbm_used_mb", 0)),
        ]
    if family != "310p" and "network" in groups:
        families += [
            ("npu_chip_info_network_status", "the npu network health status",
             lambda c: 1 if hccn_tool.net_health(hccn.get(str(c["phy_id"]), {})) in ("Success", "Init") else 0),
            ("npu_chip_info_link_status", "the npu link status",
             lambda c: 1 if hccn.get(str(c["phy_id"]), {}).get("link", "UP") == "UP" else 0),
        ]
    lines = []
    for name, help_text, value in families:
        lines.append("# HELP %s %s" % (name, help_text))
        lines.append("# TYPE %s gauge" % name)
        if value is None:
            lines.append("%s %d" % (name, len(chips)))
            continue
        for chip in chips:
            lines.append("%s%s %s%s" % (name, _fmt_labels(chip_labels(chip, board)), value(chip), stamp))
    if "npu" not in groups:
        return "\n".join(lines) + "\n"
    lines.append("# HELP npu_chip_info_name the Ascend npu name with value '1'")
    lines.append("# TYPE npu_chip_info_name gauge")
    for chip in chips:
        labels = chip_labels(chip, board)
        labels["name"] = labels.pop("model_name")
        lines.append("npu_chip_info_name%s 1%s" % (_fmt_labels(labels), stamp))
    return "\n".join(lines) + "\n"


class Cache(object):
    """The metrics text, refreshed every updateTime seconds as the collector's cache is."""

    def __init__(self, interval, groups=GROUPS):
        self.interval = interval
        self.groups = groups
        self.lock = threading.Lock()
        self.text = ""
        self.stamp = 0.0

    def get(self):
        with self.lock:
            if time.monotonic() - self.stamp >= self.interval or not self.text:
                self.text = render(state_mod.load_state(), int(time.time() * 1000), self.groups)
                self.stamp = time.monotonic()
            return self.text


def _handler(cache, port):
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's naming
            if self.path.split("?")[0] == "/metrics":
                body = cache.get().encode()
                ctype = "text/plain; version=0.0.4; charset=utf-8"
            else:
                body = ('<html><head><title>NPU-Exporter</title></head><body><h1 align="center">NPU-Exporter</h1>'
                        '<p align="center">Welcome to use NPU-Exporter,the Prometheus metrics url is '
                        'http://ip:%d/metrics: <a href="./metrics">Metrics</a></p></body></html>' % port).encode()
                ctype = "text/html; charset=utf-8"
            self.send_response(200)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    return Handler


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        flags = parse_flags(argv)
        port = _int(flags["port"], "port")
        update = _int(flags["updateTime"], "updateTime")
    except UsageError as err:
        sys.stderr.write("%s\nUsage of npu-exporter:\n" % err)
        return 2
    if flags["version"]:
        sys.stdout.write("NPU-exporter version: %s_linux-%s \n" % (VERSION, os.uname().machine))
        return 0
    if flags["platform"] != "Prometheus":
        sys.stderr.write("platform is not supported:%s\n" % flags["platform"])
        return 0
    log_path = rooted(flags["logFile"])
    try:
        os.makedirs(os.path.dirname(log_path), mode=0o750, exist_ok=True)
        log = Log(log_path)
        log.write("INFO", "hwlog/api.go:108", "npu-exporter.log's logger init success")
    except OSError as err:
        sys.stdout.write("hwlog init failed, error is %s\n" % err)
        return 0
    if port < 1025 or port > 40000:
        log.write("ERROR", "npu-exporter/main.go:329", "the port is invalid")
        return 0
    try:
        address = str(ipaddress.ip_address(flags["ip"]))
    except ValueError:
        log.write("ERROR", "npu-exporter/main.go:329", "the listen ip is invalid")
        return 0
    if update < 1 or update > 60:
        log.write("ERROR", "npu-exporter/main.go:329", "the updateTime is invalid")
        return 0
    # The device manager needs the driver's DCMI library and a running driver (error texts assumed).
    problem = None
    if find_dcmi() is None:
        problem = "dcmi lib load failed, libdcmi.so not found on LD_LIBRARY_PATH"
    else:
        try:
            node = state_mod.load_state()
            if not (node.get("driver") or {}).get("running"):
                problem = "dcmi init failed, ret = -8005"
        except (OSError, ValueError) as err:
            problem = str(err)
    if problem:
        log.write("ERROR", "npu-exporter/main.go:340", "new npu collector failed, error is %s" % problem)
        return 0
    log.write("INFO", "npu-exporter/main.go:325",
              "npu exporter starting and the version is %s_linux-%s" % (VERSION, os.uname().machine))
    cache = Cache(update, load_groups(log))
    try:
        server = ThreadingHTTPServer((address, port), _handler(cache, port))
    except OSError as err:
        log.write("ERROR", "npu-exporter/main.go:180", "listen ip and port error: %s" % err)
        return 0
    log.write("INFO", "npu-exporter/main.go:205", "listen on: %s:%d" % (address, port))
    log.write("WARN", "npu-exporter/main.go:339", "enable unsafe http server")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
