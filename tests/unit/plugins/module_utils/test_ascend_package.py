"""Pure helpers of ascend_package: file names, info files, decisions, arguments, results."""
import os

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import ascend_package as ap


# --------------------------------------------------------------------------------- file names

@pytest.mark.parametrize('name, expected', [
    ('Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run',
     {'kind': 'driver', 'version': '24.1.rc3', 'chip': '910b', 'arch': 'aarch64'}),
    ('Ascend-hdk-910b-npu-driver_25.0.rc1.1_linux-x86-64.run',
     {'kind': 'driver', 'version': '25.0.rc1.1', 'chip': '910b', 'arch': 'x86_64'}),
    ('Atlas-A3-hdk-npu-driver_25.5.0_linux-aarch64.run',
     {'kind': 'driver', 'version': '25.5.0', 'chip': '910_93', 'arch': 'aarch64'}),
    ('Ascend-hdk-310p-npu-driver_24.1.0.1_linux-aarch64.run',
     {'kind': 'driver', 'version': '24.1.0.1', 'chip': '310p', 'arch': 'aarch64'}),
    ('Ascend-hdk-910b-npu-firmware_7.5.0.1.129.run',
     {'kind': 'firmware', 'version': '7.5.0.1.129', 'chip': '910b', 'arch': None}),
    ('Atlas-A3-hdk-npu-firmware_7.8.0.5.216.run',
     {'kind': 'firmware', 'version': '7.8.0.5.216', 'chip': '910_93', 'arch': None}),
    ('Ascend-cann-toolkit_8.2.RC1_linux-aarch64.run',
     {'kind': 'toolkit', 'version': '8.2.RC1', 'chip': None, 'arch': 'aarch64'}),
    ('Ascend-cann-kernels-910b_8.3.RC2_linux-x86_64.run',
     {'kind': 'kernels', 'version': '8.3.RC2', 'chip': '910b', 'arch': 'x86_64'}),
    ('Atlas-A3-cann-kernels_8.2.RC1_linux-aarch64.run',
     {'kind': 'kernels', 'version': '8.2.RC1', 'chip': '910_93', 'arch': 'aarch64'}),
    ('Ascend-cann-910b-ops_8.5.0_linux-aarch64.run',
     {'kind': 'ops', 'version': '8.5.0', 'chip': '910b', 'arch': 'aarch64'}),
    ('Ascend-cann-A3-ops_9.1.0_linux-aarch64.run',
     {'kind': 'ops', 'version': '9.1.0', 'chip': '910_93', 'arch': 'aarch64'}),
    ('Ascend-cann-nnal_8.5.0_linux-x86_64.run',
     {'kind': 'nnal', 'version': '8.5.0', 'chip': None, 'arch': 'x86_64'}),
    ('/var/cache/x/Ascend-cann-toolkit_9.1.0_linux-x86_64.run',
     {'kind': 'toolkit', 'version': '9.1.0', 'chip': None, 'arch': 'x86_64'}),
])
def test_parse_package_name(name, expected):
    assert ap.parse_package_name(name) == expected


@pytest.mark.parametrize('name', [
    'driver.run', 'Ascend-hdk-910b-npu-driver_25.5.0_linux-aarch64.tar.gz',
    'Ascend-cann-toolkit_8.5.0_linux-riscv64.run', '', None,
    'Ascend-hdk-910b-npu-driver__linux-aarch64.run',
])
def test_parse_package_name_rejects_other_files(name):
    assert ap.parse_package_name(name) is None


def test_names_agree_with_the_simulated_catalogue():
    versions = pytest.importorskip('ascend_sim.versions')
    for chip in ('910b', '910_93', '310p'):
        for arch in ('aarch64', 'x86_64'):
            for entry in versions.DRIVERS:
                driver = ap.parse_package_name(versions.package_filename('driver', entry['version'], chip, arch))
                assert driver == {'kind': 'driver', 'version': entry['version'], 'chip': chip, 'arch': arch}
                firmware = ap.parse_package_name(versions.package_filename('firmware', entry['version'], chip, arch))
                assert (firmware['kind'], firmware['version'], firmware['chip']) == ('firmware', entry['firmware'], chip)
            for entry in versions.CANN:
                for kind in ('toolkit', entry['chip_pkg'], 'nnal'):
                    parsed = ap.parse_package_name(versions.package_filename(kind, entry['version'], chip, arch))
                    assert (parsed['kind'], parsed['version'], parsed['arch']) == (kind, entry['version'], arch)


