"""Build the simulated Ascend vendor packages (.run files made with makeself).

    python3 -m ascend_sim.packages build --out DIR [--arch aarch64|x86_64]
        [--chip 910b|910_93|310p] [--driver VER ...] [--cann VER ...] [--corrupt FILE_NAME]
    python3 -m ascend_sim.packages list [--arch ...] [--chip ...] [--driver VER ...] [--cann VER ...]

From Python: ``build(out, chip, arch, drivers, canns, corrupt)``; for unit tests
``prepare_node(root)`` and ``run_package(path, args, root=...)`` run them re-rooted.

Without --driver/--cann every catalogued version is built (see ascend_sim.versions).  A file
whose inputs did not change is left alone; SHA256SUMS (sha256sum format) lists every .run in
DIR.  --corrupt damages the payload of the named file after building it, so its --check fails
the way makeself reports it.

The archives use the installed makeself with a header derived from makeself's own, changed
the way the vendor's header is: options it does not know are checked against the package's
help text and handed to the install script, which receives
``--<package> --<start directory> [--quiet ] <options>``; --check verifies the SHA256 and then
runs the script's own check; --extract=<path> replaces --target.
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

from . import versions
from .paths import write_if_changed

SIM_DIR = os.path.dirname(os.path.abspath(__file__))
INSTALLER_DIR = os.path.join(SIM_DIR, "installer")
MANIFEST = ".ascend-sim-build.json"
SUMS = "SHA256SUMS"
BUILDER_REVISION = "3"
# the builder and catalogue stay on the build host; the serving wheels have their own package
RUNTIME_EXCLUDE = ("__pycache__", "*.pyc", "serving", "packages.py", "versions.py")

LABELS = {
    "driver": "ASCEND DRIVER RUN PACKAGE",
    "firmware": "ASCEND-HDK-%s-NPU FIRMWARE RUN PACKAGE",
    "toolkit": "ASCEND_RUN_PACKAGE",
    "kernels": "ASCEND_RUN_PACKAGE",
    "ops": "ASCEND_RUN_PACKAGE",
    "nnal": "ASCEND_RUN_PACKAGE",
}
SCRIPT_DIRS = {"driver": "driver/script", "firmware": "firmware/script"}


class BuildError(Exception):
    pass


# --------------------------------------------------------------------------- makeself

def find_makeself():
    for name in ("makeself", "makeself.sh"):
        path = shutil.which(name)
        if path:
            return path
    return None


def makeself_version(makeself):
    out = subprocess.run([makeself, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True).stdout
    match = re.search(r"(\d+\.\d+(?:\.\d+)?)", out)
    return match.group(1) if match else out.strip()


def find_header(makeself):
    """makeself-header.sh of the installed makeself (read from its HEADER= default)."""
    real = os.path.realpath(makeself)
    candidates = []
    with open(real) as handle:
        for line in handle:
            match = re.match(r'^HEADER=(.+)$', line.strip())
            if match:
                value = match.group(1).strip().strip('"')
                value = value.replace('`dirname "$0"`', os.path.dirname(real))
                value = value.replace("$(dirname \"$0\")", os.path.dirname(real))
                candidates.append(value)
                break
    candidates += [os.path.join(os.path.dirname(real), "makeself-header.sh"),
                   "/usr/share/makeself/makeself-header.sh"]
    for path in candidates:
        if os.path.isfile(path):
            return path
    raise BuildError("makeself-header.sh of %s not found" % makeself)


def _replace(text, old, new, what):
    count = text.count(old)
    if count != 1:
        raise BuildError("makeself header layout not recognised (%s: %d matches); known to work: makeself 2.4.5-2.7.1"
                         % (what, count))
    return text.replace(old, new)


# The vendor header: usage text, then the package's own options (the help header).
ASCEND_HELP = r'''MS_Help()
{
    cat << EOH >&2
Usage: \$0 [options]
Options:
  --help | -h                       Print this message
  --info                            Print embedded info : title, default target directory, embedded script ...
  --list                            Print the list of files in the archive
  --check                           Checks integrity and version dependency of the archive
  --quiet                           Quiet install mode, skip human-computer interactions
  --nox11                           Do not spawn an xterm
  --noexec                          Do not run embedded script
  --extract=<path>                  Extract directly to a target directory (absolute or relative)
                                    Usually used with --noexec to just extract files without running
  --tar arg1 [arg2 ...]             Access the contents of the archive through the tar command
\${helpheader}
EOH
}

Script_Args_Check()
{
    # only options named in the package's help text reach the install script
    script_supported_args=\$(echo \${helpheader} | grep -o -E "\-\-[^ ]+" | awk -F"=" '{print \$1}')
    arg_to_test=\$(echo \$1 | awk -F"=" '{print \$1}')
    for arg in \${script_supported_args}; do
        if test x"\$arg_to_test" = x"\$arg"; then
            return
        fi
    done
    MS_Help
    exit 1
}
'''

ASCEND_CHECK_ARM = r'''    --check)
	MS_Check "\$0" y
	scriptargs="\$scriptargs \$1"
	shift
	;;
'''

ASCEND_EXTRACT_ARM = r'''    --extract=*)
	keep=y
	targetdir=\`echo \$1 | cut -d"=" -f2 \`
	if ! shift; then MS_Help; exit 1; fi
	;;
'''

ASCEND_PASS_ARMS = r'''    *)
	Script_Args_Check \$1
	scriptargs="\$scriptargs '\$1'"
	shift
	;;
'''

# options of stock makeself that the vendor header does not have: treated as script options
DISABLED_ARMS = ("--accept | --dumpconf | --lsm | --verify-sig | --confirm | --noexec-cleanup | --keep | "
                 "--target | --noprogress | --nochown | --chown | --nodiskspace | --ssl-pass-src | "
                 "--cleanup-args | --")

ASCEND_SCRIPTARGS = r'''quiet_para=""
if test x"\$quiet" = xy; then
    quiet_para="--quiet "
fi
scriptargs="--\$name_of_file""--\"\$pwd_of_file\""" \$quiet_para""\$scriptargs"

'''


def ascend_header(text):
    """The stock makeself header turned into the vendor's variant."""
    text = _replace(text, "#!/bin/sh\n", "#!/bin/bash\n", "shebang")
    text = _replace(text, 'label="$LABEL"\n', 'name_of_file="\\$0 "\npwd_of_file="\\$PWD"\nlabel="$LABEL"\n',
                    "label")
    start = text.find("MS_Help()\n{")
    end = text.find("\n}\n", start)
    if start < 0 or end < 0:
        raise BuildError("makeself header layout not recognised (MS_Help)")
    text = text[:start] + ASCEND_HELP.rstrip("\n") + text[end + 2:]
    text = _replace(text, "while true\ndo\n    case \"\\$1\" in\n",
                    "while test \\$# -gt 0\ndo\n    case \"\\$1\" in\n    %s)\n\tScript_Args_Check \\$1\n"
                    "\tscriptargs=\"\\$scriptargs '\\$1'\"\n\tshift\n\t;;\n" % DISABLED_ARMS, "option loop")
    text = _replace(text, '    --check)\n\tMS_Check "\\$0" y\n\texit 0\n\t;;\n', ASCEND_CHECK_ARM, "--check arm")
    target_arm = re.search(r"    --target\)\n.*?;;\n", text, re.S)
    if not target_arm:
        raise BuildError("makeself header layout not recognised (--target arm)")
    text = text[:target_arm.start()] + ASCEND_EXTRACT_ARM + text[target_arm.end():]
    tail = re.search(r"    --\)\n\tshift\n\tbreak ;;\n    -\*\)\n.*?    \*\)\n\tbreak ;;\n", text, re.S)
    if not tail:
        raise BuildError("makeself header layout not recognised (option loop tail)")
    text = text[:tail.start()] + ASCEND_PASS_ARMS + text[tail.end():]
    text = _replace(text, 'if test x"\\$quiet" = xy -a x"\\$verbose" = xy; then',
                    ASCEND_SCRIPTARGS + 'if test x"\\$quiet" = xy -a x"\\$verbose" = xy; then', "after options")
    text = text.replace("You should try option --target dir", "You should try option --extract=<path>")
    return text


