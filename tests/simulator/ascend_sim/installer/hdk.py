"""The HDK packages: NPU driver and NPU firmware.

The control flow follows the vendor's driver ``install.sh`` (24.x/25.x): root check, start
lines, option loop, parameter combination checks, user/group checks, install path, free
space, then install / overwrite / upgrade / uninstall, and the return value 0 (done, live),
1 (failed) or 2 (installed, hot reset failed: reboot needed).
"""
import os
import re

from .. import devices
from . import common
from .common import (Exit, GREEN, RED, YELLOW, RESET, INSTALL_INFO, INSTALL_LOG, OPERATION_LOG,
                     DEFAULT_INSTALL_PATH, rooted)

DRIVER_SPACE_MB = 300
FIRMWARE_SPACE_MB = 32
FULL_DISK_FREE = "12M"

DRIVER_LIBS = {
    "lib64/driver": ["libascend_hal.so", "libdrvdsmi_host.so", "libdcmi.so", "libprofapi.so"],
    "lib64/common": ["libc_sec.so", "libmmpa.so", "libascend_protobuf.so"],
}
DCMI_FILES = ["dcmi_interface_api.h", "dsmi_common_interface.h", "ascend_hal_error.h", "libdcmi.so"]

NPU_SMI_WRAPPER = """#!/bin/bash
# npu-smi of the Ascend driver %(version)s: the tables are rendered from the node state by the
# copy of the tool shipped in %(tools)s.
export PYTHONPATH="%(tools_real)s${PYTHONPATH:+:$PYTHONPATH}"
exec python3 -m ascend_sim npu-smi "$@"
"""

HCCN_WRAPPER = """#!/bin/bash
# hccn_tool of the Ascend driver %(version)s (NPU RoCE NIC configuration).
export PYTHONPATH="%(tools_real)s${PYTHONPATH:+:$PYTHONPATH}"
exec python3 -m ascend_sim hccn_tool "$@"
"""

UPGRADE_TOOL_WRAPPER = """#!/bin/bash
# upgrade-tool of the Ascend driver %(version)s (firmware component versions, boot status).
export PYTHONPATH="%(tools_real)s${PYTHONPATH:+:$PYTHONPATH}"
exec python3 -m ascend_sim.installer.upgrade_tool "$@"
"""

