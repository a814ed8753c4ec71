"""The simulated HDK packages (NPU driver and firmware) installed on a re-rooted node."""
import json
import os
import re
import shutil
import subprocess

import pytest

from ascend_sim import packages, state as state_mod

pytestmark = pytest.mark.skipif(shutil.which("makeself") is None and shutil.which("makeself.sh") is None,
                                reason="makeself is not installed (Debian package 'makeself')")

OLD = "Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run"
OLD_FW = "Ascend-hdk-910b-npu-firmware_7.5.0.1.129.run"
NEW = "Ascend-hdk-910b-npu-driver_25.5.0_linux-aarch64.run"
NEW_FW = "Ascend-hdk-910b-npu-firmware_7.8.0.5.216.run"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def pkgs(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("hdk"))
    packages.build(out, "910b", "aarch64", ["24.1.rc3", "25.5.0"], [])
    return out


@pytest.fixture
def node(tmp_path):
    root = str(tmp_path / "root")
    packages.prepare_node(root)
    return root


class Node(object):
    def __init__(self, pkgs, root):
        self.pkgs, self.root = pkgs, root

    def run(self, name, *args, stdin="", env=None):
        result = packages.run_package(os.path.join(self.pkgs, name), list(args), root=self.root, stdin=stdin,
                                      env=env)
        result.text = ANSI.sub("", result.stdout)
        return result

    def path(self, *parts):
        return os.path.join(self.root, *[p.lstrip("/") for p in parts])

    def read(self, *parts):
        with open(self.path(*parts)) as handle:
            return handle.read()

    def exists(self, *parts):
        return os.path.lexists(self.path(*parts))

    def state(self):
        return state_mod.load_state(self.path("/etc/ascend-sim/state.json"))

    def edit_state(self, **changes):
        data = self.state()
        data.update(changes)
        state_mod.save_state(data, self.path("/etc/ascend-sim/state.json"))

    def info(self):
        values = {}
        for line in self.read("/etc/ascend_install.info").splitlines():
            key, _, value = line.partition("=")
            values[key] = value
        return values

    def boot(self):
        data = self.state()
        state_mod.apply_boot(data, root=self.root)
        state_mod.save_state(data, self.path("/etc/ascend-sim/state.json"))

    def npu_smi(self, *args):
        env = packages.package_env(self.root)
        return subprocess.run([self.path("/usr/local/sbin/npu-smi")] + list(args), env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True)


@pytest.fixture
def n(pkgs, node):
    return Node(pkgs, node)


def lines_matching(text, pattern):
    return [line for line in text.splitlines() if re.search(pattern, line)]


# ------------------------------------------------------------------ fresh install

def test_fresh_driver_install_is_live_and_writes_the_vendor_files(n):
    result = n.run(OLD, "--full", "--install-for-all", "--quiet", "--nox11")
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r"^\[Driver\] \[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] \[INFO\]Driver package installed successfully! "
                     r"The new version takes effect immediately. $", result.text, re.M)
    assert "\x1b[32mDriver package installed successfully!" in result.stdout
    assert n.read("/usr/local/Ascend/driver/version.info") == "\n".join([
        "Version=24.1.rc3", "ascendhal_version=7.35.23", "aicpu_version=1.0", "tdt_version=1.0", "log_version=1.0",
        "prof_version=2.0", "dvppkernels_version=1.1", "tsfw_version=1.0", "Innerversion=V100R001C19SPC001B124",
        "compatible_version=[V100R001C13],[V100R001C15],[V100R001C17],[V100R001C18],[V100R001C19]",
        "compatible_version_fw=[7.0.0,7.5.99]", "package_version=24.1.rc3"]) + "\n"
    assert oct(os.stat(n.path("/usr/local/Ascend/driver/version.info")).st_mode & 0o777) == "0o444"
    assert n.info() == {
        "UserName": "HwHiAiUser", "UserGroup": "HwHiAiUser", "Driver_Install_Type": "full",
        "Driver_Install_Path_Param": "/usr/local/Ascend", "Driver_Install_For_All": "yes",
        "Driver_Install_Mode": "normal", "Driver_Install_Status": "complete"}
    for path in ("/usr/local/Ascend/driver/tools/hccn_tool", "/usr/local/Ascend/driver/tools/upgrade-tool",
                 "/usr/local/sbin/npu-smi", "/usr/local/bin/npu-smi", "/usr/local/Ascend/driver/script/uninstall.sh"):
        assert os.access(n.path(path), os.X_OK), path
    for path in ("/usr/local/dcmi/libdcmi.so", "/usr/local/dcmi/dcmi_interface_api.h",
                 "/usr/local/Ascend/driver/lib64/driver/libascend_hal.so",
                 "/usr/local/Ascend/driver/lib64/common/libc_sec.so", "/etc/hccn.conf",
                 "/usr/local/Ascend/driver/tools/ascend_sim/npu_smi.py"):
        assert n.exists(path), path
    assert n.read("/lib/davinci.conf") == "DAVINCI_HOME_PATH=/usr/local/Ascend\n"
    wrapper = n.read("/usr/local/sbin/npu-smi")
    assert 'exec python3 -m ascend_sim npu-smi "$@"' in wrapper
    assert n.path("/usr/local/Ascend/driver/tools") in wrapper
    assert n.state()["driver"] == {"running": "24.1.rc3", "pending": False}
    table = n.npu_smi("info")
    assert table.returncode == 0 and "npu-smi 24.1.rc3" in table.stdout
    assert "may not be completely installed" not in table.stdout