# --------------------------------------------------------------------------- payloads

def package_plan(chip, arch, drivers, canns):
    """[(kind, catalogue version, file name)] for the requested versions."""
    plan = []
    for version in drivers:
        versions.driver(version)
        plan.append(("driver", version, versions.package_filename("driver", version, chip, arch)))
        plan.append(("firmware", version, versions.package_filename("firmware", version, chip, arch)))
    for version in canns:
        entry = versions.cann(version)
        plan.append(("toolkit", version, versions.package_filename("toolkit", version, chip, arch)))
        plan.append((entry["chip_pkg"], version, versions.package_filename(entry["chip_pkg"], version, chip, arch)))
        plan.append(("nnal", version, versions.package_filename("nnal", version, chip, arch)))
    return plan


def driver_version_info(entry):
    return "\n".join([
        "Version=%s" % entry["version"],
        "ascendhal_version=%s" % entry["ascendhal_version"],
        "aicpu_version=1.0",
        "tdt_version=1.0",
        "log_version=1.0",
        "prof_version=2.0",
        "dvppkernels_version=1.1",
        "tsfw_version=1.0",
        "Innerversion=%s" % entry["innerversion"],
        "compatible_version=%s" % entry["compatible_version"],
        "compatible_version_fw=%s" % entry["compatible_version_fw"],
        "package_version=%s" % entry["version"],
    ]) + "\n"


