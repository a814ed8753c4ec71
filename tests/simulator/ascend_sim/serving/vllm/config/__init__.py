"""Engine configuration and the validation vLLM performs before any device work."""
import re
import importlib.util

from vllm.version import at_least

# vllm.config imports transformers (vllm/config/model.py -> vllm/transformers_utils/config.py at
# v0.23.0), and transformers (5.24.0, the newest vLLM 0.23.0 accepts) calls is_torch_npu_available()
# while it imports (integrations/flash_attention.py -> npu_flash_attention.py), which imports
# torch_npu unguarded when it is installed. Without CANN's environment torch-npu's ImportError
# ends `vllm serve`, and even `vllm --version`, here, before any platform is chosen (seen with the
# real engine: site scenario). Older releases ended later with "Failed to infer device type"
# (vllm-ascend issue #262, v0.7.1); the release where this changed is assumed to be 0.23.0, the
# one verified.
if at_least(0, 23, 0) and importlib.util.find_spec("torch_npu") is not None:
    import torch_npu  # noqa: F401
from vllm import envs
from vllm.config.device import DeviceConfig  # noqa: F401
from vllm.transformers_utils.config import (derived_max_model_len, get_config,
                                            file_or_path_exists)


def _missing_modelslim_config(model):
    """The refusal of --quantization ascend for a model without quant_model_description.json:
    from vllm-ascend 0.23.0 its ModelSlim message (vllm_ascend/quantization/modelslim_config.py
    at v0.23.0, its first lines), before it the older one."""
    try:
        from vllm_ascend._version import __version__
        release = tuple(int(part) for part in re.findall(r"\d+", __version__.split("+")[0])[:3])
    except ImportError:
        release = ()
    if release < (0, 23, 0):
        return "Cannot find the config file for ascend"
    return ("\n" + "=" * 80 + "\nERROR: ModelSlim Quantization Config Not Found\n" + "=" * 80 + "\n\n"
            "You have enabled '--quantization ascend' (ModelSlim quantization),\n"
            f"but the model '{model}' does not contain the required\n"
            "quantization config file ('quant_model_description.json').\n\n"
            "This usually means the model weights are NOT quantized by ModelSlim.\n")


class ModelConfig:
    def __init__(self, model, served_model_name=None, tokenizer=None, trust_remote_code=False,
                 dtype="auto", seed=0, max_model_len=None, quantization=None, enforce_eager=False):
        self.model = model
        self.enforce_eager = enforce_eager
        self.tokenizer = tokenizer or model
        self.trust_remote_code = trust_remote_code
        self.dtype = dtype
        self.seed = 0 if seed is None else seed
        self.hf_config = get_config(model)
        self.served_model_name = list(served_model_name or [model])
        self.architectures = self.hf_config.get("architectures") or []
        self.max_model_len = self._get_and_verify_max_len(max_model_len)
        self.quantization = self._verify_quantization(quantization)

    def _get_and_verify_max_len(self, max_model_len):
        key, derived = derived_max_model_len(self.hf_config)
        if derived is None:
            derived = 2048
            key = "default"
        if max_model_len is None:
            return derived
        if max_model_len > derived and not envs.VLLM_ALLOW_LONG_MAX_MODEL_LEN:
            raise ValueError(
                f"User-specified max_model_len ({max_model_len}) is greater "
                f"than the derived max_model_len ({key}={derived} or "
                f"model_max_length=None in model's config.json). This may lead "
                "to incorrect model outputs or CUDA errors. To allow overriding "
                "this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1")
        return max_model_len

    def _verify_quantization(self, quantization):
        quant_cfg = self.hf_config.get("quantization_config") or {}
        quant_method = quant_cfg.get("quant_method")
        if quantization is None and quant_method:
            quantization = str(quant_method).lower()
        if quantization is None:
            return None
        from vllm.platforms import current_platform

        supported = list(getattr(current_platform, "supported_quantization", []) or [])
        if supported and quantization not in supported:
            raise ValueError(
                f"{quantization} quantization is currently not supported in "
                f"{current_platform.device_name}.")
        if quantization == "ascend" and not file_or_path_exists(
                self.model, "quant_model_description.json"):
            raise ValueError(_missing_modelslim_config(self.model))
        return quantization

    def get_num_attention_heads(self):
        return int(self.hf_config.get("num_attention_heads") or 1)

    def verify_with_parallel_config(self, parallel_config):
        total_num_attention_heads = self.get_num_attention_heads()
        tensor_parallel_size = parallel_config.tensor_parallel_size
        if total_num_attention_heads % tensor_parallel_size != 0:
            raise ValueError(
                f"Total number of attention heads ({total_num_attention_heads})"
                " must be divisible by tensor parallel size "
                f"({tensor_parallel_size}).")
        total_num_hidden_layers = int(self.hf_config.get("num_hidden_layers") or 1)
        pipeline_parallel_size = parallel_config.pipeline_parallel_size
        if total_num_hidden_layers < pipeline_parallel_size:
            raise ValueError(
                f"Total number of hidden layers ({total_num_hidden_layers}) must "
                f"be at least pipeline parallel size ({pipeline_parallel_size}).")


