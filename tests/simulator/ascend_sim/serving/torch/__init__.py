"""Stand-in for the CPU build of PyTorch that torch-npu extends.

Only what the serving stack and install checks touch is provided: the version,
``torch.device`` and the ``torch.npu`` namespace that ``import torch_npu`` attaches.
"""
from torch._version import __version__  # noqa: F401
from torch import version  # noqa: F401


class device:  # noqa: N801 - mirrors torch.device
    def __init__(self, type_or_spec, index=None):
        spec = str(type_or_spec)
        if ":" in spec and index is None:
            spec, _, idx = spec.partition(":")
            index = int(idx)
        self.type = spec
        self.index = index

    def __repr__(self):
        if self.index is None:
            return "device(type='%s')" % self.type
        return "device(type='%s', index=%d)" % (self.type, self.index)

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))


class _NoAccelerator:
    """``torch.npu`` before torch_npu is imported: no device is usable."""

    @staticmethod
    def is_available():
        return False

    @staticmethod
    def device_count():
        return 0


npu = _NoAccelerator()


def cuda_is_available():
    return False


def compiled_with_cxx11_abi():
    """NNAL's set_env.sh asks this to pick ``atb/cxx_abi_0`` or ``cxx_abi_1``.

    PyPI builds for aarch64 always used the C++11 ABI; x86_64 builds switched with 2.7.
    """
    import platform

    release = []
    for piece in __version__.split("+", 1)[0].split(".")[:2]:
        release.append(int(piece) if piece.isdigit() else 0)
    return platform.machine() == "aarch64" or tuple(release) >= (2, 7)