def firmware_version_info(entry):
    return "\n".join([
        "Version=%s" % entry["firmware"],
        "firmware_version=1.0",
        "package_version=%s" % entry["version"],
        "compatible_version_drv=%s" % entry["firmware_compatible_version_drv"],
    ]) + "\n"


def package_metadata(kind, version, chip, arch):
    chip_names = versions.CHIPS[chip]
    meta = {"kind": kind, "chip": chip, "arch": arch, "opp_soc_dir": chip_names["opp_soc_dir"]}
    if kind in ("driver", "firmware"):
        entry = versions.driver(version)
        meta.update(entry)
        meta["driver_version"] = entry["version"]
        if kind == "firmware":
            meta["version"] = entry["firmware"]
    else:
        meta.update(versions.cann(version))
        meta["kind"] = kind
    return meta


def stage_payload(kind, version, chip, arch, root):
    """Write the payload of one package into ``root``; returns (startup script, help file)."""
    meta = package_metadata(kind, version, chip, arch)
    script_dir = os.path.join(root, SCRIPT_DIRS.get(kind, "script"))
    os.makedirs(script_dir)
    with open(os.path.join(root, "package.json"), "w") as handle:
        json.dump(meta, handle, indent=2, sort_keys=True)
        handle.write("\n")
    with open(os.path.join(root, "scene.info"), "w") as handle:
        handle.write("os=linux\narch=%s\n" % arch)
    if kind == "driver":
        text = driver_version_info(versions.driver(version))
    elif kind == "firmware":
        text = firmware_version_info(versions.driver(version))
    else:
        entry = versions.cann(version)
        text = "Version=%s\nversion_dir=%s\ntimestamp=%s\n" % (entry["toolkit_version"], version, entry["timestamp"])
    with open(os.path.join(root, "version.info"), "w") as handle:
        handle.write(text)
    shutil.copy(os.path.join(INSTALLER_DIR, "install.sh"), os.path.join(script_dir, "install.sh"))
    os.chmod(os.path.join(script_dir, "install.sh"), 0o550)
    help_kind = kind
    shutil.copy(os.path.join(INSTALLER_DIR, "help", help_kind + ".info"), os.path.join(script_dir, "help.info"))
    shutil.copytree(SIM_DIR, os.path.join(script_dir, "ascend_sim"), ignore=shutil.ignore_patterns(*RUNTIME_EXCLUDE))
    startup = "./" + os.path.relpath(os.path.join(script_dir, "install.sh"), root)
    return startup, os.path.join(script_dir, "help.info")