class HdkScript(object):
    """State shared by the driver and firmware flows."""

    tag = "Driver"
    kind = "driver"

    def __init__(self, pkg, argv):
        self.pkg = pkg
        self.version = pkg["version"]
        self.runfile, self.cwd, self.args = common.split_header_args(argv)
        self.con = common.Console(self.tag)
        self.start_time = common.now()
        self.all_parma = " ".join(self.args)
        self.state = common.load_state()
        self.operation = "Install"
        self.install_type = ""
        self.opts = {
            "full": False, "run": False, "devel": False, "docker": False, "upgrade": False,
            "uninstall": False, "version": False, "check": False, "quiet": False, "force": False,
            "install_for_all": False, "install_path": None, "username": None, "usergroup": None,
        }
        self.i = 0  # parameters that must stand alone are counted like the vendor's $i
        self.j = 0  # install types given ($j)

    # ------------------------------------------------------------------ output helpers
    def exit_log(self, rc):
        self.con.echo("INFO", "End time: %s" % common.now())
        self.con.log("INFO", "End time: %s" % common.now())
        raise Exit(rc)

    def error_usage(self, msg=None, bad=None):
        if bad is not None:
            self.con.echo("ERROR", "ERR_NO:0x0004;ERR_DES: Unrecognized parameters: %s. Try './xxx.run "
                                   "--help' for more information." % bad)
            self.exit_log(1)
        if msg is None:
            self.con.echo("ERROR", "ERR_NO:0x0004;ERR_DES: Unrecognized parameters. Try './xxx.run "
                                   "--help' for more information.")
            raise Exit(1)
        # the vendor's errorUsage prints its argument as is: the message carries its own level
        level, text = _split_level(msg)
        self.con.log(level, text)
        self.con.echo(level, text)
        self.exit_log(1)

    def log_operation(self, result):
        level = common.OPERATION_LEVEL.get(self.operation, "UNKNOWN")
        if self.opts["upgrade"] or self.opts["uninstall"]:
            tail = "cmdlist=%s." % self.all_parma
        else:
            tail = "install_type=%s; cmdlist=%s." % (self.install_type, self.all_parma)
        common.operation_log("%s %s root %s 127.0.0.1 %s %s %s" % (
            self.operation, level, self.start_time, self.runfile, result, tail))

    def fail(self, msg):
        """The vendor's ``error`` helper: operation log, message, exit 1."""
        self.log_operation("failed")
        self.con.echo("ERROR", msg)
        self.con.log("ERROR", msg)
        self.exit_log(1)

    # ------------------------------------------------------------------ shared steps
    def start(self):
        if not common.sim_rooted() and not common.is_root():
            self.con.echo("ERROR", "ERR_NO:0x0093;ERR_DES:do not have root permission, operation failed, "
                                   "please use root permission!")
            raise Exit(1)
        if not self.args:
            self.error_usage()
        self.con.both("INFO", "Start time: %s" % self.start_time)
        self.con.echo("INFO", "LogFile: %s" % INSTALL_LOG)
        self.con.echo("INFO", "OperationLogFile: %s" % OPERATION_LOG)
        self.con.log("INFO", "UserCommand: %s %s" % (self.runfile, self.all_parma))

    def install_info(self):
        return common.read_kv(INSTALL_INFO)

    def users_from_info(self):
        info = self.install_info()
        self.username = info.get("UserName") or "HwHiAiUser"
        self.usergroup = info.get("UserGroup") or "HwHiAiUser"

    def check_user_and_group(self):
        if self.opts["uninstall"]:
            return
        if common.user_entry(self.username) is None:
            self.error_usage("[ERROR]ERR_NO:0x0091;ERR_DES:%s not exists! Please add %s"
                             % (self.username, self.username))
        if common.group_entry(self.usergroup) is None:
            self.error_usage("[ERROR]ERR_NO:0x0091;ERR_DES:%s group not exists! Please add %s group"
                             % (self.usergroup, self.usergroup))
        if not common.user_in_group(self.username, self.usergroup):
            self.error_usage("[ERROR]ERR_NO:0x0096;ERR_DES:%s not right! Please check the relatianship "
                             "of %s and %s" % (self.usergroup, self.username, self.usergroup))
        self.con.echo("INFO", "set username and usergroup, %s:%s" % (self.username, self.usergroup))

    def resolve_install_path(self, info_key):
        info = self.install_info()
        if self.opts["install_path"]:
            path = common.absolute_install_path(self.opts["install_path"], self.cwd)
        else:
            path = info.get(info_key) or DEFAULT_INSTALL_PATH
        self.install_path = path.rstrip("/") or "/"
        if self.opts["uninstall"]:
            return
        if not os.path.isdir(rooted(self.install_path)) and self.install_path != DEFAULT_INSTALL_PATH:
            parent = os.path.dirname(self.install_path)
            if not os.path.isdir(rooted(parent)):
                self.error_usage("[ERROR]ERR_NO:0x0003;ERR_DES:install path %s not exists,runpackage only "
                                 "support create one level of directory,need create %s." % (parent, parent))

    def check_free_space(self, need_mb, what):
        if self.opts["uninstall"]:
            return
        if common.disk_full(self.state):
            self.con.log("INFO", "freeSpace:%s" % FULL_DISK_FREE)
            self.error_usage("[ERROR]free space only %s, cannot install %s package (greater than %sM), please "
                             "make sure enough space under the installation path"
                             % (FULL_DISK_FREE, what, need_mb))

    def readable_chips(self):
        return [chip for chip in (self.state.get("chips") or []) if isinstance(chip, dict)]

    def save_state(self):
        common.commit_state(self.state, ("driver", "firmware", "install_path"))

    def die_if_injected(self, point):
        common.maybe_die(self.state, self.kind, point, self.con)