# --------------------------------------------------------------------------------- info files

DRIVER_INFO = """Version=24.1.rc3
ascendhal_version=7.35.23
Innerversion=V100R001C19SPC001B124
compatible_version=[V100R001C13],[V100R001C15]
compatible_version_fw=[7.0.0,7.5.99]
package_version=24.1.rc3
"""

INSTALL_INFO = """UserName=HwHiAiUser
UserGroup=HwHiAiUser
Driver_Install_Type=full
Driver_Install_Path_Param=/usr/local/Ascend
Driver_Install_For_All=yes
Driver_Install_Mode=normal
Driver_Install_Status=complete
Firmware_Install_Type=full
Firmware_Install_Path_Param=/usr/local/Ascend
"""


def reader(files):
    return files.get


def test_parse_kv_quotes_comments_and_last_wins():
    assert ap.parse_kv('# c\n\nA=1\nB = "x y" \nnoeq\nA=2\nC=\n') == {'A': '2', 'B': 'x y', 'C': ''}
    assert ap.parse_kv(None) == {}


def test_installed_driver_complete():
    state = ap.installed_state('driver', '/usr/local/Ascend', reader({
        '/etc/ascend_install.info': INSTALL_INFO,
        '/usr/local/Ascend/driver/version.info': DRIVER_INFO,
    }))
    assert (state['version'], state['incomplete'], state['path'], state['version_file']) == (
        '24.1.rc3', False, '/usr/local/Ascend', '/usr/local/Ascend/driver/version.info')
    assert state['info']['compatible_version_fw'] == '[7.0.0,7.5.99]'


def test_installed_driver_nothing():
    state = ap.installed_state('driver', '/usr/local/Ascend/', reader({}))
    assert (state['version'], state['incomplete'], state['path']) == (None, False, '/usr/local/Ascend')


def test_installed_driver_without_status_is_incomplete():
    info = INSTALL_INFO.replace('Driver_Install_Status=complete\n', '')
    state = ap.installed_state('driver', '/usr/local/Ascend', reader({
        '/etc/ascend_install.info': info, '/usr/local/Ascend/driver/version.info': DRIVER_INFO}))
    assert state['version'] is None and state['incomplete']
    assert 'Driver_Install_Status=complete' in state['note']


def test_installed_driver_recorded_path_without_version_is_incomplete():
    state = ap.installed_state('driver', '/usr/local/Ascend', reader({'/etc/ascend_install.info': INSTALL_INFO}))
    assert state['version'] is None and state['incomplete']
    assert 'holds no version' in state['note']


def test_installed_driver_follows_the_recorded_path():
    info = INSTALL_INFO.replace('Driver_Install_Path_Param=/usr/local/Ascend', 'Driver_Install_Path_Param=/opt/Ascend')
    state = ap.installed_state('driver', '/usr/local/Ascend', reader({
        '/etc/ascend_install.info': info, '/opt/Ascend/driver/version.info': DRIVER_INFO}))
    assert (state['path'], state['version']) == ('/opt/Ascend', '24.1.rc3')


def test_installed_firmware():
    state = ap.installed_state('firmware', '/usr/local/Ascend', reader({
        '/etc/ascend_install.info': INSTALL_INFO,
        '/usr/local/Ascend/firmware/version.info': 'Version=7.5.0.1.129\ncompatible_version_drv=[24.1,24.1.]\n'}))
    assert (state['version'], state['incomplete']) == ('7.5.0.1.129', False)
    missing = ap.installed_state('firmware', '/usr/local/Ascend', reader({'/etc/ascend_install.info': INSTALL_INFO}))
    assert missing['incomplete'] and missing['version'] is None


