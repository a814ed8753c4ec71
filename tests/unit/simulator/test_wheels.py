"""ascend_sim.wheels: the stand-in serving wheelhouse, installed into a real virtualenv.

pip runs hermetically: no index, no configuration file, no global constraints, so
nothing is fetched from or checked against anything but the wheelhouse under test.
"""
import base64
import csv
import hashlib
import io
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile

import pytest

from ascend_sim import model as model_gen
from ascend_sim import wheels

SIM_DIR = os.path.dirname(os.path.dirname(wheels.__file__))
ROW_0_23 = ["vllm==0.23.0", "vllm-ascend==0.23.0", "torch==2.10.0", "torch-npu==2.10.0.post4"]


def _clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PIP_", "ASCEND_", "ATB_", "VLLM_", "RAY_", "PYTHONPATH"))}
    env.update({"PIP_CONFIG_FILE": os.devnull, "PIP_CONSTRAINT": "",
                "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1",
                "PIP_NO_CACHE_DIR": "1"})
    env.update(extra)
    return env


def _run(argv, env=None, timeout=300):
    return subprocess.run(argv, env=env or _clean_env(), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=timeout)


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("wheelhouse"))
    wheels.build(out)
    return out


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("venv") / "v")
    result = _run([sys.executable, "-m", "venv", path])
    assert result.returncode == 0, result.stdout
    return path


def _pip(venv, *args):
    return _run([os.path.join(venv, "bin", "python"), "-m", "pip"] + list(args))


def _installed(venv):
    result = _pip(venv, "list", "--format", "json")
    assert result.returncode == 0, result.stdout
    return {wheels.normalize(p["name"]): p["version"] for p in json.loads(result.stdout)}


# --------------------------------------------------------------------------- files
def test_every_stack_row_has_its_wheels(wheelhouse):
    names = sorted(f for f in os.listdir(wheelhouse) if f.endswith(".whl"))
    assert names == sorted([
        "vllm-0.9.1+sim-py3-none-any.whl", "vllm_ascend-0.9.1+sim-py3-none-any.whl",
        "torch-2.5.1+sim-py3-none-any.whl", "torch_npu-2.5.1.post1+sim-py3-none-any.whl",
        "vllm-0.11.0+sim-py3-none-any.whl", "vllm_ascend-0.11.0+sim-py3-none-any.whl",
        "torch-2.7.1+sim-py3-none-any.whl", "torch_npu-2.7.1.post1+sim-py3-none-any.whl",
        "vllm-0.13.0+sim-py3-none-any.whl", "vllm_ascend-0.13.0+sim-py3-none-any.whl",
        "torch-2.8.0+sim-py3-none-any.whl", "torch_npu-2.8.0.post2+sim-py3-none-any.whl",
        "triton_ascend-3.2.0+sim-py3-none-any.whl",
        "vllm-0.18.0+sim-py3-none-any.whl", "vllm_ascend-0.18.0+sim-py3-none-any.whl",
        "torch-2.9.0+sim-py3-none-any.whl",
        "torch_npu-2.9.0.post1+git4c901a4-py3-none-any.whl",
        "vllm-0.23.0+sim-py3-none-any.whl", "vllm_ascend-0.23.0+sim-py3-none-any.whl",
        "torch-2.10.0+sim-py3-none-any.whl", "torch_npu-2.10.0.post4+sim-py3-none-any.whl",
        "triton_ascend-3.2.2+sim-py3-none-any.whl",
    ])


def _dist_info(archive):
    names = archive.namelist()
    infos = {n.split("/")[0] for n in names if ".dist-info/" in n}
    assert len(infos) == 1
    return infos.pop()


def _metadata(archive):
    text = archive.read(_dist_info(archive) + "/METADATA").decode()
    fields = {}
    for line in text.split("\n\n", 1)[0].splitlines():
        key, _, value = line.partition(": ")
        fields.setdefault(key, []).append(value)
    return fields


