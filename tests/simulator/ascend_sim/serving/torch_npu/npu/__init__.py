"""``torch.npu``: device enumeration as the Ascend runtime reports it.

The runtime sees the chips whose device nodes exist (``/dev/davinciN``), narrowed by
ASCEND_RT_VISIBLE_DEVICES when that variable is set (an empty value hides every chip,
as an empty CUDA_VISIBLE_DEVICES does). The directory holding the device nodes can be
moved with ASCEND_SIM_DEV_DIR so tests need no real /dev entries.
"""
import os
import re

from torch_npu.utils import _should_print_warning  # noqa: F401

_DAVINCI = re.compile(r"^davinci([0-9]+)$")


def _device_dir():
    return os.environ.get("ASCEND_SIM_DEV_DIR") or "/dev"


def physical_device_ids():
    try:
        names = os.listdir(_device_dir())
    except OSError:
        return []
    ids = []
    for name in names:
        match = _DAVINCI.match(name)
        if match:
            ids.append(int(match.group(1)))
    return sorted(ids)


def visible_device_ids():
    """Logical order of the chips this process may use."""
    env = os.environ.get("ASCEND_RT_VISIBLE_DEVICES")
    if env is None:
        return physical_device_ids()
    ids = []
    for part in env.split(","):
        part = part.strip()
        if part:
            ids.append(int(part) if part.isdigit() else part)
    return ids


def device_count():
    return len(visible_device_ids())


def is_available():
    return device_count() > 0


def set_device(device):
    index = getattr(device, "index", device)
    if index is None:
        index = 0
    count = device_count()
    if not isinstance(index, int) or index < 0 or index >= count:
        raise RuntimeError(
            "Invalid device ID. Device ID must be in range [0, %d), but got %r." % (count, index))
    return None


def current_device():
    return 0


def empty_cache():
    return None