def test_device_nodes_are_skipped_and_recorded_when_rerooted(n):
    assert n.run(OLD, "--full", "--quiet").returncode == 0
    log = n.read("/var/log/ascend_seclog/ascend_install.log")
    skipped = lines_matching(log, r"device nodes not created")
    assert len(skipped) == 1
    for name in ["/dev/davinci%d" % i for i in range(8)] + ["/dev/davinci_manager", "/dev/devmm_svm",
                                                            "/dev/hisi_hdc"]:
        assert name in skipped[0]
    assert not n.exists("/dev/davinci0")


def test_install_log_and_operation_log_record_order(n):
    assert n.run(OLD, "--full", "--quiet").returncode == 0
    assert n.run(OLD_FW, "--full", "--quiet").returncode == 0
    ops = n.read("/var/log/ascend_seclog/operation.log").splitlines()
    assert len(ops) == 2
    pattern = r"^Install SUGGESTION root \d{4}-\d\d-\d\d \d\d:\d\d:\d\d 127\.0\.0\.1 %s success install_type=full; " \
              r"cmdlist=--quiet --full\.$"
    assert re.match(pattern % re.escape(OLD), ops[0])
    assert re.match(pattern % re.escape(OLD_FW), ops[1])
    log = n.read("/var/log/ascend_seclog/ascend_install.log")
    commands = lines_matching(log, r"\[INFO\]UserCommand: ")
    assert [c.split("UserCommand: ")[1] for c in commands] == ["%s --quiet --full" % OLD, "%s --quiet --full" % OLD_FW]
    assert commands[0].startswith("[Driver] [") and commands[1].startswith("[Firmware] [")


def test_version_option_prints_the_package_version(n):
    result = n.run(OLD, "--version")
    assert result.returncode == 0
    assert "[INFO]driver version :24.1.rc3" in result.text
    assert not n.exists("/usr/local/Ascend")


def test_check_with_quiet_is_rejected_by_the_driver_script(n):
    result = n.run(OLD, "--check", "--quiet")
    assert result.returncode == 1
    assert "[ERROR]ERR_NO:0x0004;ERR_DES:version/uninstall/check/boot-server can't use with other parameters." \
        in result.text


def test_install_options_must_come_with_an_install_type(n):
    result = n.run(OLD, "--install-for-all", "--quiet")
    assert result.returncode == 1
    assert "ERR_NO:0x0004;ERR_DES:param need used with full/run/docker/upgrade/devel." in result.text
    result = n.run(OLD, "--upgrade", "--install-path=/opt/ascend")
    assert result.returncode == 1
    assert "install-path param need used with full/run/docker/devel." in result.text


# ------------------------------------------------------------------ preconditions

def test_missing_hwhiaiuser_is_refused(pkgs, tmp_path):
    root = str(tmp_path)
    packages.prepare_node(root, user=None)
    n = Node(pkgs, root)
    result = n.run(OLD, "--full", "--quiet")
    assert result.returncode == 1
    assert "[ERROR]ERR_NO:0x0091;ERR_DES:HwHiAiUser not exists! Please add HwHiAiUser" in result.text
    assert "[INFO]End time:" in result.text
    assert not n.exists("/usr/local/Ascend/driver")
    assert n.state()["driver"]["running"] is None


