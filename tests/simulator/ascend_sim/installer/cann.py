"""The CANN packages: toolkit, per-chip operators (kernels up to 8.3, ops from 8.5), NNAL.

Layouts written:
  classic  (<= 8.3): <p>/ascend-toolkit/<ver>/..., <p>/ascend-toolkit/latest -> <ver>,
                     <p>/ascend-toolkit/set_env.sh
  cann_dir (>= 8.5): <p>/cann-<ver>/..., <p>/cann -> cann-<ver>,
                     <p>/ascend-toolkit/latest -> ../cann,
                     <p>/ascend-toolkit/set_env.sh -> latest/set_env.sh
Either way <p>/ascend-toolkit/latest/<arch>-linux/ascend_toolkit_install.info names the
installed toolkit, and it is written last: a version directory without it is an unfinished
installation, which the next run removes before installing again.
"""
import hashlib
import os
import sys

from . import common
from .common import Exit, OPERATION_LOG, CANN_INSTALL_INFO, rooted

SECLOG = common.SECLOG_DIR
TAGS = {"toolkit": "Toolkit", "kernels": "Kernels", "ops": "Ops", "nnal": "NNAL"}
OWN_LOGS = {
    "toolkit": SECLOG + "/ascend_toolkit_install.log",
    "kernels": SECLOG + "/ascend_kernels_install.log",
    "ops": SECLOG + "/ascend_ops_install.log",
    "nnal": SECLOG + "/ascend_nnal_install.log",
}
SCENES = {
    "toolkit": ("install", "full", "devel", "upgrade", "uninstall"),
    "kernels": ("install", "full", "upgrade", "uninstall"),
    "ops": ("install", "devel", "upgrade", "uninstall"),
    "nnal": ("install", "upgrade", "uninstall"),
}
SPACE_MB = {"toolkit": 8192, "kernels": 4096, "ops": 4096, "nnal": 2048}
TOOLKIT_COMPONENTS = ("runtime", "compiler", "opp", "toolkit", "aoe", "hccl")

TOOLKIT_SET_ENV = """# Environment of the CANN toolkit %(version)s installed in %(home_dir)s.
export ASCEND_TOOLKIT_HOME=%(home)s
export LD_LIBRARY_PATH=${ASCEND_TOOLKIT_HOME}/lib64:${ASCEND_TOOLKIT_HOME}/lib64/plugin/opskernel:\
${ASCEND_TOOLKIT_HOME}/lib64/plugin/nnengine:${ASCEND_TOOLKIT_HOME}/opp/built-in/op_impl/ai_core/tbe/op_tiling/lib/linux/\
$(arch):$LD_LIBRARY_PATH
export LD_LIBRARY_PATH=${ASCEND_TOOLKIT_HOME}/tools/aml/lib64:${ASCEND_TOOLKIT_HOME}/tools/aml/lib64/plugin:\
$LD_LIBRARY_PATH
export PYTHONPATH=${ASCEND_TOOLKIT_HOME}/python/site-packages:${ASCEND_TOOLKIT_HOME}/opp/built-in/op_impl/ai_core/tbe:\
$PYTHONPATH
export PATH=${ASCEND_TOOLKIT_HOME}/bin:${ASCEND_TOOLKIT_HOME}/compiler/ccec_compiler/bin:\
${ASCEND_TOOLKIT_HOME}/tools/ccec_compiler/bin:$PATH
export ASCEND_AICPU_PATH=${ASCEND_TOOLKIT_HOME}
export ASCEND_OPP_PATH=${ASCEND_TOOLKIT_HOME}/opp
export TOOLCHAIN_HOME=${ASCEND_TOOLKIT_HOME}/toolkit
export ASCEND_HOME_PATH=${ASCEND_TOOLKIT_HOME}
"""

OPS_COMPONENTS = ("ops_math", "ops_nn", "ops_cv", "ops_transformer")

ATB_VERSION_INFO = """    Ascend-cann-atb : %(version)s
    Ascend-cann-atb Version : %(build)s
    Platform : %(arch)s
    branch : %(branch)s
    commit id : %(commit)s
"""

