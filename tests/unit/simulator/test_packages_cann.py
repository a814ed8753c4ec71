"""The simulated CANN packages (toolkit, kernels/ops, NNAL) installed on a re-rooted node."""
import os
import re
import shutil
import subprocess

import pytest

from ascend_sim import packages

pytestmark = pytest.mark.skipif(shutil.which("makeself") is None and shutil.which("makeself.sh") is None,
                                reason="makeself is not installed (Debian package 'makeself')")

TK82 = "Ascend-cann-toolkit_8.2.RC1_linux-aarch64.run"
K82 = "Ascend-cann-kernels-910b_8.2.RC1_linux-aarch64.run"
NNAL82 = "Ascend-cann-nnal_8.2.RC1_linux-aarch64.run"
TK83 = "Ascend-cann-toolkit_8.3.RC2_linux-aarch64.run"
K83 = "Ascend-cann-kernels-910b_8.3.RC2_linux-aarch64.run"
TK85 = "Ascend-cann-toolkit_8.5.0_linux-aarch64.run"
OPS85 = "Ascend-cann-910b-ops_8.5.0_linux-aarch64.run"
NNAL85 = "Ascend-cann-nnal_8.5.0_linux-aarch64.run"
TK91 = "Ascend-cann-toolkit_9.1.0_linux-aarch64.run"
OPS91 = "Ascend-cann-910b-ops_9.1.0_linux-aarch64.run"
P = "/usr/local/Ascend"
ENV_HOME = {"ASCEND_TOOLKIT_HOME": P + "/ascend-toolkit/latest"}


@pytest.fixture(scope="module")
def pkgs(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("cann"))
    packages.build(out, "910b", "aarch64", [], ["8.2.RC1", "8.3.RC2", "8.5.0", "9.1.0"])
    return out


class Node(object):
    def __init__(self, pkgs, root):
        self.pkgs, self.root = pkgs, root

    def run(self, name, *args, stdin="", env=None):
        return packages.run_package(os.path.join(self.pkgs, name), list(args), root=self.root, stdin=stdin, env=env)

    def path(self, rel):
        return os.path.join(self.root, rel.lstrip("/"))

    def read(self, rel):
        with open(self.path(rel)) as handle:
            return handle.read()

    def exists(self, rel):
        return os.path.lexists(self.path(rel))

    def link(self, rel):
        return os.readlink(self.path(rel))

    def sourced(self, script, *args):
        """Environment after sourcing ``script`` (a logical path) with bash."""
        cmd = 'source "%s" %s >/dev/null; env -0' % (self.path(script), " ".join(args))
        env = {"PATH": os.environ["PATH"], "HOME": self.root, "PYTHONPATH": "", "LD_LIBRARY_PATH": ""}
        out = subprocess.run(["bash", "-c", cmd], env=env, stdout=subprocess.PIPE, check=True).stdout.decode()
        return dict(item.split("=", 1) for item in out.split("\0") if "=" in item)


@pytest.fixture
def n(pkgs, tmp_path):
    root = str(tmp_path / "root")
    packages.prepare_node(root)
    return Node(pkgs, root)


def ok(result):
    assert result.returncode == 0, result.stdout + result.stderr
    return result


# ------------------------------------------------------------------ toolkit

