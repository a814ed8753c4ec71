"""Print what the npu_driver scenario checks on a sandbox node, as one JSON document."""
import grp
import json
import os
import pwd
import stat

CACHE = "/var/cache/ascend-vllm/packages"


def read(path):
    try:
        with open(path) as handle:
            return handle.read()
    except (IOError, OSError):
        return None


def version(path):
    for line in (read(path) or "").splitlines():
        if line.startswith("Version="):
            return line.split("=", 1)[1].strip()
    return None


def entry(lookup, name):
    try:
        found = lookup(name)
    except KeyError:
        return None
    return [found[0], found[2]] if lookup is grp.getgrnam else [found[0], found[2], found[3], found[6]]


def cache():
    if not os.path.isdir(CACHE):
        return None
    return dict((name, oct(stat.S_IMODE(os.stat(os.path.join(CACHE, name)).st_mode)))
                for name in sorted(os.listdir(CACHE)))


state = json.loads(read("/etc/ascend-sim/state.json") or "{}")
info = read("/etc/ascend_install.info")
print(json.dumps({
    "driver_version": version("/usr/local/Ascend/driver/version.info"),
    "firmware_version": version("/usr/local/Ascend/firmware/version.info"),
    "install_info": info,
    "operations": [line.split()[0] + " " + line.split()[6] for line in
                   (read("/var/log/ascend_seclog/operation.log") or "").splitlines() if line.strip()],
    "user": entry(pwd.getpwnam, "HwHiAiUser"),
    "group": entry(grp.getgrnam, "HwHiAiUser"),
    "cache": cache(),
    "state": {"driver": state.get("driver"), "firmware": state.get("firmware"),
              "processes": len(state.get("processes") or [])},
    # /run is a fresh tmpfs after every restart of the node
    "marker": os.path.exists("/run/npu-driver-test-marker"),
    "machine": os.uname()[4],
}))
