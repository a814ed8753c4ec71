from vllm._version import __version__

__version_tuple__ = tuple(
    int(p) if p.isdigit() else p
    for p in __version__.replace("+", ".").split(".")
)


def release():
    """(major, minor, patch) of this build, local label and post/dev parts dropped."""
    parts = []
    for piece in __version__.split("+", 1)[0].split("."):
        if not piece.isdigit():
            break
        parts.append(int(piece))
    while len(parts) < 3:
        parts.append(0)
    return tuple(parts[:3])


def at_least(*version):
    return release() >= tuple(version)