def test_installed_cann_kinds():
    files = {
        '/usr/local/Ascend/ascend-toolkit/latest/aarch64-linux/ascend_toolkit_install.info':
            'package_name=Ascend-cann-toolkit\nversion=8.5.0\ninnerversion=V100R001C25SPC001B212\n',
        # 8.5+: the ops package's record beside the toolkit's (hicann/ops-math quick_install.md)
        '/usr/local/Ascend/cann/aarch64-linux/ascend_ops_install.info':
            'package_name=Ascend-cann-910b-ops\nversion=8.5.0\narch=aarch64\n',
        '/usr/local/Ascend/cann-8.5.0/share/info/ops_nn/version.info': 'Version=8.5.0.2.220\nversion_dir=cann\n',
        # <= 8.3, as captured on 8.2.RC1
        '/usr/local/Ascend/ascend-toolkit/latest/opp_kernel/version.info':
            'Version=8.2.0.0.201\nversion_dir=8.2.RC1\nrequired_package_toolkit_version=">=7.6, <=8.2"\n',
        '/usr/local/Ascend/nnal/atb/latest/version.info': '    Ascend-cann-atb : 8.5.0\n    Ascend-cann-atb Version : 8.5.0.B150\n',
    }
    read = reader(files)
    assert ap.installed_state('toolkit', '/usr/local/Ascend', read, arch='aarch64')['version'] == '8.5.0'
    assert ap.installed_state('toolkit', '/usr/local/Ascend', read, arch='x86_64')['version'] is None
    assert ap.installed_state('ops', '/usr/local/Ascend', read, arch='aarch64')['version'] == '8.5.0'
    assert ap.installed_state('ops', '/usr/local/Ascend', read, arch='x86_64')['version'] is None
    assert ap.installed_state('kernels', '/usr/local/Ascend', read)['version'] == '8.2.RC1'
    assert ap.installed_state('nnal', '/usr/local/Ascend', read)['version'] == '8.5.0'
    with pytest.raises(ap.PackageError, match='architecture'):
        ap.installed_state('toolkit', '/usr/local/Ascend', read)
    with pytest.raises(ap.PackageError, match='unknown package kind'):
        ap.installed_state('tools', '/usr/local/Ascend', read)


# --------------------------------------------------------------------------------- ranges

@pytest.mark.parametrize('version, ranges, expected', [
    ('7.5.0.1.129', '[7.0.0,7.5.99]', True),
    ('7.7.0.1.231', '[7.0.0,7.5.99]', False),
    ('7.8.0.5.216', '[6.4.0,6.4.99],[7.0.0,8.9.9]', True),
    ('6.4.12', '[6.4.0,6.4.99],[7.0.0,8.9.9]', True),
    ('9.0.0.0.205', '[6.4.0,6.4.99],[7.0.0,8.9.9]', False),
    ('24.1.rc3', '[23.0.0,23.0.0.],[24.0,24.0.],[24.1,24.1.]', True),
    ('24.1', '[24.1,24.1.]', True),
    ('24.10.0', '[24.1,24.1.]', False),
    ('25.5.0', '[23.0.0,23.0.0.],[24.1,24.1.],[25.5,25.5.]', True),
    ('25.0.rc1.1', '[25.5,25.5.],[26.0,26.0.]', False),
    ('25.5.0', '', False),
    ('garbage', '[7.0.0,7.5.99]', False),
])
def test_version_in_ranges(version, ranges, expected):
    assert ap.version_in_ranges(version, ranges) is expected


def test_check_companion():
    assert ap.check_companion('driver', '25.5.0', {'compatible_version_fw': '[7.0.0,8.9.9]'}, '7.8.0.5.216') is None
    assert ap.check_companion('driver', '25.5.0', {}, '7.8.0.5.216') is None
    msg = ap.check_companion('driver', '24.1.rc3', {'compatible_version_fw': '[7.0.0,7.5.99]'}, '7.8.0.5.216')
    assert msg == ('driver 24.1.rc3 admits firmware versions [7.0.0,7.5.99] (compatible_version_fw in its '
                   'version.info); firmware 7.8.0.5.216 is outside that range. Pick the firmware of the same HDK '
                   'release as the driver')
    msg = ap.check_companion('firmware', '9.0.0.0.205', {'compatible_version_drv': '[25.5,25.5.],[26.0,26.0.]'},
                             '24.1.rc3')
    assert msg.startswith('firmware 9.0.0.0.205 admits driver versions [25.5,25.5.],[26.0,26.0.]')


# --------------------------------------------------------------------------------- decisions

def installed(version=None, incomplete=False, kind='driver'):
    return {'kind': kind, 'version': version, 'incomplete': incomplete, 'note': 'interrupted' if incomplete else None}


