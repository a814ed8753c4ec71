"""Engine arguments: the command-line options of ``vllm serve`` that configure the engine."""
import argparse
import json

from vllm.config import (CacheConfig, DeviceConfig, ModelConfig, ParallelConfig,
                         SchedulerConfig, VllmConfig)
from vllm.logger import init_logger
from vllm.utils import human_readable_int

logger = init_logger(__name__)

DTYPES = ["auto", "half", "float16", "bfloat16", "float", "float32"]
EXECUTOR_BACKENDS = ["ray", "mp", "uni", "external_launcher"]


def _optional_bool(parser, name, help_text):
    parser.add_argument(name, action=argparse.BooleanOptionalAction, default=None,
                        help=help_text)


def add_cli_args(parser):
    """Options honoured by this build, plus accepted-and-ignored ones that production
    unit files commonly carry (so their presence does not break start-up)."""
    group = parser.add_argument_group("ModelConfig")
    group.add_argument("--model", type=str, default=None, help="Model directory or name.")
    group.add_argument("--tokenizer", type=str, default=None)
    group.add_argument("--trust-remote-code", action="store_true")
    group.add_argument("--dtype", type=str, default="auto", choices=DTYPES)
    group.add_argument("--seed", type=int, default=None)
    group.add_argument("--max-model-len", type=human_readable_int, default=None)
    group.add_argument("--quantization", "-q", type=str, default=None)
    group.add_argument("--served-model-name", nargs="+", type=str, default=None)
    group.add_argument("--enforce-eager", action="store_true")
    group.add_argument("--revision", type=str, default=None)
    group.add_argument("--load-format", type=str, default="auto")
    group.add_argument("--download-dir", type=str, default=None)
    group.add_argument("--generation-config", type=str, default="auto")
    group.add_argument("--override-generation-config", type=str, default=None)
    group.add_argument("--hf-overrides", type=str, default=None)
    group.add_argument("--max-logprobs", type=int, default=20)

    group = parser.add_argument_group("ParallelConfig")
    group.add_argument("--tensor-parallel-size", "-tp", type=int, default=1)
    group.add_argument("--pipeline-parallel-size", "-pp", type=int, default=1)
    group.add_argument("--data-parallel-size", "-dp", type=int, default=1)
    group.add_argument("--data-parallel-size-local", "-dpl", type=int, default=None)
    group.add_argument("--data-parallel-address", "-dpa", type=str, default=None)
    group.add_argument("--data-parallel-rpc-port", "-dpp", type=int, default=None)
    group.add_argument("--data-parallel-start-rank", "-dpr", type=int, default=None)
    group.add_argument("--data-parallel-backend", "-dpb", type=str, default="mp",
                       choices=["mp", "ray"])
    group.add_argument("--enable-expert-parallel", action="store_true")
    group.add_argument("--distributed-executor-backend", type=str, default=None,
                       choices=EXECUTOR_BACKENDS)
    group.add_argument("--disable-custom-all-reduce", action="store_true")

    group = parser.add_argument_group("CacheConfig")
    group.add_argument("--gpu-memory-utilization", type=float, default=0.9)
    group.add_argument("--block-size", type=int, default=None)
    group.add_argument("--swap-space", type=float, default=4)
    group.add_argument("--kv-cache-dtype", type=str, default="auto")
    _optional_bool(group, "--enable-prefix-caching", "Enable automatic prefix caching.")
    group.add_argument("--cpu-offload-gb", type=float, default=0)
    group.add_argument("--enable-sleep-mode", action="store_true")

    group = parser.add_argument_group("SchedulerConfig")
    group.add_argument("--max-num-seqs", type=int, default=None)
    group.add_argument("--max-num-batched-tokens", type=human_readable_int, default=None)
    _optional_bool(group, "--enable-chunked-prefill", "Enable chunked prefill.")
    group.add_argument("--async-scheduling", action="store_true")

    group = parser.add_argument_group("Other")
    group.add_argument("--compilation-config", "-O", type=str, default=None)
    group.add_argument("--additional-config", type=str, default=None)
    group.add_argument("--speculative-config", type=str, default=None)
    group.add_argument("--kv-transfer-config", type=str, default=None)
    group.add_argument("--disable-log-stats", action="store_true")
    return parser


def _compilation_config(value):
    """--compilation-config / -O: a JSON object, or an optimisation level (an integer)."""
    if not value:
        return {}
    if value.strip().isdigit():
        return {"level": int(value)}
    config = json.loads(value)
    if not isinstance(config, dict):
        raise ValueError(f"--compilation-config must be a JSON object, got {value!r}")
    return config


class EngineArgs:
    def __init__(self, args):
        self.args = args

    @classmethod
    def from_cli_args(cls, args):
        return cls(args)

    def create_engine_config(self):
        a = self.args
        device_config = DeviceConfig(device="auto")
        model_config = ModelConfig(
            model=a.model,
            served_model_name=a.served_model_name,
            tokenizer=a.tokenizer,
            trust_remote_code=a.trust_remote_code,
            dtype=a.dtype,
            seed=a.seed,
            max_model_len=a.max_model_len,
            quantization=a.quantization,
            enforce_eager=a.enforce_eager,
        )
        parallel_config = ParallelConfig(
            tensor_parallel_size=a.tensor_parallel_size,
            pipeline_parallel_size=a.pipeline_parallel_size,
            data_parallel_size=a.data_parallel_size,
            data_parallel_size_local=a.data_parallel_size_local,
            data_parallel_address=a.data_parallel_address,
            data_parallel_rpc_port=a.data_parallel_rpc_port,
            data_parallel_start_rank=a.data_parallel_start_rank,
            data_parallel_backend=a.data_parallel_backend,
            enable_expert_parallel=a.enable_expert_parallel,
            distributed_executor_backend=a.distributed_executor_backend,
            headless=getattr(a, "headless", False),
        )
        model_config.verify_with_parallel_config(parallel_config)
        cache_config = CacheConfig(
            block_size=a.block_size,
            gpu_memory_utilization=a.gpu_memory_utilization,
            swap_space=a.swap_space,
            kv_cache_dtype=a.kv_cache_dtype,
            enable_prefix_caching=a.enable_prefix_caching,
        )
        scheduler_config = SchedulerConfig(
            max_num_seqs=a.max_num_seqs,
            max_num_batched_tokens=a.max_num_batched_tokens,
            max_model_len=model_config.max_model_len,
        )
        if parallel_config.distributed_executor_backend == "ray":
            from vllm.executor.ray_utils import initialize_ray_cluster

            initialize_ray_cluster(parallel_config)
        return VllmConfig(model_config, parallel_config, cache_config, scheduler_config,
                          device_config, _compilation_config(a.compilation_config))
