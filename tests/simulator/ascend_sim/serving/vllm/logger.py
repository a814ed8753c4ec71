"""Logging in the format of the upstream server.

``INFO 06-16 15:10:58 [api_server.py:1880] message`` on stdout; from 0.10.2 the API
server process prefixes its lines with ``(APIServer pid=N)``.
"""
import logging
import os
import sys

from vllm import envs
from vllm.version import at_least

_FORMAT = "%(levelname)s %(asctime)s [%(filename)s:%(lineno)d] %(message)s"
_DATE_FORMAT = "%m-%d %H:%M:%S"
_ROOT = "vllm"
_state = {"configured": False, "prefix": ""}


def _configure():
    if _state["configured"]:
        return
    root = logging.getLogger(_ROOT)
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter(_state["prefix"] + _FORMAT, _DATE_FORMAT))
    root.handlers[:] = [handler]
    level = envs.VLLM_LOGGING_LEVEL
    root.setLevel(level if level in logging._nameToLevel else "INFO")
    root.propagate = False
    _state["configured"] = True


def set_process_label(label):
    """Prefix every line with ``(label pid=N)``, as multi-process vLLM >= 0.10.2 does."""
    if not at_least(0, 10, 2):
        return
    _state["prefix"] = "(%s pid=%d) " % (label, os.getpid())
    if _state["configured"]:
        for handler in logging.getLogger(_ROOT).handlers:
            handler.setFormatter(logging.Formatter(_state["prefix"] + _FORMAT, _DATE_FORMAT))


def init_logger(name):
    _configure()
    if name != _ROOT and not name.startswith(_ROOT + "."):
        name = _ROOT + "." + name
    return logging.getLogger(name)


logger = init_logger(_ROOT)
