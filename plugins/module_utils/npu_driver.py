# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The npu_driver role's checks before any change (pure functions): every problem of a request
at once, each naming the variable and the fix. No Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ascend.vllm.plugins.module_utils.stack import compare_versions

_REFUSAL = ': refusing to downgrade. Set npu_driver_allow_downgrade: true to replace it, or ask for that version or newer'


def _int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _newer(installed, target):
    """An installed version newer than the target (a downgrade); nothing to compare counts as no."""
    return bool(installed) and bool(target) and compare_versions(installed, target) > 0


def _chip_problems(r):
    chip = r.get('chip') or ''
    given = r.get('chip_given') or ''
    found = list(r.get('chips_found') or [])
    families = list(r['hdk']['chips'])
    problems = []
    if chip not in families:
        if not chip:
            problems.append('npu_driver_chip: no Ascend NPU found on the PCI bus (vendor 0x19e5, device d500, d802 or d803), '
                            'so the chip family is unknown. Set npu_driver_chip (910b, 910_93 or 310p) to install anyway')
        else:
            problems.append('npu_driver_chip: %s is not a chip family with an HDK this role installs (910b, 910_93, 310p)%s'
                            % (chip, '' if given else '; the PCI bus shows only unsupported NPUs (the first-generation '
                                                      'Ascend 910 and the 310/310B need other software)'))
    if given and found and given not in found:
        problems.append('npu_driver_chip: %s is set, but the PCI bus shows %s NPUs. Remove npu_driver_chip or correct it'
                        % (given, ', '.join(found)))
    if len(found) > 1:
        problems.append('npu_driver_chip: the PCI bus shows NPUs of several families (%s); one host takes one HDK. Serve '
                        'each family from its own host' % ', '.join(found))
    return problems


# The HwHiAiUser account: an existing user or group keeps its id, an id held by another is refused.
_ACCOUNT = {
    'user': ('uid', 'HwHiAiUser exists with uid', 'this role never renumbers an existing user',
             'belongs to user', 'Set npu_driver_hwhiaiuser_uid to a free id (images built for HwHiAiUser expect 1000: map '
                                'it when they run), or give %s another uid'),
    'group': ('gid', 'group HwHiAiUser exists with gid', 'this role never renumbers an existing group',
              'belongs to group', 'Set npu_driver_hwhiaiuser_gid to a free id, or give %s another gid'),
}


def _account_problems(r):
    problems = []
    for kind in ('user', 'group'):
        key, exists, never, belongs, fix = _ACCOUNT[kind]
        variable = 'npu_driver_hwhiaiuser_' + key
        entry, wanted, owner = r.get(kind), r.get(key), r.get(key + '_owner')
        if entry:
            have = entry[1] if len(entry) > 1 else ''
            if _int(have) != _int(wanted):
                problems.append('%s: %s %s, not %s. Set %s: %s (%s)' % (variable, exists, have, wanted, variable, have, never))
        elif owner:
            problems.append('%s: %s %s %s %s. %s' % (variable, key, wanted, belongs, owner, fix % owner))
    return problems


def request_problems(request):
    """Every problem of an npu_driver request.

    ``request``: ``chip`` (the family to install), ``chip_given`` (npu_driver_chip), ``chips_found``
    (families on the PCI bus), ``hdk`` (stack.hdk_packages: ``chips``, ``archs``), ``arch``, ``target``,
    ``fw_target`` ('' when the firmware is unknown or not managed), ``manage_firmware``,
    ``install_path``, ``user`` / ``group`` (getent entries of HwHiAiUser or null), ``uid`` / ``gid``
    (asked for), ``uid_owner`` / ``gid_owner`` (who holds them), ``installed_driver``,
    ``installed_firmware``, ``allow_downgrade``.
    """
    r = request
    target = r.get('target') or ''
    fw_target = r.get('fw_target') or ''
    problems = _chip_problems(r)
    if r.get('arch') not in r['hdk']['archs']:
        problems.append('architecture %s has no Ascend HDK (x86_64 and aarch64 do)' % r.get('arch'))
    if not target:
        problems.append('npu_driver_version is empty')
    if r.get('manage_firmware') and not fw_target:
        problems.append('npu_driver_firmware_version: driver %s is not in the HDK table of plugins/module_utils/stack.py, so '
                        'its firmware is unknown. Set npu_driver_firmware_version to the firmware of the same HDK release '
                        '(the version in its *-npu-firmware_<version>.run file name), or npu_driver_manage_firmware: false'
                        % target)
    if not str(r.get('install_path') or '').startswith('/'):
        problems.append('ascend_install_path must be an absolute path, got %s' % r.get('install_path'))
    problems.extend(_account_problems(r))
    # A downgrade is refused here already, before any package is transferred (the plan refuses it too).
    if not r.get('allow_downgrade'):
        if _newer(r.get('installed_firmware'), fw_target):
            problems.append('npu_driver_firmware_version: firmware %s is installed, newer than %s%s'
                            % (r['installed_firmware'], fw_target, _REFUSAL))
        if _newer(r.get('installed_driver'), target):
            problems.append('npu_driver_version: driver %s is installed, newer than %s%s'
                            % (r['installed_driver'], target, _REFUSAL))
    return problems


def _same(installed, target):
    return bool(installed) and bool(target) and compare_versions(installed, target) == 0


