"""Device nodes of the NPU driver: ``/dev/davinci<phy_id>`` per chip, ``/dev/davinci_manager``,
``/dev/devmm_svm`` and ``/dev/hisi_hdc``.

On a real server the driver's kernel modules create them every time they load - at install
time and again at each boot, since ``/dev`` starts empty - as character devices with mode 0660
owned by the driver's run user and group (``crw-rw---- HwHiAiUser HwHiAiUser``), so that
service users only need to join that group. The driver package and the boot hook
(``python3 -m ascend_sim boot``) both call :func:`make_nodes`.

Nodes are made only as root on an unrooted simulator; otherwise (unit tests, ``ASCEND_SIM_ROOT``
set) nothing is touched and the caller records what was skipped. Majors are fixed here; real
systems allocate them dynamically.
"""
import os
import stat

from .paths import rooted, sim_root

DEVICE_MAJOR = {"davinci": 236, "davinci_manager": 237, "devmm_svm": 238, "hisi_hdc": 239}
DEVICE_MODE = 0o660
DEFAULT_USER = "HwHiAiUser"
INSTALL_INFO = "/etc/ascend_install.info"


def node_list(state):
    """``[(path, major, minor)]`` for the chips of ``state`` and the three shared nodes."""
    names = []
    chips = [chip for chip in (state.get("chips") or []) if isinstance(chip, dict)]
    for index, chip in enumerate(chips):
        number = chip.get("phy_id", chip.get("logic_id", index))
        try:
            number = int(number)
        except (TypeError, ValueError):
            number = index
        names.append(("/dev/davinci%d" % number, DEVICE_MAJOR["davinci"], number))
    for name in ("davinci_manager", "devmm_svm", "hisi_hdc"):
        names.append(("/dev/" + name, DEVICE_MAJOR[name], 0))
    return names


def _lookup(path, name, id_field):
    """The numeric id of ``name`` in a passwd/group style file, or None."""
    try:
        with open(rooted(path)) as handle:
            for line in handle:
                fields = line.rstrip("\n").split(":")
                if len(fields) > id_field and fields[0] == name and fields[id_field].isdigit():
                    return int(fields[id_field])
    except OSError:
        pass
    return None


def run_user():
    """``(user, group)`` the driver was installed for (``/etc/ascend_install.info``)."""
    values = {}
    try:
        with open(rooted(INSTALL_INFO)) as handle:
            for line in handle:
                key, sep, value = line.strip().partition("=")
                if sep:
                    values[key] = value
    except OSError:
        pass
    return values.get("UserName") or DEFAULT_USER, values.get("UserGroup") or DEFAULT_USER


def privileged():
    """Whether device nodes can be made: root, and the simulator is not re-rooted."""
    return not sim_root().strip("/") and os.geteuid() == 0


def make_nodes(state, user=None, group=None):
    """Create (or repair) the driver's device nodes for the chips of ``state``.

    Existing nodes keep their device numbers but get the mode and owner back. Returns
    ``(made, skipped)``: paths handled, and paths (with the reason) left alone.
    """
    if user is None or group is None:
        default_user, default_group = run_user()
        user, group = user or default_user, group or default_group
    nodes = node_list(state)
    if not privileged():
        return [], [path for path, _major, _minor in nodes]
    uid = _lookup("/etc/passwd", user, 2)
    gid = _lookup("/etc/group", group, 2)
    made, skipped = [], []
    for path, major, minor in nodes:
        try:
            if not os.path.exists(path):
                os.mknod(path, DEVICE_MODE | stat.S_IFCHR, os.makedev(major, minor))
            # mknod applies the umask (0660 would become 0640): set the mode explicitly
            os.chmod(path, DEVICE_MODE)
            os.chown(path, 0 if uid is None else uid, 0 if gid is None else gid)
        except OSError as exc:
            skipped.append("%s (%s)" % (path, exc.strerror))
            continue
        made.append(path)
    return made, skipped
