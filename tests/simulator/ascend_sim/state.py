"""The simulated node: one JSON file that npu-smi, hccn_tool and the vendor packages share.

The file is meant to be read and edited by hand in tests, so it stays flat: board constants,
running/pending driver and firmware versions, one row per chip, running NPU processes, the
per-device NIC settings of hccn_tool and free-form failure-injection flags. The schema is
documented in tests/simulator/README.md.
"""
import contextlib
import fcntl
import json
import os
import tempfile

from . import profiles
from .paths import rooted

STATE_ENV = "ASCEND_SIM_STATE"
DEFAULT_STATE_PATH = "/etc/ascend-sim/state.json"
DEFAULT_INSTALL_PATH = "/usr/local/Ascend"
DEFAULT_SYSFS_ROOT = "/var/lib/ascend-sim/sys"


def state_path():
    """``$ASCEND_SIM_STATE`` when set (taken as is), else the default re-rooted by ``ASCEND_SIM_ROOT``."""
    env = os.environ.get(STATE_ENV)
    if env:
        return env
    return rooted(DEFAULT_STATE_PATH)


def load_state(path=None):
    path = path or state_path()
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def save_state(state, path=None):
    """Write atomically (temporary file in the same directory, then ``os.replace``).

    A reader running concurrently (npu-smi polled by a health check while the installer
    updates the state) sees either the old or the new file, never half of one.
    """
    path = path or state_path()
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".state.", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(state, handle, indent=2)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def locked_state(path=None):
    """Load, yield for changes, save - under an exclusive lock on ``<path>.lock``.

    Use it for read-modify-write (hccn_tool settings, installers), so that two tools run at
    once cannot lose each other's update. Nothing is saved when the block raises.
    """
    path = path or state_path()
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path + ".lock", "a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        try:
            state = load_state(path)
            yield state
            save_state(state, path)
        finally:
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)


def default_hccn_entry(device_id):
    """NIC settings of one device as the driver holds them at runtime (nothing configured)."""
    return {
        "address": None,
        "netmask": None,
        "gateway": None,
        "netdetect": None,
        "link": "UP",
        # null: derived like the firmware does - "Init" until a detect address is set, then "Success"
        "net_health": None,
        # peer switch port seen over LLDP, shaped like published 400GE leaf ports
        "lldp_ifname": "400GE1/%d/5:%d" % (device_id // 2 + 1, device_id % 2 + 1),
    }


def new_state(profile_name, **kw):
    """A fresh node of ``profile_name``: hardware present, no driver running.

    Keyword overrides: ``driver`` / ``firmware`` (running versions), ``install_path``, and
    any other top-level key, set verbatim.
    """
    driver = kw.pop("driver", None)
    firmware = kw.pop("firmware", None)
    chips = profiles.build_chips(profile_name)
    board = profiles.board_constants(profile_name)
    state = {
        "profile": profile_name,
        "board": board,
        "driver": {"running": driver, "pending": False},
        "firmware": {"running": firmware, "pending": False},
        "install_path": kw.pop("install_path", DEFAULT_INSTALL_PATH),
        "sysfs_root": DEFAULT_SYSFS_ROOT,
        "numa": profiles.numa_layout(profile_name),
        "chips": chips,
        "mcu": profiles.build_mcus(profile_name),
        "processes": [],
        # 300I Duo cards have no RoCE ports: hccn_tool has nothing to configure there
        "hccn": {} if board["family"] == "310p"
        else {str(c["phy_id"]): default_hccn_entry(c["phy_id"]) for c in chips},
        # how text is laid out; the defaults are what the tools print, fixtures captured from
        # web pages sometimes differ (tabs expanded to spaces, trailing blank line dropped)
        "render": {"kv_indent": "\t", "trim_trailing_blank": False},
        "inject": {},
    }
    state.update(kw)
    return state


def read_version_info(path):
    """The ``Version=`` value of a vendor version.info file, or None when absent."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for line in handle:
                key, sep, value = line.strip().partition("=")
                if sep and key.strip() == "Version":
                    return value.strip() or None
    except FileNotFoundError:
        return None
    return None


def apply_boot(state, install_path=None, root=""):
    """What a node restart does to the simulated hardware.

    The driver and firmware on disk become the running ones (a missing version.info means
    none runs), pending flags clear, NPU processes are gone and memory is back to idle, and
    the NIC settings saved in /etc/hccn.conf are restored (the driver recovers them at start).
    """
    install_path = install_path or state.get("install_path") or DEFAULT_INSTALL_PATH
    base = rooted(install_path, root)
    state["driver"] = {
        "running": read_version_info(os.path.join(base, "driver", "version.info")),
        "pending": False,
    }
    state["firmware"] = {
        "running": read_version_info(os.path.join(base, "firmware", "version.info")),
        "pending": False,
    }
    state["processes"] = []
    hbm_chip = state.get("board", {}).get("family") != "310p"
    for chip in state.get("chips", []):
        chip["aicore_pct"] = 0
        idle = chip.get("idle_used_mb")
        if idle is not None:
            if hbm_chip:
                chip["hbm_used_mb"] = idle
            else:
                chip["memory_used_mb"] = idle
    from . import hccn_tool  # late: hccn_tool depends on this module

    hccn_tool.recover_from_conf(state, hccn_tool.conf_path(root))
    return state


def _segments(key_path):
    if not key_path:
        raise ValueError("empty key path")
    return key_path.split(".")


def set_path(state, key_path, value):
    """Set ``a.b.0.c`` in nested dicts/lists; list positions are numbers, missing dicts are created."""
    parts = _segments(key_path)
    node = state
    for part in parts[:-1]:
        if isinstance(node, list):
            node = node[int(part)]
            continue
        if part not in node or node[part] is None:
            node[part] = {}
        node = node[part]
    last = parts[-1]
    if isinstance(node, list):
        index = int(last)
        if index == len(node):
            node.append(value)
        else:
            node[index] = value
    else:
        node[last] = value
    return state


def get_path(state, key_path):
    node = state
    for part in _segments(key_path):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def parse_assignment(text):
    """``KEY.PATH=VALUE``: VALUE is JSON; text that is not JSON is taken as a plain string."""
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise ValueError("expected KEY.PATH=VALUE, got %r" % text)
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return key, value
