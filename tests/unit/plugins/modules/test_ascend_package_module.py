"""ascend.vllm.ascend_package against the simulated vendor .run packages on a re-rooted node.

The simulator re-roots every absolute path its installers touch under ASCEND_SIM_ROOT; the
module's host reads are re-rooted the same way here, so a temporary directory plays the node.
"""
import os
import re
import shutil

import pytest

from ansible_collections.ascend.vllm.plugins.modules import ascend_package

packages = pytest.importorskip('ascend_sim.packages')
state_mod = pytest.importorskip('ascend_sim.state')

pytestmark = pytest.mark.skipif(shutil.which('makeself') is None and shutil.which('makeself.sh') is None,
                                reason='makeself is not installed (Debian package makeself)')

ARCH = 'aarch64'
OLD = 'Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run'
OLD_FW = 'Ascend-hdk-910b-npu-firmware_7.5.0.1.129.run'
NEW = 'Ascend-hdk-910b-npu-driver_25.5.0_linux-aarch64.run'
NEW_FW = 'Ascend-hdk-910b-npu-firmware_7.8.0.5.216.run'
TOOLKIT = 'Ascend-cann-toolkit_8.5.0_linux-aarch64.run'
OPS = 'Ascend-cann-910b-ops_8.5.0_linux-aarch64.run'
OPERATION_LOG = '/var/log/ascend_seclog/operation.log'
INSTALL_LOG = '/var/log/ascend_seclog/ascend_install.log'
REROOTED = ('/etc/', '/usr/', '/var/', '/opt/')


@pytest.fixture(scope='module')
def pkgs(tmp_path_factory):
    out = str(tmp_path_factory.mktemp('pkgs'))
    packages.build(out, '910b', ARCH, ['24.1.rc3', '25.5.0'], ['8.5.0'])
    return out


@pytest.fixture(scope='module')
def corrupt(tmp_path_factory):
    out = str(tmp_path_factory.mktemp('corrupt'))
    packages.build(out, '910b', ARCH, ['25.5.0'], [], corrupt=NEW)
    return out


class Node(object):
    def __init__(self, root, pkgs, run_module):
        self.root, self.pkgs, self._run = root, pkgs, run_module

    def path(self, path):
        return self.root + path

    def read(self, path):
        with open(self.path(path)) as handle:
            return handle.read()

    def exists(self, path):
        return os.path.lexists(self.path(path))

    def operations(self):
        return self.read(OPERATION_LOG).splitlines() if self.exists(OPERATION_LOG) else []

    def state(self):
        return state_mod.load_state(self.path('/etc/ascend-sim/state.json'))

    def edit_state(self, **changes):
        data = self.state()
        data.update(changes)
        state_mod.save_state(data, self.path('/etc/ascend-sim/state.json'))

    def boot(self):
        data = self.state()
        state_mod.apply_boot(data, root=self.root)
        state_mod.save_state(data, self.path('/etc/ascend-sim/state.json'))

    def run(self, name, directory=None, check_mode=False, diff=False, **args):
        args['path'] = os.path.join(directory or self.pkgs, name)
        return self._run(ascend_package, args, check_mode=check_mode, diff=diff)


@pytest.fixture
def node(tmp_path, pkgs, run_module, monkeypatch):
    root = str(tmp_path / 'root')
    packages.prepare_node(root)
    os.makedirs(os.path.join(root, 'tmp'))
    monkeypatch.setenv('ASCEND_SIM_ROOT', root)
    monkeypatch.setenv('TMPDIR', os.path.join(root, 'tmp'))
    monkeypatch.delenv('PYTHONPATH', raising=False)
    for key in list(os.environ):
        if key.startswith(('ASCEND_TOOLKIT', 'ASCEND_HOME')):
            monkeypatch.delenv(key)

    def rerooted(function):
        def wrapper(path, *args):
            if path.startswith(REROOTED) and not path.startswith(root):
                path = root + path
            return function(path, *args)
        return wrapper

    for name in ('read_file', 'file_size', 'read_from', 'script_exists'):
        monkeypatch.setattr(ascend_package, name, rerooted(getattr(ascend_package, name)))
    original_run = ascend_package.run

    def run_rerooted(module, argv):
        # An installed uninstall script is a node path: run the re-rooted one.
        if argv[0].startswith(REROOTED) and not argv[0].startswith(root):
            argv = [root + argv[0]] + list(argv[1:])
        return original_run(module, argv)

    monkeypatch.setattr(ascend_package, 'run', run_rerooted)
    # The simulated node is as the packages are: a Kunpeng (aarch64) server.
    monkeypatch.setattr(ascend_package, 'node_arch', lambda: ARCH)
    return Node(root, pkgs, run_module)