def test_toolkit_classic_layout_files_and_summary(n):
    result = ok(n.run(TK82, "--install", "--install-for-all", "--quiet"))
    assert re.search(r"^\[Toolkit\] \[\d{8}-\d\d:\d\d:\d\d\] \[INFO\] Ascend-cann-toolkit install success$",
                     result.stdout, re.M)
    assert "Toolkit:  Ascend-cann-toolkit_8.2.RC1_linux-aarch64 install success, installed in /usr/local/Ascend." \
        in result.stdout
    assert 'you can add "source /usr/local/Ascend/ascend-toolkit/set_env.sh" to /etc/profile.' in result.stdout
    assert n.link(P + "/ascend-toolkit/latest") == "8.2.RC1"
    assert n.read(P + "/ascend-toolkit/latest/aarch64-linux/ascend_toolkit_install.info") == "\n".join([
        "package_name=Ascend-cann-toolkit", "version=8.2.RC1", "innerversion=V100R001C22SPC001B231",
        "compatible_version=[V100R001C15],[V100R001C17],[V100R001C18],[V100R001C19],[V100R001C20],[V100R001C21],"
        "[V100R001C22]", "arch=aarch64", "os=linux",
        "path=/usr/local/Ascend/ascend-toolkit/8.2.RC1/aarch64-linux"]) + "\n"
    assert n.read(P + "/ascend-toolkit/8.2.RC1/toolkit/version.info") == \
        "Version=8.2.0.0.201\nversion_dir=8.2.RC1\ntimestamp=20250724_194044950\n"
    assert n.exists(P + "/ascend-toolkit/latest/lib64/libascendcl.so")
    assert n.read("/etc/Ascend/ascend_cann_install.info") == \
        "Install_Path=/usr/local/Ascend\nToolkit_InstallPath=/usr/local/Ascend/ascend-toolkit\n"
    ops = n.read("/var/log/ascend_seclog/operation.log").splitlines()
    assert re.match(r"^Install SUGGESTION root \S+ \S+ 127\.0\.0\.1 %s success installmode=install; "
                    r"cmdlist=--quiet --install --install-for-all$" % re.escape(TK82), ops[0])
    assert "[Toolkit] [" in n.read("/var/log/ascend_seclog/ascend_install.log")
    assert "install success" in n.read("/var/log/ascend_seclog/ascend_toolkit_install.log")
    assert oct(os.stat(n.path(P + "/ascend-toolkit")).st_mode & 0o777) == "0o755"


def test_toolkit_set_env_exports_the_vendor_variables(n):
    ok(n.run(TK82, "--full", "--quiet"))
    env = n.sourced(P + "/ascend-toolkit/set_env.sh")
    home = P + "/ascend-toolkit/latest"
    assert env["ASCEND_TOOLKIT_HOME"] == home
    assert env["ASCEND_HOME_PATH"] == home
    assert env["ASCEND_OPP_PATH"] == home + "/opp"
    assert env["ASCEND_AICPU_PATH"] == home
    assert env["TOOLCHAIN_HOME"] == home + "/toolkit"
    assert env["LD_LIBRARY_PATH"].split(":")[:2] == [home + "/tools/aml/lib64", home + "/tools/aml/lib64/plugin"]
    assert home + "/lib64" in env["LD_LIBRARY_PATH"].split(":")
    assert env["PYTHONPATH"].split(":")[:2] == [home + "/python/site-packages",
                                                home + "/opp/built-in/op_impl/ai_core/tbe"]
    assert env["PATH"].split(":")[0] == home + "/bin"


def test_cann_8_5_lays_out_a_versioned_directory_behind_the_compat_links(n):
    ok(n.run(TK85, "--install", "--quiet"))
    assert n.link(P + "/cann") == "cann-8.5.0"
    assert n.link(P + "/ascend-toolkit/latest") == "../cann"
    assert n.link(P + "/ascend-toolkit/set_env.sh") == "latest/set_env.sh"
    info = n.read(P + "/ascend-toolkit/latest/aarch64-linux/ascend_toolkit_install.info")
    assert "version=8.5.0\n" in info and "path=/usr/local/Ascend/cann-8.5.0/aarch64-linux\n" in info
    env = n.sourced(P + "/ascend-toolkit/set_env.sh")
    assert env["ASCEND_TOOLKIT_HOME"] == P + "/cann-8.5.0"
    assert env["ASCEND_OPP_PATH"] == P + "/cann-8.5.0/opp"


def test_toolkit_without_quiet_asks_for_the_eula(n):
    refused = n.run(TK82, "--install", stdin="")
    assert refused.returncode == 1
    assert "Do you accept the EULA to install CANN?[Y/N]" in refused.stdout
    assert "[ERROR] Reject EULA, installation quit!" in refused.stdout
    assert not n.exists(P + "/ascend-toolkit")
    ok(n.run(TK82, "--install", stdin="Y\n"))
    assert n.exists(P + "/ascend-toolkit/latest/aarch64-linux/ascend_toolkit_install.info")


