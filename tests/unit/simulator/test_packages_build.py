"""The simulated vendor packages as files: names, catalogue, builder, makeself header."""
import hashlib
import os
import re
import shutil
import subprocess
import sys

import pytest

from ascend_sim import packages, versions

pytestmark = pytest.mark.skipif(shutil.which("makeself") is None and shutil.which("makeself.sh") is None,
                                reason="makeself is not installed (Debian package 'makeself')")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SIM = os.path.join(REPO, "tests", "simulator")
DRIVER = "Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run"
FIRMWARE = "Ascend-hdk-910b-npu-firmware_7.5.0.1.129.run"
TOOLKIT = "Ascend-cann-toolkit_8.2.RC1_linux-aarch64.run"
# MindCluster's npu-exporter, built beside the vendor packages of every chip and architecture.
EXPORTER = "Ascend-mindxdl-npu-exporter_26.0.0_linux-aarch64.zip"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("pkgs"))
    packages.build(out, "910b", "aarch64", ["24.1.rc3"], ["8.2.RC1"])
    return out


def cli(*args):
    env = dict(os.environ, PYTHONPATH=SIM)
    return subprocess.run([sys.executable, "-m", "ascend_sim.packages"] + list(args), cwd=REPO, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)


# ------------------------------------------------------------------ names and catalogue

@pytest.mark.parametrize("kind,version,chip,arch,name", [
    ("driver", "24.1.rc3", "910b", "aarch64", "Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run"),
    ("driver", "25.5.0", "910b", "x86_64", "Ascend-hdk-910b-npu-driver_25.5.0_linux-x86-64.run"),
    ("firmware", "24.1.rc3", "910b", "aarch64", "Ascend-hdk-910b-npu-firmware_7.5.0.1.129.run"),
    ("firmware", "25.5.0", "310p", "x86_64", "Ascend-hdk-310p-npu-firmware_7.8.0.5.216.run"),
    ("driver", "25.0.rc1.1", "910_93", "aarch64", "Atlas-A3-hdk-npu-driver_25.0.rc1.1_linux-aarch64.run"),
    ("firmware", "25.0.rc1.1", "910_93", "aarch64", "Atlas-A3-hdk-npu-firmware_7.7.0.1.231.run"),
    ("toolkit", "8.2.RC1", "910b", "x86_64", "Ascend-cann-toolkit_8.2.RC1_linux-x86_64.run"),
    ("kernels", "8.2.RC1", "910b", "aarch64", "Ascend-cann-kernels-910b_8.2.RC1_linux-aarch64.run"),
    ("kernels", "8.3.RC2", "910_93", "aarch64", "Atlas-A3-cann-kernels_8.3.RC2_linux-aarch64.run"),
    ("kernels", "8.3.RC2", "310p", "aarch64", "Ascend-cann-kernels-310p_8.3.RC2_linux-aarch64.run"),
    ("ops", "8.5.0", "910b", "aarch64", "Ascend-cann-910b-ops_8.5.0_linux-aarch64.run"),
    ("ops", "8.5.1", "910_93", "x86_64", "Ascend-cann-A3-ops_8.5.1_linux-x86_64.run"),
    ("ops", "9.1.0", "310p", "aarch64", "Ascend-cann-310p-ops_9.1.0_linux-aarch64.run"),
    ("nnal", "9.1.0", "910b", "aarch64", "Ascend-cann-nnal_9.1.0_linux-aarch64.run"),
])
def test_package_filename_spells_the_vendor_names(kind, version, chip, arch, name):
    assert versions.package_filename(kind, version, chip, arch) == name
    parsed = versions.parse_package_filename(name)
    assert parsed["kind"] == kind and parsed["chip"] in (chip, None)
    if kind != "firmware":
        assert parsed["arch"] == arch


