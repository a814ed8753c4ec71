"""Every absolute path the simulator touches goes through :func:`rooted`.

Unit tests set ``ASCEND_SIM_ROOT`` to a temporary directory so that ``/etc/hccn.conf`` or
``/usr/local/Ascend/driver/version.info`` resolve inside it; on a sandbox node the variable is
unset and the real paths are used, which is what the production code expects to see.
"""
import os

ROOT_ENV = "ASCEND_SIM_ROOT"


def sim_root():
    """The prefix from ``ASCEND_SIM_ROOT`` (empty string when unset)."""
    return os.environ.get(ROOT_ENV, "").rstrip("/")


def rooted(path, root=None):
    """Return ``path`` re-rooted under ``root`` (default: ``ASCEND_SIM_ROOT``).

    Relative paths are returned unchanged: only absolute, machine-wide paths are simulated.
    """
    if root is None:
        root = sim_root()
    root = (root or "").rstrip("/")
    if not root or not os.path.isabs(path):
        return path
    return root + "/" + path.lstrip("/")


def write_if_changed(path, data):
    """Write ``data`` (bytes) to ``path`` atomically unless it already holds exactly that.

    Returns "written" or "unchanged", so builders can report what a re-run really did.
    """
    try:
        with open(path, "rb") as handle:
            if handle.read() == data:
                return "unchanged"
    except OSError:
        pass
    tmp = path + ".tmp"
    with open(tmp, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)
    return "written"
