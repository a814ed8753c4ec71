"""NPU worker start-up: the checks that make a misconfigured node refuse to serve."""
import os
import re

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
        _check_free_memory(torch_npu.npu.visible_device_ids()[self.local_rank],
                           self.vllm_config.cache_config.gpu_memory_utilization)
        _injected_hccl_timeout(self.rank)
        logger.info("Initialised NPU worker on %d of %d visible device(s): %s",
                    self.parallel_config.local_world_size, visible_device_count,
                    ",".join(str(i) for i in torch_npu.npu.visible_device_ids()))


    def compile_or_warm_up_model(self):
        """Graph capture (vllm-ascend's ACL graphs) after the KV cache is allocated, unless the
        engine runs eagerly: every captured graph takes driver streams."""
        model_config = self.vllm_config.model_config
        compilation = getattr(self.vllm_config, "compilation_config", None) or {}
        mode = str(compilation.get("cudagraph_mode") or "PIECEWISE").upper()
        if getattr(model_config, "enforce_eager", False) or mode == "NONE":
            return
        driver = _driver_version(torch_npu.npu._state().get("driver", {}).get("running"))
        if driver is not None and driver < HDK_GRAPH_MINIMUM:
            # vllm-project/vllm-ascend issue 8393: capture on an HDK older than graph mode needs.
            raise RuntimeError(
                "capture_begin:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:214 NPU function error: "
                "c10_npu::acl::AclmdlRICaptureBegin(capture_stream_, capture_mode), error code is 207005\n"
                "[ERROR] (PID:%d, Device:%d, RankID:-1) ERR00100 PTA call acl api failed\n"
                "[Error]: Failed to apply for memory.\n"
                "        Check the remaining storage space in the hardware environment.\n"
                "EE9999: Inner Error!\n"
                "EE9999[PID: %d] (EE9999):  [SqCqManage]Alloc sq cq fail, stream_id=1984, retCode=0x7020023."
                "[FUNC:Setup][FILE:stream.cc]" % (os.getpid(), self.local_rank, os.getpid()))
        sizes = compilation.get("cudagraph_capture_sizes") or _default_capture_sizes(
            compilation.get("max_cudagraph_capture_size"), self.vllm_config.scheduler_config.max_num_seqs)
        layers = int(model_config.hf_config.get("num_hidden_layers") or 1)
        graphs = len(sizes) * (1 if mode in ("FULL", "FULL_DECODE_ONLY") else layers + 1)
        if graphs > STREAMS_PER_DEVICE:
            # vllm-project/vllm-ascend docs/source/faqs.md (17) and vllm_ascend/compilation/acl_graph.py
            # (_raise_stream_resource_capture_error) at v0.23.0.
            raise RuntimeError(
                "ACL graph capture failed with a known stream-resource exhaustion signature. Consider upgrading to "
                "a newer HDK/CANN stack, reducing cudagraph_capture_sizes, lowering max_cudagraph_capture_size, "
                "preferring FULL or FULL_DECODE_ONLY for mostly uniform decode workloads, or temporarily disabling "
                "graph mode to confirm the failure is capture-related.\nOriginal error:\n"
                "capture_begin:../torch_npu/csrc/core/npu/NPUGraph.cpp:230 NPU function error: "
                "c10_npu::acl::AclmdlRICaptureBegin(capture_stream_, capture_mode), error code is 207008\n"
                "[Error]: Stream resources are insufficient.\n"
                "[PID: %d] Insufficient_Stream_Resources(EL0009): The stream resources are insufficient."
                % os.getpid())
        logger.info("Graph capturing finished: %d graph(s) of %d size(s)", graphs, len(sizes))


# Graph mode needs Ascend HDK 25.5.1 or later (vllm-project/vllm-ascend PR 10555).
HDK_GRAPH_MINIMUM = (25, 5, 1)
# Streams one device gives its graphs (assumed: the capture of issue 8393 failed at stream 1984).
STREAMS_PER_DEVICE = 2048


def _default_capture_sizes(largest, max_num_seqs):
    """vLLM's capture sizes when none are configured (vllm/config/vllm.py _set_cudagraph_sizes at
    v0.23.0): 1, 2, 4, multiples of 8 below 256, then of 16, up to min(2 x max_num_seqs, 512)."""
    largest = largest or min((max_num_seqs or 256) * 2, 512)
    return [size for size in [1, 2, 4] + list(range(8, 256, 8)) + list(range(256, 513, 16)) if size <= largest]


