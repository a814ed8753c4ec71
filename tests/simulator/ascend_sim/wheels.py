"""Wheelhouse of stand-in serving packages: vllm, vllm-ascend, torch, torch-npu, triton-ascend.

    python3 -m ascend_sim.wheels build --out DIR [--release 0.23.0 ...]
    python3 -m ascend_sim.wheels matrix

``build`` writes pure-Python ``py3-none-any`` wheels for each stack row (all rows by
default) into DIR, plus a PEP 503 index under ``DIR/simple/``. Both of these work:

    pip install --no-index --find-links DIR vllm==0.23.0 vllm-ascend==0.23.0 ...
    pip install --index-url file://DIR/simple vllm==0.23.0 ...

Versions carry the local label ``+sim`` (``vllm==0.23.0`` still selects
``0.23.0+sim``: a pin without a local label ignores it); a version that already has a
local label, such as torch-npu ``2.9.0.post1+git4c901a4``, is kept exactly. The
dependencies are declared so that ``pip check`` passes for a consistent row and fails
for a mixed one: vllm-ascend pins vllm, torch, torch-npu (and triton-ascend where the row
has it), torch-npu pins torch. Output is byte-for-byte reproducible; files whose content
is unchanged are not rewritten.
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

# vllm-ascend release -> stack (DESIGN section 4; upstream versioning policy).
STACKS = {
    "0.9.1": {"vllm": "0.9.1", "vllm_ascend": "0.9.1", "torch": "2.5.1",
              "torch_npu": "2.5.1.post1", "triton_ascend": None, "requires_python": ">=3.9"},
    "0.11.0": {"vllm": "0.11.0", "vllm_ascend": "0.11.0", "torch": "2.7.1",
               "torch_npu": "2.7.1.post1", "triton_ascend": None, "requires_python": ">=3.9"},
    "0.13.0": {"vllm": "0.13.0", "vllm_ascend": "0.13.0", "torch": "2.8.0",
               "torch_npu": "2.8.0.post2", "triton_ascend": "3.2.0",
               "requires_python": ">=3.10"},
    # Upstream's v0.18.0 setup pins triton-ascend==3.2.0 although the release table of the
    # design omits it; the pin is what pip resolves, so it is kept.
    "0.18.0": {"vllm": "0.18.0", "vllm_ascend": "0.18.0", "torch": "2.9.0",
               "torch_npu": "2.9.0.post1+git4c901a4", "triton_ascend": "3.2.0",
               "requires_python": ">=3.10"},
    "0.23.0": {"vllm": "0.23.0", "vllm_ascend": "0.23.0", "torch": "2.10.0",
               "torch_npu": "2.10.0.post4", "triton_ascend": "3.2.2",
               "requires_python": ">=3.10"},
}

# distribution -> (display name, import package, summary)
PACKAGES = {
    "vllm": ("vllm", "vllm",
             "A high-throughput and memory-efficient inference and serving engine for LLMs "
             "(test stand-in)"),
    "vllm_ascend": ("vllm-ascend", "vllm_ascend",
                    "vLLM Ascend backend plugin (test stand-in)"),
    "torch": ("torch", "torch",
              "Tensors and Dynamic neural networks in Python (CPU build, test stand-in)"),
    "torch_npu": ("torch-npu", "torch_npu", "Ascend NPU adapter for PyTorch (test stand-in)"),
    "triton_ascend": ("triton-ascend", "triton", "Triton for Ascend NPUs (test stand-in)"),
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


def _requirements(dist, row):
    if dist == "vllm_ascend":
        reqs = ["vllm==%s" % row["vllm"], "torch==%s" % row["torch"],
                "torch-npu==%s" % public_version(row["torch_npu"])]
        if row.get("triton_ascend"):
            reqs.append("triton-ascend==%s" % row["triton_ascend"])
        return reqs
    if dist == "torch_npu":
        return ["torch==%s" % row["torch"]]
    return []


def _metadata(dist, version, row):
    display, _, summary = PACKAGES[dist]
    lines = [
        "Metadata-Version: 2.1",
        "Name: %s" % display,
        "Version: %s" % wheel_version(version),
        "Summary: %s" % summary,
        "License: Apache-2.0",
        "Requires-Python: %s" % row["requires_python"],
    ]
    lines += ["Requires-Dist: %s" % req for req in _requirements(dist, row)]
    return ("\n".join(lines) + "\n\n").encode("utf-8")


def _package_files(import_name, version):
    """{archive path: bytes} of the package source, with its _version.py for *version*."""
    root = os.path.join(SERVING_DIR, import_name)
    files = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for fname in sorted(filenames):
            if not fname.endswith(".py"):
                continue
            full = os.path.join(dirpath, fname)
            arc = os.path.relpath(full, SERVING_DIR).replace(os.sep, "/")
            with open(full, "rb") as handle:
                files[arc] = handle.read()
    files["%s/_version.py" % import_name] = (
        "# Generated by ascend_sim.wheels.\n__version__ = %r\n" % wheel_version(version)
    ).encode("utf-8")
    return files


def build_wheel_bytes(dist, version, row):
    _, import_name, _ = PACKAGES[dist]
    files = _package_files(import_name, version)
    dist_info = "%s-%s.dist-info" % (dist, wheel_version(version))
    meta = {
        "%s/METADATA" % dist_info: _metadata(dist, version, row),
        "%s/WHEEL" % dist_info: ("Wheel-Version: 1.0\nGenerator: ascend_sim.wheels\n"
                                 "Root-Is-Purelib: true\nTag: py3-none-any\n\n").encode(),
        "%s/top_level.txt" % dist_info: ("%s\n" % import_name).encode(),
    }
    if dist in ENTRY_POINTS:
        meta["%s/entry_points.txt" % dist_info] = ENTRY_POINTS[dist].encode()
    entries = sorted(files.items()) + sorted(meta.items())
    record_path = "%s/RECORD" % dist_info
    record = "".join("%s,%s,%d\n" % (path, _record_hash(data), len(data))
                     for path, data in entries) + "%s,,\n" % record_path
    entries.append((record_path, record.encode()))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for path, data in entries:
            info = zipfile.ZipInfo(path, date_time=_ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3
            archive.writestr(info, data)
    return buf.getvalue()


def planned_wheels(releases):
    """{filename: (dist, version, row)} for the requested stack rows."""
    plan = {}
    for release in releases:
        row = STACKS[release]
        for dist in ("vllm", "vllm_ascend", "torch", "torch_npu", "triton_ascend"):
            version = row.get(dist)
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
    args = parser.parse_args(argv)
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
