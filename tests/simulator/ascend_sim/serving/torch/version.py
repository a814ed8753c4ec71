from torch._version import __version__  # noqa: F401

# The CPU build that vllm-ascend pairs with torch-npu has no CUDA runtime.
cuda = None
git_version = "sim"
