"""Engine start-up: worker device initialisation, weight loading, KV cache sizing.

Nothing is computed; the steps run in upstream order so a broken node fails at the
same point and with the same message, and loading takes ASCEND_SIM_LOAD_SECONDS.
"""
import importlib
import os
import time

from vllm import envs
from vllm.logger import init_logger
from vllm.transformers_utils.config import weight_files

logger = init_logger(__name__)


class EngineInterrupted(Exception):
    """Shutdown was requested while the engine was starting."""


def _resolve(qualname):
    module_name, _, attr = qualname.rpartition(".")
    return getattr(importlib.import_module(module_name), attr)


class EngineCore:
    def __init__(self, vllm_config):
        self.vllm_config = vllm_config
        self.workers = []

    def start(self, stop_event):
        try:
            self._init_workers()
            self._load_model(stop_event)
        except EngineInterrupted:
            raise
        except BaseException:
            logger.error("EngineCore failed to start.")
            raise

    def _init_workers(self):
        from vllm.platforms import current_platform

        parallel = self.vllm_config.parallel_config
        worker_cls = _resolve(current_platform.worker_cls)
        worker = worker_cls(self.vllm_config, local_rank=0,
                            rank=parallel.data_parallel_start_rank * parallel.world_size)
        if parallel.distributed_executor_backend == "ray":
            # Ray places the workers across the cluster; this node's chip count does not
            # bound the world size, only the library check applies.
            import torch_npu.op_plugin.atb._atb_ops  # noqa: F401
        else:
            worker.init_device()
        self.workers.append(worker)

    def _load_model(self, stop_event):
        model_config = self.vllm_config.model_config
        files = weight_files(model_config.model)
        if not files:
            raise RuntimeError(f"Cannot find any model weights with `{model_config.model}`")
        logger.info("Starting to load model %s...", model_config.model)
        began = time.monotonic()
        if stop_event.wait(envs.ASCEND_SIM_LOAD_SECONDS):
            raise EngineInterrupted()
        size = sum(os.path.getsize(f) for f in files)
        took = time.monotonic() - began
        logger.info("Loading weights took %.2f seconds", took)
        logger.info("Model loading took %.4f GiB and %.6f seconds", size / 2**30, took)
        max_len = model_config.max_model_len
        block = self.vllm_config.cache_config.block_size
        num_blocks = max(1, (max_len * 4 + block - 1) // block)
        logger.info("GPU KV cache size: %s tokens", format(num_blocks * block, ","))
        logger.info("Maximum concurrency for %s tokens per request: %.2fx",
                    format(max_len, ","), num_blocks * block / max_len)
        for worker in self.workers:
            warm_up = getattr(worker, "compile_or_warm_up_model", None)
            if warm_up:
                warm_up()
        logger.info("init engine (profile, create kv cache, warmup model) took %.2f seconds",
                    time.monotonic() - began)