@pytest.mark.parametrize('state, have, package, allow, action', [
    ('present', installed(), '25.5.0', False, 'install'),
    ('present', installed('25.5.0'), '25.5.0', False, 'none'),
    ('present', installed('25.5.0'), '25.5', False, 'none'),
    ('present', installed('24.1.rc3'), '25.5.0', False, 'upgrade'),
    ('present', installed('24.1.rc3'), '24.1.0', False, 'upgrade'),
    ('present', installed('25.5.0'), '24.1.rc3', False, 'refuse'),
    ('present', installed('25.5.0'), '24.1.rc3', True, 'downgrade'),
    ('present', installed(incomplete=True), '25.5.0', False, 'repair'),
    ('latest', installed('26.0.rc1'), '25.5.0', False, 'none'),
    ('latest', installed('24.1.rc3'), '25.5.0', False, 'upgrade'),
    ('latest', installed(), '25.5.0', False, 'install'),
    ('absent', installed('25.5.0'), '25.5.0', False, 'uninstall'),
    ('absent', installed('24.1.rc3'), '25.5.0', False, 'uninstall'),
    ('absent', installed(incomplete=True), '25.5.0', False, 'uninstall'),
    ('absent', installed(), '25.5.0', False, 'none'),
    ('present', installed('8.2.rc1', kind='toolkit'), '8.2.RC1', False, 'none'),
    ('present', installed('8.3.RC2', kind='toolkit'), '8.5.0', False, 'upgrade'),
])
def test_decide(state, have, package, allow, action):
    assert ap.decide(state, have, package, allow)[0] == action


def test_refused_downgrade_says_what_to_do():
    action, reason = ap.decide('present', installed('25.5.0'), '24.1.rc3')
    assert action == 'refuse'
    assert reason == ('driver 25.5.0 is installed, newer than the package (24.1.rc3): refusing to downgrade. '
                      'Set allow_downgrade=true to replace it, or use a package of 25.5.0 or newer')


def test_decide_unreadable_version():
    with pytest.raises(ap.PackageError, match="cannot read version 'weird!'"):
        ap.decide('present', installed('weird!'), '25.5.0')


# --------------------------------------------------------------------------------- arguments

P = '/usr/local/Ascend'


@pytest.mark.parametrize('kind, action, kwargs, expected', [
    ('driver', 'install', {}, ['--full', '--quiet', '--nox11', '--install-for-all', '--install-path=' + P]),
    ('driver', 'repair', {'install_for_all': False}, ['--full', '--quiet', '--nox11', '--install-path=' + P]),
    ('driver', 'downgrade', {'force': True}, ['--full', '--quiet', '--nox11', '--install-for-all',
                                              '--install-path=' + P, '--force']),
    ('driver', 'upgrade', {'username': 'npu', 'usergroup': 'npu'},
     ['--upgrade', '--quiet', '--nox11', '--install-for-all']),
    ('driver', 'install', {'username': 'npu', 'usergroup': 'npu', 'extra': ['--norebuild']},
     ['--full', '--quiet', '--nox11', '--install-for-all', '--install-path=' + P, '--install-username=npu',
      '--install-usergroup=npu', '--norebuild']),
    ('driver', 'uninstall', {'force': True}, ['--uninstall']),
    ('firmware', 'install', {'force': True}, ['--full', '--quiet', '--nox11', '--install-path=' + P]),
    ('firmware', 'upgrade', {}, ['--upgrade', '--quiet', '--nox11']),
    ('firmware', 'uninstall', {}, ['--uninstall']),
    ('toolkit', 'install', {}, ['--install', '--quiet', '--nox11', '--install-for-all', '--install-path=' + P]),
    ('toolkit', 'upgrade', {}, ['--upgrade', '--quiet', '--nox11', '--install-for-all', '--install-path=' + P]),
    ('ops', 'install', {'install_for_all': False}, ['--install', '--quiet', '--nox11', '--install-path=' + P]),
    ('nnal', 'uninstall', {}, ['--uninstall', '--quiet', '--install-path=' + P]),
])
def test_install_args(kind, action, kwargs, expected):
    assert ap.install_args(kind, action, P, **kwargs) == expected


def test_install_args_refusals():
    with pytest.raises(ap.PackageError, match='go together'):
        ap.install_args('driver', 'install', P, username='npu')
    with pytest.raises(ap.PackageError, match='no installer run'):
        ap.install_args('driver', 'none', P)
    with pytest.raises(ap.PackageError, match='unknown package kind'):
        ap.install_args('bios', 'install', P)


# --------------------------------------------------------------------------------- results

DRIVER_REBOOT = ('[Driver] [2025-05-06 10:11:12] [INFO]\x1b[32mDriver package upgraded successfully! \x1b[0m'
                 '\x1b[31mReboot needed for installation/upgrade to take effect! \x1b[0m\n')
