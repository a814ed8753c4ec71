"""Machinery shared by the simulated vendor install scripts.

Everything here mirrors what the vendor scripts do on a real node: the ``[Driver] [date]
[INFO]...`` console and log lines, ``/var/log/ascend_seclog/{ascend_install,operation}.log``,
``key=value`` install-info files, y/n prompts read from stdin.  Paths are re-rooted under
``ASCEND_SIM_ROOT`` so unit tests stay inside a temporary directory.
"""
import copy
import json
import os
import re
import signal
import sys
import time

try:  # the shipped copy of the simulator package provides these; keep working without it
    from ascend_sim.paths import rooted
except ImportError:  # pragma: no cover - only when the installer is used on its own
    def rooted(path, root=None):
        if root is None:
            root = os.environ.get("ASCEND_SIM_ROOT", "")
        root = (root or "").rstrip("/")
        if not root or not os.path.isabs(path):
            return path
        return root + "/" + path.lstrip("/")

SECLOG_DIR = "/var/log/ascend_seclog"
INSTALL_LOG = SECLOG_DIR + "/ascend_install.log"
OPERATION_LOG = SECLOG_DIR + "/operation.log"
INSTALL_INFO = "/etc/ascend_install.info"
CANN_INSTALL_INFO = "/etc/Ascend/ascend_cann_install.info"
DEFAULT_INSTALL_PATH = "/usr/local/Ascend"
STATE_ENV = "ASCEND_SIM_STATE"
DEFAULT_STATE = "/etc/ascend-sim/state.json"

GREEN = "\033[32m"
YELLOW = "\033[33m"
RED = "\033[31m"
RESET = "\033[0m"


class Exit(Exception):
    """Leave the install script with ``rc`` (the message was printed already)."""

    def __init__(self, rc):
        Exception.__init__(self, rc)
        self.rc = rc


def sim_rooted():
    """True when the simulator is re-rooted (unit tests): no root check, no device nodes."""
    return bool(os.environ.get("ASCEND_SIM_ROOT", "").strip("/"))


def now(fmt="%Y-%m-%d %H:%M:%S"):
    return time.strftime(fmt, time.localtime())


# --------------------------------------------------------------------------- node state

def _state_module():
    try:
        from ascend_sim import state as module  # the simulator's own state helpers
    except ImportError:
        return None
    if hasattr(module, "load_state") and hasattr(module, "save_state"):
        return module
    return None


def state_path():
    """$ASCEND_SIM_STATE as given, else /etc/ascend-sim/state.json re-rooted."""
    module = _state_module()
    if module is not None and hasattr(module, "state_path"):
        return module.state_path()
    return os.environ.get(STATE_ENV) or rooted(DEFAULT_STATE)


def _default_state():
    return {
        "driver": {"running": None, "pending": False},
        "firmware": {"running": None, "pending": False},
        "chips": [],
        "processes": [],
        "inject": {},
    }


def _normalise(state):
    merged = _default_state()
    for key, value in (state or {}).items():
        merged[key] = value
    for key in ("driver", "firmware"):
        if not isinstance(merged.get(key), dict):
            merged[key] = {"running": None, "pending": False}
    if not isinstance(merged.get("inject"), dict):
        merged["inject"] = {}
    return merged


def load_state():
    """The node state npu-smi renders from; defaults when the node has none (a package run
    outside a simulated node then changes files only)."""
    path = state_path()
    if not os.path.exists(path):
        return _normalise({})
    module = _state_module()
    if module is not None:
        return _normalise(module.load_state(path))
    with open(path) as handle:
        return _normalise(json.load(handle))


def update_state(mutate):
    """Apply ``mutate(state)`` to the state file under its lock (npu-smi or hccn_tool may
    write concurrently); nothing happens when the node has no state file."""
    path = state_path()
    if not os.path.exists(path):
        return False
    module = _state_module()
    if module is not None and hasattr(module, "locked_state"):
        with module.locked_state(path) as state:
            mutate(state)
        return True
    with open(path) as handle:
        state = json.load(handle)
    mutate(state)
    tmp = path + ".tmp"
    with open(tmp, "w") as handle:
        json.dump(state, handle, indent=2)
        handle.write("\n")
    os.replace(tmp, path)
    return True