def tree_digest(root):
    digest = hashlib.sha256()
    for top, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(top, name)
            digest.update(os.path.relpath(path, root).encode())
            digest.update(oct(os.stat(path).st_mode & 0o7777).encode())
            with open(path, "rb") as handle:
                digest.update(handle.read())
    return digest.hexdigest()


def sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def corrupt_payload(path):
    """Flip one byte in the middle of the compressed payload: the size is unchanged, so
    makeself's check gets as far as the SHA256 comparison and fails there."""
    with open(path, "rb") as handle:
        data = bytearray(handle.read())
    match = re.search(rb'filesizes="(\d+)"', data)
    if not match:
        raise BuildError("%s is not a makeself archive" % path)
    size = int(match.group(1))
    offset = len(data) - size + size // 2
    data[offset] ^= 0xFF
    with open(path, "wb") as handle:
        handle.write(bytes(data))


# --------------------------------------------------------------------------- build

def _load_manifest(out):
    path = os.path.join(out, MANIFEST)
    if os.path.isfile(path):
        try:
            with open(path) as handle:
                return json.load(handle)
        except (OSError, ValueError):
            return {}
    return {}


def _build_one(makeself, header, fingerprint_base, kind, version, chip, arch, name, out, corrupt, manifest):
    work = tempfile.mkdtemp(prefix="ascend-sim-pkg-")
    try:
        stage = os.path.join(work, "payload")
        os.makedirs(stage)
        startup, help_file = stage_payload(kind, version, chip, arch, stage)
        label = LABELS[kind] % chip.upper() if "%s" in LABELS[kind] else LABELS[kind]
        fingerprint = hashlib.sha256(("%s|%s|%s|%s|%s|%s" % (
            fingerprint_base, tree_digest(stage), label, startup, name, corrupt)).encode()).hexdigest()
        target = os.path.join(out, name)
        known = manifest.get(name) or {}
        if (os.path.isfile(target) and known.get("fingerprint") == fingerprint
                and known.get("sha256") == sha256_file(target)):
            return name, "up-to-date", known
        partial = os.path.join(work, name)
        cmd = [makeself, "--gzip", "--complevel", "4", "--nomd5", "--sha256", "--nooverwrite",
               "--tar-quietly", "--tar-extra", "--numeric-owner", "--header", header,
               "--help-header", help_file, "--packaging-date", "simulated package, catalogue %s" % version,
               stage, partial, label, startup]
        result = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        if result.returncode != 0 or not os.path.isfile(partial):
            raise BuildError("makeself failed for %s (rc %d): %s" % (name, result.returncode,
                                                                      result.stdout.strip()[-2000:]))
        if corrupt:
            corrupt_payload(partial)
        os.chmod(partial, 0o755)
        shutil.move(partial, target)
        return name, "built", {"fingerprint": fingerprint, "sha256": sha256_file(target), "kind": kind,
                               "version": version, "chip": chip, "arch": arch, "corrupt": bool(corrupt)}
    finally:
        shutil.rmtree(work, ignore_errors=True)


# npu-exporter (Ascend/mind-cluster releases): Ascend-mindxdl-npu-exporter_<version>_linux-<uname -m>.zip.
# It holds the program with metricConfiguration.json and pluginConfiguration.json as
# component/npu-exporter/build has them at v26.0.0; the release's yaml files, Dockerfiles and
# run_for_310P_1usoc.sh (container deployments) are left out.
NPU_EXPORTER_VERSION = "26.0.0"
NPU_EXPORTER_WRAPPER = """#!/bin/sh
# Stand-in npu-exporter %(version)s for linux-%(arch)s: serves the simulated node's state (tests/simulator).
PYTHONPATH=/opt/ascend-sim/lib exec python3 -m ascend_sim npu-exporter "$@"
"""
NPU_EXPORTER_GROUPS = ("ddr", "hccs", "npu", "network", "network-npu", "pcie", "roce", "sio", "vnpu", "version",
                       "optical", "hbm", "ub", "optical-npu")