DRIVER_LIVE = '[Driver] [2025-05-06 10:11:12] [INFO]Driver package installed successfully! The new version takes ' \
              'effect immediately. \n'
DAMAGED = 'Error in SHA256 checksums: 0fe2 is different from 8ab1\n'


@pytest.mark.parametrize('kind, action, rc, out, err, expected', [
    ('driver', 'install', 0, DRIVER_LIVE, '', (True, False)),
    ('driver', 'upgrade', 2, DRIVER_REBOOT, '', (True, True)),
    ('driver', 'upgrade', 0, DRIVER_REBOOT, '', (True, True)),
    ('driver', 'install', 2, 'Verifying archive integrity...', DAMAGED, (False, False)),
    ('driver', 'install', 1, '[ERROR]The davinci nodes are occupied', '', (False, False)),
    ('driver', 'install', 137, '', '', (False, False)),
    ('firmware', 'upgrade', 0, 'Firmware package upgraded successfully! Reboot now or after driver installation', '',
     (True, True)),
    ('toolkit', 'install', 0, '[Toolkit] [INFO] Ascend-cann-toolkit install success', '', (True, False)),
])
def test_interpret_rc(kind, action, rc, out, err, expected):
    assert ap.interpret_rc(kind, action, rc, out, err)[:2] == expected


def test_error_lines_prefer_the_installer_errors():
    out = ('[Driver] [2025] [INFO]Start time: x\n'
           '[Driver] [2025] [ERROR]\x1b[31mThe davinci nodes are occupied by some processes, please stop processes '
           'and install or uninstall again, details in : /var/log/ascend_seclog/ascend_install.log \x1b[0m\n'
           '[Driver] [2025] [INFO]If you want to install or uninstall the driver forcibly, add the force parameter.\n')
    assert ap.error_lines(out) == [
        '[Driver] [2025] [ERROR]The davinci nodes are occupied by some processes, please stop processes and install '
        'or uninstall again, details in : /var/log/ascend_seclog/ascend_install.log']
    assert ap.error_lines('Verifying archive integrity...', DAMAGED) == [DAMAGED.strip()]
    assert ap.error_lines('a\nb\nc\nd\ne\n') == ['b', 'c', 'd', 'e']
    assert ap.error_lines('', '') == []


def test_log_tail():
    text = '\n'.join('line %d' % i for i in range(30)) + '\n\n\x1b[31mlast\x1b[0m\n'
    assert ap.log_tail(text, 3) == ['line 28', 'line 29', 'last']
    assert ap.log_tail(text, 0) == []
    assert ap.log_tail('', 5) == []


def test_error_lines_cut_makeself_progress():
    err = 'Verifying archive integrity...     0%    28%  100%  Error in SHA256 checksums: 29 is different from 6d\n'
    assert ap.error_lines('Verifying archive integrity...', err) == ['Error in SHA256 checksums: 29 is different from 6d']


CANN_FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'fixtures', 'cann')


@pytest.mark.parametrize('fixture, version, build', [
    ('nnal-atb-8.2.RC1-version.info', '8.2.RC1', '8.2.RC1.B150'),
    ('nnal-atb-9.1.0-version.info', '9.1.0', '9.1.0.B150'),
])
def test_nnal_version_from_real_version_info(fixture, version, build):
    """The real NNAL version.info has no version= line: `Ascend-cann-atb : <release>`, indented or
    not, is the installed release."""
    with open(os.path.join(CANN_FIXTURES, fixture)) as handle:
        text = handle.read()
    assert 'version=' not in text.lower()
    state = ap.installed_state('nnal', '/usr/local/Ascend',
                               reader({'/usr/local/Ascend/nnal/atb/latest/version.info': text}))
    assert state['version'] == version
    assert state['info']['Ascend-cann-atb Version'] == build
    assert state['version_file'] == '/usr/local/Ascend/nnal/atb/latest/version.info'


def test_nnal_key_value_lines_are_not_a_version():
    # What the simulator used to write; no real NNAL writes it.
    state = ap.installed_state('nnal', '/usr/local/Ascend',
                               reader({'/usr/local/Ascend/nnal/atb/latest/version.info': 'version=8.5.0\n'}))
    assert state['version'] is None


def test_nnal_version_info_with_a_bom_crlf_and_another_case():
    text = '\ufeff    ASCEND-CANN-ATB : 9.1.0\r\n    Ascend-cann-atb Version : 9.1.0.B150\r\n    commit id : a:b\r\n'
    state = ap.installed_state('nnal', '/usr/local/Ascend',
                               reader({'/usr/local/Ascend/nnal/atb/latest/version.info': text}))
    assert state['version'] == '9.1.0'
    assert state['info']['commit id'] == 'a:b'


