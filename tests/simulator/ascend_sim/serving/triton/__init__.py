"""Stand-in for triton-ascend (installs the ``triton`` package)."""
from triton._version import __version__  # noqa: F401
