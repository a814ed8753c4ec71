"""ATB operator library loader.

The NNAL package provides libatb.so; its set_env.sh exports ATB_HOME_PATH (for example
``<install>/nnal/atb/latest/atb/cxx_abi_1``) and puts ``$ATB_HOME_PATH/lib`` on the
library path. Without it the fused operators vllm-ascend relies on cannot be loaded.
"""
import os


def _find_libatb(home):
    direct = os.path.join(home, "lib", "libatb.so")
    if os.path.isfile(direct):
        return direct
    # Some layouts keep one ABI directory deeper; look a few levels down, no further.
    base_depth = home.rstrip(os.sep).count(os.sep)
    for root, dirs, files in os.walk(home):
        if "libatb.so" in files:
            return os.path.join(root, "libatb.so")
        if root.count(os.sep) - base_depth >= 4:
            dirs[:] = []
    return None


_home = os.environ.get("ATB_HOME_PATH", "")
atb_so_path = _find_libatb(_home) if _home and os.path.isdir(_home) else None
if atb_so_path is None:
    raise ImportError("libatb.so: cannot open shared object file: No such file or directory")