def test_fresh_install_then_idempotent(node):
    failed, driver = node.run(OLD)
    assert not failed, driver
    assert {k: driver[k] for k in ('changed', 'kind', 'version', 'action', 'previous_version', 'new_version',
                                   'reboot_required', 'rc', 'incomplete')} == {
        'changed': True, 'kind': 'driver', 'version': '24.1.rc3', 'action': 'install', 'previous_version': None,
        'new_version': '24.1.rc3', 'reboot_required': False, 'rc': 0, 'incomplete': False}
    assert driver['cmd'][1:] == ['--full', '--quiet', '--nox11', '--install-for-all',
                                 '--install-path=/usr/local/Ascend']
    assert any('Driver package installed successfully! The new version takes effect immediately.' in line
               for line in driver['stdout_lines'])

    failed, firmware = node.run(OLD_FW, companion_version='24.1.rc3')
    assert not failed, firmware
    assert (firmware['action'], firmware['new_version'], firmware['reboot_required']) == (
        'install', '7.5.0.1.129', True)
    assert firmware['package_info']['compatible_version_drv'] == '[23.0.0,23.0.0.],[24.0,24.0.],[24.1,24.1.]'
    assert firmware['cmd'][1:] == ['--full', '--quiet', '--nox11', '--install-path=/usr/local/Ascend']

    log_size = len(node.read(INSTALL_LOG))
    failed, again = node.run(OLD, companion_version='7.5.0.1.129')
    assert not failed
    assert (again['changed'], again['action'], again['previous_version'], again['reboot_required']) == (
        False, 'none', '24.1.rc3', False)
    assert again['package_info']['compatible_version_fw'] == '[7.0.0,7.5.99]'   # the installed file
    assert 'cmd' not in again
    assert len(node.read(INSTALL_LOG)) == log_size     # nothing ran, not even --check
    assert [line.split()[6] for line in node.operations()] == [OLD, OLD_FW]


def test_check_mode_plans_and_changes_nothing(node):
    failed, result = node.run(OLD, check_mode=True, diff=True)
    assert not failed, result
    assert (result['changed'], result['action'], result['new_version'], result['previous_version']) == (
        True, 'install', '24.1.rc3', None)
    assert result['diff'] == {'before_header': '/usr/local/Ascend/driver/version.info',
                              'after_header': '/usr/local/Ascend/driver/version.info',
                              'before': 'driver not installed\n', 'after': 'driver 24.1.rc3\n'}
    assert not node.exists('/usr/local/Ascend/driver') and not node.exists('/etc/ascend_install.info')
    assert node.operations() == []


def test_check_mode_without_the_file_decides_from_the_name(node, tmp_path):
    failed, result = node.run(NEW, directory=str(tmp_path / 'not-there'), check_mode=True,
                              companion_version='7.8.0.5.216')
    assert not failed, result
    assert (result['changed'], result['action']) == (True, 'install')
    assert any('is not on the node yet' in warning for warning in result['warnings'])