class DriverScript(HdkScript):
    tag = "Driver"
    kind = "driver"

    def parse(self):
        opts = self.opts
        args = list(self.args)
        while args:
            arg = args.pop(0)
            if arg == "--uninstall":
                self.i += 1
                self.operation = "Uninstall"
                opts["uninstall"] = True
            elif arg == "--upgrade":
                self.i += 1
                self.j += 1
                self.operation = "Upgrade"
                opts["upgrade"] = True
            elif arg in ("--full", "--run", "--devel", "--docker"):
                self.i += 1
                self.j += 1
                if arg in ("--full", "--run"):
                    self.operation = "Install"
                self.unique_mode()
                self.install_type = arg[2:]
                opts[arg[2:]] = True
            elif arg == "--version":
                self.i += 1
                opts["version"] = True
            elif arg == "--quiet":
                self.i += 1
                opts["quiet"] = True
            elif arg == "--force":
                self.i += 1
                opts["force"] = True
            elif arg == "--install-for-all":
                opts["install_for_all"] = True
            elif arg.startswith("--install-username="):
                self.i += 1
                opts["username"] = arg.split("=", 1)[1]
            elif arg.startswith("--install-usergroup="):
                self.i += 1
                opts["usergroup"] = arg.split("=", 1)[1]
            elif arg.startswith("--install-path="):
                self.i += 1
                value = arg.split("=", 1)[1]
                if not value:
                    self.error_usage("[ERROR]ERR_NO:0x0003;ERR_DES:install path is null, install failed")
                opts["install_path"] = value
            elif arg == "--check":
                self.i += 1
                opts["check"] = True
            elif arg == "--norebuild":
                pass
            elif arg.startswith("-"):
                self.error_usage(bad=arg)
            else:
                break

    def unique_mode(self):
        if self.install_type:
            self.error_usage("[ERROR]ERR_NO:0x0004;ERR_DES:only support one type: full/run/docker/devel/"
                             "boot-server, operation failed!")

    def installing(self):
        opts = self.opts
        return opts["upgrade"] or opts["full"] or opts["run"] or opts["devel"] or opts["docker"]

    def unsupport_param(self):
        opts = self.opts
        if opts["version"] or opts["uninstall"] or opts["check"]:
            if self.i > 1:
                self.error_usage("[ERROR]ERR_NO:0x0004;ERR_DES:version/uninstall/check/boot-server can't use "
                                 "with other parameters.")
            return
        if self.j != 1:
            self.error_usage("[ERROR]ERR_NO:0x0004;ERR_DES:param need used with full/run/docker/upgrade/devel.")
        if opts["install_for_all"] and opts["docker"]:
            self.error_usage("[ERROR]ERR_NO:0x0004;ERR_DES:install-for-all param need used with "
                             "full/run/upgrade/devel.")
        if opts["install_path"] and opts["upgrade"]:
            self.error_usage("[ERROR]ERR_NO:0x0004;ERR_DES:install-path param need used with "
                             "full/run/docker/devel.")
        if opts["username"] is not None or opts["usergroup"] is not None:
            if opts["username"] is not None and opts["usergroup"] is not None:
                if opts["upgrade"]:
                    self.error_usage("[ERROR]ERR_NO:0x0004;ERR_DES:install-username and install-usergroup "
                                     "params need used with full/run/docker/devel.")
            else:
                self.con.echo("ERROR", "ERR_NO:0x0004;ERR_DES:Username and usergroup are not specified at the "
                                       "same time.")
                self.con.echo("ERROR", "Please input the right params and try again.")
                self.con.log("ERROR", "ERR_NO:0x0004;ERR_DES:Username and usergroup are not specified at the "
                                      "same time.")
                self.exit_log(1)

    def installed_version(self, path):
        return common.version_info(path + "/driver/version.info")

    def log_base_version(self):
        info = self.install_info()
        path = info.get("Driver_Install_Path_Param")
        if path:
            version = self.installed_version(path)
            if version:
                self.con.both("INFO", "base version is %s." % version)
                return
        self.con.log("INFO", "base version was destroyed or not exist.")

    # ---------------------------------------------------------------- version relationship
    def ver_check(self):
        """The vendor's ver_check.sh: compare with the installed firmware.  A mismatch is a
        warning; interactive runs are asked whether to continue, --quiet runs go on."""
        info = self.install_info()
        fw_path = info.get("Firmware_Install_Path_Param")
        fw_version = common.version_info(fw_path + "/firmware/version.info") if fw_path else None
        if not fw_version:
            self.con.log("WARNING", "old firmware not installed, stop version relationship check")
            return True
        if common.version_in_ranges(fw_version, self.pkg["compatible_version_fw"]):
            self.con.both("INFO", "driver and firmware version relationship check success")
            return True
        self.con.both("WARNING", "driver and firmware version relationship check fail")
        self.con.log("WARNING", "installed firmware %s is outside compatible_version_fw=%s"
                     % (fw_version, self.pkg["compatible_version_fw"]))
        if self.opts["check"]:
            self.con.log("INFO", "commandline: --check, not install")
            return True
        if not self.opts["quiet"]:
            self.con.raw("[WARNING]driver required firmware version not match ,do you want to continue?  [y/n] ")
            if not common.ask_yes_no(self.con, "ERR_NO:0x0002;ERR_DES:input error, please input again!"):
                self.con.raw("Stop installation!")
                self.exit_log(1)
        return True

    # ---------------------------------------------------------------- processes
    def check_processes(self):
        processes = [p for p in (self.state.get("processes") or []) if isinstance(p, dict)]
        if not processes or self.opts["force"]:
            return
        phy = {}
        for index, chip in enumerate(self.readable_chips()):
            phy[(chip.get("npu_id"), chip.get("chip_id"))] = chip.get("phy_id", chip.get("logic_id", index))
        for proc in processes:
            device = "/dev/davinci%s" % phy.get((proc.get("npu_id"), proc.get("chip_id")), proc.get("npu_id", 0))
            self.con.log("WARNING", "proc:%s has user process: %s" % (device, proc.get("pid")))
            self.con.log("INFO", "pid %s name %s occupies NPU %s chip %s" % (
                proc.get("pid"), proc.get("name", ""), proc.get("npu_id"), proc.get("chip_id")))
        self.con.echo("ERROR", "%sThe davinci nodes are occupied by some processes, please stop processes and "
                               "install or uninstall again, details in : %s %s" % (RED, INSTALL_LOG, RESET))
        self.con.log("ERROR", "The davinci nodes are occupied by some processes, please stop processes and "
                              "install or uninstall again.")
        self.con.echo("INFO", "If you want to install or uninstall the driver forcibly, add the force parameter. "
                              "For details, see [--help].")
        self.log_operation("failed")
        self.exit_log(1)

    # ---------------------------------------------------------------- main flow
    def run(self):
        self.start()
        self.users_from_info()
        self.log_base_version()
        self.parse()
        if self.installing():
            self.con.echo("WARNING", "%sDo not power off or restart the system during the installation/upgrade%s"
                          % (YELLOW, RESET))
        self.unsupport_param()
        opts = self.opts
        if opts["username"] is not None:
            if not opts["username"]:
                self.error_usage("[ERROR]ERR_NO:0x0091;ERR_DES:input_install_username is empty")
            if opts["username"] == "root" and not opts["install_for_all"]:
                self.error_usage("[ERROR]ERR_NO:0x0091;ERR_DES:username not permission for root")
            if not opts["usergroup"]:
                self.error_usage("[ERROR]ERR_NO:0x0091;ERR_DES:input_install_group is empty")
            if opts["usergroup"] == "root" and not opts["install_for_all"]:
                self.error_usage("[ERROR]ERR_NO:0x0091;ERR_DES:usergroup not permission for root")
        if opts["check"]:
            self.ver_check()
            self.exit_log(0)
        if opts["version"]:
            self.con.echo("INFO", "driver version :%s" % self.version)
            self.exit_log(0)
        if opts["upgrade"]:
            info = self.install_info()
            self.install_type = info.get("Driver_Install_Type") or "full"
        if opts["install_path"]:
            candidate = common.absolute_install_path(opts["install_path"], self.cwd)
            if not common.valid_install_path(candidate):
                self.error_usage("[ERROR]ERR_NO:0x0003;ERR_DES:The install-path [%s] is invalid according to "
                                 "regular-expression, only characters in [a-z,A-Z,0-9,-,_] are supported."
                                 % opts["install_path"])
        if opts["username"] is not None:
            self.username, self.usergroup = opts["username"], opts["usergroup"]
        self.check_user_and_group()
        self.resolve_install_path("Driver_Install_Path_Param")
        self.check_free_space(DRIVER_SPACE_MB, "driver")
        if self.installing() or opts["uninstall"]:
            self.check_processes()

        info = self.install_info()
        old_path = info.get("Driver_Install_Path_Param")
        status = 0
        if not old_path:
            if opts["uninstall"]:
                self.fail("ERR_NO:0x0080;ERR_DES:Driver package is not installed on this device, uninstall failed")
            self.ver_check()
            status = self.install_run("Install")
        else:
            installed = self.installed_version(old_path) or "none"
            if opts["uninstall"]:
                self.uninstall_run(old_path, standalone=True)
            elif opts["full"] or opts["run"] or opts["docker"] or opts["devel"]:
                self.ver_check()
                if installed != "none" and not opts["quiet"]:
                    self.con.echo("INFO", "Driver package has been installed on the path %s, the version is %s, "
                                          "and the version of this package is %s,do you want to continue?  [y/n] "
                                  % (old_path, installed, self.version))
                    if not common.ask_yes_no(self.con, "ERR_NO:0x0002;ERR_DES:input error, please input again!"):
                        self.con.echo("INFO", "Stop installation!")
                        self.exit_log(0)
                self.uninstall_run(old_path, standalone=False)
                status = self.install_run("Install")
            elif opts["upgrade"]:
                self.ver_check()
                self.uninstall_run(old_path, standalone=False)
                status = self.install_run("Upgrade")
        if status == 1:
            self.log_operation("failed")
            self.exit_log(1)
        self.log_operation("success")
        common.update_param(INSTALL_INFO, "Driver_Install_Status", "complete")
        self.con.log("INFO", "Installation status updated successfully")
        self.exit_log(status)

    # ---------------------------------------------------------------- install
    def update_install_info(self):
        info = self.install_info()
        if not info.get("UserName"):
            common.update_param(INSTALL_INFO, "UserName", self.username)
        if not info.get("UserGroup"):
            common.update_param(INSTALL_INFO, "UserGroup", self.usergroup)
        common.update_param(INSTALL_INFO, "Driver_Install_Type", self.install_type or "full")
        common.update_param(INSTALL_INFO, "Driver_Install_Path_Param", self.install_path)
        common.update_param(INSTALL_INFO, "Driver_Install_For_All",
                            "yes" if self.opts["install_for_all"] else
                            (info.get("Driver_Install_For_All") if self.opts["upgrade"] and
                             info.get("Driver_Install_For_All") else "no"))
        common.update_param(INSTALL_INFO, "Driver_Install_Mode", info.get("Driver_Install_Mode") or "normal")

    def progress(self, percent):
        self.con.echo("INFO", "upgradePercentage:%d%%" % percent)
        self.con.log("INFO", "upgradePercentage:%d%%" % percent)

    def install_run(self, what):
        """installRun + run_driver_install.sh.  Returns 0 (live), 1 (failed), 2 (reboot)."""
        self.update_install_info()
        self.die_if_injected("info")
        target = self.install_path + "/driver"
        self.con.log("INFO", "target path : %s" % target)
        if common.inject(self.state, "missing_kernel_headers"):
            kernel = os.uname().release
            self.con.log("INFO", "dkms environment check...")
            self.con.log("WARNING", "linux headers is currently not installed.")
            self.con.log("INFO", "not detect driver dkms dependence ")
            self.con.log("ERROR", "driver ko vermagic(%s) is different from the os(%s), need rebuild driver"
                         % (self.pkg.get("ko_vermagic", "5.10.0-60.18.0.50.oe2203.aarch64"), kernel))
            self.con.log("ERROR", "driver vermagic check failed.")
            self.con.echo("ERROR", "%sDrv_dkms_env_check failed, details in : %s %s" % (RED, INSTALL_LOG, RESET))
            self.con.echo("INFO", "Failed to %s driver package, please retry after uninstall and reboot!"
                          % what.lower())
            self.con.log("INFO", "Failed to %s driver package, please retry after uninstall and reboot!"
                         % what.lower())
            return 1
        self.con.log("INFO", "dkms environment check success")
        self.progress(10)
        self.copy_files()
        self.progress(30)
        self.die_if_injected("files")
        common.write_file("/lib/davinci.conf", "DAVINCI_HOME_PATH=%s\n" % self.install_path, 0o444)
        self.progress(40)
        self.make_devices()
        self.progress(90)
        if not common.exists("/etc/hccn.conf"):
            common.write_file("/etc/hccn.conf", "", 0o644)
        self.con.echo("INFO", "Waiting for device startup...")
        # version.info is copied last: a tree without it is an unfinished install
        common.write_file(target + "/version.info", _read_payload("version.info"), 0o444)
        self.die_if_injected("version")
        self.progress(100)
        running = (self.state.get("driver") or {}).get("running")
        # nothing runs yet: the modules load straight away; otherwise only a hot reset (rarely
        # possible with processes around) or a reboot brings the new version up
        live = not running or bool(common.inject(self.state, "driver_hot_reset"))
        driver = self.state.setdefault("driver", {})
        self.state["install_path"] = self.install_path
        if live:
            self.con.echo("INFO", "Device startup success")
            driver["running"] = self.version
            driver["pending"] = False
        else:
            self.con.log("WARNING", "hot reset failed, the chips keep running driver %s" % running)
            driver["pending"] = True
        self.save_state()
        verb = "installed" if what == "Install" else "upgraded"
        if live:
            self.con.echo("INFO", "%sDriver package %s successfully! The new version takes effect immediately. %s"
                          % (GREEN, verb, RESET))
            self.con.log("INFO", "Driver package %s successfully! The new version takes effect immediately." % verb)
            return 0
        self.con.echo("INFO", "%sDriver package %s successfully! %s%sReboot needed for installation/upgrade to "
                              "take effect! %s" % (GREEN, verb, RESET, RED, RESET))
        self.con.log("INFO", "Driver package %s successfully! Reboot needed for installation/upgrade to take "
                             "effect!" % verb)
        return 2

    def copy_files(self):
        target = self.install_path + "/driver"
        tools = target + "/tools"
        tools_real = rooted(tools)
        common.makedirs(target, 0o755)
        for sub, names in DRIVER_LIBS.items():
            for name in names:
                common.write_file("%s/%s/%s" % (target, sub, name),
                                  "simulated shared object %s of driver %s\n" % (name, self.version), 0o755)
        # the simulator's runtime modules, run by npu-smi/hccn_tool/upgrade-tool
        common.copy_sim(tools + "/ascend_sim")
        values = {"version": self.version, "tools": tools, "tools_real": tools_real}
        common.write_file(tools + "/hccn_tool", HCCN_WRAPPER % values, 0o555)
        common.write_file(tools + "/upgrade-tool", UPGRADE_TOOL_WRAPPER % values, 0o555)
        for path in ("/usr/local/sbin/npu-smi", "/usr/local/bin/npu-smi"):
            common.write_file(path, NPU_SMI_WRAPPER % values, 0o555)
        for name in DCMI_FILES:
            common.write_file("/usr/local/dcmi/" + name, "simulated %s of driver %s\n" % (name, self.version), 0o444)
        common.install_uninstall_script(self.pkg, target + "/script", self.install_path, "driver %s" % self.version,
                                        tools)
        common.write_file(target + "/script/help.info", _read_payload("driver/script/help.info"), 0o440)
        common.write_file(target + "/scene.info", _read_payload("scene.info"), 0o440)
        common.makedirs(target + "/host", 0o550)
        common.write_file(target + "/host/drv_pcie_host.ko", "simulated kernel module\n", 0o440)

    def make_devices(self):
        """Character devices as the kernel module creates them (0660, the run user's); skipped
        (and recorded) when re-rooted or without the privilege to mknod."""
        _made, skipped = devices.make_nodes(self.state, self.username, self.usergroup)
        if skipped:
            self.con.log("WARNING", "device nodes not created (unprivileged or re-rooted simulator): %s"
                         % ", ".join(skipped))
        self.con.log("INFO", "device nodes for %d chips handled" % len(self.readable_chips()))

    # ---------------------------------------------------------------- uninstall
    def uninstall_run(self, path, standalone):
        if not standalone:
            self.con.log("INFO", "uninstall old driver before %s" % self.operation.lower())
        target = path + "/driver"
        common.remove_tree(target)
        for file_path in ("/usr/local/sbin/npu-smi", "/usr/local/bin/npu-smi", "/lib/davinci.conf"):
            if common.exists(file_path):
                os.unlink(rooted(file_path))
        common.remove_tree("/usr/local/dcmi")
        common.delete_params(INSTALL_INFO, "Driver_Install_Status=")
        self.con.log("INFO", "rm -rf version.info success")
        self.con.log("INFO", "uninstall driver success")
        if not standalone:
            return
        if os.path.isdir(rooted(path)) and not os.listdir(rooted(path)):
            os.rmdir(rooted(path))
        for key in ("Driver_Install_Path_Param=", "Driver_Install_Type=", "Driver_Install_Mode=",
                    "Driver_Install_For_All="):
            common.delete_params(INSTALL_INFO, key)
        info = self.install_info()
        if info and not any("Install_Path_Param" in key for key in info):
            os.unlink(rooted(INSTALL_INFO))
        driver = self.state.setdefault("driver", {})
        if driver.get("running"):
            driver["pending"] = True
        self.save_state()
        self.log_operation("success")
        self.con.echo("INFO", "%sDriver package uninstalled successfully! %s%sReboot needed for uninstallation to "
                              "take effect! %s" % (GREEN, RESET, RED, RESET))
        self.con.log("INFO", "Driver package uninstalled successfully! Reboot needed for uninstallation to take "
                             "effect!")
        self.exit_log(0)