def test_refusals_carry_one_level_tag_like_the_vendor_error_usage(pkgs, tmp_path):
    # errorUsage prints "[Driver] [date] " + its argument, which starts with the level itself
    root = str(tmp_path)
    packages.prepare_node(root, user=None)
    n = Node(pkgs, root)
    result = n.run(OLD, "--full", "--quiet")
    stamp = r"^\[Driver\] \[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] "
    assert re.search(stamp + r"\[ERROR\]ERR_NO:0x0091;ERR_DES:HwHiAiUser not exists! Please add HwHiAiUser$",
                     result.text, re.M), result.text
    log = n.read("/var/log/ascend_seclog/ascend_install.log")
    assert re.search(stamp + r"\[ERROR\]ERR_NO:0x0091;ERR_DES:HwHiAiUser not exists!", log, re.M)
    packages.prepare_node(root, state=False)
    n.edit_state(inject={"disk_full": True})
    full = n.run(OLD, "--full", "--quiet")
    assert re.search(stamp + r"\[ERROR\]free space only 12M, cannot install driver package", full.text, re.M)
    for text in (result.text, log, full.text):
        assert "[ERROR][ERROR]" not in text


def test_named_install_user_must_exist_and_be_in_the_group(pkgs, tmp_path):
    root = str(tmp_path)
    packages.prepare_node(root, user="npuops", group="npuops")
    n = Node(pkgs, root)
    only_user = n.run(OLD, "--full", "--install-username=npuops", "--quiet")
    assert only_user.returncode == 1
    assert "ERR_NO:0x0004;ERR_DES:Username and usergroup are not specified at the same time." in only_user.text
    bad = n.run(OLD, "--full", "--install-username=nobody", "--install-usergroup=npuops", "--quiet")
    assert bad.returncode == 1 and "ERR_NO:0x0091;ERR_DES:nobody not exists! Please add nobody" in bad.text
    ok = n.run(OLD, "--full", "--install-username=npuops", "--install-usergroup=npuops", "--quiet")
    assert ok.returncode == 0, ok.text
    assert "set username and usergroup, npuops:npuops" in ok.text
    assert n.info()["UserName"] == "npuops" and n.info()["UserGroup"] == "npuops"


def test_running_npu_processes_block_the_driver_and_are_named_in_the_log(n):
    assert n.run(OLD, "--full", "--quiet").returncode == 0
    n.edit_state(processes=[{"npu_id": 0, "chip_id": 0, "pid": 4242, "name": "python3", "memory_mb": 3000},
                            {"npu_id": 3, "chip_id": 0, "pid": 4343, "name": "vllm", "memory_mb": 9000}])
    for args in (("--upgrade", "--quiet"), ("--uninstall",)):
        result = n.run(NEW if args[0] == "--upgrade" else OLD, *args)
        assert result.returncode == 1
        assert "[ERROR]The davinci nodes are occupied by some processes, please stop processes and install or " \
               "uninstall again, details in : /var/log/ascend_seclog/ascend_install.log" in result.text
        assert "If you want to install or uninstall the driver forcibly, add the force parameter." in result.text
    log = n.read("/var/log/ascend_seclog/ascend_install.log")
    assert "[WARNING]proc:/dev/davinci0 has user process: 4242" in log
    assert "[WARNING]proc:/dev/davinci3 has user process: 4343" in log
    assert "Version=24.1.rc3" in n.read("/usr/local/Ascend/driver/version.info")
    assert " failed " in n.read("/var/log/ascend_seclog/operation.log").splitlines()[-1]


def test_missing_kernel_headers_fail_the_module_build(n):
    n.edit_state(inject={"missing_kernel_headers": True})
    result = n.run(OLD, "--full", "--quiet")
    assert result.returncode == 1
    assert "[ERROR]Drv_dkms_env_check failed, details in : /var/log/ascend_seclog/ascend_install.log" in result.text
    assert "[INFO]Failed to install driver package, please retry after uninstall and reboot!" in result.text
    log = n.read("/var/log/ascend_seclog/ascend_install.log")
    assert "[WARNING]linux headers is currently not installed." in log
    assert re.search(r"\[ERROR\]driver ko vermagic\(.+\) is different from the os\(.+\), need rebuild driver", log)
    assert not n.exists("/usr/local/Ascend/driver/version.info")
    assert "Driver_Install_Status" not in n.info()
    assert n.state()["driver"]["running"] is None


