"""Stand-in for torchvision: only its version (vLLM and vllm-ascend install it, nothing imports more)."""
from torchvision._version import __version__  # noqa: F401