# --------------------------------------------------------------------------------- uninstall

CACHE = '/var/cache/ascend-vllm/packages'
NAMES = ['Ascend-hdk-910b-npu-driver_25.5.0_linux-aarch64.run', 'Ascend-hdk-910b-npu-driver_24.1.rc3_linux-x86_64.run',
         'Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run', 'Ascend-hdk-910b-npu-firmware_7.5.0.1.129.run',
         'Ascend-cann-toolkit_8.5.0_linux-aarch64.run', 'SHA256SUMS']


def record(kind, version, path='/usr/local/Ascend', version_file=None):
    return {'kind': kind, 'version': version, 'incomplete': version is None, 'path': path,
            'version_file': version_file, 'info': {}, 'note': None}


@pytest.mark.parametrize('kind, state, names, arch, expected', [
    # The package of the installed version and of the node's architecture.
    ('driver', record('driver', '24.1.rc3'), NAMES, 'aarch64',
     ('package', CACHE + '/Ascend-hdk-910b-npu-driver_24.1.rc3_linux-aarch64.run')),
    ('driver', record('driver', '24.1.rc3'), NAMES, 'x86_64',
     ('package', CACHE + '/Ascend-hdk-910b-npu-driver_24.1.rc3_linux-x86_64.run')),
    ('firmware', record('firmware', '7.5.0.1.129'), NAMES, 'aarch64',
     ('package', CACHE + '/Ascend-hdk-910b-npu-firmware_7.5.0.1.129.run')),
    # No package of that version (or an unfinished install): the vendor's script beside the install.
    ('driver', record('driver', '25.0.rc1'), NAMES, 'aarch64',
     ('script', '/usr/local/Ascend/driver/script/uninstall.sh')),
    ('driver', record('driver', None, path='/opt/Ascend/'), NAMES, 'aarch64',
     ('script', '/opt/Ascend/driver/script/uninstall.sh')),
    ('firmware', record('firmware', '7.8.0.5.216'), [], 'aarch64',
     ('script', '/usr/local/Ascend/firmware/script/uninstall.sh')),
    ('toolkit', record('toolkit', '8.3.RC2',
                       version_file='/usr/local/Ascend/ascend-toolkit/latest/aarch64-linux/ascend_toolkit_install.info'),
     NAMES, 'aarch64',
     ('script', '/usr/local/Ascend/ascend-toolkit/latest/aarch64-linux/script/uninstall.sh')),
    ('toolkit', record('toolkit', '8.5.0'), NAMES, 'aarch64',
     ('package', CACHE + '/Ascend-cann-toolkit_8.5.0_linux-aarch64.run')),
])
def test_choose_uninstaller(kind, state, names, arch, expected):
    assert ap.choose_uninstaller(kind, state, names, CACHE + '/', arch=arch) == expected


@pytest.mark.parametrize('kind, record, script', [
    ('kernels', '/usr/local/Ascend/ascend-toolkit/latest/opp_kernel/version.info',
     '/usr/local/Ascend/ascend-toolkit/latest/opp_kernel/script/uninstall.sh'),
    ('nnal', '/usr/local/Ascend/nnal/atb/latest/version.info', '/usr/local/Ascend/nnal/atb/latest/scripts/uninstall.sh'),
])
def test_the_documented_cann_scripts(kind, record, script):
    assert ap.choose_uninstaller(kind, record_of(kind, record), [], CACHE) == ('script', script)


def record_of(kind, version_file):
    return record(kind, '8.2.RC1', version_file=version_file)


def test_without_its_package_an_operators_package_cannot_be_uninstalled():
    state = record('ops', '8.5.0', version_file='/usr/local/Ascend/cann/aarch64-linux/ascend_ops_install.info')
    # The ops record sits in the toolkit's directory: its script there would remove the toolkit.
    assert ap.uninstall_script('ops', state) is None
    with pytest.raises(ap.PackageError) as error:
        ap.choose_uninstaller('ops', state, NAMES, CACHE, arch='aarch64')
    assert str(error.value) == (
        'ops 8.5.0 is installed, but /var/cache/ascend-vllm/packages holds no package of it (a .run of kind ops, '
        'version 8.5.0) and the vendor documents no uninstall script for it: put its package there, or give its path')