def test_upgrade_firmware_then_driver_needs_a_reboot(node):
    assert not node.run(OLD)[0]
    assert not node.run(OLD_FW)[0]
    node.boot()
    failed, firmware = node.run(NEW_FW, companion_version='25.5.0')
    assert not failed, firmware
    assert (firmware['action'], firmware['previous_version'], firmware['new_version'], firmware['reboot_required'],
            firmware['cmd'][1:]) == ('upgrade', '7.5.0.1.129', '7.8.0.5.216', True, ['--upgrade', '--quiet', '--nox11'])
    failed, driver = node.run(NEW, companion_version='7.8.0.5.216')
    assert not failed, driver
    assert (driver['action'], driver['previous_version'], driver['new_version'], driver['rc'],
            driver['reboot_required']) == ('upgrade', '24.1.rc3', '25.5.0', 2, True)
    assert driver['failed'] is False    # rc 2 must not read as a failure on the controller
    assert driver['cmd'][1:] == ['--upgrade', '--quiet', '--nox11', '--install-for-all']
    assert node.state()['driver'] == {'running': '24.1.rc3', 'pending': True}
    ops = node.operations()
    assert [(line.split()[0], line.split()[6]) for line in ops] == [
        ('Install', OLD), ('Install', OLD_FW), ('Upgrade', NEW_FW), ('Upgrade', NEW)]


def test_downgrade_is_refused_unless_allowed(node):
    assert not node.run(NEW)[0]
    failed, result = node.run(OLD)
    assert failed
    assert result['msg'] == ('driver 25.5.0 is installed, newer than the package (24.1.rc3): refusing to downgrade. '
                             'Set allow_downgrade=true to replace it, or use a package of 25.5.0 or newer')
    assert result['action'] == 'refuse' and not result['changed']
    assert len(node.operations()) == 1

    failed, result = node.run(OLD, state='latest')
    assert not failed and not result['changed'] and result['action'] == 'none'

    failed, result = node.run(OLD, allow_downgrade=True)
    assert not failed, result
    assert (result['action'], result['previous_version'], result['new_version']) == ('downgrade', '25.5.0', '24.1.rc3')
    assert result['cmd'][1] == '--full'


def test_damaged_package_fails_the_integrity_check_before_its_version_info_is_read(node, corrupt):
    failed, result = node.run(NEW, directory=corrupt, companion_version='7.8.0.5.216')
    assert failed and result['msg'].startswith('integrity check `')
    assert 'package_info' not in result


def test_incompatible_companion_is_refused_before_anything_changes(node):
    failed, result = node.run(OLD, companion_version='7.8.0.5.216')
    assert failed
    assert result['msg'] == ('driver 24.1.rc3 admits firmware versions [7.0.0,7.5.99] (compatible_version_fw in its '
                             'version.info); firmware 7.8.0.5.216 is outside that range. Pick the firmware of the same '
                             'HDK release as the driver')
    assert result['package_info']['Version'] == '24.1.rc3'
    assert not node.exists('/usr/local/Ascend/driver') and node.operations() == []


def test_damaged_package_is_refused_with_nothing_changed(node, corrupt):
    assert not node.run(OLD)[0]
    before = node.read('/usr/local/Ascend/driver/version.info'), node.read('/etc/ascend_install.info')
    failed, result = node.run(NEW, directory=corrupt)
    assert failed
    assert result['msg'].startswith('integrity check `%s --check` failed with rc=2: Error in SHA256 checksums: '
                                    % os.path.join(corrupt, NEW))
    assert result['msg'].endswith("Nothing was installed; fetch the package again and compare its SHA256 with the "
                                  "vendor's")
    assert (result['changed'], result['action'], result['previous_version']) == (False, 'upgrade', '24.1.rc3')
    assert (node.read('/usr/local/Ascend/driver/version.info'), node.read('/etc/ascend_install.info')) == before
    assert len(node.operations()) == 1

    failed, result = node.run(NEW, directory=corrupt, check_mode=True)
    assert failed and 'Error in SHA256 checksums' in result['msg']