def commit_state(state, keys):
    """Write the top-level ``keys`` of ``state`` back to the state file."""
    def mutate(current):
        for key in keys:
            if key in state:
                current[key] = copy.deepcopy(state[key])
    return update_state(mutate)


# --------------------------------------------------------------------------- files

def write_file(path, text, mode=0o644):
    """Write ``text`` to the re-rooted ``path`` (creating parents), then chmod."""
    real = rooted(path)
    os.makedirs(os.path.dirname(real), exist_ok=True)
    if os.path.lexists(real) and not os.path.isdir(real):
        # version.info is installed read-only (444): replace it rather than open it for write
        os.unlink(real)
    with open(real, "w") as handle:
        handle.write(text)
    os.chmod(real, mode)
    return real


def makedirs(path, mode=0o755):
    real = rooted(path)
    os.makedirs(real, exist_ok=True)
    os.chmod(real, mode)
    return real


def symlink(target, path):
    """Create/replace symlink ``path`` -> ``target`` (``target`` relative, so it survives
    re-rooting)."""
    real = rooted(path)
    os.makedirs(os.path.dirname(real), exist_ok=True)
    if os.path.lexists(real):
        if os.path.isdir(real) and not os.path.islink(real):
            remove_tree(path)
        else:
            os.unlink(real)
    os.symlink(target, real)


def remove_tree(path):
    """rm -rf of the re-rooted ``path`` (read-only files included)."""
    real = rooted(path)
    if os.path.islink(real) or os.path.isfile(real):
        os.unlink(real)
        return
    if not os.path.isdir(real):
        return
    for top, dirs, files in os.walk(real, topdown=False):
        for name in files:
            os.unlink(os.path.join(top, name))
        for name in dirs:
            full = os.path.join(top, name)
            if os.path.islink(full):
                os.unlink(full)
            else:
                os.rmdir(full)
    os.rmdir(real)


def exists(path):
    return os.path.lexists(rooted(path))


def read_kv(path):
    """``key=value`` lines of the re-rooted ``path`` as an ordered dict ({} if missing)."""
    result = {}
    real = rooted(path)
    if not os.path.isfile(real):
        return result
    with open(real) as handle:
        for line in handle:
            line = line.rstrip("\n")
            if "=" in line and not line.startswith("#"):
                key, value = line.split("=", 1)
                result[key.strip()] = value.strip()
    return result


def update_param(path, key, value):
    """Set ``key=value`` in an install-info file, keeping the other lines in place
    (the vendor's updateInstallParam)."""
    real = rooted(path)
    lines = []
    if os.path.isfile(real):
        with open(real) as handle:
            lines = handle.read().splitlines()
    found = False
    for index, line in enumerate(lines):
        if line.split("=", 1)[0] == key:
            lines[index] = "%s=%s" % (key, value)
            found = True
    if not found:
        lines.append("%s=%s" % (key, value))
    write_file(path, "\n".join(lines) + "\n", 0o644)


def delete_params(path, prefix):
    """Remove every ``prefix...=`` line; delete the file when nothing is left."""
    real = rooted(path)
    if not os.path.isfile(real):
        return
    with open(real) as handle:
        lines = [line for line in handle.read().splitlines() if line and not line.startswith(prefix)]
    if lines:
        write_file(path, "\n".join(lines) + "\n", 0o644)
    else:
        os.unlink(real)


def version_info(path):
    """The ``Version=`` (or ``version=``) value of a version/install info file, or None."""
    values = read_kv(path)
    return values.get("Version") or values.get("version")


# --------------------------------------------------------------------------- users

def _read_db(path):
    entries = []
    real = rooted(path)
    if not os.path.isfile(real):
        return entries
    with open(real) as handle:
        for line in handle:
            line = line.strip()
            if line and not line.startswith("#"):
                entries.append(line.split(":"))
    return entries


def user_entry(name):
    for fields in _read_db("/etc/passwd"):
        if fields and fields[0] == name:
            return fields
    return None


def group_entry(name):
    for fields in _read_db("/etc/group"):
        if fields and fields[0] == name:
            return fields
    return None


