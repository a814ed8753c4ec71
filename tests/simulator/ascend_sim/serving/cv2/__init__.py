"""Stand-in: only its version (vLLM installs it; nothing here imports more)."""
from cv2._version import __version__  # noqa: F401
