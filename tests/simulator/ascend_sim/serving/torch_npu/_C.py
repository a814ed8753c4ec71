"""Loader for the native part of torch-npu.

The real extension links against CANN's libhccl.so/libascendcl.so; they resolve only
when the toolkit's set_env.sh has been sourced (ASCEND_TOOLKIT_HOME and
LD_LIBRARY_PATH point into the toolkit). That is reproduced here by requiring
ASCEND_TOOLKIT_HOME to name an existing directory.
"""
import os

_home = os.environ.get("ASCEND_TOOLKIT_HOME", "")
if not _home or not os.path.isdir(_home):
    raise ImportError("libhccl.so: cannot open shared object file: No such file or directory")

toolkit_home = _home