def test_full_disk_refuses_before_writing_anything(n):
    n.edit_state(inject={"disk_full": True})
    result = n.run(OLD, "--full", "--quiet")
    assert result.returncode == 1
    assert "[ERROR]free space only 12M, cannot install driver package (greater than 300M), please make sure " \
           "enough space under the installation path" in result.text
    assert not n.exists("/usr/local/Ascend")
    assert not n.exists("/etc/ascend_install.info")


def test_firmware_needs_an_installed_driver(n):
    result = n.run(OLD_FW, "--full", "--quiet")
    assert result.returncode == 1
    assert "Driver package is not installed or not running" in result.text
    assert not n.exists("/usr/local/Ascend/firmware")


# ------------------------------------------------------------------ reboot semantics

def test_firmware_install_is_pending_until_boot(n):
    assert n.run(OLD, "--full", "--quiet").returncode == 0
    result = n.run(OLD_FW, "--full", "--quiet")
    assert result.returncode == 0
    assert "[INFO]The firmware of [8] chips are successfully upgraded." in result.text
    assert "[INFO]Firmware package installed successfully! Reboot now or after driver installation for the " \
           "installation/upgrade to take effect." in result.text
    assert n.read("/usr/local/Ascend/firmware/version.info") == (
        "Version=7.5.0.1.129\nfirmware_version=1.0\npackage_version=24.1.rc3\n"
        "compatible_version_drv=[23.0.0,23.0.0.],[24.0,24.0.],[24.1,24.1.]\n")
    assert n.info()["Firmware_Install_Path_Param"] == "/usr/local/Ascend"
    assert n.state()["firmware"] == {"running": None, "pending": True}
    n.boot()
    assert n.state()["firmware"] == {"running": "7.5.0.1.129", "pending": False}


def test_driver_upgrade_on_a_running_node_returns_2_and_waits_for_reboot(n):
    assert n.run(OLD, "--full", "--quiet").returncode == 0
    assert n.run(OLD_FW, "--full", "--quiet").returncode == 0
    n.boot()
    assert n.run(NEW_FW, "--upgrade", "--quiet").returncode == 0
    result = n.run(NEW, "--upgrade", "--quiet")
    assert result.returncode == 2, result.text
    assert "[INFO]Driver package upgraded successfully! Reboot needed for installation/upgrade to take effect! " \
        in result.text
    assert "base version is 24.1.rc3." in result.text
    assert "Version=25.5.0" in n.read("/usr/local/Ascend/driver/version.info")
    assert n.state()["driver"] == {"running": "24.1.rc3", "pending": True}
    assert "npu-smi 24.1.rc3" in n.npu_smi("info").stdout
    assert n.read("/var/log/ascend_seclog/operation.log").splitlines()[-1].startswith("Upgrade MINOR root ")
    n.boot()
    assert n.state()["driver"] == {"running": "25.5.0", "pending": False}
    assert n.state()["firmware"]["running"] == "7.8.0.5.216"
    assert "npu-smi 25.5.0" in n.npu_smi("info").stdout


def test_hot_reset_injection_makes_the_upgrade_live(n):
    assert n.run(OLD, "--full", "--quiet").returncode == 0
    n.edit_state(inject={"driver_hot_reset": True})
    result = n.run(NEW, "--upgrade", "--quiet")
    assert result.returncode == 0
    assert "Driver package upgraded successfully! The new version takes effect immediately." in result.text
    assert n.state()["driver"] == {"running": "25.5.0", "pending": False}


def test_incompatible_firmware_only_warns_under_quiet(n):
    assert n.run(NEW, "--full", "--quiet").returncode == 0
    assert n.run(NEW_FW, "--full", "--quiet").returncode == 0
    n.boot()
    # firmware 7.5.0.1.129 names drivers up to 24.1 in compatible_version_drv; 25.5.0 is installed
    fw = n.run(OLD_FW, "--check")
    assert fw.returncode == 0
    assert "[WARNING]firmware and driver version relationship check fail" in fw.text
    # driver 24.1.rc3 accepts firmware up to 7.5.99; 7.8.0.5.216 is installed
    downgrade = n.run(OLD, "--full", "--quiet")
    assert downgrade.returncode == 2
    assert "[WARNING]driver and firmware version relationship check fail" in downgrade.text
    log = n.read("/var/log/ascend_seclog/ascend_install.log")
    assert "installed firmware 7.8.0.5.216 is outside compatible_version_fw=[7.0.0,7.5.99]" in log


