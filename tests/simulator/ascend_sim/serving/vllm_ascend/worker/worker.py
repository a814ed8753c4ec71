"""NPU worker start-up: the checks that make a misconfigured node refuse to serve."""
import os

import torch
import torch_npu

from vllm.logger import init_logger

from vllm_ascend._version import __version__
from vllm_ascend.utils import check_ascend_device_type

logger = init_logger(__name__)


class NPUWorker:
    def __init__(self, vllm_config, local_rank=0, rank=0):
        self.vllm_config = vllm_config
        self.parallel_config = vllm_config.parallel_config
        self.local_rank = local_rank
        self.rank = rank
        # vllm_ascend/worker/worker.py (v0.13.0 ... v0.23.0): NPUWorker.__init__ checks the build.
        check_ascend_device_type()

    def init_device(self):
        # The fused operators come from NNAL's libatb.so; torch-npu loads them when the
        # first worker initialises its device.
        import torch_npu.op_plugin.atb._atb_ops  # noqa: F401

        visible_device_count = torch.npu.device_count() if torch.npu.is_available() else 0
        assert self.parallel_config.local_world_size <= visible_device_count, (
            f"local_world_size ({self.parallel_config.local_world_size}) must "
            f"be less than or equal to the number of visible devices "
            f"({visible_device_count})."
        )
        torch_npu.npu.set_device(torch.device("npu", self.local_rank))
        _injected_hccl_timeout()
        logger.info("Initialised NPU worker on %d of %d visible device(s): %s",
                    self.parallel_config.local_world_size, visible_device_count,
                    ",".join(str(i) for i in torch_npu.npu.visible_device_ids()))


def _injected_hccl_timeout():
    """Fault injection, a test instrument: the simulator's ``inject.hccl_timeout_release`` names a
    vllm-ascend release whose ranks on this node cannot connect to the other nodes' ranks, and
    this release's worker stops with HCCL's EI0006 as vllm-project/vllm-ascend issue 5461
    quotes it. Keyed by release, so the release a rollout returns to starts again."""
    release = torch_npu.npu._state().get("inject", {}).get("hccl_timeout_release")
    if release and release == __version__.split("+")[0]:
        raise RuntimeError(
            "[PID: %d] Get_Socket_Timeout(EI0006): Getting socket times out. Reason: 1. The remote does not "
            "initiate a connect request." % os.getpid())
