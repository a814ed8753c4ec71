from torch_npu._version import __version__  # noqa: F401