def test_interactive_incompatibility_prompt_stops_on_no(n):
    assert n.run(NEW, "--full", "--quiet").returncode == 0
    assert n.run(NEW_FW, "--full", "--quiet").returncode == 0
    result = n.run(OLD, "--full", stdin="n\n")
    assert result.returncode == 1
    assert "[WARNING]driver required firmware version not match ,do you want to continue?  [y/n] " in result.text
    assert "Stop installation!" in result.text
    assert "Version=25.5.0" in n.read("/usr/local/Ascend/driver/version.info")


# ------------------------------------------------------------------ reinstall of the same version

def test_same_version_quiet_full_reinstalls_over_the_old_tree(n):
    assert n.run(OLD, "--full", "--quiet").returncode == 0
    os.remove(n.path("/usr/local/Ascend/driver/lib64/driver/libascend_hal.so"))
    result = n.run(OLD, "--full", "--quiet")
    assert result.returncode == 2
    assert "base version is 24.1.rc3." in result.text
    assert n.exists("/usr/local/Ascend/driver/lib64/driver/libascend_hal.so")
    assert n.state()["driver"] == {"running": "24.1.rc3", "pending": True}


def test_same_version_interactive_full_asks_first(n):
    assert n.run(OLD, "--full", "--quiet").returncode == 0
    question = "[INFO]Driver package has been installed on the path /usr/local/Ascend, the version is 24.1.rc3, " \
               "and the version of this package is 24.1.rc3,do you want to continue?  [y/n] "
    no = n.run(OLD, "--full", stdin="n\n")
    assert no.returncode == 0 and question in no.text and "[INFO]Stop installation!" in no.text
    no_tty = n.run(OLD, "--full", stdin="")
    assert no_tty.returncode == 1
    assert "[ERROR]ERR_NO:0x0002;ERR_DES:input error, please input again!" in no_tty.text
    yes = n.run(OLD, "--full", stdin="maybe\ny\n")
    assert yes.returncode == 2
    assert yes.text.count("input error, please input again!") == 1
    assert len(n.read("/var/log/ascend_seclog/operation.log").splitlines()) == 2


# ------------------------------------------------------------------ interrupted install

@pytest.mark.parametrize("point", ["files", "driver:version"])
def test_killed_install_leaves_a_partial_tree_that_a_rerun_completes(n, point):
    n.edit_state(inject={"installer_kill_after": point})
    killed = n.run(OLD, "--full", "--quiet")
    assert killed.returncode == 137
    assert "upgradePercentage:30%" in killed.text and "successfully" not in killed.text
    assert n.exists("/usr/local/Ascend/driver/lib64/driver/libascend_hal.so")
    assert n.exists("/usr/local/Ascend/driver/version.info") == (point == "driver:version")
    assert n.info()["Driver_Install_Path_Param"] == "/usr/local/Ascend"
    assert "Driver_Install_Status" not in n.info()
    assert "installer_kill_after" not in n.state()["inject"]
    rerun = n.run(OLD, "--full", "--quiet")
    assert rerun.returncode == 0, rerun.text
    assert "Driver package installed successfully!" in rerun.text
    assert n.info()["Driver_Install_Status"] == "complete"
    assert "Version=24.1.rc3" in n.read("/usr/local/Ascend/driver/version.info")
    log = n.read("/var/log/ascend_seclog/ascend_install.log")
    if point == "files":
        assert "[INFO]base version was destroyed or not exist." in log


def test_killed_upgrade_on_a_running_node_shows_in_npu_smi_and_reruns(n):
    assert n.run(OLD, "--full", "--quiet").returncode == 0
    n.edit_state(inject={"installer_kill_after": "files"})
    assert n.run(NEW, "--upgrade", "--quiet").returncode == 137
    assert "Driver_Install_Status" not in n.info()
    assert "The driver package may not be completely installed" in n.npu_smi("info").stdout
    rerun = n.run(NEW, "--upgrade", "--quiet")
    assert rerun.returncode == 2, rerun.text
    assert "Version=25.5.0" in n.read("/usr/local/Ascend/driver/version.info")
    assert "may not be completely installed" not in n.npu_smi("info").stdout


def test_firmware_kill_then_rerun(n):
    assert n.run(OLD, "--full", "--quiet").returncode == 0
    n.edit_state(inject={"installer_kill_after": "firmware:files"})
    assert n.run(OLD_FW, "--full", "--quiet").returncode == 137
    assert not n.exists("/usr/local/Ascend/firmware/version.info")
    assert n.run(OLD_FW, "--full", "--quiet").returncode == 0
    assert n.exists("/usr/local/Ascend/firmware/version.info")


