import argparse
import re
import sys
import uuid


def random_uuid():
    return uuid.uuid4().hex


def human_readable_int(value):
    """Parse ``32768``, ``32k`` (x1000), ``32K`` (x1024), ``1m``/``1M`` like vLLM."""
    value = value.strip()
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([kKmMgG])", value)
    if match:
        number, suffix = match.groups()
        mult = {"k": 10**3, "m": 10**6, "g": 10**9, "K": 2**10, "M": 2**20, "G": 2**30}[suffix]
        if suffix.isupper() and "." in number:
            raise argparse.ArgumentTypeError(
                f"Decimals are not allowed with binary suffixes like {suffix}.")
        return int(float(number) * mult)
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"Invalid number: {value!r}") from None


class FlexibleArgumentParser(argparse.ArgumentParser):
    """ArgumentParser that also accepts ``--option_name`` for ``--option-name``."""

    def parse_args(self, args=None, namespace=None):
        if args is None:
            args = sys.argv[1:]
        processed = []
        for arg in args:
            if arg.startswith("--") and len(arg) > 2:
                key, sep, value = arg.partition("=")
                processed.append(key.replace("_", "-") + sep + value)
            else:
                processed.append(arg)
        return super().parse_args(processed, namespace)


class StopFlag:
    """Shutdown request set from a signal handler.

    threading.Event is not safe here: its set() takes the lock that a wait() in the
    interrupted main thread may already hold, and a second signal then deadlocks.
    Assigning a boolean is atomic and waiting is done by short sleeps.
    """

    def __init__(self):
        self._set = False

    def set(self):
        self._set = True

    def is_set(self):
        return self._set

    def wait(self, timeout=None, poll=0.05):
        import time

        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._set:
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                time.sleep(min(poll, remaining))
            else:
                time.sleep(poll)
        return self._set
