"""Print what the cann scenario checks on a sandbox node, as one JSON document."""
import json
import os
import stat

ROOT = "/usr/local/Ascend"
ENV_FILE = "/etc/ascend-vllm/cann.env"
PROFILE = "/etc/profile.d/ascend-cann.sh"
CACHE = "/var/cache/ascend-vllm/packages"


def read(path):
    try:
        with open(path) as handle:
            return handle.read()
    except (IOError, OSError):
        return None


def kv(path):
    text = read(path)
    if text is None:
        return None
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def colon(path):
    """``Key : value`` lines (NNAL's version.info has no key=value line)."""
    text = read(path)
    if text is None:
        return None
    return dict((k.strip(), v.strip()) for k, sep, v in (line.partition(":") for line in text.splitlines()) if sep)


def mode(path):
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [oct(stat.S_IMODE(info.st_mode)), info.st_uid, info.st_gid]


arch = os.uname()[4]
latest = ROOT + "/ascend-toolkit/latest"
print(json.dumps({
    "machine": arch,
    "toolkit": kv("%s/%s-linux/ascend_toolkit_install.info" % (latest, arch)),
    "kernels": kv(latest + "/opp_kernel/version.info"),
    "ops": kv("%s/%s-linux/ascend_ops_install.info" % (latest, arch)),
    "nnal": colon(ROOT + "/nnal/atb/latest/version.info"),
    "latest": os.path.realpath(latest) if os.path.exists(latest) else None,
    "versions": sorted(name for name in os.listdir(ROOT) if name.startswith("cann-")) if os.path.isdir(ROOT) else [],
    "classic_versions": sorted(name for name in os.listdir(ROOT + "/ascend-toolkit")
                               if name not in ("latest", "set_env.sh"))
    if os.path.isdir(ROOT + "/ascend-toolkit") else [],
    "cann_install_info": kv("/etc/Ascend/ascend_cann_install.info"),
    "operations": [line.split()[0] + " " + line.split()[6] for line in
                   (read("/var/log/ascend_seclog/operation.log") or "").splitlines()
                   if line.strip() and "-cann-" in line],
    "env_file": read(ENV_FILE),
    "env_file_mode": mode(ENV_FILE),
    "profile": read(PROFILE),
    "profile_mode": mode(PROFILE),
    "cache": sorted(name for name in os.listdir(CACHE) if "-cann-" in name) if os.path.isdir(CACHE) else None,
}))