@pytest.mark.parametrize("release", sorted(wheels.STACKS))
def test_wheels_have_valid_record_metadata_and_entry_points(wheelhouse, release):
    row = wheels.STACKS[release]
    for fname in wheels.planned_wheels([release]):
        with zipfile.ZipFile(os.path.join(wheelhouse, fname)) as archive:
            assert archive.testzip() is None
            info = _dist_info(archive)
            assert info == "%s-%s.dist-info" % (fname.split("-")[0], fname.split("-")[1])
            wheel_file = archive.read(info + "/WHEEL").decode()
            assert "Root-Is-Purelib: true" in wheel_file and "Tag: py3-none-any" in wheel_file
            rows = list(csv.reader(io.StringIO(archive.read(info + "/RECORD").decode())))
            recorded = {r[0] for r in rows}
            assert recorded == set(archive.namelist())
            for path, digest, size in rows:
                if path == info + "/RECORD":
                    assert (digest, size) == ("", "")
                    continue
                data = archive.read(path)
                expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
                assert digest == "sha256=" + expected.decode() and int(size) == len(data)
            meta = _metadata(archive)
            assert meta["Version"] == [fname.split("-")[1]]
            assert meta["Requires-Python"] == [row["requires_python"]]
            requires = set(meta.get("Requires-Dist", []))
            top = archive.read(info + "/top_level.txt").decode().strip()
            version_py = archive.read(top + "/_version.py").decode()
            assert "__version__ = %r" % fname.split("-")[1] in version_py
            if fname.startswith("vllm_ascend-"):
                expected_reqs = {"vllm==%s" % row["vllm"], "torch==%s" % row["torch"],
                                 "torch-npu==%s" % row["torch_npu"].split("+")[0]}
                if row["triton_ascend"]:
                    expected_reqs.add("triton-ascend==%s" % row["triton_ascend"])
                assert requires == expected_reqs
                entry = archive.read(info + "/entry_points.txt").decode()
                assert "[vllm.platform_plugins]\nascend = vllm_ascend:register" in entry
            elif fname.startswith("vllm-"):
                assert requires == set()
                entry = archive.read(info + "/entry_points.txt").decode()
                assert "[console_scripts]\nvllm = vllm.entrypoints.cli.main:main" in entry
            elif fname.startswith("torch_npu-"):
                assert requires == {"torch==%s" % row["torch"]}


def test_builds_are_reproducible_and_idempotent(wheelhouse, tmp_path):
    out = str(tmp_path / "again")
    wheels.build(out)
    for fname in os.listdir(wheelhouse):
        if fname.endswith(".whl"):
            with open(os.path.join(wheelhouse, fname), "rb") as a, \
                    open(os.path.join(out, fname), "rb") as b:
                assert a.read() == b.read(), fname
    before = {f: os.stat(os.path.join(out, f)).st_mtime_ns for f in os.listdir(out)
              if f.endswith(".whl")}
    report = wheels.build(out)
    assert {status for _, status in report} == {"unchanged"}
    assert before == {f: os.stat(os.path.join(out, f)).st_mtime_ns for f in before}


def test_simple_index_lists_each_project_with_hashes(wheelhouse):
    root = os.path.join(wheelhouse, "simple")
    with open(os.path.join(root, "index.html")) as handle:
        top = handle.read()
    for project in ("vllm", "vllm-ascend", "torch", "torch-npu", "triton-ascend"):
        assert '<a href="%s/">%s</a>' % (project, project) in top
    with open(os.path.join(root, "torch-npu", "index.html")) as handle:
        page = handle.read()
    links = re.findall(r'<a href="\.\./\.\./([^"#]+)#sha256=([0-9a-f]{64})"'
                       r' data-requires-python="([^"]+)">', page)
    assert len(links) == 5
    for quoted, digest, requires in links:
        fname = urllib.request.url2pathname(quoted)
        with open(os.path.join(wheelhouse, fname), "rb") as handle:
            assert hashlib.sha256(handle.read()).hexdigest() == digest
        assert requires in ("&gt;=3.9", "&gt;=3.10")
    assert "torch_npu-2.9.0.post1%2Bgit4c901a4-py3-none-any.whl" in page