def test_scene_is_required_and_version_prints(n):
    none = n.run(TK82, "--quiet")
    assert none.returncode == 1
    assert "ERR_NO:0x0004;ERR_DES:The parameter needs to be used with install/full/devel/upgrade/uninstall." \
        in none.stdout
    version = ok(n.run(NNAL82, "--version"))
    assert version.stdout.splitlines()[-1] == "8.2.RC1"


def test_full_disk_fails_before_writing(n):
    packages.prepare_node(n.root)
    from ascend_sim import state as state_mod
    path = n.path("/etc/ascend-sim/state.json")
    data = state_mod.load_state(path)
    data["inject"] = {"disk_full": True}
    state_mod.save_state(data, path)
    result = n.run(TK82, "--install", "--quiet")
    assert result.returncode == 1
    assert "[ERROR] The free space of /usr/local/Ascend is insufficient, Ascend-cann-toolkit_8.2.RC1_linux-aarch64 " \
           "package needs at least 8192 MB, please check." in result.stdout
    assert not n.exists(P)
    assert " failed installmode=install" in n.read("/var/log/ascend_seclog/operation.log")


def test_upgrade_needs_an_installed_toolkit(n):
    result = n.run(TK83, "--upgrade", "--quiet")
    assert result.returncode == 1
    assert "Ascend-cann-toolkit is not installed in /usr/local/Ascend, upgrade failed, please use --install." \
        in result.stdout


def test_side_by_side_install_and_uninstall_moves_latest_back(n):
    ok(n.run(TK82, "--install", "--quiet"))
    ok(n.run(TK83, "--install", "--quiet"))
    assert n.link(P + "/ascend-toolkit/latest") == "8.3.RC2"
    assert n.exists(P + "/ascend-toolkit/8.2.RC1/aarch64-linux/ascend_toolkit_install.info")
    result = ok(n.run(TK83, "--uninstall"))
    assert "Ascend-cann-toolkit uninstall success" in result.stdout
    assert n.link(P + "/ascend-toolkit/latest") == "8.2.RC1"
    assert not n.exists(P + "/ascend-toolkit/8.3.RC2")
    script = n.path(P + "/ascend-toolkit/8.2.RC1/aarch64-linux/script/uninstall.sh")
    done = subprocess.run([script], env=packages.package_env(n.root), stdout=subprocess.PIPE, universal_newlines=True)
    assert done.returncode == 0 and "Ascend-cann-toolkit uninstall success" in done.stdout
    assert not n.exists(P + "/ascend-toolkit")
    assert not n.exists("/etc/Ascend/ascend_cann_install.info")
    missing = n.run(TK82, "--uninstall")
    assert missing.returncode == 1 and "Ascend-cann-toolkit 8.2.RC1 is not installed" in missing.stdout


def test_killed_toolkit_install_is_cleaned_up_by_the_rerun(n):
    from ascend_sim import state as state_mod
    path = n.path("/etc/ascend-sim/state.json")
    data = state_mod.load_state(path)
    data["inject"] = {"installer_kill_after": "toolkit:files"}
    state_mod.save_state(data, path)
    killed = n.run(TK82, "--install", "--quiet")
    assert killed.returncode == 137
    assert n.exists(P + "/ascend-toolkit/8.2.RC1/toolkit/version.info")
    assert not n.exists(P + "/ascend-toolkit/8.2.RC1/aarch64-linux/ascend_toolkit_install.info")
    assert not n.exists(P + "/ascend-toolkit/latest")
    rerun = ok(n.run(TK82, "--install", "--quiet"))
    assert "/usr/local/Ascend/ascend-toolkit/8.2.RC1 holds an unfinished installation, its files will be removed." \
        in rerun.stdout
    assert n.link(P + "/ascend-toolkit/latest") == "8.2.RC1"
    assert "version=8.2.RC1" in n.read(P + "/ascend-toolkit/latest/aarch64-linux/ascend_toolkit_install.info")