class FirmwareScript(HdkScript):
    tag = "Firmware"
    kind = "firmware"

    def parse(self):
        opts = self.opts
        for arg in self.args:
            if arg == "--full":
                self.i += 1
                self.j += 1
                self.install_type = "full"
                opts["full"] = True
            elif arg == "--upgrade":
                self.i += 1
                self.j += 1
                self.operation = "Upgrade"
                opts["upgrade"] = True
            elif arg == "--uninstall":
                self.i += 1
                self.operation = "Uninstall"
                opts["uninstall"] = True
            elif arg == "--version":
                self.i += 1
                opts["version"] = True
            elif arg == "--check":
                self.i += 1
                opts["check"] = True
            elif arg == "--quiet":
                self.i += 1
                opts["quiet"] = True
            elif arg.startswith("--install-path="):
                self.i += 1
                value = arg.split("=", 1)[1]
                if not value:
                    self.error_usage("[ERROR]ERR_NO:0x0003;ERR_DES:install path is null, install failed")
                opts["install_path"] = value
            elif arg.startswith("-"):
                self.error_usage(bad=arg)

    def run(self):
        self.start()
        self.users_from_info()
        self.parse()
        opts = self.opts
        if opts["full"] or opts["upgrade"]:
            self.con.echo("WARNING", "%sDo not power off or restart the system during the installation/upgrade%s"
                          % (YELLOW, RESET))
        if opts["version"] or opts["uninstall"] or opts["check"]:
            if self.i > 1:
                self.error_usage("[ERROR]ERR_NO:0x0004;ERR_DES:version/uninstall/check can't use with other "
                                 "parameters.")
        elif self.j != 1:
            self.error_usage("[ERROR]ERR_NO:0x0004;ERR_DES:param need used with full/upgrade.")
        if opts["version"]:
            self.con.echo("INFO", "firmware version :%s" % self.version)
            self.exit_log(0)
        if opts["check"]:
            self.relationship_check()
            self.exit_log(0)
        info = self.install_info()
        if opts["uninstall"]:
            path = info.get("Firmware_Install_Path_Param")
            if not path:
                self.fail("ERR_NO:0x0080;ERR_DES:Firmware package is not installed on this device, uninstall failed")
            self.uninstall(path)
        drv_path = info.get("Driver_Install_Path_Param")
        drv_version = common.version_info(drv_path + "/driver/version.info") if drv_path else None
        running = (self.state.get("driver") or {}).get("running")
        if not drv_version or not running:
            self.fail("ERR_NO:0x0080;ERR_DES:Driver package is not installed or not running, the firmware is "
                      "upgraded through the driver, please install the driver package first")
        self.resolve_install_path("Firmware_Install_Path_Param")
        if not opts["install_path"] and drv_path and not info.get("Firmware_Install_Path_Param"):
            self.install_path = drv_path
        self.check_free_space(FIRMWARE_SPACE_MB, "firmware")
        self.relationship_check(drv_version)
        self.install()

    def relationship_check(self, drv_version=None):
        if drv_version is None:
            info = self.install_info()
            path = info.get("Driver_Install_Path_Param")
            drv_version = common.version_info(path + "/driver/version.info") if path else None
        if not drv_version:
            self.con.log("WARNING", "driver not installed, stop version relationship check")
            return
        if common.version_in_ranges(drv_version, self.pkg["firmware_compatible_version_drv"]):
            self.con.both("INFO", "firmware and driver version relationship check success")
            return
        self.con.both("WARNING", "firmware and driver version relationship check fail")
        self.con.log("WARNING", "installed driver %s is outside compatible_version_drv=%s"
                     % (drv_version, self.pkg["firmware_compatible_version_drv"]))
        if self.opts["check"] or self.opts["quiet"]:
            return
        self.con.raw("[WARNING]firmware required driver version not match ,do you want to continue?  [y/n] ")
        if not common.ask_yes_no(self.con, "ERR_NO:0x0002;ERR_DES:input error, please input again!"):
            self.con.raw("Stop installation!")
            self.exit_log(1)

    def install(self):
        target = self.install_path + "/firmware"
        common.update_param(INSTALL_INFO, "Firmware_Install_Type", "full")
        common.update_param(INSTALL_INFO, "Firmware_Install_Path_Param", self.install_path)
        common.remove_tree(target + "/version.info")
        chips = self.readable_chips()
        for percent in (0, 0, 0, 100):
            self.con.both("INFO", "upgradePercentage: %d%%" % percent)
            if percent == 0:
                common.makedirs(target, 0o755)
        common.write_file(target + "/Ascend-hdk-npu-firmware.hpm",
                          "simulated firmware image %s\n" % self.version, 0o440)
        common.copy_sim(target + "/script/ascend_sim")
        common.install_uninstall_script(self.pkg, target + "/script", self.install_path,
                                        "firmware %s" % self.version, target + "/script")
        self.die_if_injected("files")
        common.write_file(target + "/version.info", _read_payload("version.info"), 0o444)
        firmware = self.state.setdefault("firmware", {})
        firmware["pending"] = True
        self.save_state()
        self.con.both("INFO", "The firmware of [%d] chips are successfully upgraded." % len(chips))
        verb = "upgraded" if self.opts["upgrade"] else "installed"
        self.con.both("INFO", "Firmware package %s successfully! Reboot now or after driver installation for the "
                              "installation/upgrade to take effect." % verb)
        self.log_operation("success")
        self.exit_log(0)

    def uninstall(self, path):
        common.remove_tree(path + "/firmware")
        for key in ("Firmware_Install_Path_Param=", "Firmware_Install_Type="):
            common.delete_params(INSTALL_INFO, key)
        firmware = self.state.setdefault("firmware", {})
        if firmware.get("running"):
            firmware["pending"] = True
        self.save_state()
        self.log_operation("success")
        self.con.both("INFO", "Firmware package uninstalled successfully! Reboot needed for uninstallation to take "
                              "effect!")
        self.exit_log(0)


def _split_level(msg):
    """``"[ERROR]text"`` -> ``("ERROR", "text")``; a message without a level tag is an error."""
    match = re.match(r"^\[(ERROR|WARNING|INFO)\](.*)$", msg, re.S)
    if match:
        return match.group(1), match.group(2)
    return "ERROR", msg


def _read_payload(name):
    """A file of the extracted payload (the installer's cwd)."""
    with open(name) as handle:
        return handle.read()
