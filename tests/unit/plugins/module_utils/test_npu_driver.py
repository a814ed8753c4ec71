"""The npu_driver checks before any change: every refusal and its message."""
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.filter.npu_driver import FilterModule
from ansible_collections.ascend.vllm.plugins.module_utils.npu_driver import reboot_reasons, request_problems, verify_problems
from ansible_collections.ascend.vllm.plugins.module_utils.stack import hdk_packages

FILTERS = FilterModule().filters()
REFUSAL = ': refusing to downgrade. Set npu_driver_allow_downgrade: true to replace it, or ask for that version or newer'
GOOD = {'chip': '910b', 'chip_given': '', 'chips_found': ['910b'], 'hdk': hdk_packages('25.5.2', '910b', 'aarch64'),
        'arch': 'aarch64', 'target': '25.5.2', 'fw_target': '7.8.0.7.220', 'manage_firmware': True,
        'install_path': '/usr/local/Ascend', 'user': ['x', '1000', '1000', '', '/home/HwHiAiUser', '/bin/bash'],
        'group': ['x', '1000', ''], 'uid': 1000, 'gid': 1000, 'uid_owner': 'HwHiAiUser', 'gid_owner': 'HwHiAiUser',
        'installed_driver': '24.1.rc3', 'installed_firmware': '7.5.0.1.129', 'allow_downgrade': False}


@pytest.mark.parametrize('change, problems', [
    ({}, []),
    # A bare node: no driver, no user yet, the ids free.
    ({'installed_driver': '', 'installed_firmware': '', 'user': None, 'group': None, 'uid_owner': '', 'gid_owner': ''}, []),
    ({'chip': '', 'chips_found': []},
     ['npu_driver_chip: no Ascend NPU found on the PCI bus (vendor 0x19e5, device d500, d802 or d803), so the chip family is '
      'unknown. Set npu_driver_chip (910b, 910_93 or 310p) to install anyway']),
    ({'chip': '910', 'chips_found': ['910']},
     ['npu_driver_chip: 910 is not a chip family with an HDK this role installs (910b, 910_93, 310p); the PCI bus shows only '
      'unsupported NPUs (the first-generation Ascend 910 and the 310/310B need other software)']),
    ({'chip': '910c', 'chip_given': '910c'},
     ['npu_driver_chip: 910c is not a chip family with an HDK this role installs (910b, 910_93, 310p)',
      'npu_driver_chip: 910c is set, but the PCI bus shows 910b NPUs. Remove npu_driver_chip or correct it']),
    ({'chip_given': '310p', 'chip': '310p'},
     ['npu_driver_chip: 310p is set, but the PCI bus shows 910b NPUs. Remove npu_driver_chip or correct it']),
    ({'chips_found': ['910b', '310p']},
     ['npu_driver_chip: the PCI bus shows NPUs of several families (910b, 310p); one host takes one HDK. Serve each family '
      'from its own host']),
    ({'arch': 'riscv64'}, ['architecture riscv64 has no Ascend HDK (x86_64 and aarch64 do)']),
    ({'target': '', 'fw_target': '7.8.0.7.220'}, ['npu_driver_version is empty']),
    ({'target': '25.3.rc1', 'fw_target': ''},
     ['npu_driver_firmware_version: driver 25.3.rc1 is not in the HDK table of plugins/module_utils/stack.py, so its firmware '
      'is unknown. Set npu_driver_firmware_version to the firmware of the same HDK release (the version in its '
      '*-npu-firmware_<version>.run file name), or npu_driver_manage_firmware: false']),
    ({'target': '25.3.rc1', 'fw_target': '', 'manage_firmware': False}, []),
    ({'install_path': 'usr/local/Ascend'}, ['ascend_install_path must be an absolute path, got usr/local/Ascend']),
    ({'uid': 1001, 'uid_owner': ''},
     ['npu_driver_hwhiaiuser_uid: HwHiAiUser exists with uid 1000, not 1001. Set npu_driver_hwhiaiuser_uid: 1000 (this role '
      'never renumbers an existing user)']),
    ({'user': None, 'uid_owner': 'debian'},
     ['npu_driver_hwhiaiuser_uid: uid 1000 belongs to user debian. Set npu_driver_hwhiaiuser_uid to a free id (images built '
      'for HwHiAiUser expect 1000: map it when they run), or give debian another uid']),
    ({'gid': '1002'},
     ['npu_driver_hwhiaiuser_gid: group HwHiAiUser exists with gid 1000, not 1002. Set npu_driver_hwhiaiuser_gid: 1000 (this '
      'role never renumbers an existing group)']),
    ({'group': None, 'gid_owner': 'users'},
     ['npu_driver_hwhiaiuser_gid: gid 1000 belongs to group users. Set npu_driver_hwhiaiuser_gid to a free id, or give users '
      'another gid']),
    ({'installed_driver': '26.0.rc1', 'installed_firmware': '9.0.0.0.205'},
     ['npu_driver_firmware_version: firmware 9.0.0.0.205 is installed, newer than 7.8.0.7.220' + REFUSAL,
      'npu_driver_version: driver 26.0.rc1 is installed, newer than 25.5.2' + REFUSAL]),
    ({'installed_driver': '26.0.rc1', 'installed_firmware': '9.0.0.0.205', 'allow_downgrade': True}, []),
    # The same version, spelled otherwise, is no downgrade.
    ({'installed_driver': '25.5.2', 'installed_firmware': '7.8.0.7.220'}, []),
])
def test_request_problems(change, problems):
    request = dict(GOOD, **change)
    assert request_problems(request) == problems
    assert FILTERS['npu_driver_problems'](request) == problems


