#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: ascend_package
short_description: Install, upgrade or remove a Huawei Ascend .run package idempotently
version_added: "0.1.0"
description:
  - Brings one Ascend self-extracting C(.run) package - NPU driver, NPU firmware, CANN toolkit,
    chip operators (kernels / ops) or NNAL - to the requested state and reports what it did.
  - Reads the installed version (C(<install_path>/driver/version.info),
    C(<install_path>/firmware/version.info) and C(/etc/ascend_install.info) for the HDK
    packages; C(ascend_toolkit_install.info), the operators' and NNAL's C(version.info) below
    C(<install_path>) for CANN) and compares it with the package's version, taken from the
    vendor file name (or O(version)), in the Ascend version order (C(24.1.rc3) < C(24.1.0) <
    C(25.5.0)).
  - When something has to change it first runs the package's own C(--check) (payload checksum
    and version relationship), then the installer with C(--quiet --nox11) and the options
    that package kind accepts - C(--full) or C(--upgrade) for driver and firmware,
    C(--install) or C(--upgrade) for CANN packages, C(--install-for-all) and
    C(--install-path=) where accepted. No terminal is attached; a question the installer
    asks regardless is answered C(n).
  - An unfinished install (a driver without C(Driver_Install_Status=complete), an install
    path recorded without a version) is repaired with a new install.
  - Exit status 0 is success, 2 success with a reboot pending (the driver installed but the
    chips keep the running version). The installed version is read back afterwards and must
    be the package's. On failure the message names the command, its exit status and the
    installer's error lines, and RV(log_tail) holds what the run appended to the installer's log.
  - Refuses to replace a newer installed version unless O(allow_downgrade=true).
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  path:
    description:
      - The C(.run) file on the managed node.
      - In check mode the file may be missing (not transferred yet); the decision is then
        made from the file name and the integrity check is skipped with a warning.
      - With O(state=absent), a directory of packages (the node's package cache) with O(kind) set.
        Nothing installed - nothing to do, no package needed. Installed - its C(.run) of the
        installed version in that directory runs with C(--uninstall); without one, the package's
        own uninstall script where the vendor documents it (C(<install_path>/driver/script/uninstall.sh),
        C(<install_path>/firmware/script/uninstall.sh), the toolkit's
        C(<version>/<arch>-linux/script/uninstall.sh), the kernels' C(opp_kernel/script/uninstall.sh),
        NNAL's C(nnal/atb/<version>/scripts/uninstall.sh)); otherwise (the operators package of CANN
        8.5+) the module fails naming the package it needs. RV(uninstaller) says which ran.
    type: path
    required: true
  kind:
    description:
      - What the package is. Derived from the vendor file name when unset
        (C(Ascend-hdk-910b-npu-driver_25.5.0_linux-aarch64.run) is a driver,
        C(Ascend-cann-910b-ops_8.5.0_linux-aarch64.run) chip operators, ...).
    type: str
    choices: [driver, firmware, toolkit, kernels, ops, nnal]
  version:
    description:
      - The package's version, when the file name does not carry it. For firmware this is the
        firmware version (C(7.8.0.5.216)), not the driver version of the HDK bundle.
    type: str
  state:
    description:
      - V(present) - exactly this version is installed (installs, upgrades; a newer installed
        version is refused unless O(allow_downgrade=true)).
      - V(latest) - this version or a newer one is installed (a newer one is left alone).
      - V(absent) - the package kind is uninstalled (the installed version, whatever it is,
        is removed with the package's C(--uninstall), or its uninstall script - see O(path)).
    type: str
    choices: [present, latest, absent]
    default: present
  install_path:
    description:
      - Ascend install prefix (C(--install-path=)). A driver or firmware already recorded in
        O(install_info) under another prefix is refused - uninstall it first.
    type: path
    default: /usr/local/Ascend
  allow_downgrade:
    description: Replace a newer installed version (a fresh C(--full) / C(--install) run).
    type: bool
    default: false
  force:
    description:
      - Driver only - pass C(--force), which installs even when processes hold the NPUs
        (the new driver takes effect after a reboot).
    type: bool
    default: false
  install_for_all:
    description: Pass C(--install-for-all) (driver and CANN packages; the firmware has no such option).
    type: bool
    default: true
  install_username:
    description:
      - Run user recorded by the installer (C(--install-username=)); the vendor default is
        C(HwHiAiUser). Needs O(install_usergroup). Not passed on a driver C(--upgrade),
        which keeps the recorded user, nor to the firmware.
    type: str
  install_usergroup:
    description: Run group for O(install_username) (C(--install-usergroup=)).
    type: str
  extra_args:
    description: Further installer options, appended as given (for example C(--norebuild)).
    type: list
    elements: str
    default: []
  check_integrity:
    description:
      - Run the package's C(--check) before installing (payload checksum, version relationship).
        Skipped when nothing has to change.
    type: bool
    default: true
  companion_version:
    description:
      - For the HDK packages - the version of the other half that will run with this one (the
        firmware version for a driver package, the driver version for a firmware package).
        The package's C(compatible_version_fw) / C(compatible_version_drv) range must admit
        it, else the module fails before anything changes. Read from the installed
        C(version.info) when this version is installed already, otherwise from the package
        (extracted to a temporary directory).
    type: str
  inspect:
    description:
      - Return the package's own C(version.info) as RV(package_info) (extracts the package to a
        temporary directory when this version is not installed).
    type: bool
    default: false
  install_info:
    description: The HDK install record written by the driver and firmware installers.
    type: path
    default: /etc/ascend_install.info
  log_lines:
    description: Lines of the installer log returned in RV(log_tail) on failure.
    type: int
    default: 20
notes:
  - Commands run with C(LC_ALL=C), from the package's directory, without a terminal.
  - Supports check mode - nothing is installed; the package's read-only C(--check) still runs
    when a change is predicted, so a damaged package fails in check mode too.
  - Supports diff mode (the installed version before and after).
  - The firmware is flashed through the running driver and takes effect at the next boot, so
    RV(reboot_required) is true after every firmware change. Install order - a new install
    is driver then firmware; an upgrade is firmware then driver (see the C(npu_driver) role).
seealso:
  - module: ascend.vllm.npu_facts
'''

EXAMPLES = r'''
- name: Install or upgrade the NPU driver, refusing a firmware outside its compatible range
  ascend.vllm.ascend_package:
    path: /var/cache/ascend-vllm/artifacts/Ascend-hdk-910b-npu-driver_25.5.0_linux-aarch64.run
    companion_version: 7.8.0.5.216
  register: driver

- name: Tell the caller a reboot is pending
  ansible.builtin.debug:
    msg: "driver {{ driver.previous_version }} -> {{ driver.new_version }}, reboot: {{ driver.reboot_required }}"

- name: What would change (check mode plans without installing)
  ascend.vllm.ascend_package:
    path: /var/cache/ascend-vllm/artifacts/Ascend-hdk-910b-npu-firmware_7.8.0.5.216.run
  check_mode: true
  register: firmware_plan

- name: CANN toolkit with the environment of nothing else
  ascend.vllm.ascend_package:
    path: /var/cache/ascend-vllm/artifacts/Ascend-cann-toolkit_8.5.0_linux-aarch64.run
    state: latest

- name: Go back to an older driver on purpose
  ascend.vllm.ascend_package:
    path: /var/cache/ascend-vllm/artifacts/Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run
    allow_downgrade: true

- name: Uninstall the driver, whatever version is installed (its package from the cache, or its uninstall script)
  ascend.vllm.ascend_package:
    path: /var/cache/ascend-vllm/packages
    kind: driver
    state: absent
'''

RETURN = r'''
kind:
  description: Package kind (given or derived from the file name).
  returned: always
  type: str
  sample: driver
version:
  description: The package's version (null when O(path) is a directory of packages).
  returned: always
  type: str
  sample: 25.5.0
uninstaller:
  description: What uninstalls the package when O(path) is a directory - its C(.run) there, or its uninstall script.
  returned: when O(state=absent), O(path) is a directory and the package is installed
  type: str
  sample: /usr/local/Ascend/driver/script/uninstall.sh
action:
  description:
    - What was (in check mode - would be) done - V(none), V(install), V(repair) (an unfinished
      install replaced), V(upgrade), V(downgrade), V(uninstall); V(refuse) on a refused downgrade.
  returned: always
  type: str
  sample: upgrade
reason:
  description: Why that action was chosen.
  returned: always
  type: str
  sample: 24.1.rc3 is installed, the package is newer
previous_version:
  description: Version installed before the run; null when none (or only an unfinished install).
  returned: always
  type: str
  sample: 24.1.rc3
new_version:
  description: Version installed after the run (predicted in check mode); null when none.
  returned: always
  type: str
  sample: 25.5.0
incomplete:
  description: An unfinished install was found before the run.
  returned: always
  type: bool
  sample: false
reboot_required:
  description:
    - The change takes effect at the next boot - the installer exited 2 or said "Reboot
      needed", or firmware was flashed. False when nothing changed.
  returned: always
  type: bool
  sample: true
version_file:
  description: The file the installed version is read from.
  returned: always
  type: str
  sample: /usr/local/Ascend/driver/version.info
install_path:
  description: Install prefix the package is (or is to be) recorded under.
  returned: always
  type: str
  sample: /usr/local/Ascend
cmd:
  description: The installer command that ran (or would run), as a list.
  returned: when a change is made or predicted
  type: list
  elements: str
  sample: [/var/cache/ascend-vllm/artifacts/Ascend-hdk-910b-npu-driver_25.5.0_linux-aarch64.run, --upgrade, --quiet,
           --nox11, --install-for-all]
rc:
  description: Exit status of the installer.
  returned: when the installer ran
  type: int
  sample: 2
stdout_lines:
  description: What the installer printed (colour codes removed).
  returned: when the installer ran
  type: list
  elements: str
log_file:
  description: The installer log of this package kind.
  returned: always
  type: str
  sample: /var/log/ascend_seclog/ascend_install.log
log_tail:
  description: The last O(log_lines) lines this run added to the installer log.
  returned: on failure of the check or the installer
  type: list
  elements: str
  sample: ["[Driver] [2025-05-06 10:11:12] [WARNING]proc:/dev/davinci3 has user process: 4343"]
package_info:
  description:
    - The package's C(version.info) (keys as written by the vendor); for an installed version
      the installed file.
  returned: with O(inspect=true) or O(companion_version), when it could be read
  type: dict
  sample: {Version: 25.5.0, compatible_version_fw: "[6.4.0,6.4.99],[7.0.0,8.9.9]"}
'''

import os
import shutil
import tempfile

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ascend.vllm.plugins.module_utils.ascend_package import (
    HDK_KINDS,
    INSTALLER_LOGS,
    KINDS,
    PackageError,
    check_companion,
    choose_uninstaller,
    decide,
    error_lines,
    install_args,
    installed_state,
    interpret_rc,
    log_tail,
    parse_kv,
    parse_package_name,
    strip_ansi,
)
from ansible_collections.ascend.vllm.plugins.module_utils.pci import read_file
from ansible_collections.ascend.vllm.plugins.module_utils.stack import same_version
from ansible_collections.ascend.vllm.plugins.module_utils.command import C_LOCALE, command_string


def file_size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def read_from(path, offset):
    """What was appended to ``path`` after byte ``offset`` (the whole file if it shrank)."""
    try:
        with open(path, 'rb') as handle:
            if 0 < offset <= os.path.getsize(path):
                handle.seek(offset)
            return handle.read().decode('utf-8', 'replace')
    except (IOError, OSError):
        return ''


def node_arch():
    return os.uname()[4]


def script_exists(path):
    return os.path.isfile(path)


def run(module, argv):
    """Run an installer from its own directory, C locale, answering any question with n."""
    cwd = os.path.dirname(argv[0]) or None
    rc, out, err = module.run_command(list(argv), check_rc=False, cwd=cwd, data='n',
                                      environ_update=dict(C_LOCALE))
    return rc, out or '', err or ''


def extract_version_info(module, path, kind):
    """The package's version.info, read from a temporary extraction (``--noexec --extract=``)."""
    work = tempfile.mkdtemp(prefix='ascend-package-', dir=module.tmpdir)
    target = os.path.join(work, 'payload')
    try:
        argv = [path, '--noexec', '--extract=%s' % target]
        rc, out, err = run(module, argv)
        if rc != 0:
            detail = ' / '.join(error_lines(out, err))
            module.fail_json(msg='`%s` failed with rc=%s: %s' % (command_string(argv), rc, detail),
                             rc=rc, stdout_lines=strip_ansi(out).splitlines(), stderr=err)
        for relative in ('version.info', '%s/version.info' % kind, 'driver/version.info',
                         'firmware/version.info'):
            text = read_file(os.path.join(target, relative))
            if text is not None:
                return parse_kv(text)
        for top, dirs, files in os.walk(target):
            dirs.sort()
            if 'version.info' in files and top[len(target):].count(os.sep) <= 2:
                return parse_kv(read_file(os.path.join(top, 'version.info')))
        return {}
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type='path', required=True),
            kind=dict(type='str', choices=list(KINDS)),
            version=dict(type='str'),
            state=dict(type='str', choices=['present', 'latest', 'absent'], default='present'),
            install_path=dict(type='path', default='/usr/local/Ascend'),
            allow_downgrade=dict(type='bool', default=False),
            force=dict(type='bool', default=False),
            install_for_all=dict(type='bool', default=True),
            install_username=dict(type='str'),
            install_usergroup=dict(type='str'),
            extra_args=dict(type='list', elements='str', default=[]),
            check_integrity=dict(type='bool', default=True),
            companion_version=dict(type='str'),
            inspect=dict(type='bool', default=False),
            install_info=dict(type='path', default='/etc/ascend_install.info'),
            log_lines=dict(type='int', default=20),
        ),
        required_together=[('install_username', 'install_usergroup')],
        supports_check_mode=True,
    )
    params = module.params
    path = params['path']
    install_path = params['install_path'].rstrip('/') or '/'
    # state=absent takes a directory of packages (the node's cache): the uninstaller is chosen in it.
    # A cache that does not exist is an empty one (nothing installed needs nothing from it).
    package_dir = os.path.isdir(path) or (params['state'] == 'absent' and not os.path.lexists(path)
                                          and parse_package_name(os.path.basename(path)) is None)
    if package_dir and params['state'] != 'absent':
        module.fail_json(msg='path %s is a directory: give the package file (a directory of packages is taken with '
                             'state=absent only)' % path)
    if package_dir and not params['kind']:
        module.fail_json(msg='path %s is a directory of packages: set kind (one of %s)' % (path, ', '.join(KINDS)))
    name = '' if package_dir else os.path.basename(path)
    parsed = parse_package_name(name)
    kind = params['kind'] or (parsed or {}).get('kind')
    if kind is None:
        module.fail_json(msg='cannot tell the package kind from the file name %s: set kind (one of %s) '
                             'and version' % (name, ', '.join(KINDS)))
    if parsed and params['kind'] and parsed['kind'] != kind:
        module.fail_json(msg='%s is named like a %s package, not a %s package; check path and kind'
                             % (name, parsed['kind'], kind))
    version = params['version'] or (parsed or {}).get('version')
    if not version and not package_dir:
        module.fail_json(msg='cannot tell the version of %s from its file name: set version' % name)
    arch = (parsed or {}).get('arch') or node_arch()
    companion = params['companion_version']
    if companion and kind not in HDK_KINDS:
        module.fail_json(msg='companion_version applies to driver and firmware packages, not to %s' % kind)

    exists = os.path.isfile(path)
    if not exists and not package_dir and not module.check_mode:
        module.fail_json(msg='package %s does not exist on the node (or is not a file)' % path)
    if exists and not os.access(path, os.X_OK):
        module.fail_json(msg='package %s is not executable: make it so (mode 0750), the vendor installers run as '
                             './<file>.run' % path)

    log_file = INSTALLER_LOGS[kind]
    result = dict(changed=False, kind=kind, version=version, install_path=install_path, log_file=log_file)

    try:
        installed = installed_state(kind, install_path, read_file, arch=arch, install_info=params['install_info'])
        result.update(previous_version=installed['version'], incomplete=installed['incomplete'],
                      version_file=installed['version_file'], new_version=installed['version'],
                      reboot_required=False)
        if kind in HDK_KINDS and installed['path'] != install_path and params['state'] != 'absent':
            module.fail_json(msg='the %s is recorded under %s in %s, not under install_path %s: set install_path '
                                 'to %s, or uninstall it first' % (kind, installed['path'], params['install_info'],
                                                                   install_path, installed['path']),
                             **result)
        action, reason = decide(params['state'], installed, version, params['allow_downgrade'])
        result.update(action=action, reason=reason)
        if action == 'refuse':
            module.fail_json(msg=reason, **result)

        if params['check_integrity'] and action not in ('none', 'uninstall'):
            if exists:
                offset = file_size(log_file)
                check = [path, '--check']
                rc, out, err = run(module, check)
                if rc != 0:
                    module.fail_json(msg='integrity check `%s` failed with rc=%s: %s. Nothing was installed; fetch the '
                                         'package again and compare its SHA256 with the vendor\'s'
                                     % (command_string(check), rc, ' / '.join(error_lines(out, err))),
                                     rc=rc, stdout_lines=strip_ansi(out).splitlines(), stderr=err,
                                     log_tail=log_tail(read_from(log_file, offset), params['log_lines']), **result)
            else:
                module.warn('%s is not on the node yet (check mode): its integrity was not checked' % path)

        package_info = None
        if companion or params['inspect']:
            if action == 'none' and installed['version'] and installed['info']:
                package_info = installed['info']
            elif exists:
                package_info = extract_version_info(module, path, kind)
            else:
                module.warn('%s is not on the node yet (check mode): its version.info was not read' % path)
            if package_info is not None:
                result['package_info'] = package_info
        if companion and package_info is not None and params['state'] != 'absent':
            refusal = check_companion(kind, version, package_info, companion)
            if refusal:
                module.fail_json(msg=refusal, **result)

        if action == 'none':
            module.exit_json(**result)

        if package_dir:
            names = os.listdir(path) if os.path.isdir(path) else []
            via, uninstaller = choose_uninstaller(kind, installed, names, path, arch=arch)
            result['uninstaller'] = uninstaller
            if via == 'script':
                # Read-only, so check mode looks too: it must not promise an uninstall that cannot run.
                if not script_exists(uninstaller):
                    module.fail_json(msg='%s %s is installed, %s holds no package of it and its uninstall script %s '
                                         'does not exist: put its package in %s'
                                         % (kind, installed['version'] or '(an unfinished install)', path,
                                            uninstaller, path), **result)
                argv = [uninstaller]
            else:
                argv = [uninstaller] + install_args(kind, action, install_path)
        else:
            argv = [path] + install_args(kind, action, install_path, params['install_for_all'], params['force'],
                                         params['install_username'], params['install_usergroup'],
                                         params['extra_args'])
    except PackageError as exc:
        module.fail_json(msg=str(exc), **result)

    result['cmd'] = argv
    result['changed'] = True
    result['new_version'] = None if action == 'uninstall' else version
    result['reboot_required'] = kind == 'firmware' or (kind == 'driver' and action == 'uninstall')
    if module._diff:
        result['diff'] = {
            'before_header': installed['version_file'], 'after_header': installed['version_file'],
            'before': '%s %s\n' % (kind, installed['version'] or ('unfinished install' if installed['incomplete']
                                                                  else 'not installed')),
            'after': '%s %s\n' % (kind, result['new_version'] or 'not installed'),
        }

    if module.check_mode:
        module.exit_json(**result)

    offset = file_size(log_file)
    rc, out, err = run(module, argv)
    result['rc'] = rc
    result['stdout_lines'] = strip_ansi(out).splitlines()
    ok, reboot, why = interpret_rc(kind, action, rc, out, err)
    after = installed_state(kind, install_path, read_file, arch=arch, install_info=params['install_info'])
    result['new_version'] = after['version']
    if not ok:
        result['reboot_required'] = False
        module.fail_json(msg='`%s` failed (%s): %s. Installer log %s has the details'
                             % (command_string(argv), why, ' / '.join(error_lines(out, err)), log_file),
                         stderr=err, log_tail=log_tail(read_from(log_file, offset), params['log_lines']), **result)
    result['reboot_required'] = reboot
    if action == 'uninstall':
        expected_ok = after['version'] is None
    else:
        expected_ok = after['version'] is not None and not after['incomplete'] and \
            same_version(after['version'], version)
    if not expected_ok:
        module.fail_json(msg='`%s` exited %s but %s then reads %s (expected %s). Installer log %s has the details'
                             % (command_string(argv), rc, after['version_file'],
                                after['version'] or after['note'] or 'no version',
                                'no version' if action == 'uninstall' else version, log_file),
                         stderr=err, log_tail=log_tail(read_from(log_file, offset), params['log_lines']), **result)
    # rc 2 is a success here: without an explicit failed=false the controller would read it as a failure.
    result['failed'] = False
    module.exit_json(**result)


if __name__ == '__main__':
    main()
