"""Stand-in: only its version (vLLM installs it; nothing here imports more)."""
from xformers._version import __version__  # noqa: F401