def _driver_version(text):
    """'25.5.1' -> (25, 5, 1); '26.0.rc1' -> (26, 0, -1), a release candidate before its .0;
    None when unknown."""
    match = re.match(r"^(\d+)\.(\d+)(?:\.(\d+|rc\d+))?", str(text or ""))
    if not match:
        return None
    third = match.group(3) or "0"
    return (int(match.group(1)), int(match.group(2)), -1 if third.startswith("rc") else int(third))


def _check_free_memory(npu, utilization):
    """vllm-ascend's worker takes a memory snapshot after set_device and refuses to start when
    the device's free memory is below --gpu-memory-utilization of its total (vllm_ascend/worker/
    worker.py NPUWorker.init_device at v0.23.0). Free memory: the simulated driver's HBM (DDR on
    310P) of the chip this rank uses."""
    chip = next((c for c in torch_npu.npu._state().get("chips") or [] if c.get("logic_id") == npu), None)
    if not chip:
        return
    total = chip.get("hbm_total_mb") or chip.get("memory_total_mb")
    used = chip.get("hbm_used_mb") if chip.get("hbm_total_mb") else chip.get("memory_used_mb")
    if not total or used is None:
        return
    gib = 1024.0
    free, requested = total - used, total * utilization
    if free < requested:
        raise ValueError(
            f"Free memory on device "
            f"({round(free / gib, 2)}/"
            f"{round(total / gib, 2)} GiB) on startup "
            f"is less than desired GPU memory utilization "
            f"({utilization}, "
            f"{round(requested / gib, 2)} GiB). Decrease GPU memory "
            f"utilization or reduce GPU memory used by other processes.")


# What HCCL prints for each injectable error code (inject.hccl_error_code), from its source.
HCCL_ERRORS = {
    # vllm-project/vllm-ascend issue 5461
    "EI0006": "[PID: {pid}] Get_Socket_Timeout(EI0006): Getting socket times out. Reason: 1. The remote does not "
              "initiate a connect request.",
    # hicann/hccl docs/zh/user_guide/fault_diagnosis/tls_info_config_inconsistent_EI0016.md
    "EI0016": "[ERROR] HCCL({pid},python3):[topoinfo_exchange_agent.cc:831] [{pid}][InitGroupStage][RanktableCheck] "
              'Value Disable for config "tls" is invalid. Expected Value:"All ranks are consistent. Current status : '
              "rankList for enabled tls:[{peer}/0]; rankList for disabled tls:[{peer}/0]; rankList for query "
              'failure tls:".;',
    # vllm-project/vllm-ascend issue 7711 (HCCL's rank table check of a multi-server communicator
    # without the device's address: /etc/hccn.conf missing or not mounted)
    "device_ip": "[ERROR] HCCL({pid},python3):[RanktablCheck] 'device ip' is not set correctly, must be set when "
                 "multi Server or HCCL INTRA ROCE ENABLE enabled",
    # vllm-project/vllm-ascend issue 7384 (there during an operation; here when the ranks start)
    "EI0013": "[Rank {rank}] HCCL watchdog thread terminated with exception: [PID: {pid}] "
              "Execution_Error_ROCE_CQE(EI0013): An error CQE occurred during operator execution.",
}


def _injected_hccl_timeout(rank=0):
    """Fault injection, a test instrument: the simulator's ``inject.hccl_timeout_release`` names a
    vllm-ascend release whose ranks on this node cannot connect to the other nodes' ranks, and
    this release's worker stops with the HCCL error ``inject.hccl_error_code`` names (EI0006, the
    socket timeout of vllm-project/vllm-ascend issue 5461, when unset; EI0016 for TLS switches
    that differ; EI0013 for a RoCE CQE error; device_ip for a device without its address). Keyed by release, so the release a rollout returns
    to starts again."""
    inject = torch_npu.npu._state().get("inject", {})
    release = inject.get("hccl_timeout_release")
    if release and release == __version__.split("+")[0]:
        code = inject.get("hccl_error_code") or "EI0006"
        raise RuntimeError(HCCL_ERRORS[code].format(pid=os.getpid(), rank=rank, peer="127.0.0.1"))