ATB_SET_ENV = """#!/bin/bash
# Environment of the NNAL ATB library: picks the build matching the C++ ABI torch was
# compiled with (--cxx_abi=0|1 chooses one explicitly) in %(atb_root)s.
cxx_abi=""
for para in "$@"; do
    case "$para" in
        --cxx_abi=0) cxx_abi=0 ;;
        --cxx_abi=1) cxx_abi=1 ;;
    esac
done
if [ -z "$cxx_abi" ]; then
    cxx_abi=$(python3 -c 'import torch; print(1 if torch.compiled_with_cxx11_abi() else 0)' 2>/dev/null)
    if [ "$cxx_abi" != "0" ] && [ "$cxx_abi" != "1" ]; then
        cxx_abi=%(default_abi)s
    fi
fi
atb_set_env_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "${atb_set_env_dir}/latest/atb/cxx_abi_${cxx_abi}/set_env.sh"
"""

ATB_ABI_SET_ENV = """# ATB %(version)s built with _GLIBCXX_USE_CXX11_ABI=%(abi)s.
export ATB_HOME_PATH=%(atb_root)s/latest/atb/cxx_abi_%(abi)s
export LD_LIBRARY_PATH=${ATB_HOME_PATH}/lib:${ATB_HOME_PATH}/examples:${ATB_HOME_PATH}/tests/atbopstest:\
${LD_LIBRARY_PATH}
export PATH=${ATB_HOME_PATH}/bin:$PATH
export ATB_STREAM_SYNC_EVERY_KERNEL_ENABLE=0
export ATB_STREAM_SYNC_EVERY_RUNNER_ENABLE=0
export ATB_STREAM_SYNC_EVERY_OPERATION_ENABLE=0
export ATB_OPSRUNNER_SETUP_CACHE_ENABLE=1
export ATB_OPSRUNNER_KERNEL_CACHE_LOCAL_COUNT=1
export ATB_OPSRUNNER_KERNEL_CACHE_GLOABL_COUNT=5
export ATB_WORKSPACE_MEM_ALLOC_ALG_TYPE=1
export ATB_WORKSPACE_MEM_ALLOC_GLOBAL=0
export ATB_COMPARE_TILING_EVERY_KERNEL=0
export ATB_HOST_TILING_BUFFER_BLOCK_NUM=128
export ATB_DEVICE_TILING_BUFFER_BLOCK_NUM=32
export ATB_SHARE_MEMORY_NAME_SUFFIX=""
export ATB_MATMUL_SHUFFLE_K_ENABLE=1
export LCCL_DETERMINISTIC=0
export LCCL_PARALLEL=0
"""

SIP_SET_ENV = """# Environment of the NNAL SIP (signal processing) library %(version)s.
export ASDSIP_HOME_PATH=%(sip_root)s/latest
export LD_LIBRARY_PATH=${ASDSIP_HOME_PATH}/lib:${LD_LIBRARY_PATH}
"""

