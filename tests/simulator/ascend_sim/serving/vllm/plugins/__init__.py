"""Entry-point plugins (``vllm.platform_plugins``, ``vllm.general_plugins``)."""
import importlib
import importlib.util
from importlib import metadata

from vllm import envs
from vllm.logger import init_logger

logger = init_logger(__name__)

# When this tree runs from a source checkout (no installed distribution, hence no
# entry points), the Ascend plugin that its wheel would declare is used instead.
_SOURCE_TREE_PLUGINS = {
    "vllm.platform_plugins": {"ascend": "vllm_ascend:register"},
    "vllm.general_plugins": {},
}


def _entry_points(group):
    eps = metadata.entry_points()
    if hasattr(eps, "select"):
        return list(eps.select(group=group))
    return list(eps.get(group, []))  # Python 3.9


def _installed():
    try:
        metadata.distribution("vllm")
        return True
    except metadata.PackageNotFoundError:
        return False


def _resolve(value):
    module_name, _, attr = value.partition(":")
    obj = importlib.import_module(module_name)
    for part in attr.split(".") if attr else []:
        obj = getattr(obj, part)
    return obj


def load_plugins_by_group(group):
    """Return {name: callable} for the plugins of *group*, honouring VLLM_PLUGINS."""
    if _installed():
        discovered = [(ep.name, ep.value) for ep in _entry_points(group)]
    else:
        discovered = [
            (name, value) for name, value in _SOURCE_TREE_PLUGINS.get(group, {}).items()
            if importlib.util.find_spec(value.partition(":")[0].split(".")[0]) is not None
        ]
    if not discovered:
        logger.debug("No plugins for group %s found.", group)
        return {}
    logger.info("Available plugins for group %s:", group)
    for name, value in discovered:
        logger.info("- %s -> %s", name, value)
    allowed = envs.VLLM_PLUGINS
    if allowed is None:
        logger.info("All plugins in this group will be loaded. "
                    "Set `VLLM_PLUGINS` to control which plugins to load.")
    plugins = {}
    for name, value in discovered:
        if allowed is not None and name not in allowed:
            continue
        try:
            plugins[name] = _resolve(value)
            logger.info("plugin %s loaded.", name)
        except Exception:
            logger.exception("Failed to load plugin %s", name)
    return plugins