# ------------------------------------------------------------------ kernels / ops

def test_kernels_need_the_toolkit_of_the_same_version(n):
    alone = n.run(K82, "--install", "--quiet")
    assert alone.returncode == 1
    assert "[ERROR] ERR_NO:0x0080;ERR_DES:The Ascend-cann-toolkit 8.2.RC1 is required by " \
           "Ascend-cann-kernels-910b_8.2.RC1_linux-aarch64, installed toolkit version: none. Please install the " \
           "toolkit of the same version first." in alone.stdout
    ok(n.run(TK83, "--install", "--quiet"))
    other = n.run(K82, "--install", "--quiet")
    assert other.returncode == 1 and "installed toolkit version: 8.3.RC2." in other.stdout
    ok(n.run(TK82, "--install", "--quiet"))
    done = ok(n.run(K82, "--install", "--quiet"))
    assert "[Kernels]" in done.stdout and "Ascend-cann-kernels install success" in done.stdout
    vdir = P + "/ascend-toolkit/8.2.RC1"
    info = n.read(vdir + "/opp_kernel/version.info")
    assert info.startswith("Version=8.2.0.0.201\nversion_dir=8.2.RC1\n")
    assert 'required_package_toolkit_version=">=7.6, <=8.2"' in info   # as the 8.2.RC1 capture
    assert "Opp_kernel_Install_Path_Param=%s\n" % vdir in n.read(vdir + "/opp_kernel/ascend_install.info")
    assert n.exists(vdir + "/opp/built-in/op_impl/ai_core/tbe/kernel/ascend910b/matmul.json")


def test_ops_package_rejects_full_with_its_usage_and_rc_0(n):
    ok(n.run(TK85, "--install", "--quiet"))
    result = n.run(OPS85, "--full", "--quiet")
    assert result.returncode == 0
    assert "Usage: ./%s [options]" % OPS85 in result.stdout
    assert "--install " in result.stdout
    assert not n.exists(P + "/cann-8.5.0/share/info/ops_math")
    done = ok(n.run(OPS85, "--install", "--quiet"))
    assert "Ascend-cann-910b-ops install success" in done.stdout
    arch = "aarch64"
    info = n.read(P + "/cann/%s-linux/ascend_ops_install.info" % arch)
    assert info.splitlines()[:3] == ["package_name=Ascend-cann-910b-ops", "version=8.5.0", "arch=" + arch]
    # The per-library files carry the literal version_dir=cann, not the release.
    assert "version_dir=cann\n" in n.read(P + "/cann-8.5.0/share/info/ops_nn/version.info")
    assert not n.exists(P + "/cann-8.5.0/ops")
    from ansible_collections.ascend.vllm.plugins.module_utils import ascend_package
    assert ascend_package.installed_state("ops", P, n.read, arch=arch)["version"] == "8.5.0"
    assert "Ops_Chip_Type=ascend910b" in n.read(P + "/cann-8.5.0/share/info/ops_math/ascend_install.info")
    removed = ok(n.run(OPS85, "--uninstall"))
    assert "uninstall success" in removed.stdout
    assert not n.exists(P + "/cann-8.5.0/share/info/ops_math")
    assert not n.exists(P + "/cann/%s-linux/ascend_ops_install.info" % arch)
    assert not n.exists(P + "/cann-8.5.0/opp/built-in/op_impl/ai_core/tbe/kernel/ascend910b")


def test_upgrading_cann_replaces_kernels_with_ops(n):
    ok(n.run(TK83, "--install", "--quiet"))
    ok(n.run(K83, "--install", "--quiet"))
    assert n.exists(P + "/ascend-toolkit/latest/opp_kernel/version.info")
    ok(n.run(TK85, "--upgrade", "--quiet"))
    assert not n.exists(P + "/ascend-toolkit/8.3.RC2")
    assert not n.exists(P + "/ascend-toolkit/latest/opp_kernel")
    ok(n.run(OPS85, "--install", "--quiet"))
    ok(n.run(TK91, "--upgrade", "--quiet"))
    assert not n.exists(P + "/cann-8.5.0")
    ok(n.run(OPS91, "--upgrade", "--quiet"))
    assert n.link(P + "/cann") == "cann-9.1.0"
    assert "version=9.1.0" in n.read(P + "/ascend-toolkit/latest/aarch64-linux/ascend_ops_install.info")
    ops = [line.split()[0] for line in n.read("/var/log/ascend_seclog/operation.log").splitlines()]
    assert ops == ["Install", "Install", "Upgrade", "Install", "Upgrade", "Upgrade"]


