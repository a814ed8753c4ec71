"""Stand-in for torch-npu, the Ascend adapter for PyTorch.

Importing it needs the CANN toolkit in the environment, exactly like the real package;
on success it attaches ``torch.npu``.
"""
import os

import torch

from torch_npu._version import __version__  # noqa: F401

try:
    import torch_npu.npu
except ImportError as exc:
    # torch_npu/__init__.py (Ascend/pytorch): with ASCEND_OPP_PATH set (part of the toolkit's
    # environment is there) it names the compiler package, otherwise the cann package.
    package = "compiler" if "ASCEND_OPP_PATH" in os.environ else "cann"
    raise ImportError(
        str(exc)
        + ". Please check that the %s package is installed. " % package
        + "Please run 'source set_env.sh' in the CANN installation path."
    ) from exc

torch.npu = torch_npu.npu


def npu_fusion_attention(*args, **kwargs):
    """torch_npu's fused attention operator (its API reference: ``torch_npu.npu_fusion_attention``).

    transformers imports it once torch-npu reports NPUs (``integrations/npu_flash_attention.py``);
    it runs only on an NPU, which the sandbox has not.
    """
    raise RuntimeError("npu_fusion_attention: the stand-in torch-npu has no NPU to run on")