def user_in_group(user, group):
    """The user's primary group is ``group`` or the user is listed as a member."""
    user_fields = user_entry(user)
    group_fields = group_entry(group)
    if not user_fields or not group_fields:
        return False
    if len(user_fields) > 3 and len(group_fields) > 2 and user_fields[3] == group_fields[2]:
        return True
    members = group_fields[3].split(",") if len(group_fields) > 3 and group_fields[3] else []
    return user in members


def is_root():
    return os.geteuid() == 0


# --------------------------------------------------------------------------- versions

def _version_key(text):
    key = []
    for part in re.split(r"[.\-]", text.strip()):
        if part.isdigit():
            key.append((1, int(part), ""))
        else:
            match = re.match(r"^([a-zA-Z]+)(\d*)$", part)
            if match:
                # rcN / alphaN / tN sort before the final release of the same number
                key.append((0, int(match.group(2) or 0), match.group(1).lower()))
            else:
                key.append((0, 0, part.lower()))
    return key


def version_cmp(left, right):
    a, b = _version_key(left), _version_key(right)
    length = max(len(a), len(b))
    a += [(1, 0, "")] * (length - len(a))
    b += [(1, 0, "")] * (length - len(b))
    return (a > b) - (a < b)


def parse_ranges(text):
    """``[7.0.0,7.5.99],[24.1,24.1.]`` -> [("7.0.0", "7.5.99"), ("24.1", "24.1.")]"""
    return re.findall(r"\[([^,\]]*),([^\]]*)\]", text or "")


def version_in_ranges(version, text):
    """Whether ``version`` satisfies a ``compatible_version_fw/_drv`` list.

    A trailing dot on the upper bound (``[24.1,24.1.]``) means "any 24.1 release".
    """
    for low, high in parse_ranges(text):
        low, high = low.strip(), high.strip()
        if high.endswith("."):
            prefix = high[:-1]
            if version == prefix or version.startswith(high):
                return True
            continue
        if version_cmp(version, low) >= 0 and version_cmp(version, high) <= 0:
            return True
    return False


# --------------------------------------------------------------------------- logging

class Console(object):
    """Console + log-file writer in one of the two vendor styles.

    ``hdk``:  ``[Driver] [2024-05-06 10:11:12] [INFO]message`` on screen and in
              ascend_install.log (driver and firmware scripts).
    ``cann``: ``[Toolkit] [20240506-10:11:12] [INFO] message`` on screen and in the
              package's own log, ``[Toolkit] [2024-05-06 10:11:12] [INFO]: message`` in
              ascend_install.log (the CANN common scripts).
    """

    def __init__(self, tag, style="hdk", own_log=None):
        self.tag = tag
        self.style = style
        self.own_log = own_log
        self.out = sys.stdout

    def _console_line(self, level, msg):
        if self.style == "hdk":
            return "[%s] [%s] [%s]%s" % (self.tag, now(), level, msg)
        return "[%s] [%s] [%s] %s" % (self.tag, now("%Y%m%d-%H:%M:%S"), level, msg)

    def _file_line(self, level, msg):
        if self.style == "hdk":
            return "[%s] [%s] [%s]%s" % (self.tag, now(), level, msg)
        return "[%s] [%s] [%s]: %s" % (self.tag, now(), level, msg)

    def _append(self, path, line):
        real = rooted(path)
        os.makedirs(os.path.dirname(real), exist_ok=True)
        with open(real, "a") as handle:
            handle.write(line + "\n")

    def echo(self, level, msg, color=None):
        """Screen only (drvEcho)."""
        text = msg if color is None else "%s%s%s" % (color, msg, RESET)
        self.out.write(self._console_line(level, text) + "\n")
        self.out.flush()

    def log(self, level, msg):
        """ascend_install.log only (log)."""
        self._append(INSTALL_LOG, self._file_line(level, msg))
        if self.own_log:
            self._append(self.own_log, self._console_line(level, msg))

    def both(self, level, msg, color=None):
        self.echo(level, msg, color)
        self.log(level, msg)

    def raw(self, text=""):
        self.out.write(text + "\n")
        self.out.flush()


def operation_log(line):
    real = rooted(OPERATION_LOG)
    os.makedirs(os.path.dirname(real), exist_ok=True)
    fresh = not os.path.exists(real)
    with open(real, "a") as handle:
        handle.write(line + "\n")
    if fresh:
        os.chmod(real, 0o640)