def test_cli_builds_selected_rows_and_prints_the_matrix(tmp_path):
    env = dict(os.environ, PYTHONPATH=SIM_DIR)
    out = str(tmp_path / "w")
    result = subprocess.run([sys.executable, "-m", "ascend_sim.wheels", "build", "--out", out,
                             "--release", "0.13.0"], env=env, stdout=subprocess.PIPE,
                            timeout=120)
    assert result.returncode == 0
    assert sorted(f for f in os.listdir(out) if f.endswith(".whl")) == [
        "torch-2.8.0+sim-py3-none-any.whl", "torch_npu-2.8.0.post2+sim-py3-none-any.whl",
        "triton_ascend-3.2.0+sim-py3-none-any.whl", "vllm-0.13.0+sim-py3-none-any.whl",
        "vllm_ascend-0.13.0+sim-py3-none-any.whl"]
    lines = result.stdout.decode().splitlines()
    assert all(line.startswith("written ") for line in lines) and len(lines) == 5 + 6
    result = subprocess.run([sys.executable, "-m", "ascend_sim.wheels", "matrix"], env=env,
                            stdout=subprocess.PIPE, timeout=120)
    matrix = json.loads(result.stdout)
    assert matrix["0.18.0"]["torch_npu"] == "2.9.0.post1+git4c901a4"
    result = subprocess.run([sys.executable, "-m", "ascend_sim.wheels", "build", "--out", out,
                             "--release", "0.10.0"], env=env, stderr=subprocess.PIPE,
                            timeout=120)
    assert result.returncode == 2 and b"invalid choice" in result.stderr


# --------------------------------------------------------------------------- pip
def test_consistent_row_installs_and_passes_pip_check(wheelhouse, venv):
    result = _pip(venv, "install", "--no-index", "--find-links", wheelhouse, *ROW_0_23)
    assert result.returncode == 0, result.stdout
    installed = _installed(venv)
    assert {k: installed[k] for k in ("vllm", "vllm-ascend", "torch", "torch-npu",
                                      "triton-ascend")} == {
        "vllm": "0.23.0+sim", "vllm-ascend": "0.23.0+sim", "torch": "2.10.0+sim",
        "torch-npu": "2.10.0.post4+sim", "triton-ascend": "3.2.2+sim"}
    check = _pip(venv, "check")
    assert check.returncode == 0, check.stdout
    vllm = _run([os.path.join(venv, "bin", "vllm"), "--version"])
    assert vllm.stdout.decode().strip() == "0.23.0+sim"


def test_mixed_row_fails_pip_check(wheelhouse, venv):
    assert _pip(venv, "install", "--no-index", "--find-links", wheelhouse,
                *ROW_0_23).returncode == 0
    try:
        result = _pip(venv, "install", "--no-index", "--find-links", wheelhouse, "--no-deps",
                      "torch==2.9.0")
        assert result.returncode == 0, result.stdout
        check = _pip(venv, "check")
        assert check.returncode == 1
        out = check.stdout.decode()
        assert "vllm-ascend 0.23.0+sim has requirement torch==2.10.0, but you have torch " \
               "2.9.0+sim." in out
        assert "torch-npu 2.10.0.post4+sim has requirement torch==2.10.0" in out
        # A resolver-driven install refuses the mix outright.
        refused = _pip(venv, "install", "--no-index", "--find-links", wheelhouse,
                       "vllm-ascend==0.23.0", "torch==2.9.0")
        assert refused.returncode != 0
        assert "ResolutionImpossible" in refused.stdout.decode() or \
               "conflict" in refused.stdout.decode().lower()
    finally:
        _pip(venv, "install", "--no-index", "--find-links", wheelhouse, *ROW_0_23)


