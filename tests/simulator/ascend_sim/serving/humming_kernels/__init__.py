"""Stand-in for humming_kernels: only its version (vLLM installs it; nothing here imports more)."""
from humming_kernels._version import __version__  # noqa: F401