def test_busy_npu_fails_with_the_installer_message_and_log_tail(node):
    assert not node.run(OLD)[0]
    node.edit_state(processes=[{'npu_id': 3, 'chip_id': 0, 'pid': 4343, 'name': 'python3', 'memory_mb': 3000,
                                'container_pid': None}])
    failed, result = node.run(NEW)
    assert failed
    assert result['msg'].startswith('`%s --upgrade --quiet --nox11 --install-for-all` failed (rc=1): '
                                    % os.path.join(node.pkgs, NEW))
    assert 'The davinci nodes are occupied by some processes' in result['msg']
    assert result['msg'].endswith('Installer log /var/log/ascend_seclog/ascend_install.log has the details')
    assert any('proc:/dev/davinci3 has user process: 4343' in line for line in result['log_tail'])
    assert not any('UserCommand' in line and OLD in line for line in result['log_tail'])   # only this run
    assert (result['rc'], result['new_version'], result['reboot_required']) == (1, '24.1.rc3', False)

    failed, result = node.run(NEW, force=True)
    assert not failed, result
    assert result['cmd'][-1] == '--force' and result['reboot_required']


@pytest.mark.parametrize('point', ['files', 'version'])
def test_killed_installer_fails_and_the_rerun_repairs(node, point):
    assert not node.run(OLD)[0]
    node.edit_state(inject={'installer_kill_after': point})
    failed, result = node.run(NEW)
    assert failed
    assert result['rc'] == 137 and '(rc=137)' in result['msg']
    assert result['new_version'] is None    # version.info gone or the install unfinished
    failed, result = node.run(NEW)
    assert not failed, result
    assert (result['action'], result['incomplete'], result['previous_version'], result['new_version']) == (
        'repair', True, None, '25.5.0')
    assert result['cmd'][1] == '--full'
    assert 'Driver_Install_Status=complete' in node.read('/etc/ascend_install.info')


def test_firmware_without_a_running_driver_fails_with_the_installer_words(node):
    failed, result = node.run(OLD_FW)
    assert failed
    assert ('Driver package is not installed or not running, the firmware is upgraded through the driver, please '
            'install the driver package first') in result['msg']


def test_uninstall(node):
    assert not node.run(OLD)[0]
    failed, result = node.run(OLD, state='absent')
    assert not failed, result
    assert (result['action'], result['previous_version'], result['new_version'], result['cmd'][1:]) == (
        'uninstall', '24.1.rc3', None, ['--uninstall'])
    failed, result = node.run(OLD, state='absent')
    assert not failed and not result['changed']


def test_uninstall_from_the_package_cache_takes_the_installed_versions_package(node, tmp_path):
    assert not node.run(OLD)[0]
    failed, result = node.run('', state='absent', kind='driver')     # the directory of both drivers
    assert not failed, result
    assert (result['action'], result['previous_version'], result['uninstaller'], result['cmd']) == (
        'uninstall', '24.1.rc3', os.path.join(node.pkgs, OLD), [os.path.join(node.pkgs, OLD), '--uninstall'])
    assert result['reboot_required'] is True          # "Reboot needed for uninstallation to take effect!"
    assert not node.exists('/usr/local/Ascend/driver/version.info')
    failed, again = node.run('', state='absent', kind='driver', directory=str(tmp_path))
    assert (failed, again['changed'], again['action']) == (False, False, 'none')
    assert 'uninstaller' not in again


def test_uninstall_without_its_package_runs_the_documented_uninstall_scripts(node, tmp_path):
    assert not node.run(OLD)[0]
    assert not node.run(OLD_FW, companion_version='24.1.rc3')[0]
    empty = str(tmp_path / 'cache')          # a cache that does not exist is an empty one
    failed, plan = node.run('', directory=empty, state='absent', kind='driver', check_mode=True)
    assert (failed, plan['changed'], plan['uninstaller']) == (False, True, '/usr/local/Ascend/driver/script/uninstall.sh')
    assert node.exists('/usr/local/Ascend/driver/version.info')
    for kind in ('driver', 'firmware'):
        failed, result = node.run('', directory=empty, state='absent', kind=kind)
        assert not failed, result
        script = '/usr/local/Ascend/%s/script/uninstall.sh' % kind
        assert (result['action'], result['uninstaller'], result['cmd'], result['new_version']) == (
            'uninstall', script, [script], None)
        assert not node.exists('/usr/local/Ascend/%s/version.info' % kind)
    assert result['reboot_required'] is True          # firmware: always at the next boot


