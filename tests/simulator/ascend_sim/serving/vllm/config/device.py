class DeviceConfig:
    """Device type for vLLM execution, taken from the detected platform."""

    def __init__(self, device="auto"):
        self.device = device
        self.__post_init__()

    def __post_init__(self):
        if self.device == "auto":
            # Automated device type detection
            from vllm.platforms import current_platform

            self.device_type = current_platform.device_type
            if not self.device_type:
                raise RuntimeError(
                    "Failed to infer device type, please set "
                    "the environment variable `VLLM_LOGGING_LEVEL=DEBUG` "
                    "to turn on verbose logging to help debug the issue."
                )
        else:
            self.device_type = str(self.device)