# ------------------------------------------------------------------ nnal

def test_nnal_needs_the_toolkit_and_its_environment(n):
    missing = n.run(NNAL82, "--install", "--quiet", env=ENV_HOME)
    assert missing.returncode == 1
    assert "Ascend-cann-toolkit is not installed in /usr/local/Ascend. Please install the toolkit first." \
        in missing.stdout
    ok(n.run(TK82, "--install", "--quiet"))
    unsourced = n.run(NNAL82, "--install", "--quiet")
    assert unsourced.returncode == 1
    assert "ASCEND_TOOLKIT_HOME is not set, please source the set_env.sh of Ascend-cann-toolkit " \
           "(/usr/local/Ascend/ascend-toolkit/set_env.sh) before installing NNAL." in unsourced.stdout
    assert not n.exists(P + "/nnal")


def test_nnal_installs_atb_and_its_set_env(n):
    ok(n.run(TK85, "--install", "--quiet"))
    result = ok(n.run(NNAL85, "--install", "--quiet", env=ENV_HOME))
    for line in ("Ascend-cann-atb_8.5.0_linux-aarch64.run install success",
                 "Ascend-cann-SIP_8.5.0_linux-aarch64.run install success",
                 "Ascend-cann-nnal_8.5.0_linux-aarch64.run install success"):
        assert line in result.stdout
    assert n.link(P + "/nnal/atb/latest") == "8.5.0"
    # ATB's release.sh format: five indented "Key : value" lines, no version= (the collection's
    # reader must find the release in it).
    info = n.read(P + "/nnal/atb/latest/version.info")
    assert info.splitlines()[:3] == ["    Ascend-cann-atb : 8.5.0", "    Ascend-cann-atb Version : 8.5.0.B150",
                                     "    Platform : aarch64"]
    assert "=" not in info and len(info.splitlines()) == 5
    from ansible_collections.ascend.vllm.plugins.module_utils import ascend_package
    assert ascend_package.installed_state("nnal", P, n.read)["version"] == "8.5.0"
    assert n.exists(P + "/nnal/atb/latest/atb/cxx_abi_1/lib/libatb.so")
    assert n.exists(P + "/nnal/atb/latest/atb/cxx_abi_0/lib/libatb.so")
    for abi in ("0", "1"):
        env = n.sourced(P + "/nnal/atb/set_env.sh", "--cxx_abi=%s" % abi)
        home = P + "/nnal/atb/latest/atb/cxx_abi_%s" % abi
        assert env["ATB_HOME_PATH"] == home
        assert env["LD_LIBRARY_PATH"].split(":")[0] == home + "/lib"
        assert env["PATH"].split(":")[0] == home + "/bin"
    default = n.sourced(P + "/nnal/atb/set_env.sh")
    # no torch to ask: the release's default ABI (1 from CANN 8.5 on)
    assert default["ATB_HOME_PATH"].endswith("/cxx_abi_1")


def test_nnal_uninstall_removes_its_tree(n):
    ok(n.run(TK82, "--install", "--quiet"))
    ok(n.run(NNAL82, "--install", "--quiet", env=ENV_HOME))
    script = n.path(P + "/nnal/atb/8.2.RC1/scripts/uninstall.sh")
    done = subprocess.run([script], env=packages.package_env(n.root), stdout=subprocess.PIPE,
                          universal_newlines=True)
    assert done.returncode == 0 and "uninstall success" in done.stdout
    assert not n.exists(P + "/nnal")
    assert n.exists(P + "/ascend-toolkit/latest")
