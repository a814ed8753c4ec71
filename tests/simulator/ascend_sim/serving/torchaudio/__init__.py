"""Stand-in for torchaudio: only its version (vLLM and vllm-ascend install it, nothing imports more)."""
from torchaudio._version import __version__  # noqa: F401