NPU_EXPORTER_PLUGINS = '[\n  {"metricsGroup": "text", "state": "ON"},\n  {"metricsGroup": "MyPlugin", "state": "OFF"}\n]'


def npu_exporter_name(arch, version=NPU_EXPORTER_VERSION):
    return "Ascend-mindxdl-npu-exporter_%s_linux-%s.zip" % (version, arch)


def build_npu_exporter(out, arch, version=NPU_EXPORTER_VERSION):
    """The zip, byte-identical on every build (fixed dates), so its SHA256 is stable."""
    members = [
        ("npu-exporter", NPU_EXPORTER_WRAPPER % {"version": version, "arch": arch}, 0o500),
        ("metricConfiguration.json",
         "[\n%s\n]" % ",\n".join('  {"metricsGroup": "%s", "state": "ON"}' % g for g in NPU_EXPORTER_GROUPS), 0o400),
        ("pluginConfiguration.json", NPU_EXPORTER_PLUGINS, 0o400),
    ]
    path = os.path.join(out, npu_exporter_name(arch, version))
    tmp = path + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text, mode in members:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, text)
    with open(tmp, "rb") as handle:
        data = handle.read()
    os.remove(tmp)
    return os.path.basename(path), "built" if write_if_changed(path, data) == "written" else "up-to-date"


def write_sums(out):
    names = sorted(name for name in os.listdir(out) if name.endswith((".run", ".zip")))
    lines = ["%s  %s\n" % (sha256_file(os.path.join(out, name)), name) for name in names]
    tmp = os.path.join(out, SUMS + ".tmp")
    with open(tmp, "w") as handle:
        handle.writelines(lines)
    os.replace(tmp, os.path.join(out, SUMS))
    return names


def build(out, chip="910b", arch="aarch64", drivers=None, canns=None, corrupt=None, log=None):
    """Build the packages; returns [(file name, "built"|"up-to-date")]."""
    makeself = find_makeself()
    if makeself is None:
        raise BuildError("makeself not found in PATH (Debian/Ubuntu package 'makeself')")
    if drivers is None and canns is None:
        drivers = [entry["version"] for entry in versions.DRIVERS]
        canns = [entry["version"] for entry in versions.CANN]
    plan = package_plan(chip, arch, drivers or [], canns or [])
    names = [name for _, _, name in plan]
    if corrupt and corrupt not in names:
        raise BuildError("--corrupt %s is not one of the packages being built: %s" % (corrupt, ", ".join(names)))
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="ascend-sim-header-")
    try:
        with open(find_header(makeself)) as handle:
            header_text = ascend_header(handle.read())
        header = os.path.join(work, "ascend-makeself-header.sh")
        with open(header, "w") as handle:
            handle.write(header_text)
        base = "%s|%s|%s" % (BUILDER_REVISION, makeself_version(makeself),
                             hashlib.sha256(header_text.encode()).hexdigest())
        manifest = _load_manifest(out)
        results = []
        workers = max(1, min(len(plan), os.cpu_count() or 2, 8))
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(_build_one, makeself, header, base, kind, version, chip, arch, name, out,
                                   corrupt == name, manifest) for kind, version, name in plan]
            for future in futures:
                name, status, record = future.result()
                manifest[name] = record
                results.append((name, status))
                if log:
                    log("%s %s" % (status, name))
        with open(os.path.join(out, MANIFEST), "w") as handle:
            json.dump(manifest, handle, indent=2, sort_keys=True)
        results.append(build_npu_exporter(out, arch))
        if log:
            log("%s %s" % (results[-1][1], results[-1][0]))
        write_sums(out)
        return results
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --------------------------------------------------------------------------- test helpers

