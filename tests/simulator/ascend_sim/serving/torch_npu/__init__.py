"""Stand-in for torch-npu, the Ascend adapter for PyTorch.

Importing it needs the CANN toolkit in the environment, exactly like the real package;
on success it attaches ``torch.npu``.
"""
import torch

from torch_npu._version import __version__  # noqa: F401

try:
    import torch_npu.npu
except ImportError as exc:
    raise ImportError(
        str(exc)
        + ". Please check that the cann package is installed. "
        "Please run 'source set_env.sh' in the CANN installation path."
    ) from exc

torch.npu = torch_npu.npu


def npu_fusion_attention(*args, **kwargs):
    """torch_npu's fused attention operator (its API reference: ``torch_npu.npu_fusion_attention``).

    transformers imports it once torch-npu reports NPUs (``integrations/npu_flash_attention.py``);
    it runs only on an NPU, which the sandbox has not.
    """
    raise RuntimeError("npu_fusion_attention: the stand-in torch-npu has no NPU to run on")
