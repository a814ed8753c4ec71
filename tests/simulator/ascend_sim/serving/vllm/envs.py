"""Environment variables read by the server.

Upstream variables keep their upstream names and meaning. The ``ASCEND_SIM_*`` knobs
exist only in this build and let tests make start-up and generation time observable.
"""
import os


def _float(name, default):
    raw = os.environ.get(name, "")
    try:
        return float(raw) if raw.strip() else default
    except ValueError:
        return default


def __getattr__(name):
    getters = {
        "VLLM_API_KEY": lambda: os.environ.get("VLLM_API_KEY") or None,
        "VLLM_LOGGING_LEVEL": lambda: os.environ.get("VLLM_LOGGING_LEVEL", "INFO").upper(),
        "VLLM_PLUGINS": lambda: (
            None if "VLLM_PLUGINS" not in os.environ
            else [p for p in os.environ["VLLM_PLUGINS"].split(",") if p]),
        "VLLM_ALLOW_LONG_MAX_MODEL_LEN": lambda: os.environ.get(
            "VLLM_ALLOW_LONG_MAX_MODEL_LEN", "0").strip().lower() in ("1", "true"),
        "VLLM_HOST_IP": lambda: os.environ.get("VLLM_HOST_IP", ""),
        "RAY_ADDRESS": lambda: os.environ.get("RAY_ADDRESS") or None,
        # Seconds spent "loading weights" before the HTTP port is bound.
        "ASCEND_SIM_LOAD_SECONDS": lambda: max(0.0, _float("ASCEND_SIM_LOAD_SECONDS", 2.0)),
        # Seconds per generated token (0: instant). Makes running/waiting gauges and
        # latency histograms observable.
        "ASCEND_SIM_TOKEN_SECONDS": lambda: max(0.0, _float("ASCEND_SIM_TOKEN_SECONDS", 0.0)),
        # Data-parallel head/worker liveness.
        "ASCEND_SIM_DP_HEARTBEAT_SECONDS": lambda: max(
            0.05, _float("ASCEND_SIM_DP_HEARTBEAT_SECONDS", 1.0)),
        "ASCEND_SIM_DP_TIMEOUT_SECONDS": lambda: max(
            0.2, _float("ASCEND_SIM_DP_TIMEOUT_SECONDS", 5.0)),
    }
    if name in getters:
        return getters[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