class ParallelConfig:
    def __init__(self, tensor_parallel_size=1, pipeline_parallel_size=1, data_parallel_size=1,
                 data_parallel_size_local=None, data_parallel_address=None,
                 data_parallel_rpc_port=None, data_parallel_start_rank=None,
                 data_parallel_backend="mp", enable_expert_parallel=False,
                 distributed_executor_backend=None, headless=False):
        for name, value in (("tensor_parallel_size", tensor_parallel_size),
                            ("pipeline_parallel_size", pipeline_parallel_size),
                            ("data_parallel_size", data_parallel_size)):
            if value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}.")
        self.tensor_parallel_size = tensor_parallel_size
        self.pipeline_parallel_size = pipeline_parallel_size
        self.data_parallel_size = data_parallel_size
        self.data_parallel_size_local = (
            data_parallel_size if data_parallel_size_local is None else data_parallel_size_local)
        if not 0 <= self.data_parallel_size_local <= data_parallel_size:
            raise ValueError(
                f"data_parallel_size_local ({self.data_parallel_size_local}) must be "
                f"between 0 and data_parallel_size ({data_parallel_size}).")
        self.data_parallel_address = data_parallel_address or "127.0.0.1"
        self.data_parallel_rpc_port = data_parallel_rpc_port or 29550
        self.data_parallel_start_rank = data_parallel_start_rank or 0
        if (self.data_parallel_start_rank + self.data_parallel_size_local
                > data_parallel_size):
            raise ValueError(
                f"data_parallel_start_rank ({self.data_parallel_start_rank}) + "
                f"data_parallel_size_local ({self.data_parallel_size_local}) exceeds "
                f"data_parallel_size ({data_parallel_size}).")
        self.data_parallel_backend = data_parallel_backend
        self.enable_expert_parallel = enable_expert_parallel
        self.headless = headless
        self.world_size = tensor_parallel_size * pipeline_parallel_size
        if distributed_executor_backend is None:
            distributed_executor_backend = "mp" if self.world_size > 1 else "uni"
        self.distributed_executor_backend = distributed_executor_backend

    @property
    def local_world_size(self):
        """NPUs this node drives: TP x PP for each of its local data-parallel ranks."""
        return self.world_size * max(1, self.data_parallel_size_local)

    @property
    def remote_dp_ranks(self):
        return self.data_parallel_size - self.data_parallel_size_local


class CacheConfig:
    def __init__(self, block_size=None, gpu_memory_utilization=0.9, swap_space=4,
                 kv_cache_dtype="auto", enable_prefix_caching=None):
        self.block_size = block_size or 128
        self.gpu_memory_utilization = gpu_memory_utilization
        self.swap_space = swap_space
        self.kv_cache_dtype = kv_cache_dtype
        self.enable_prefix_caching = enable_prefix_caching
        if gpu_memory_utilization > 1.0:
            raise ValueError(
                "GPU memory utilization must be less than 1.0. Got "
                f"{gpu_memory_utilization}.")
        if gpu_memory_utilization <= 0:
            raise ValueError(
                "GPU memory utilization must be greater than 0. Got "
                f"{gpu_memory_utilization}.")


class SchedulerConfig:
    def __init__(self, max_num_seqs=None, max_num_batched_tokens=None, max_model_len=2048):
        self.max_num_seqs = max_num_seqs or 256
        self.max_num_batched_tokens = max_num_batched_tokens or 8192
        self.max_model_len = max_model_len
        if self.max_num_seqs < 1:
            raise ValueError(f"max_num_seqs must be at least 1, got {self.max_num_seqs}.")


class VllmConfig:
    def __init__(self, model_config, parallel_config, cache_config, scheduler_config,
                 device_config, compilation_config=None):
        self.model_config = model_config
        self.parallel_config = parallel_config
        self.cache_config = cache_config
        self.scheduler_config = scheduler_config
        self.device_config = device_config
        # --compilation-config as a dict (only cudagraph_mode and cudagraph_capture_sizes are read)
        self.compilation_config = compilation_config or {}