OPERATION_LEVEL = {"Install": "SUGGESTION", "Upgrade": "MINOR", "Uninstall": "MAJOR"}


# --------------------------------------------------------------------------- prompts

def ask_yes_no(console, invalid_msg, yes=("y",), no=("n",)):
    """Read y/n answers from stdin like the vendor loops do.

    The vendor loops re-read forever when stdin is at EOF; the simulator reports the input
    error once and fails with rc 1 instead, so a test feeding no TTY cannot hang.
    """
    while True:
        line = sys.stdin.readline()
        if line == "":
            console.echo("ERROR", invalid_msg)
            raise Exit(1)
        answer = line.strip()
        if answer in yes:
            return True
        if answer in no:
            return False
        console.echo("ERROR", invalid_msg)


# --------------------------------------------------------------------------- injection

def inject(state, name, default=None):
    return (state.get("inject") or {}).get(name, default)


def maybe_die(state, kind, point, console=None):
    """``inject.installer_kill_after`` = "<point>" or "<kind>:<point>" kills this installer
    with SIGKILL at that point, once (the setting is consumed so the re-run completes)."""
    wanted = inject(state, "installer_kill_after")
    if not wanted:
        return
    if ":" in wanted:
        wanted_kind, wanted_point = wanted.split(":", 1)
    else:
        wanted_kind, wanted_point = kind, wanted
    if wanted_kind != kind or wanted_point != point:
        return
    update_state(lambda current: (current.get("inject") or {}).pop("installer_kill_after", None))
    state.get("inject", {}).pop("installer_kill_after", None)
    if console is not None:
        console.log("INFO", "simulated interruption after step '%s'" % point)
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)


def disk_full(state):
    return bool(inject(state, "disk_full"))


# --------------------------------------------------------------------------- arguments

def split_header_args(argv):
    """The header passes ``--<run file path> --<cwd>`` before the user's options."""
    if len(argv) < 2:
        return "", "", list(argv)
    runfile = argv[0][2:] if argv[0].startswith("--") else argv[0]
    runfile = os.path.basename(runfile.strip())
    cwd = argv[1][2:] if argv[1].startswith("--") else argv[1]
    return runfile, cwd, list(argv[2:])


def absolute_install_path(value, cwd):
    """--install-path accepts relative paths, resolved against the directory the .run was
    started from (the vendor's getAbsolutePath)."""
    if value.startswith("/"):
        return os.path.normpath(value)
    if value.startswith("~"):
        return os.path.normpath(os.path.expanduser(value))
    return os.path.normpath(os.path.join(cwd or os.getcwd(), value))


def valid_install_path(path):
    """Only [a-z,A-Z,0-9,-,_] in path components, as the vendor's regular expression."""
    return bool(re.match(r"^/[A-Za-z0-9_\-/.]*$", path)) and not re.search(r"/{2,}|\.{3,}", path)


def copy_sim(dest):
    """Ship the simulator runtime (this installer included) to ``dest`` so the installed
    tools and uninstall.sh can run it later."""
    import shutil
    source = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    remove_tree(dest)
    shutil.copytree(source, rooted(dest), ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "serving",
                                                                        "packages.py", "versions.py"))


def keep_package_json(pkg, script_dir, install_root):
    """package.json next to an installed uninstall.sh: what it removes, and from where."""
    data = dict(pkg)
    data["installed_root"] = install_root
    write_file(script_dir + "/package.json", json.dumps(data, indent=2, sort_keys=True) + "\n", 0o440)


UNINSTALL_SCRIPT = """#!/bin/bash
# Uninstall the Ascend %(what)s installed under %(root)s.
export PYTHONPATH="%(sim_real)s${PYTHONPATH:+:$PYTHONPATH}"
exec python3 -m ascend_sim.installer --installed "$(cd "$(dirname "$0")" && pwd)" "$@"
"""


def install_uninstall_script(pkg, script_dir, install_root, what, sim_dir):
    write_file(script_dir + "/uninstall.sh", UNINSTALL_SCRIPT % {
        "what": what, "root": install_root, "sim_real": rooted(sim_dir)}, 0o550)
    keep_package_json(pkg, script_dir, install_root)
