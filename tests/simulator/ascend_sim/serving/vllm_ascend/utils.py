"""The device-type check of vllm-ascend's NPU worker (``vllm_ascend/utils.py`` at v0.13.0 and v0.23.0).

A vllm-ascend wheel is built for one chip family: ``vllm_ascend/_build_info.py`` records it
(``__device_type__``, from v0.13.0; ``__soc_version__`` before). From v0.13.0 the worker compares
it with the SoC the runtime reports (``torch_npu.npu.get_soc_version()``) and stops on a mismatch,
with upstream's message. Releases whose build records no device type do not check.
"""
import enum

import torch_npu


class AscendDeviceType(enum.Enum):
    A2 = 0
    A3 = 1
    _310P = 2
    A5 = 3


def installed_device_type():
    """The device type the installed build records, or None (releases before 0.13.0)."""
    from vllm_ascend import _build_info

    device_type = getattr(_build_info, "__device_type__", None)
    return AscendDeviceType[device_type] if device_type else None


def current_device_type():
    """The chip the runtime reports, by the SoC ranges of check_ascend_device_type."""
    soc_version = torch_npu.npu.get_soc_version()
    if 220 <= soc_version <= 225:
        return AscendDeviceType.A2
    if 250 <= soc_version <= 255:
        return AscendDeviceType.A3
    if 200 <= soc_version <= 205:
        return AscendDeviceType._310P
    if soc_version == 260:
        return AscendDeviceType.A5
    raise RuntimeError(f"Can not support soc_version: {soc_version}.")


def check_ascend_device_type():
    installed = installed_device_type()
    if installed is None:
        return
    current = current_device_type()
    assert installed == current, (
        f"Current device type: {current} does not match the installed version's device type: "
        f"{installed}, please check your installation package."
    )
