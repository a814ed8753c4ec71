"""upgrade-tool of the simulated driver: firmware component versions and boot status.

Only the read-only queries the install scripts and operators use are simulated:
``--device_index -1 --component -1 --version`` and ``--device_index -1 --boot_status``.
"""
import sys

from .common import load_state

COMPONENTS = ((0, "nve"), (3, "uefi"), (8, "imu"), (9, "imp"))


def _devices(state, index):
    chips = [chip for chip in (state.get("chips") or []) if isinstance(chip, dict)]
    devices = list(range(len(chips)))
    if index == -1:
        return devices
    if index in devices:
        return [index]
    return None


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    options = {}
    while argv:
        arg = argv.pop(0)
        if arg in ("--device_index", "--component") and argv:
            options[arg[2:]] = argv.pop(0)
        elif arg in ("--version", "--boot_status"):
            options[arg[2:]] = True
        else:
            sys.stderr.write("Unsupported parameter: %s\n" % arg)
            return 1
    state = load_state()
    try:
        index = int(options.get("device_index", "-1"))
    except ValueError:
        sys.stderr.write("Invalid device index: %s\n" % options.get("device_index"))
        return 1
    devices = _devices(state, index)
    if devices is None:
        sys.stderr.write("Device %d does not exist.\n" % index)
        return 1
    if not (state.get("driver") or {}).get("running"):
        sys.stderr.write("dcmi init failed, the driver is not running.\n")
        return 1
    if options.get("boot_status"):
        for device in devices:
            print("Get device(%d) boot status:16" % device)
        return 0
    if options.get("version"):
        version = (state.get("firmware") or {}).get("running") or "NA"
        print("{")
        for device in devices:
            for number, name in COMPONENTS:
                print("Get component version(%s) succeed for deviceId(%d), componentType(%d)." % (version, device, number))
                print('{"device_id":%d, "component":%s, "version":%s}' % (device, name, version))
        print("}")
        return 0
    sys.stderr.write("Nothing to do: give --version or --boot_status.\n")
    return 1


if __name__ == "__main__":
    sys.exit(main())
