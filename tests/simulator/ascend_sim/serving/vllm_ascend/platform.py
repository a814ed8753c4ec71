import torch
import torch_npu

from vllm.platforms.interface import Platform, PlatformEnum

ASCEND_QUANTIZATION_METHOD = "ascend"


class NPUPlatform(Platform):
    _enum = PlatformEnum.OOT
    device_name = "npu"
    device_type = "npu"
    simple_compile_backend = "eager"
    ray_device_key = "NPU"
    device_control_env_var = "ASCEND_RT_VISIBLE_DEVICES"
    dispatch_key = "PrivateUse1"
    supported_quantization = [ASCEND_QUANTIZATION_METHOD]
    worker_cls = "vllm_ascend.worker.worker.NPUWorker"

    @classmethod
    def get_device_name(cls, device_id=0):
        return "Ascend"

    @classmethod
    def device_count(cls):
        return torch.npu.device_count()

    @classmethod
    def visible_device_ids(cls):
        return torch_npu.npu.visible_device_ids()