def test_chip_package_is_kernels_up_to_8_3_and_ops_from_8_5():
    kinds = {entry["version"]: versions.chip_package_kind(entry["version"]) for entry in versions.CANN}
    assert kinds == {"8.2.RC1": "kernels", "8.3.RC2": "kernels", "8.5.0": "ops", "8.5.1": "ops", "9.1.0": "ops",
                     "9.2.0": "ops"}
    with pytest.raises(ValueError, match="ships a 'ops' package"):
        versions.package_filename("kernels", "8.5.0")


def test_catalogue_covers_the_stack_matrix_and_pairs_drivers_with_firmware():
    data = versions.catalogue()
    assert [c["version"] for c in data["cann"]] == ["8.2.RC1", "8.3.RC2", "8.5.0", "8.5.1", "9.1.0", "9.2.0"]
    assert [c["vllm_ascend"] for c in data["cann"]] == ["0.9.1", "0.11.0", "0.13.0", "0.18.0", "0.23.0", "0.30.0rc2"]
    drivers = {d["version"]: d for d in data["drivers"]}
    assert any(v.startswith("24.1.") for v in drivers) and any(v.startswith("25.5.") for v in drivers)
    assert any(v.startswith("26.") for v in drivers)
    for entry in data["drivers"]:
        assert re.match(r"^\d+\.\d+\.\d+\.\d+\.\d+$", entry["firmware"])
        assert re.match(r"^(\[[^,\]]+,[^\]]+\],?)+$", entry["compatible_version_fw"])
        assert re.match(r"^(\[[^,\]]+,[^\]]+\],?)+$", entry["firmware_compatible_version_drv"])
    data["drivers"].clear()  # a copy: the module data stays intact
    assert versions.catalogue()["drivers"]


def test_unknown_versions_are_named_in_the_error():
    with pytest.raises(KeyError, match="24.1.rc3"):
        versions.driver("1.0")


# ------------------------------------------------------------------ builder

def test_build_writes_the_packages_and_sha256sums(built):
    names = sorted(n for n in os.listdir(built) if n.endswith(".run"))
    assert names == sorted([DRIVER, FIRMWARE, TOOLKIT, "Ascend-cann-kernels-910b_8.2.RC1_linux-aarch64.run",
                            "Ascend-cann-nnal_8.2.RC1_linux-aarch64.run"])
    with open(os.path.join(built, "SHA256SUMS")) as handle:
        lines = handle.read().splitlines()
    assert len(lines) == 6 and lines[-1].endswith("  " + EXPORTER)
    for line in lines:
        digest, name = line.split("  ")
        with open(os.path.join(built, name), "rb") as handle:
            assert hashlib.sha256(handle.read()).hexdigest() == digest
        assert os.access(os.path.join(built, name), os.X_OK) == name.endswith(".run")
    check = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=built, stdout=subprocess.PIPE,
                           universal_newlines=True)
    assert check.returncode == 0 and check.stdout.count(": OK") == 6


def test_build_is_idempotent_and_rebuilds_a_changed_file(tmp_path):
    out = str(tmp_path)
    first = dict(packages.build(out, drivers=["24.1.rc3"], canns=[]))
    assert set(first.values()) == {"built"}
    stamp = os.stat(os.path.join(out, DRIVER)).st_mtime_ns
    second = dict(packages.build(out, drivers=["24.1.rc3"], canns=[]))
    assert set(second.values()) == {"up-to-date"}
    assert os.stat(os.path.join(out, DRIVER)).st_mtime_ns == stamp
    with open(os.path.join(out, DRIVER), "ab") as handle:
        handle.write(b"tampered")
    third = dict(packages.build(out, drivers=["24.1.rc3"], canns=[]))
    assert third == {DRIVER: "built", FIRMWARE: "up-to-date", EXPORTER: "up-to-date"}