def _npu(**change):
    npu = {'present': True, 'chip_count': 8, 'driver_version': '25.5.1', 'npu_smi_version': '25.5.1',
           'firmware_version': '7.8.0.5.216', 'chips': [{'npu_id': i, 'health': 'OK'} for i in range(8)]}
    npu.update(change)
    return npu


VERIFIED = {'npu': _npu(), 'npu_smi_error': '', 'target': '25.5.1', 'fw_target': '7.8.0.5.216',
            'fw_running': ['7.8.0.5.216'], 'manage_firmware': True, 'expected_chips': None, 'pci_chips': 8, 'force': False}


@pytest.mark.parametrize('change, problems', [
    ({}, []),
    ({'npu': _npu(present=False, chip_count=0, chips=[]), 'pci_chips': 0,
      'npu_smi_error': 'npu-smi info: rc 1: dcmi module initialize failed. ret is -8005'},
     ['no NPU found', 'npu-smi fails: npu-smi info: rc 1: dcmi module initialize failed. ret is -8005']),
    ({'npu': _npu(npu_smi_version='24.1.rc3')}, ['driver 24.1.rc3 runs, not 25.5.1']),
    ({'npu': _npu(driver_version='', npu_smi_version='')},
     ['driver none is installed, not 25.5.1', 'driver none runs, not 25.5.1']),
    ({'npu': _npu(firmware_version='7.5.0.3.220'), 'fw_running': ['7.5.0.3.220', '7.8.0.5.216']},
     ['firmware 7.5.0.3.220 is installed, not 7.8.0.5.216',
      'the chips run firmware 7.5.0.3.220, 7.8.0.5.216, not 7.8.0.5.216']),
    ({'npu': _npu(firmware_version='7.5.0.3.220'), 'manage_firmware': False}, []),
    ({'npu': _npu(chip_count=7)}, ['npu-smi lists 7 chips, 8 expected (NPU functions on the PCI bus)']),
    ({'expected_chips': 16}, ['npu-smi lists 8 chips, 16 expected (npu_driver_expected_chip_count)']),
    ({'pci_chips': 0}, []),
    ({'npu': _npu(chips=[{'npu_id': 0, 'health': 'OK'}, {'npu_id': 3, 'health': 'Alarm'}])},
     ['unhealthy chips: 3 Alarm']),
    ({'npu': _npu(chips=[{'npu_id': 3, 'health': 'Alarm'}]), 'force': True}, []),
])
def test_verify_problems(change, problems):
    assert verify_problems(dict(VERIFIED, **change)) == problems


def test_verify_filter_refuses_a_state_without_npu_facts():
    with pytest.raises(AnsibleFilterError, match='expects a mapping with the npu facts'):
        FILTERS['npu_driver_verify_problems']({'target': '25.5.1'})