def prepare_node(root, profile="a2-910b3", user="HwHiAiUser", group=None, state=True):
    """A re-rooted node for running packages in unit tests: /etc/passwd and /etc/group with
    ``user`` (uid/gid 1000, as the vendor guides create HwHiAiUser) and, with ``state``, a
    fresh simulator state of ``profile`` (no driver running).  Returns the state path."""
    group = group or user
    etc = os.path.join(root, "etc")
    os.makedirs(etc, exist_ok=True)
    with open(os.path.join(etc, "passwd"), "w") as handle:
        handle.write("root:x:0:0:root:/:/bin/bash\n")
        if user:
            handle.write("%s:x:1000:1000::/home/%s:/bin/bash\n" % (user, user))
    with open(os.path.join(etc, "group"), "w") as handle:
        handle.write("root:x:0:\n")
        if group:
            handle.write("%s:x:1000:\n" % group)
    path = os.path.join(root, "etc", "ascend-sim", "state.json")
    if state:
        from . import state as state_mod
        state_mod.save_state(state_mod.new_state(profile), path)
    return path


def package_env(root, extra=None):
    """Environment for running a package against the re-rooted node ``root``."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("ASCEND_", "ATB_", "TOOLCHAIN_")) and key not in ("PYTHONPATH",)}
    env["ASCEND_SIM_ROOT"] = root
    tmp = os.path.join(root, "tmp")
    os.makedirs(tmp, exist_ok=True)
    env["TMPDIR"] = tmp
    env.pop("DISPLAY", None)
    env.update(extra or {})
    return env


def run_package(path, args=(), root=None, stdin="", env=None, timeout=120):
    """Run a .run file as an operator would (no TTY, ``stdin`` fed as given)."""
    return subprocess.run([path] + list(args), cwd=os.path.dirname(path) or ".", input=stdin,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                          env=package_env(root, env) if root is not None else env, timeout=timeout)


# --------------------------------------------------------------------------- CLI

def _parser():
    parser = argparse.ArgumentParser(prog="python3 -m ascend_sim.packages",
                                     description="Build simulated Ascend driver/firmware/CANN .run packages.")
    sub = parser.add_subparsers(dest="command")
    for name in ("build", "list"):
        cmd = sub.add_parser(name, help="build the packages" if name == "build" else "print the file names")
        if name == "build":
            cmd.add_argument("--out", required=True, help="directory receiving the .run files and SHA256SUMS")
            cmd.add_argument("--corrupt", metavar="FILE_NAME", help="damage this package's payload after building")
        cmd.add_argument("--arch", default="aarch64", choices=versions.ARCHES)
        cmd.add_argument("--chip", default="910b", choices=sorted(versions.CHIPS))
        cmd.add_argument("--driver", action="append", metavar="VER",
                         choices=[e["version"] for e in versions.DRIVERS], help="driver version (repeatable)")
        cmd.add_argument("--cann", action="append", metavar="VER",
                         choices=[e["version"] for e in versions.CANN], help="CANN version (repeatable)")
    return parser


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    drivers, canns = args.driver, args.cann
    if drivers is None and canns is None:
        drivers = [entry["version"] for entry in versions.DRIVERS]
        canns = [entry["version"] for entry in versions.CANN]
    if args.command == "list":
        for _, _, name in package_plan(args.chip, args.arch, drivers or [], canns or []):
            print(name)
        return 0
    try:
        build(args.out, args.chip, args.arch, drivers or [], canns or [], args.corrupt, log=print)
    except BuildError as exc:
        sys.stderr.write("error: %s\n" % exc)
        return 1
    print("wrote %s" % os.path.join(args.out, SUMS))
    return 0


if __name__ == "__main__":
    sys.exit(main())