# ------------------------------------------------------------------ uninstall

def test_uninstall_through_the_package_removes_what_install_wrote(n):
    assert n.run(OLD, "--full", "--quiet").returncode == 0
    result = n.run(OLD, "--uninstall")
    assert result.returncode == 0
    assert "[INFO]Driver package uninstalled successfully! Reboot needed for uninstallation to take effect! " \
        in result.text
    for path in ("/usr/local/Ascend/driver", "/usr/local/sbin/npu-smi", "/usr/local/bin/npu-smi",
                 "/usr/local/dcmi", "/lib/davinci.conf", "/etc/ascend_install.info", "/usr/local/Ascend"):
        assert not n.exists(path), path
    assert n.state()["driver"] == {"running": "24.1.rc3", "pending": True}
    n.boot()
    assert n.state()["driver"]["running"] is None
    again = n.run(OLD, "--uninstall")
    assert again.returncode == 1
    assert "[ERROR]ERR_NO:0x0080;ERR_DES:Driver package is not installed on this device, uninstall failed" \
        in again.text


def test_installed_uninstall_scripts_remove_driver_and_firmware(n):
    assert n.run(OLD, "--full", "--quiet").returncode == 0
    assert n.run(OLD_FW, "--full", "--quiet").returncode == 0
    env = packages.package_env(n.root)
    fw = subprocess.run([n.path("/usr/local/Ascend/firmware/script/uninstall.sh")], env=env,
                        stdout=subprocess.PIPE, universal_newlines=True)
    assert fw.returncode == 0 and "Firmware package uninstalled successfully!" in fw.stdout
    assert not n.exists("/usr/local/Ascend/firmware")
    assert "Firmware_Install_Path_Param" not in n.info()
    drv = subprocess.run([n.path("/usr/local/Ascend/driver/script/uninstall.sh")], env=env,
                         stdout=subprocess.PIPE, universal_newlines=True)
    assert drv.returncode == 0 and "Driver package uninstalled successfully!" in drv.stdout
    assert not n.exists("/usr/local/Ascend")
    ops = n.read("/var/log/ascend_seclog/operation.log").splitlines()
    assert [line.split()[0] for line in ops] == ["Install", "Install", "Uninstall", "Uninstall"]


def test_install_path_option_is_recorded_and_used_by_boot(n):
    os.makedirs(n.path("/opt/npu"))
    result = n.run(OLD, "--full", "--install-path=/opt/npu/Ascend", "--quiet")
    assert result.returncode == 0, result.text
    assert n.info()["Driver_Install_Path_Param"] == "/opt/npu/Ascend"
    assert n.exists("/opt/npu/Ascend/driver/version.info")
    assert n.state()["install_path"] == "/opt/npu/Ascend"
    far = n.run(NEW, "--full", "--install-path=/srv/a/b", "--quiet")
    assert far.returncode == 1
    assert "install path /srv/a not exists,runpackage only support create one level of directory,need create " \
           "/srv/a." in far.text


def test_upgrade_tool_reports_the_running_firmware(n):
    assert n.run(OLD, "--full", "--quiet").returncode == 0
    assert n.run(OLD_FW, "--full", "--quiet").returncode == 0
    n.boot()
    env = packages.package_env(n.root)
    out = subprocess.run([n.path("/usr/local/Ascend/driver/tools/upgrade-tool"), "--device_index", "-1",
                          "--component", "-1", "--version"], env=env, stdout=subprocess.PIPE,
                         universal_newlines=True)
    assert out.returncode == 0
    assert 'Get component version(7.5.0.1.129) succeed for deviceId(7), componentType(9).' in out.stdout
    assert out.stdout.count('"component":nve') == 8


def test_state_file_outside_the_root_is_honoured(pkgs, tmp_path):
    root = str(tmp_path / "root")
    packages.prepare_node(root, state=False)
    state_file = str(tmp_path / "node.json")
    state_mod.save_state(state_mod.new_state("310p3-duo"), state_file)
    result = packages.run_package(os.path.join(pkgs, OLD), ["--full", "--quiet"], root=root,
                                  env={"ASCEND_SIM_STATE": state_file})
    assert result.returncode == 0
    with open(state_file) as handle:
        assert json.load(handle)["driver"] == {"running": "24.1.rc3", "pending": False}
    assert not os.path.exists(os.path.join(root, "etc", "ascend-sim", "state.json"))