def test_cli_build_and_list(tmp_path):
    listed = cli("list", "--chip", "910_93", "--cann", "8.5.1")
    assert listed.returncode == 0
    assert listed.stdout.split() == ["Ascend-cann-toolkit_8.5.1_linux-aarch64.run",
                                     "Ascend-cann-A3-ops_8.5.1_linux-aarch64.run",
                                     "Ascend-cann-nnal_8.5.1_linux-aarch64.run"]
    result = cli("build", "--out", str(tmp_path), "--arch", "x86_64", "--driver", "25.5.0")
    assert result.returncode == 0, result.stderr
    assert "built Ascend-hdk-910b-npu-driver_25.5.0_linux-x86-64.run" in result.stdout
    assert os.path.isfile(os.path.join(str(tmp_path), "SHA256SUMS"))
    bad = cli("build", "--out", str(tmp_path), "--driver", "9.9.9")
    assert bad.returncode == 2 and "invalid choice" in bad.stderr
    wrong = cli("build", "--out", str(tmp_path), "--driver", "25.5.0", "--corrupt", "nope.run")
    assert wrong.returncode == 1 and "--corrupt nope.run is not one of the packages" in wrong.stderr


def test_payload_ships_the_runtime_modules_but_not_the_builder(built):
    listing = subprocess.run([os.path.join(built, DRIVER), "--list"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, universal_newlines=True).stdout
    assert "./driver/script/ascend_sim/installer/hdk.py" in listing
    assert "./driver/script/ascend_sim/paths.py" in listing
    assert "packages.py" not in listing and "versions.py" not in listing and "/serving/" not in listing
    assert "./version.info" in listing and "./package.json" in listing


# ------------------------------------------------------------------ makeself header

def test_check_reports_sha256_ok_and_runs_the_script_check(built, tmp_path):
    packages.prepare_node(str(tmp_path))
    result = packages.run_package(os.path.join(built, DRIVER), ["--check"], root=str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Verifying archive integrity... All good.\n")
    assert "SHA256 checksums are OK." in result.stderr
    assert "Uncompressing ASCEND DRIVER RUN PACKAGE" in result.stdout
    assert "[INFO]End time:" in result.stdout


def test_corrupted_payload_fails_check_like_makeself(tmp_path):
    out = str(tmp_path / "out")
    packages.build(out, drivers=["24.1.rc3"], canns=[], corrupt=FIRMWARE)
    root = str(tmp_path / "root")
    packages.prepare_node(root)
    for args in (["--check"], ["--full", "--quiet"]):
        result = packages.run_package(os.path.join(out, FIRMWARE), args, root=root)
        assert result.returncode == 2
        assert result.stdout == "Verifying archive integrity..." or args[-1] == "--quiet"
        assert re.search(r"Error in SHA256 checksums: [0-9a-f]{64} is different from [0-9a-f]{64}$",
                         result.stderr.strip())
    assert not os.path.exists(os.path.join(root, "usr", "local", "Ascend"))
    good = packages.run_package(os.path.join(out, DRIVER), ["--check"], root=root)
    assert good.returncode == 0
    rebuilt = dict(packages.build(out, drivers=["24.1.rc3"], canns=[]))
    assert rebuilt[FIRMWARE] == "built"
    assert packages.run_package(os.path.join(out, FIRMWARE), ["--check"], root=root).returncode == 0


def test_help_lists_makeself_and_package_options(built):
    result = subprocess.run([os.path.join(built, DRIVER), "--help"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, universal_newlines=True)
    assert result.returncode == 0
    assert result.stderr.startswith("Usage: %s [options]\nOptions:\n" % os.path.join(built, DRIVER))
    for option in ("--check", "--quiet", "--nox11", "--noexec", "--extract=<path>", "--full", "--upgrade",
                   "--uninstall", "--install-path=<path>", "--install-username=<username>",
                   "--install-for-all", "--version"):
        assert option in result.stderr
    assert "--install " not in result.stderr


def test_option_unknown_to_the_package_prints_usage_and_fails(built, tmp_path):
    packages.prepare_node(str(tmp_path))
    for pkg, option in ((DRIVER, "--install"), (DRIVER, "--bogus"), (TOOLKIT, "--target")):
        result = packages.run_package(os.path.join(built, pkg), [option, "--quiet"], root=str(tmp_path))
        assert result.returncode == 1
        assert result.stdout == ""
        assert result.stderr.startswith("Usage: ")
    assert not os.path.exists(os.path.join(str(tmp_path), "var", "log", "ascend_seclog"))


def test_info_and_extract_without_running_the_script(built, tmp_path):
    info = subprocess.run([os.path.join(built, TOOLKIT), "--info"], stdout=subprocess.PIPE,
                          universal_newlines=True).stdout
    assert "Identification: ASCEND_RUN_PACKAGE" in info
    assert "./script/install.sh" in info
    target = str(tmp_path / "x")
    result = packages.run_package(os.path.join(built, TOOLKIT), ["--noexec", "--extract=%s" % target, "--quiet"],
                                  root=str(tmp_path))
    assert result.returncode == 0
    with open(os.path.join(target, "version.info")) as handle:
        assert handle.read() == "Version=8.2.0.0.201\nversion_dir=8.2.RC1\ntimestamp=20250724_194044950\n"
    assert not os.path.exists(os.path.join(str(tmp_path), "usr"))


def test_options_reach_the_script_after_the_package_path_and_directory(built, tmp_path):
    packages.prepare_node(str(tmp_path))
    result = packages.run_package(os.path.join(built, DRIVER), ["--quiet", "--full", "--install-for-all"],
                                  root=str(tmp_path))
    assert result.returncode == 0, result.stdout
    with open(os.path.join(str(tmp_path), "var", "log", "ascend_seclog", "operation.log")) as handle:
        line = handle.read().strip()
    # the header puts --quiet first, like the vendor's
    assert line.endswith(" %s success install_type=full; cmdlist=--quiet --full --install-for-all." % DRIVER)


@pytest.mark.parametrize("chip,profile,arch,chips", [("910_93", "a3-9392", "aarch64", 16),
                                                    ("310p", "310p3-duo", "x86_64", 8)])
def test_other_chips_and_arches_build_and_install(tmp_path, chip, profile, arch, chips):
    out = str(tmp_path / "out")
    packages.build(out, chip, arch, ["25.0.rc1.1"], ["8.5.1"])
    root = str(tmp_path / "root")
    packages.prepare_node(root, profile=profile)
    driver = versions.package_filename("driver", "25.0.rc1.1", chip, arch)
    result = packages.run_package(os.path.join(out, driver), ["--full", "--quiet"], root=root)
    assert result.returncode == 0, result.stdout
    with open(os.path.join(root, "var", "log", "ascend_seclog", "ascend_install.log")) as handle:
        assert "device nodes for %d chips handled" % chips in handle.read()
    with open(os.path.join(root, "usr", "local", "Ascend", "driver", "scene.info")) as handle:
        assert handle.read() == "os=linux\narch=%s\n" % arch
    toolkit = versions.package_filename("toolkit", "8.5.1", chip, arch)
    ops = versions.package_filename("ops", "8.5.1", chip, arch)
    for name in (toolkit, ops):
        assert packages.run_package(os.path.join(out, name), ["--install", "--quiet"], root=root).returncode == 0
    base = os.path.join(root, "usr", "local", "Ascend", "ascend-toolkit", "latest")
    assert os.path.isfile(os.path.join(base, "%s-linux" % arch, "ascend_toolkit_install.info"))
    with open(os.path.join(base, "%s-linux" % arch, "ascend_ops_install.info")) as handle:
        assert handle.read().splitlines()[:2] == [
            "package_name=Ascend-cann-%s-ops" % ("A3" if chip == "910_93" else chip), "version=8.5.1"]
    with open(os.path.join(base, "share", "info", "ops_math", "ascend_install.info")) as handle:
        assert "Ops_Chip_Type=%s\n" % versions.CHIPS[chip]["opp_soc_dir"] in handle.read()