def test_a_directory_needs_state_absent_and_a_kind(node):
    failed, result = node.run('', state='present', kind='driver')
    assert failed and result['msg'] == ('path %s is a directory: give the package file (a directory of packages is '
                                        'taken with state=absent only)' % os.path.join(node.pkgs, ''))
    failed, result = node.run('', state='absent')
    assert failed
    assert result['msg'].endswith('is a directory of packages: set kind (one of driver, firmware, toolkit, kernels, '
                                  'ops, nnal)')


def test_cann_toolkit_and_ops(node):
    failed, result = node.run(OPS)
    assert failed and 'The Ascend-cann-toolkit 8.5.0 is required by' in result['msg']
    failed, toolkit = node.run(TOOLKIT)
    assert not failed, toolkit
    assert (toolkit['action'], toolkit['new_version'], toolkit['reboot_required']) == ('install', '8.5.0', False)
    assert toolkit['cmd'][1:] == ['--install', '--quiet', '--nox11', '--install-for-all',
                                  '--install-path=/usr/local/Ascend']
    assert toolkit['log_file'] == '/var/log/ascend_seclog/ascend_toolkit_install.log'
    failed, ops = node.run(OPS)
    assert not failed, ops
    assert (ops['kind'], ops['new_version']) == ('ops', '8.5.0')
    assert not node.run(TOOLKIT)[1]['changed']
    assert not node.run(OPS, state='latest')[1]['changed']


def test_argument_errors(node, tmp_path):
    failed, result = node.run(OLD, kind='firmware')
    assert failed and result['msg'] == ('%s is named like a driver package, not a firmware package; check path and kind'
                                        % OLD)
    plain = tmp_path / 'driver.run'
    plain.write_text('#!/bin/sh\n')
    failed, result = node._run(ascend_package, {'path': str(plain)})
    assert failed and result['msg'].startswith('cannot tell the package kind from the file name driver.run')
    failed, result = node.run(NEW, directory=str(tmp_path / 'missing'))
    assert failed and result['msg'] == 'package %s does not exist on the node (or is not a file)' % os.path.join(
        str(tmp_path / 'missing'), NEW)
    shutil.copy(os.path.join(node.pkgs, NEW), str(tmp_path / NEW))
    os.chmod(str(tmp_path / NEW), 0o644)
    failed, result = node.run(NEW, directory=str(tmp_path))
    assert failed and result['msg'] == ('package %s is not executable: make it so (mode 0750), the vendor installers '
                                        'run as ./<file>.run' % (tmp_path / NEW))
    failed, result = node.run(TOOLKIT, companion_version='25.5.0')
    assert failed and 'companion_version applies to driver and firmware packages' in result['msg']


def test_driver_recorded_elsewhere_is_refused(node):
    os.makedirs(node.path('/opt/npu'))
    assert not node.run(OLD, install_path='/opt/npu')[0]
    failed, result = node.run(NEW)
    assert failed
    assert result['msg'] == ('the driver is recorded under /opt/npu in /etc/ascend_install.info, not under install_path '
                             '/usr/local/Ascend: set install_path to /opt/npu, or uninstall it first')
    failed, result = node.run(NEW, install_path='/opt/npu')
    assert not failed and result['action'] == 'upgrade'
    assert re.search(r'Upgrade .* %s success' % re.escape(NEW), node.operations()[-1])


def test_check_mode_fails_too_when_the_uninstall_script_is_gone(node, tmp_path):
    assert not node.run(OLD)[0]
    os.unlink(node.path('/usr/local/Ascend/driver/script/uninstall.sh'))
    failed, result = node.run('', directory=str(tmp_path / 'cache'), state='absent', kind='driver', check_mode=True)
    assert failed
    assert result['msg'] == ('driver 24.1.rc3 is installed, %s holds no package of it and its uninstall script '
                             '/usr/local/Ascend/driver/script/uninstall.sh does not exist: put its package in %s'
                             % ((os.path.join(str(tmp_path / 'cache'), ''),) * 2))