def test_simple_index_serves_a_whole_row(wheelhouse, venv):
    index = "file://" + os.path.join(wheelhouse, "simple")
    try:
        result = _pip(venv, "install", "--index-url", index, "vllm==0.18.0",
                      "vllm-ascend==0.18.0", "torch==2.9.0", "torch-npu==2.9.0.post1+git4c901a4")
        assert result.returncode == 0, result.stdout
        installed = _installed(venv)
        assert installed["torch-npu"] == "2.9.0.post1+git4c901a4"
        assert installed["triton-ascend"] == "3.2.0+sim"
        assert _pip(venv, "check").returncode == 0
        # vllm-ascend alone pulls the rest of its row through its pins.
        result = _pip(venv, "install", "--index-url", index, "vllm-ascend==0.13.0")
        assert result.returncode == 0, result.stdout
        installed = _installed(venv)
        assert (installed["vllm"], installed["torch"], installed["torch-npu"]) == (
            "0.13.0+sim", "2.8.0+sim", "2.8.0.post2+sim")
        assert _pip(venv, "check").returncode == 0
    finally:
        _pip(venv, "install", "--no-index", "--find-links", wheelhouse, *ROW_0_23)


# --------------------------------------------------------------------------- serving
def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _node(base):
    model = os.path.join(base, "model")
    model_gen.make(model, size_kb=8)
    cann = os.path.join(base, "toolkit")
    atb_lib = os.path.join(base, "atb", "lib")
    dev = os.path.join(base, "dev")
    for path in (cann, atb_lib, dev):
        os.makedirs(path, exist_ok=True)
    open(os.path.join(atb_lib, "libatb.so"), "wb").close()
    open(os.path.join(dev, "davinci0"), "wb").close()
    env = _clean_env(ASCEND_TOOLKIT_HOME=cann, ATB_HOME_PATH=os.path.dirname(atb_lib),
                     ASCEND_SIM_DEV_DIR=dev, ASCEND_SIM_LOAD_SECONDS="0.2")
    return model, env


def _health(port):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d/health" % port, timeout=5) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except (urllib.error.URLError, ConnectionError):
        return None


def test_installed_console_script_serves_through_the_platform_entry_point(wheelhouse, venv,
                                                                          tmp_path):
    assert _pip(venv, "install", "--no-index", "--find-links", wheelhouse,
                *ROW_0_23).returncode == 0
    model, env = _node(str(tmp_path))
    port = _free_port()
    log_path = str(tmp_path / "serve.log")
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([os.path.join(venv, "bin", "vllm"), "serve", model, "--host",
                                 "127.0.0.1", "--port", str(port)], env=env, stdout=log,
                                stderr=subprocess.STDOUT, cwd=str(tmp_path))
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and proc.poll() is None:
                if _health(port) == 200:
                    break
                time.sleep(0.05)
            assert _health(port) == 200
            with urllib.request.urlopen("http://127.0.0.1:%d/version" % port, timeout=5) as r:
                assert json.loads(r.read()) == {"version": "0.23.0+sim"}
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            rc = proc.wait(timeout=15)
    with open(log_path) as handle:
        log_text = handle.read()
    assert rc == 0, log_text
    assert "- ascend -> vllm_ascend:register" in log_text
    assert "Platform plugin ascend is activated" in log_text


def test_vllm_without_the_ascend_plugin_cannot_infer_the_device(wheelhouse, venv, tmp_path):
    assert _pip(venv, "install", "--no-index", "--find-links", wheelhouse,
                *ROW_0_23).returncode == 0
    try:
        assert _pip(venv, "uninstall", "-y", "vllm-ascend").returncode == 0
        model, env = _node(str(tmp_path))
        result = _run([os.path.join(venv, "bin", "vllm"), "serve", model, "--host", "127.0.0.1",
                       "--port", str(_free_port())], env=env, timeout=60)
        assert result.returncode == 1
        assert result.stdout.decode().rstrip().splitlines()[-1].startswith(
            "RuntimeError: Failed to infer device type")
    finally:
        _pip(venv, "install", "--no-index", "--find-links", wheelhouse, *ROW_0_23)
