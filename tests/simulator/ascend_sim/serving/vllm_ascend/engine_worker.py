"""The NPU worker of the stand-in vllm-ascend with the real vLLM engine (see engine_platform).

Imported by vLLM when it starts a worker (``parallel_config.worker_cls``), after vllm.config:
the platform module cannot import it (vllm.config imports the platform).
"""
import torch
import torch_npu

from vllm.v1.worker.cpu_worker import CPUWorker

from vllm_ascend.utils import check_ascend_device_type


class NPUWorker(CPUWorker):
    def __init__(self, *args, **kwargs):
        # vllm_ascend/worker/worker.py (v0.13.0 ... v0.23.0): NPUWorker.__init__ checks the build.
        check_ascend_device_type()
        super().__init__(*args, **kwargs)

    def init_device(self):
        # As vllm_ascend.worker.worker.NPUWorker: libatb through the NNAL environment, then
        # the chips ASCEND_RT_VISIBLE_DEVICES leaves this process.
        import torch_npu.op_plugin.atb._atb_ops  # noqa: F401

        visible = torch_npu.npu.device_count() if torch_npu.npu.is_available() else 0
        local_world_size = self.parallel_config.local_world_size
        assert local_world_size <= visible, (
            f"local_world_size ({local_world_size}) must be less than or equal to the number of "
            f"visible devices ({visible})."
        )
        torch_npu.npu.set_device(self.local_rank)
        # vLLM's CPU code compiles with torch's inductor (the sampler's @torch.compile in
        # vllm/v1/sample/ops/topk_topp_sampler.py at v0.23.0), which builds C++ against Python's
        # headers with g++ - tools a serving node does not have and vllm-ascend does not use (it
        # captures graphs for the NPU). torch.compile runs eagerly in this worker instead.
        torch.compiler.set_stance("force_eager")
        super().init_device()
