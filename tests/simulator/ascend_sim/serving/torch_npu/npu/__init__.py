"""``torch.npu``: device enumeration as the Ascend runtime reports it.

The runtime sees the chips whose device nodes exist (``/dev/davinciN``), narrowed by
ASCEND_RT_VISIBLE_DEVICES when that variable is set (an empty value hides every chip,
as an empty CUDA_VISIBLE_DEVICES does). The directory holding the device nodes can be
moved with ASCEND_SIM_DEV_DIR so tests need no real /dev entries.
"""
import json
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
    # An NPU another live process holds (the simulated driver's process table, which npu-smi
    # prints): the driver refuses it with the message of vllm-project/vllm-ascend issue 2698.
    npu_id = visible_device_ids()[index]
    for process in _state().get("processes") or []:
        pid = process.get("pid")
        if process.get("npu_id") == npu_id and pid != os.getpid() and _alive(pid):
            raise RuntimeError("dcmi model initialized failed, because the device is used. ret is -8020")
    return None


def _alive(pid):
    """Whether process ``pid`` runs, also where /proc hides other users' processes (the service
    unit's ProtectProc=invisible): signal 0 is refused for another user's process, not ignored."""
    try:
        os.kill(int(pid), 0)
    except PermissionError:
        return True
    except (OSError, ValueError, TypeError):
        return False
    return True


def _state_path():
    """The simulated driver's state file: ASCEND_SIM_STATE, else /etc/ascend-sim/state.json under
    ASCEND_SIM_ROOT."""
    return os.environ.get("ASCEND_SIM_STATE") or (
        os.environ.get("ASCEND_SIM_ROOT", "").rstrip("/") + "/etc/ascend-sim/state.json")


def _state():
    """The simulated driver's state; {} when there is none."""
    try:
        with open(_state_path()) as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return {}


# c10_npu::SocVersion (Ascend/pytorch torch_npu/csrc/core/npu/NpuVariables.h): the number
# get_soc_version() returns for the SoC name the runtime reports (aclrtGetSocName).
_SOC_VERSIONS = {
    "ascend310p1": 200, "ascend310p2": 201, "ascend310p3": 202, "ascend310p4": 203,
    "ascend310p5": 204, "ascend310p7": 205,
    "ascend910b1": 220, "ascend910b2": 221, "ascend910b2c": 222, "ascend910b3": 223,
    "ascend910b4": 224, "ascend910b4-1": 225,
    "ascend910_9391": 250, "ascend910_9392": 251, "ascend910_9381": 252,
    "ascend910_9382": 253, "ascend910_9372": 254, "ascend910_9362": 255,
}


def get_soc_version():
    """The SoC of the node's chips, as the simulated driver reports it (the simulator's state:
    ASCEND_SIM_STATE, else /etc/ascend-sim/state.json under ASCEND_SIM_ROOT)."""
    try:
        with open(_state_path()) as handle:
            name = json.load(handle)["board"]["soc_version"]
    except (OSError, ValueError, KeyError) as exc:
        raise RuntimeError("get_soc_version: the runtime reports no SoC (%s)" % exc) from exc
    return _SOC_VERSIONS.get(str(name).lower(), -1)


def current_device():
    return 0


def empty_cache():
    return None
