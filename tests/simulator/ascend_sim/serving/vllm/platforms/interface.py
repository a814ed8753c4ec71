import enum


class PlatformEnum(enum.Enum):
    CUDA = enum.auto()
    ROCM = enum.auto()
    TPU = enum.auto()
    XPU = enum.auto()
    CPU = enum.auto()
    OOT = enum.auto()
    UNSPECIFIED = enum.auto()


class Platform:
    _enum = PlatformEnum.UNSPECIFIED
    device_name = ""
    device_type = ""
    ray_device_key = ""
    device_control_env_var = ""
    dispatch_key = "CPU"
    supported_quantization = []
    worker_cls = None

    def is_out_of_tree(self):
        return self._enum == PlatformEnum.OOT

    @classmethod
    def device_count(cls):
        return 0

    @classmethod
    def visible_device_ids(cls):
        return []


class UnspecifiedPlatform(Platform):
    _enum = PlatformEnum.UNSPECIFIED
    device_type = ""
