from torch_npu import _C  # noqa: F401  (raises ImportError when CANN is not in the environment)


def _should_print_warning():
    return True