def verify_problems(state):
    """What is wrong with the NPUs after the work (empty: verified).

    ``state``: ``npu`` (npu_facts: ``present``, ``chips`` with ``npu_id``/``health``, ``chip_count``,
    ``driver_version``, ``npu_smi_version``, ``firmware_version``), ``npu_smi_error`` (text or
    empty), ``target``, ``fw_target``, ``fw_running`` (the firmware versions the chips report),
    ``manage_firmware``, ``expected_chips`` (npu_driver_expected_chip_count, None: the NPU
    functions on the PCI bus), ``pci_chips``, ``force`` (npu_driver_force: unhealthy chips pass).
    """
    npu = state.get('npu') or {}
    target = state.get('target') or ''
    fw_target = state.get('fw_target') or ''
    installed = npu.get('driver_version') or ''
    running = npu.get('npu_smi_version') or ''
    fw_installed = npu.get('firmware_version') or ''
    fw_running = list(state.get('fw_running') or [])
    manage_firmware = bool(state.get('manage_firmware'))
    problems = []
    if not npu.get('present'):
        problems.append('no NPU found')
    if state.get('npu_smi_error'):
        problems.append('npu-smi fails: %s' % state['npu_smi_error'])
    if not _same(installed, target):
        problems.append('driver %s is installed, not %s' % (installed or 'none', target))
    if not _same(running, target):
        problems.append('driver %s runs, not %s' % (running or 'none', target))
    if manage_firmware and fw_installed != fw_target:
        problems.append('firmware %s is installed, not %s' % (fw_installed or 'none', fw_target))
    if manage_firmware and fw_running and fw_running != [fw_target]:
        problems.append('the chips run firmware %s, not %s' % (', '.join(fw_running), fw_target))
    expected = state.get('expected_chips')
    pci_chips = _int(state.get('pci_chips'))
    wanted = pci_chips if expected is None else _int(expected)
    # Without an expected count and without NPU functions on the bus there is nothing to count against.
    if _int(npu.get('chip_count')) != wanted and not (expected is None and pci_chips == 0):
        problems.append('npu-smi lists %s chips, %s expected (%s)' % (
            _int(npu.get('chip_count')), wanted,
            'npu_driver_expected_chip_count' if expected is not None else 'NPU functions on the PCI bus'))
    sick = [chip for chip in npu.get('chips') or [] if chip.get('health') != 'OK']
    if sick and not state.get('force'):
        problems.append('unhealthy chips: %s'
                        % ', '.join('%s %s' % (chip.get('npu_id'), chip.get('health')) for chip in sick))
    return problems


def reboot_reasons(installed, running, fw_installed, fw_running, fw_flashed=False):
    """Why the node needs a reboot before the NPUs run what is installed (empty: they do).

    ``installed`` / ``running``: the driver version of the install info and the one npu-smi talks to
    ('' for none); ``fw_installed``: the firmware version of the install info; ``fw_running``: the
    versions upgrade-tool reads from the chips ([] when it could not read them); ``fw_flashed``: this
    run flashed firmware (which the chips take at the next boot).
    """
    fw_running = list(fw_running or [])
    reasons = []
    if installed and (not running or compare_versions(running, installed) != 0):
        reasons.append('driver %s is installed, %s runs' % (installed, running or 'no driver'))
    if fw_installed and fw_running and fw_running != [fw_installed]:
        reasons.append('firmware %s is installed, %s runs' % (fw_installed, ', '.join(fw_running)))
    elif fw_flashed and not fw_running:
        reasons.append('firmware %s was flashed by this run' % fw_installed)
    return reasons


LOCAL_CONNECTIONS = ('local', 'ansible.builtin.local')
LOCAL_HOSTS = ('localhost', '127.0.0.1', '::1')


def reboot_action(reasons, reboot_ok, connection, host, check_mode):
    """The reboot policy of the roles that install or remove the NPU software (npu_driver,
    decommission): 'reboot' the node now, 'report' that it needs one, or 'none'.

    A node is rebooted only when there are ``reasons``, ``reboot_ok`` (ascend_reboot_ok) is true,
    the run is not in ``check_mode``, and the play does not run on the controller itself (a local
    ``connection`` or a loopback ``host`` name): the controller is never rebooted.
    """
    if not reasons:
        return 'none'
    local = connection in LOCAL_CONNECTIONS or host in LOCAL_HOSTS
    return 'reboot' if reboot_ok and not local and not check_mode else 'report'


_ON_REBOOT_REQUIRED = {
    'end_host': 'The rest of the play is skipped for this host.',
    'continue': 'The play continues (npu_driver_on_reboot_required: continue).',
    'fail': 'Failing the host (npu_driver_on_reboot_required: fail).',
}


def reboot_notice(host, reasons, check_mode, reboot_ok, on_required):
    """What the play says about a reboot it did not do.

    ``reasons``: why the node needs one; ``check_mode``: the run changed nothing, so it only
    would need one; ``reboot_ok``: ascend_reboot_ok (when it is true and still no reboot
    happened, the play runs on the controller itself, which is never rebooted);
    ``on_required``: npu_driver_on_reboot_required.
    """
    because = '; '.join(reasons)
    if check_mode:
        return 'Check mode: this run would leave %s waiting for a reboot (%s).' % (host, because)
    if on_required not in _ON_REBOOT_REQUIRED:
        raise ValueError('npu_driver_on_reboot_required must be one of %s, got %r'
                         % (', '.join(sorted(_ON_REBOOT_REQUIRED)), on_required))
    why = ('the play runs on the controller itself (local connection), which is never rebooted'
           if reboot_ok else 'ascend_reboot_ok is false')
    return ('%s needs a reboot before the new NPU software runs: %s. %s: reboot it yourself and run the play again, '
            'or run it with ascend_reboot_ok=true. %s' % (host, because, why, _ON_REBOOT_REQUIRED[on_required]))
