"""``python3 -m ascend_sim <command>``: set up and drive a simulated Ascend node.

  init --profile NAME [--state PATH] [--sysfs-root DIR] [--driver V] [--firmware V] [--force]
  boot [--state PATH] [--install-path DIR]
  set KEY.PATH=VALUE [...] [--state PATH]     (VALUE is JSON; other text is taken as a string)
  get KEY.PATH [--state PATH]
  sysfs [--state PATH] [--sysfs-root DIR]
  npu-smi ARGS...        the npu-smi command line
  hccn_tool ARGS...      the hccn_tool command line
  npu-exporter ARGS...   the npu-exporter command line (Prometheus metrics of the node state)

Every machine path is re-rooted by ``ASCEND_SIM_ROOT`` (see paths.py).
"""
import argparse
import json
import os
import sys

from . import devices, hccn_tool, npu_exporter, npu_smi, profiles, state as state_mod, sysfs
from .paths import rooted, sim_root


def _parser():
    parser = argparse.ArgumentParser(prog="python3 -m ascend_sim", description="Simulated Ascend NPU node")
    sub = parser.add_subparsers(dest="command", required=True)

    init = sub.add_parser("init", help="write a fresh node state (no driver running) and its sysfs tree")
    init.add_argument("--profile", required=True, choices=profiles.profile_names())
    init.add_argument("--state", help="state file (default: $ASCEND_SIM_STATE or %s)" % state_mod.DEFAULT_STATE_PATH)
    init.add_argument("--sysfs-root", help="where to build the sysfs tree (default: %s)"
                      % state_mod.DEFAULT_SYSFS_ROOT)
    init.add_argument("--driver", help="start with this driver version running")
    init.add_argument("--firmware", help="start with this firmware version running")
    init.add_argument("--install-path", default=state_mod.DEFAULT_INSTALL_PATH)
    init.add_argument("--force", action="store_true", help="replace an existing state")

    boot = sub.add_parser("boot", help="apply what a node restart does (installed versions become running)")
    boot.add_argument("--state")
    boot.add_argument("--install-path")

    setp = sub.add_parser("set", help="edit the state: KEY.PATH=JSON")
    setp.add_argument("assignments", nargs="+")
    setp.add_argument("--state")

    getp = sub.add_parser("get", help="print a state value as JSON")
    getp.add_argument("key")
    getp.add_argument("--state")

    tree = sub.add_parser("sysfs", help="rebuild the sysfs tree from the state")
    tree.add_argument("--state")
    tree.add_argument("--sysfs-root")
    return parser


def _fail(message):
    sys.stderr.write("ascend_sim: %s\n" % message)
    return 1


def _state_file(args):
    return args.state or state_mod.state_path()


def cmd_init(args):
    path = _state_file(args)
    if os.path.exists(path) and not args.force:
        return _fail("%s exists; use --force to start the node over" % path)
    node = state_mod.new_state(args.profile, driver=args.driver, firmware=args.firmware,
                               install_path=args.install_path)
    if args.sysfs_root:
        node["sysfs_root"] = args.sysfs_root
    state_mod.save_state(node, path)
    tree = args.sysfs_root or rooted(node["sysfs_root"])
    sysfs.build_sysfs(tree, node)
    print("%s: %s, %d chips, state %s, sysfs %s" % (
        args.profile, node["board"]["server_model"], len(node["chips"]), path, tree))
    return 0


def cmd_boot(args):
    path = _state_file(args)
    if not os.path.exists(path):
        return _fail("no node state at %s (run init first)" % path)
    with state_mod.locked_state(path) as node:
        state_mod.apply_boot(node, install_path=args.install_path, root=sim_root())
        driver, firmware = node["driver"]["running"], node["firmware"]["running"]
    print("boot: driver %s, firmware %s" % (driver or "none", firmware or "none"))
    if driver and devices.privileged():
        # /dev starts empty at every boot: the loaded driver makes its device nodes again
        _made, failed = devices.make_nodes(node)
        if failed:
            return _fail("device nodes not created: %s" % ", ".join(failed))
    return 0


def cmd_set(args):
    path = _state_file(args)
    try:
        pairs = [state_mod.parse_assignment(text) for text in args.assignments]
    except ValueError as exc:
        return _fail(str(exc))
    with state_mod.locked_state(path) as node:
        for key, value in pairs:
            try:
                state_mod.set_path(node, key, value)
            except (KeyError, IndexError, ValueError, TypeError) as exc:
                raise SystemExit(_fail("cannot set %s: %r" % (key, exc)))
    return 0


def cmd_get(args):
    try:
        value = state_mod.get_path(state_mod.load_state(_state_file(args)), args.key)
    except (KeyError, IndexError, ValueError, TypeError) as exc:
        return _fail("no %s: %r" % (args.key, exc))
    print(json.dumps(value))
    return 0


def cmd_sysfs(args):
    node = state_mod.load_state(_state_file(args))
    tree = args.sysfs_root or rooted(node.get("sysfs_root") or state_mod.DEFAULT_SYSFS_ROOT)
    sysfs.build_sysfs(tree, node)
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    # the vendor tools take their own options verbatim
    if argv and argv[0] == "npu-smi":
        return npu_smi.main(argv[1:])
    if argv and argv[0] == "hccn_tool":
        return hccn_tool.main(argv[1:])
    if argv and argv[0] == "npu-exporter":
        return npu_exporter.main(argv[1:])
    args = _parser().parse_args(argv)
    return {"init": cmd_init, "boot": cmd_boot, "set": cmd_set, "get": cmd_get, "sysfs": cmd_sysfs}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
