"""Stand-in for xgrammar: only its version (vLLM installs it; nothing here imports more)."""
from xgrammar._version import __version__  # noqa: F401
