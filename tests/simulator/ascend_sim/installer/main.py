"""Entry point of the install scripts.

``python3 -m ascend_sim.installer <header args> <options>`` runs from an extracted payload
(cwd holds package.json).  ``python3 -m ascend_sim.installer --installed <script dir> [...]``
is what an installed ``uninstall.sh`` runs: the package.json kept next to it names the
package and the tree it was installed into.
"""
import json
import os
import sys

from .common import Exit


def _script_class(kind):
    if kind == "driver":
        from .hdk import DriverScript
        return DriverScript
    if kind == "firmware":
        from .hdk import FirmwareScript
        return FirmwareScript
    from .cann import CannScript
    return CannScript


def run_package(pkg, argv):
    script = _script_class(pkg["kind"])(pkg, argv)
    try:
        script.run()
    except Exit as exc:
        return exc.rc
    return 0


def run_installed(script_dir, extra):
    with open(os.path.join(script_dir, "package.json")) as handle:
        pkg = json.load(handle)
    argv = ["--" + os.path.join(script_dir, "uninstall.sh"), "--" + os.getcwd(), "--uninstall"]
    if pkg["kind"] not in ("driver", "firmware"):
        argv.append("--install-path=%s" % pkg["installed_root"])
        argv += [arg for arg in extra if arg == "--quiet"]
    return run_package(pkg, argv)


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    # the makeself header runs the script under umask 077; the vendor scripts set the modes
    # of what they install explicitly, so directories end up 755 like theirs
    os.umask(0o022)
    if argv[:1] == ["--installed"] and len(argv) >= 2:
        return run_installed(argv[1], argv[2:])
    with open("package.json") as handle:
        pkg = json.load(handle)
    return run_package(pkg, argv)
