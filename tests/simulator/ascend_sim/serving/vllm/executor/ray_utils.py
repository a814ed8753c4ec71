"""Ray executor prerequisites.

Serving with ``--distributed-executor-backend ray`` needs the ``ray`` package and a
running cluster. The cluster is taken as reachable when RAY_ADDRESS names a host:port
that accepts TCP connections, or, without RAY_ADDRESS, when ``ray status`` succeeds.
"""
import os
import shutil
import socket
import subprocess

from vllm import envs
from vllm.logger import init_logger

logger = init_logger(__name__)

try:
    import ray  # noqa: F401
    ray_import_err = None
except ImportError as e:
    ray = None
    ray_import_err = e

_NO_CLUSTER = ("Could not find any running Ray instance. Please specify the one to "
               "connect to by setting `--address` flag or `RAY_ADDRESS` environment "
               "variable.")


def assert_ray_available():
    """Raise an exception if Ray is not available."""
    if ray is None:
        raise ValueError(f"Failed to import Ray: {ray_import_err}."
                         "Please install Ray with `pip install ray`.")


def _address_reachable(address):
    address = address.strip()
    if address in ("", "auto", "local"):
        return None
    for prefix in ("ray://", "http://", "https://"):
        if address.startswith(prefix):
            address = address[len(prefix):]
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        return False
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=3):
            return True
    except OSError:
        return False


def _ray_status_ok():
    exe = shutil.which("ray")
    if exe is None:
        return False
    try:
        result = subprocess.run([exe, "status"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, timeout=30,
                                env=dict(os.environ))
    except (OSError, subprocess.TimeoutExpired):
        return False
    return result.returncode == 0


def initialize_ray_cluster(parallel_config, ray_address=None):
    assert_ray_available()
    address = ray_address or envs.RAY_ADDRESS
    reachable = _address_reachable(address) if address else None
    if reachable is None:
        reachable = _ray_status_ok()
    if not reachable:
        raise ConnectionError(_NO_CLUSTER)
    logger.info("Connected to Ray cluster%s.", f" at {address}" if address else "")