@pytest.mark.parametrize('args, reasons', [
    (('25.5.1', '25.5.1', '7.8.0.5.216', ['7.8.0.5.216']), []),
    (('', '', '', []), []),
    (('25.5.1', '24.1.rc3', '7.8.0.5.216', ['7.8.0.5.216']), ['driver 25.5.1 is installed, 24.1.rc3 runs']),
    (('25.5.1', '', '', []), ['driver 25.5.1 is installed, no driver runs']),
    (('25.5.1', '25.5.1', '7.8.0.5.216', ['7.5.0.3.220', '7.8.0.5.216']),
     ['firmware 7.8.0.5.216 is installed, 7.5.0.3.220, 7.8.0.5.216 runs']),
    (('25.5.1', '25.5.1', '7.8.0.5.216', [], True), ['firmware 7.8.0.5.216 was flashed by this run']),
    (('25.5.1', '25.5.1', '7.8.0.5.216', ['7.8.0.5.216'], True), []),
    (('25.5.1', '25.5.1', '7.8.0.5.216', []), []),
])
def test_reboot_reasons(args, reasons):
    assert reboot_reasons(*args) == reasons
    assert FILTERS['npu_driver_reboot_reasons'](*args) == reasons


def test_filters_are_registered():
    assert sorted(FILTERS) == ['npu_driver_problems', 'npu_driver_reboot_action', 'npu_driver_reboot_notice',
                               'npu_driver_reboot_reasons', 'npu_driver_verify_problems']


REASONS = ['driver 25.5.1 installed, 24.1.rc3 runs', 'firmware flashed by this run']


@pytest.mark.parametrize('check_mode, reboot_ok, on_required, notice', [
    (True, False, 'end_host',
     'Check mode: this run would leave n1 waiting for a reboot (driver 25.5.1 installed, 24.1.rc3 runs; firmware'
     ' flashed by this run).'),
    (False, False, 'end_host',
     'n1 needs a reboot before the new NPU software runs: driver 25.5.1 installed, 24.1.rc3 runs; firmware flashed by'
     ' this run. ascend_reboot_ok is false: reboot it yourself and run the play again, or run it with'
     ' ascend_reboot_ok=true. The rest of the play is skipped for this host.'),
    (False, 'yes', 'continue',
     'n1 needs a reboot before the new NPU software runs: driver 25.5.1 installed, 24.1.rc3 runs; firmware flashed by'
     ' this run. the play runs on the controller itself (local connection), which is never rebooted: reboot it'
     ' yourself and run the play again, or run it with ascend_reboot_ok=true. The play continues'
     ' (npu_driver_on_reboot_required: continue).'),
    (False, False, 'fail', 'n1 needs a reboot before the new NPU software runs: driver 25.5.1 installed, 24.1.rc3'
     ' runs; firmware flashed by this run. ascend_reboot_ok is false: reboot it yourself and run the play again, or run'
     ' it with ascend_reboot_ok=true. Failing the host (npu_driver_on_reboot_required: fail).'),
])
def test_reboot_notice(check_mode, reboot_ok, on_required, notice):
    assert FILTERS['npu_driver_reboot_notice'](REASONS, 'n1', check_mode, reboot_ok, on_required) == notice


def test_reboot_notice_refuses_an_unknown_policy():
    with pytest.raises(AnsibleFilterError, match='npu_driver_on_reboot_required must be one of continue, end_host, fail'):
        FILTERS['npu_driver_reboot_notice'](REASONS, 'n1', False, False, 'later')


@pytest.mark.parametrize('reasons, reboot_ok, connection, host, check_mode, action', [
    (REASONS, True, 'ssh', 'n1', False, 'reboot'),
    (REASONS, 'true', '', 'n1', 'no', 'reboot'),
    ([], True, 'ssh', 'n1', False, 'none'),
    ([], False, 'local', 'localhost', True, 'none'),
    (REASONS, False, 'ssh', 'n1', False, 'report'),
    (REASONS, True, 'ssh', 'n1', True, 'report'),
    # The controller itself is never rebooted: a local connection, or a loopback name.
    (REASONS, True, 'local', 'n1', False, 'report'),
    (REASONS, True, 'ansible.builtin.local', 'n1', False, 'report'),
    (REASONS, True, 'ssh', 'localhost', False, 'report'),
    (REASONS, True, 'ssh', '127.0.0.1', False, 'report'),
    (REASONS, True, 'ssh', '::1', False, 'report'),
    (REASONS, True, 'containers.podman.podman', 'node-1', False, 'reboot'),
])
def test_reboot_action(reasons, reboot_ok, connection, host, check_mode, action):
    assert FILTERS['npu_driver_reboot_action'](reasons, reboot_ok, connection, host, check_mode) == action


def test_reboot_action_refuses_reasons_that_are_not_a_list():
    with pytest.raises(AnsibleFilterError, match='npu_driver_reboot_action expects the list of reasons, got str'):
        FILTERS['npu_driver_reboot_action']('driver installed', True, 'ssh', 'n1', False)