class CannScript(object):

    def __init__(self, pkg, argv):
        self.pkg = pkg
        self.kind = pkg["kind"]
        self.version = pkg["version"]
        self.arch = pkg["arch"]
        self.runfile, self.cwd, self.args = common.split_header_args(argv)
        self.con = common.Console(TAGS[self.kind], style="cann", own_log=OWN_LOGS[self.kind])
        self.state = common.load_state()
        self.start_time = common.now()
        self.all_parma = " ".join(self.args)
        self.scene = None
        self.operation = "Install"
        self.quiet = False
        self.check = False
        self.want_version = False
        self.install_path = None
        self.install_for_all = False
        self.username = None
        self.usergroup = None

    # ------------------------------------------------------------------ plumbing
    def exit_log(self, rc):
        self.con.log("INFO", "End time:%s" % common.now())
        raise Exit(rc)

    def error(self, msg, rc=1):
        self.con.echo("ERROR", msg)
        self.con.log("ERROR", msg)
        if self.scene:
            self.log_operation("failed")
        self.exit_log(rc)

    def log_operation(self, result):
        level = common.OPERATION_LEVEL.get(self.operation, "UNKNOWN")
        user = "root" if common.sim_rooted() or common.is_root() else os.environ.get("USER", "unknown")
        common.operation_log("%s %s %s %s 127.0.0.1 %s %s installmode=%s; cmdlist=%s" % (
            self.operation, level, user, common.now(), self.runfile, result, self.scene or "", self.all_parma))

    def package_label(self):
        return self.runfile[:-4] if self.runfile.endswith(".run") else self.runfile

    def usage(self):
        with open(os.path.join(os.path.dirname(common.__file__), "help", self.kind + ".info")) as handle:
            text = handle.read()
        self.con.raw("Usage: ./%s [options]" % (self.runfile or "package.run"))
        self.con.raw("Options:")
        self.con.raw(text.rstrip("\n"))

    # ------------------------------------------------------------------ arguments
    def parse(self):
        allowed = SCENES[self.kind]
        for arg in self.args:
            name = arg[2:] if arg.startswith("--") else arg
            if name in ("install", "full", "devel", "upgrade", "uninstall"):
                if name == "full" and self.kind == "ops":
                    # the ops packages know no --full: they print their usage and stop with 0
                    self.usage()
                    raise Exit(0)
                if name not in allowed:
                    self.error("ERR_NO:0x0004;ERR_DES:Unsupported parameter: %s" % arg)
                if self.scene is not None:
                    self.error("ERR_NO:0x0004;ERR_DES:only support one type: %s, operation failed!"
                               % "/".join(allowed))
                self.scene = name
                self.operation = {"upgrade": "Upgrade", "uninstall": "Uninstall"}.get(name, "Install")
            elif arg == "--quiet":
                self.quiet = True
            elif arg == "--check":
                self.check = True
            elif arg == "--version":
                self.want_version = True
            elif arg == "--install-for-all":
                self.install_for_all = True
            elif arg == "--pylocal" and self.kind == "toolkit":
                pass
            elif arg.startswith("--install-path="):
                value = arg.split("=", 1)[1]
                if not value:
                    self.error("ERR_NO:0x0003;ERR_DES:install path is null, install failed")
                self.install_path = common.absolute_install_path(value, self.cwd)
            elif arg.startswith("--install-username="):
                self.username = arg.split("=", 1)[1]
            elif arg.startswith("--install-usergroup="):
                self.usergroup = arg.split("=", 1)[1]
            else:
                self.error("ERR_NO:0x0004;ERR_DES:Unrecognized parameters: %s. Try './%s --help' for more "
                           "information." % (arg, self.runfile))

    def resolve_install_path(self):
        if self.install_path:
            path = self.install_path
        else:
            recorded = common.read_kv(CANN_INSTALL_INFO).get("Install_Path")
            if recorded:
                path = recorded
            elif common.sim_rooted() or common.is_root():
                path = common.DEFAULT_INSTALL_PATH
            else:
                path = os.path.join(os.path.expanduser("~"), "Ascend")
        if not common.valid_install_path(path):
            self.error("ERR_NO:0x0003;ERR_DES:The %s install_path %s is invalid, only characters in "
                       "[a-z,A-Z,0-9,-,_] are supported!" % (self.kind, path))
        self.install_path = path.rstrip("/")
        self.con.both("INFO", "The installation path is %s." % self.install_path)

    def accept_eula(self):
        if self.quiet or self.scene == "uninstall":
            return
        self.con.raw("Please read the End User License Agreement carefully. Your use of the Huawei Software")
        self.con.raw("will be deemed as your acceptance of the constraints mentioned in the Agreement.")
        self.con.out.write("Do you accept the EULA to install CANN?[Y/N]")
        self.con.out.flush()
        answer = sys.stdin.readline().strip()
        if answer not in ("y", "Y"):
            self.con.raw("")
            self.error("Reject EULA, installation quit!")
        self.con.log("INFO", "user accepted EULA")

    def check_space(self):
        if self.scene == "uninstall" or not common.disk_full(self.state):
            return
        self.error("The free space of %s is insufficient, %s package needs at least %d MB, please check."
                   % (self.install_path, self.package_label(), SPACE_MB[self.kind]))

    # ------------------------------------------------------------------ toolkit layout
    def layout(self, version=None):
        version = version or self.version
        if _cann_dir_version(version):
            return self.install_path + "/cann-" + version
        return self.install_path + "/ascend-toolkit/" + version

    def toolkit_info_path(self, version_dir):
        return "%s/%s-linux/ascend_toolkit_install.info" % (version_dir, self.arch)

    def installed_toolkits(self):
        """{version: version_dir} of complete toolkit installations under the install path."""
        found = {}
        for parent, prefix in ((self.install_path + "/ascend-toolkit", ""), (self.install_path, "cann-")):
            real = rooted(parent)
            if not os.path.isdir(real):
                continue
            for name in sorted(os.listdir(real)):
                full = os.path.join(real, name)
                if os.path.islink(full) or not os.path.isdir(full) or not name.startswith(prefix):
                    continue
                if prefix == "" and name in ("latest",):
                    continue
                version_dir = parent + "/" + name
                version = common.read_kv(self.toolkit_info_path(version_dir)).get("version")
                if version:
                    found[version] = version_dir
        return found

    def latest_version(self):
        info = common.read_kv("%s/ascend-toolkit/latest/%s-linux/ascend_toolkit_install.info"
                              % (self.install_path, self.arch))
        return info.get("version")

    # ------------------------------------------------------------------ entry
    def run(self):
        if not self.args:
            self.error("ERR_NO:0x0004;ERR_DES:Unrecognized parameters. Try './xxx.run --help' for more "
                       "information.")
        self.con.both("INFO", "LogFile:%s" % OWN_LOGS[self.kind])
        self.con.log("INFO", "Start time:%s" % self.start_time)
        self.con.log("INFO", "InputParams:%s" % self.all_parma)
        self.con.log("INFO", "OperationLogFile:%s" % OPERATION_LOG)
        self.con.log("INFO", "UserCommand: %s %s" % (self.runfile, self.all_parma))
        self.parse()
        if self.want_version:
            self.con.raw(self.version)
            self.exit_log(0)
        if self.check and self.scene is None:
            self.con.log("INFO", "%s package check passed" % self.package_label())
            self.exit_log(0)
        if self.scene is None:
            self.con.echo("ERROR", "ERR_NO:0x0004;ERR_DES:The parameter needs to be used with %s."
                          % "/".join(SCENES[self.kind]))
            self.usage()
            self.exit_log(1)
        if self.scene != "uninstall":
            self.con.both("INFO", "%s start" % ("upgrade" if self.scene == "upgrade" else "install"))
        self.resolve_install_path()
        self.accept_eula()
        self.check_space()
        handler = getattr(self, "%s_%s" % (self.kind if self.kind != "kernels" else "ops",
                                           "uninstall" if self.scene == "uninstall" else "install"))
        handler()

    # ------------------------------------------------------------------ toolkit
    def toolkit_install(self):
        installed = self.installed_toolkits()
        previous = self.latest_version()
        if self.scene == "upgrade" and not installed:
            self.error("ERR_NO:0x0080;ERR_DES:Ascend-cann-toolkit is not installed in %s, upgrade failed, please "
                       "use --install." % self.install_path)
        version_dir = self.layout()
        if self.version in installed:
            self.con.both("INFO", "Ascend-cann-toolkit %s has been installed in %s, it will be reinstalled."
                          % (self.version, version_dir))
        elif common.exists(version_dir):
            self.con.both("WARNING", "%s holds an unfinished installation, its files will be removed."
                          % version_dir)
        common.remove_tree(version_dir)
        arch_dir = "%s/%s-linux" % (version_dir, self.arch)
        tv = self.pkg["toolkit_version"]
        for component in TOOLKIT_COMPONENTS:
            sub = "CANN-%s-%s-linux.%s.run" % (component, tv, self.arch)
            self.con.both("INFO", "install package %s start" % sub)
            common.write_file("%s/%s/version.info" % (version_dir, component),
                              "Version=%s\nversion_dir=%s\ntimestamp=%s\n"
                              % (tv, self.version, self.pkg["timestamp"]), 0o444)
            self.con.both("INFO", "%s --full --quiet --nox11%s install success"
                          % (sub, " --install-for-all" if self.install_for_all else ""))
        for name in ("libascendcl.so", "libhccl.so", "libge_runner.so", "libruntime.so", "libopapi.so"):
            common.write_file("%s/lib64/%s" % (arch_dir, name), "simulated %s of CANN %s\n" % (name, self.version),
                              0o755)
        for rel in ("lib64/plugin/opskernel", "lib64/plugin/nnengine", "python/site-packages", "bin",
                    "compiler/ccec_compiler/bin", "tools/ccec_compiler/bin", "tools/aml/lib64",
                    "opp/built-in/op_impl/ai_core/tbe/op_tiling/lib/linux/" + self.arch):
            common.makedirs("%s/%s" % (version_dir, rel))
        common.symlink("%s-linux/lib64" % self.arch, version_dir + "/lib64")
        common.write_file(version_dir + "/opp/version.info",
                          "Version=%s\nversion_dir=%s\ntimestamp=%s\n" % (tv, self.version, self.pkg["timestamp"]),
                          0o444)
        common.write_file(version_dir + "/bin/setenv.bash", TOOLKIT_SET_ENV % {
            "version": self.version, "home": version_dir, "home_dir": version_dir}, 0o644)
        common.copy_sim(arch_dir + "/script/ascend_sim")
        common.install_uninstall_script(self.pkg, arch_dir + "/script", self.install_path,
                                        "CANN toolkit %s" % self.version, arch_dir + "/script")
        common.maybe_die(self.state, self.kind, "files", self.con)
        common.write_file(self.toolkit_info_path(version_dir), "\n".join([
            "package_name=Ascend-cann-toolkit",
            "version=%s" % self.version,
            "innerversion=%s" % self.pkg["innerversion"],
            "compatible_version=%s" % self.pkg["compatible_version"],
            "arch=%s" % self.arch,
            "os=linux",
            # The arch directory, as the 8.2.RC1 / 8.3.RC2 captures and the 8.5.0 B212 build
            # (Ascend/mind-cluster docs) show; 8.5.0 B232, 8.5.1 and 9.1.0 GA captures write the
            # version directory alone. Nothing in the collection reads path=.
            "path=%s" % arch_dir,
        ]) + "\n", 0o444)
        if self.scene == "upgrade" and previous and previous != self.version and previous in installed:
            self.con.log("INFO", "remove the upgraded version %s" % previous)
            common.remove_tree(installed[previous])
        self.point_latest(self.version)
        common.update_param(CANN_INSTALL_INFO, "Install_Path", self.install_path)
        common.update_param(CANN_INSTALL_INFO, "Toolkit_InstallPath", self.install_path + "/ascend-toolkit")
        self.con.log("INFO", "The %s is written successfully." % CANN_INSTALL_INFO)
        self.log_operation("success")
        label = self.package_label()
        self.con.both("INFO", "Ascend-cann-toolkit %s success" % ("upgrade" if self.scene == "upgrade" else
                                                                 "install"))
        set_env = self.install_path + "/ascend-toolkit/set_env.sh"
        driver_path = common.read_kv(common.INSTALL_INFO).get("Driver_Install_Path_Param")
        self.con.raw("")
        self.con.raw("")
        self.con.raw("===========")
        self.con.raw("= Summary =")
        self.con.raw("===========")
        self.con.raw("")
        self.con.raw("Driver:   %s" % ("Installed in %s/driver." % driver_path if driver_path else "Not installed."))
        self.con.raw("Toolkit:  %s %s success, installed in %s." % (
            label, "upgrade" if self.scene == "upgrade" else "install", self.install_path))
        self.con.raw("")
        self.con.raw("Please make sure that the environment variables have been configured.")
        self.con.raw('-  To take effect for all users, you can add "source %s" to /etc/profile.' % set_env)
        self.con.raw('-  To take effect for current user, you can exec command below: source %s or add "source %s" '
                     'to ~/.bashrc.' % (set_env, set_env))
        self.exit_log(0)

    def point_latest(self, version):
        """latest (and, for 8.5+, the cann link and set_env.sh) -> ``version``."""
        toolkit_root = self.install_path + "/ascend-toolkit"
        if _cann_dir_version(version):
            common.write_file(self.install_path + "/cann-%s/set_env.sh" % version, TOOLKIT_SET_ENV % {
                "version": version, "home": self.install_path + "/cann-" + version,
                "home_dir": self.install_path + "/cann-" + version}, 0o644)
            common.symlink("cann-" + version, self.install_path + "/cann")
            common.symlink("../cann", toolkit_root + "/latest")
            common.symlink("latest/set_env.sh", toolkit_root + "/set_env.sh")
        else:
            common.symlink(version, toolkit_root + "/latest")
            common.write_file(toolkit_root + "/set_env.sh", TOOLKIT_SET_ENV % {
                "version": version, "home": toolkit_root + "/latest", "home_dir": toolkit_root}, 0o644)

    def toolkit_uninstall(self):
        installed = self.installed_toolkits()
        version_dir = self.layout()
        if self.version not in installed and not common.exists(version_dir):
            self.error("ERR_NO:0x0080;ERR_DES:Ascend-cann-toolkit %s is not installed in %s, uninstall failed"
                       % (self.version, self.install_path))
        latest = self.latest_version()
        common.remove_tree(version_dir)
        installed.pop(self.version, None)
        if latest == self.version or latest is None:
            if installed:
                newest = sorted(installed, key=common._version_key)[-1]
                self.point_latest(newest)
            else:
                for link in ("/ascend-toolkit/latest", "/ascend-toolkit/set_env.sh", "/cann"):
                    if common.exists(self.install_path + link):
                        os.unlink(rooted(self.install_path + link))
                root = rooted(self.install_path + "/ascend-toolkit")
                if os.path.isdir(root) and not os.listdir(root):
                    os.rmdir(root)
                common.delete_params(CANN_INSTALL_INFO, "Toolkit_InstallPath=")
                if not _has_other_cann(self.install_path):
                    common.delete_params(CANN_INSTALL_INFO, "Install_Path=")
        self.log_operation("success")
        self.con.both("INFO", "Ascend-cann-toolkit uninstall success")
        self.exit_log(0)

    # ------------------------------------------------------------------ kernels / ops
    def chip_dir_name(self):
        # kernels (<= 8.3): opp_kernel/ (version.info captured on 8.2.RC1). ops (>= 8.5): one
        # directory per operator library under share/info (hicann/ops-math at v8.5.0 / v9.1.0,
        # hicann/cmake generate_version_info.py); the first holds the scripts and install record.
        return "opp_kernel" if self.kind == "kernels" else "share/info/" + OPS_COMPONENTS[0]

    def ops_info_path(self, version_dir):
        # The ops package's own record, next to the toolkit's (hicann/ops-math
        # docs/zh/install/quick_install.md: cat /usr/local/Ascend/cann/${arch}-linux/ascend_ops_install.info).
        return "%s/%s-linux/ascend_ops_install.info" % (version_dir, self.arch)

    def require_toolkit(self, same_version):
        installed = self.installed_toolkits()
        if same_version:
            if self.version not in installed:
                have = ", ".join(sorted(installed)) or "none"
                self.error("ERR_NO:0x0080;ERR_DES:The Ascend-cann-toolkit %s is required by %s, installed toolkit "
                           "version: %s. Please install the toolkit of the same version first."
                           % (self.version, self.package_label(), have))
            return installed[self.version]
        if not installed:
            self.error("ERR_NO:0x0080;ERR_DES:Ascend-cann-toolkit is not installed in %s. Please install the "
                       "toolkit first." % self.install_path)
        return installed

    def ops_install(self):
        version_dir = self.require_toolkit(same_version=True)
        chip = self.pkg["chip"]
        soc = self.pkg["opp_soc_dir"]
        pkg_dir = "%s/%s" % (version_dir, self.chip_dir_name())
        if common.exists(pkg_dir + "/version.info"):
            self.con.both("INFO", "%s has been installed, it will be reinstalled." % self.package_label())
        elif common.exists(pkg_dir):
            self.con.both("WARNING", "%s holds an unfinished installation, its files will be removed." % pkg_dir)
        common.remove_tree(pkg_dir)
        if self.kind == "ops":
            for component in OPS_COMPONENTS:
                common.remove_tree("%s/share/info/%s" % (version_dir, component))
        kernel_dir = "%s/opp/built-in/op_impl/ai_core/tbe/kernel/%s" % (version_dir, soc)
        common.remove_tree(kernel_dir)
        for name in ("matmul.json", "flash_attention_score.json", "moe_gating_top_k.json"):
            common.write_file("%s/%s" % (kernel_dir, name), '{"simulated_kernel": "%s", "chip": "%s"}\n'
                              % (name, chip), 0o444)
        common.copy_sim(pkg_dir + "/script/ascend_sim")
        common.install_uninstall_script(self.pkg, pkg_dir + "/script", self.install_path,
                                        "CANN %s %s" % (self.kind, self.version), pkg_dir + "/script")
        common.maybe_die(self.state, self.kind, "files", self.con)
        prefix = "Opp_kernel" if self.kind == "kernels" else "Ops"
        common.write_file(pkg_dir + "/ascend_install.info", "\n".join([
            "%s_Install_Type=%s" % (prefix, "full" if self.scene in ("full", "install", "upgrade") else self.scene),
            "%s_UserName=%s" % (prefix, self.username or "root"),
            "%s_UserGroup=%s" % (prefix, self.usergroup or "root"),
            "%s_Install_Path_Param=%s" % (prefix, version_dir),
            "%s_Chip_Type=%s" % (prefix, soc),
        ]) + "\n", 0o644)
        tv = self.pkg["toolkit_version"]
        if self.kind == "kernels":
            common.write_file(pkg_dir + "/version.info", "\n".join([
                "Version=%s" % tv,
                "version_dir=%s" % self.version,
                "timestamp=%s" % self.pkg["timestamp"],
                "ops_version=%s" % tv,
                "adk_version=%s" % tv,
                'required_package_toolkit_version=">=7.6, <=%s"' % ".".join(self.version.split(".")[:2]),
            ]) + "\n", 0o444)
        else:
            # version_dir is the literal "cann" in the 8.5+ per-library files; the release is only
            # in ascend_ops_install.info.
            for component in OPS_COMPONENTS:
                common.write_file("%s/share/info/%s/version.info" % (version_dir, component), "\n".join([
                    "Version=%s" % tv,
                    "version_dir=cann",
                    "timestamp=%s" % self.pkg["timestamp"],
                    'required_package_toolkit_version="%s"' % ".".join(self.version.split(".")[:2]),
                ]) + "\n", 0o444)
            common.write_file(self.ops_info_path(version_dir), "\n".join([
                "package_name=Ascend-cann-%s-ops" % _ops_chip(chip),
                "version=%s" % self.version,
                "arch=%s" % self.arch,
                "os=linux",
                "path=%s" % version_dir,
            ]) + "\n", 0o444)
        self.log_operation("success")
        name = "Ascend-cann-kernels" if self.kind == "kernels" else "Ascend-cann-%s-ops" % _ops_chip(chip)
        self.con.both("INFO", "%s %s success" % (name, "upgrade" if self.scene == "upgrade" else "install"))
        self.exit_log(0)

    def ops_uninstall(self):
        installed = self.installed_toolkits()
        version_dir = installed.get(self.version) or self.layout()
        pkg_dir = "%s/%s" % (version_dir, self.chip_dir_name())
        if not common.exists(pkg_dir):
            self.error("ERR_NO:0x0080;ERR_DES:%s is not installed in %s, uninstall failed"
                       % (self.package_label(), self.install_path))
        common.remove_tree(pkg_dir)
        if self.kind == "ops":
            for component in OPS_COMPONENTS:
                common.remove_tree("%s/share/info/%s" % (version_dir, component))
            if common.exists(self.ops_info_path(version_dir)):
                os.unlink(rooted(self.ops_info_path(version_dir)))
        common.remove_tree("%s/opp/built-in/op_impl/ai_core/tbe/kernel/%s" % (version_dir, self.pkg["opp_soc_dir"]))
        self.log_operation("success")
        self.con.both("INFO", "%s uninstall success" % self.package_label())
        self.exit_log(0)

    # ------------------------------------------------------------------ nnal
    def nnal_install(self):
        self.require_toolkit(same_version=False)
        home = os.environ.get("ASCEND_TOOLKIT_HOME") or os.environ.get("ASCEND_HOME_PATH")
        if not home:
            self.error("ERR_NO:0x0080;ERR_DES:ASCEND_TOOLKIT_HOME is not set, please source the set_env.sh of "
                       "Ascend-cann-toolkit (%s/ascend-toolkit/set_env.sh) before installing NNAL."
                       % self.install_path)
        atb_root = self.install_path + "/nnal/atb"
        sip_root = self.install_path + "/nnal/asdsip"
        for root in (atb_root, sip_root):
            if common.exists("%s/%s" % (root, self.version)) and not common.exists("%s/%s/version.info"
                                                                                    % (root, self.version)):
                self.con.both("WARNING", "%s/%s holds an unfinished installation, its files will be removed."
                              % (root, self.version))
            common.remove_tree("%s/%s" % (root, self.version))
        for abi in (0, 1):
            base = "%s/%s/atb/cxx_abi_%d" % (atb_root, self.version, abi)
            common.write_file(base + "/lib/libatb.so", "simulated libatb.so (cxx_abi=%d) of NNAL %s\n"
                              % (abi, self.version), 0o755)
            common.write_file(base + "/lib/libatb_torch.so", "simulated libatb_torch.so\n", 0o755)
            for rel in ("bin", "examples", "tests/atbopstest", "include"):
                common.makedirs("%s/%s" % (base, rel))
            common.write_file(base + "/set_env.sh", ATB_ABI_SET_ENV % {
                "version": self.version, "abi": abi, "atb_root": atb_root}, 0o644)
        common.write_file("%s/%s/lib/libasdsip.so" % (sip_root, self.version), "simulated libasdsip.so\n", 0o755)
        # <p>/nnal/atb/<version>/scripts/uninstall.sh (the CANN 8.0.0 install guide, instg_0031).
        script_dir = "%s/%s/scripts" % (atb_root, self.version)
        common.copy_sim(script_dir + "/ascend_sim")
        common.install_uninstall_script(self.pkg, script_dir, self.install_path, "CANN NNAL %s" % self.version,
                                        script_dir)
        common.maybe_die(self.state, self.kind, "files", self.con)
        # The five indented ``Key : value`` lines of ATB's scripts/release.sh
        # (hicann/ascend-transformer-boost, release branches 8.2.RC1 ... 9.1.0); no ``version=``.
        common.write_file("%s/%s/version.info" % (atb_root, self.version), ATB_VERSION_INFO % {
            "version": self.version, "build": self.pkg.get("atb_build", self.version + ".B150"),
            "arch": self.arch, "branch": "br_release_cann_%s" % self.version,
            "commit": hashlib.sha1(("atb " + self.version).encode()).hexdigest()}, 0o444)
        common.write_file("%s/%s/version.info" % (sip_root, self.version),
                          "Ascend-cann-SIP version: %s\nversion=%s\n" % (self.version, self.version), 0o444)
        common.symlink(self.version, atb_root + "/latest")
        common.symlink(self.version, sip_root + "/latest")
        common.write_file(atb_root + "/set_env.sh", ATB_SET_ENV % {
            "default_abi": self.pkg.get("atb_default_abi", 1), "atb_root": atb_root}, 0o644)
        common.write_file(sip_root + "/set_env.sh", SIP_SET_ENV % {"version": self.version, "sip_root": sip_root},
                          0o644)
        self.log_operation("success")
        verb = "upgrade" if self.scene == "upgrade" else "install"
        for sub in ("atb", "SIP"):
            self.con.both("INFO", "Ascend-cann-%s_%s_linux-%s.run %s success" % (sub, self.version, self.arch, verb))
        self.con.both("INFO", "%s %s success" % (self.runfile, verb))
        self.exit_log(0)

    def nnal_uninstall(self):
        atb_root = self.install_path + "/nnal/atb"
        sip_root = self.install_path + "/nnal/asdsip"
        if not common.exists("%s/%s" % (atb_root, self.version)):
            self.error("ERR_NO:0x0080;ERR_DES:%s is not installed in %s, uninstall failed"
                       % (self.package_label(), self.install_path))
        for root in (atb_root, sip_root):
            common.remove_tree("%s/%s" % (root, self.version))
            remaining = [name for name in os.listdir(rooted(root))
                         if name not in ("latest", "set_env.sh")] if os.path.isdir(rooted(root)) else []
            if remaining:
                common.symlink(sorted(remaining, key=common._version_key)[-1], root + "/latest")
            else:
                common.remove_tree(root)
        nnal = rooted(self.install_path + "/nnal")
        if os.path.isdir(nnal) and not os.listdir(nnal):
            os.rmdir(nnal)
        self.log_operation("success")
        self.con.both("INFO", "%s uninstall success" % self.runfile)
        self.exit_log(0)


def _cann_dir_version(version):
    """CANN 8.5 and later install into <p>/cann-<version>."""
    return common.version_cmp(version, "8.5.0") >= 0


def _has_other_cann(install_path):
    return common.exists(install_path + "/nnal")


def _ops_chip(chip):
    return {"910_93": "A3"}.get(chip, chip)

