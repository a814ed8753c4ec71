"""Platform detection: exactly one platform plugin must activate.

This build knows no in-tree accelerator; the Ascend plugin from vllm-ascend is the only
candidate. A plugin whose probe raises (torch-npu cannot load) is not activated.
"""
import importlib
import traceback

from vllm.logger import init_logger
from vllm.plugins import load_plugins_by_group

from .interface import Platform, PlatformEnum, UnspecifiedPlatform  # noqa: F401

logger = init_logger(__name__)


def resolve_current_platform_cls_qualname():
    platform_plugins = load_plugins_by_group("vllm.platform_plugins")
    activated = {}
    for name, func in platform_plugins.items():
        try:
            qualname = func()
            if qualname is not None:
                activated[name] = qualname
        except Exception as exc:
            logger.debug("Platform plugin %s is not available because: %s", name, exc)
    if len(activated) >= 2:
        raise RuntimeError(
            "Only one platform plugin can be activated, but got: %s" % sorted(activated))
    if len(activated) == 1:
        name, qualname = next(iter(activated.items()))
        logger.info("Platform plugin %s is activated", name)
        return qualname
    logger.info("No platform detected, vLLM is running on UnspecifiedPlatform")
    return "vllm.platforms.interface.UnspecifiedPlatform"


def _resolve_obj_by_qualname(qualname):
    module_name, _, obj_name = qualname.rpartition(".")
    return getattr(importlib.import_module(module_name), obj_name)


_current_platform = None
_init_trace = ""


def __getattr__(name):
    if name == "current_platform":
        global _current_platform, _init_trace
        if _current_platform is None:
            _current_platform = _resolve_obj_by_qualname(
                resolve_current_platform_cls_qualname())()
            _init_trace = "".join(traceback.format_stack())
        return _current_platform
    raise AttributeError(f"No attribute named '{name}' exists in {__name__}.")
