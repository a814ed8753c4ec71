# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The cann role's decisions before any change (pure functions): which chip family's operator
packages a node takes, and every problem of the request at once. No Ansible imports.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.ascend.vllm.plugins.module_utils.stack import (
    OPS_RENAME_CANN,
    PACKAGE_CHIPS,
    chip_family,
    compare_versions,
)

ARCHS = ('x86_64', 'aarch64')
_FAMILIES_TEXT = ', '.join(PACKAGE_CHIPS[:-1]) + ' or ' + PACKAGE_CHIPS[-1]


def _known(family):
    return family if family in PACKAGE_CHIPS else ''


def chip_choice(soc, pci_family, wanted=''):
    """``{chip, read, families}``: the family the packages are for (``wanted``, else the one the SoC
    name gives, else the PCI device id's - which names it before any driver runs), the family read
    from the node, and the families with operator packages. npu-smi's bare ``Ascend910`` chip name
    on A3 reads as the original 910, so only the SoC name (``ascend910_93xx``) counts."""
    read = _known(chip_family(soc or '')) or _known(pci_family or '')
    return {'chip': wanted or read, 'read': read, 'families': list(PACKAGE_CHIPS)}


def python_requirements(cann):
    """What CANN's Python side (te, tbe, the operator compilers) needs in the service's virtualenv:
    the list the vllm-ascend installation guide of each release pip-installs before CANN; the CANN
    8.x guides pin numpy below 2. Without a version (none yet), the unpinned list."""
    numpy = 'numpy<2.0.0' if cann and compare_versions(str(cann), '9.0.0') < 0 else 'numpy'
    return ['attrs', numpy, 'decorator', 'sympy', 'cffi', 'pyyaml', 'pathlib2', 'psutil', 'protobuf', 'scipy',
            'requests', 'absl-py', 'wheel', 'typing_extensions']


def ops_kind(cann, stack_ok=True):
    """``kernels`` up to CANN 8.3, ``ops`` from 8.5.0 (the vendor renamed the package)."""
    return 'kernels' if stack_ok and compare_versions(cann, OPS_RENAME_CANN) < 0 else 'ops'


def request_problems(request):
    """Every problem of a cann request, each naming the variable and the fix.

    ``request``: ``stack_problem``, ``cann_chip`` (what the inventory set), ``chip`` / ``chip_read``
    (chip_choice), ``soc`` (the SoC npu-smi names, '' when none), ``npu_error`` (npu_facts'
    npu_smi_error), ``chip_support`` (stack_chip_support), ``target``, ``toolkit_before`` (the
    toolkit's ascend_package plan: ``action``, ``previous_version``), ``names`` (the package names),
    ``nnal``, ``arch``, ``install_path``, ``env_file``, ``profile_script``.
    """
    r = request
    problems = []
    if r.get('stack_problem'):
        problems.append(r['stack_problem'])
    wanted = r.get('cann_chip') or ''
    soc = r.get('soc') or ''
    if not wanted and not r.get('chip'):
        if not soc:
            error = r.get('npu_error') or ''
            problems.append('cann_chip: npu-smi does not name the SoC of the NPUs%s, so the chip family is unknown. '
                            'Install the NPU driver first (the npu_driver role), or set cann_chip (%s)'
                            % (' (%s)' % error if error else '', _FAMILIES_TEXT))
        else:
            problems.append('cann_chip: the NPUs are %s, a chip without CANN operator packages for vLLM (%s). '
                            'Set cann_chip only if that reading is wrong' % (soc, ', '.join(PACKAGE_CHIPS)))
    if wanted and wanted not in PACKAGE_CHIPS:
        problems.append('cann_chip: %s is not a chip family with CANN operator packages (%s)' % (wanted, ', '.join(PACKAGE_CHIPS)))
    read = r.get('chip_read') or ''
    if wanted and read and wanted != read:
        seen = '%s (%s)' % (soc, read) if soc else '%s by their PCI device id' % read
        problems.append('cann_chip: %s is set, but the NPUs are %s. Remove cann_chip or correct it' % (wanted, seen))
    support = r.get('chip_support') or {}
    if support.get('level') in ('unsupported', 'unknown'):
        problems.append('cann_version %s on %s: %s. Set ascend_stack_release to a release that supports it, or cann_chip '
                        'if the chip is misread' % (r.get('target'), r.get('chip'), support.get('message')))
    before = r.get('toolkit_before') or {}
    if before.get('action') == 'refuse':
        names = r.get('names') or {}
        needs = names.get('ops', '') + (' and ' + names.get('nnal', '') if r.get('nnal') else '')
        problems.append('cann_version: CANN toolkit %s is installed, newer than %s: refusing to downgrade (%s need the '
                        'toolkit of their own version). Set cann_allow_downgrade: true to install %s beside it, or ask '
                        'for %s or newer' % (before.get('previous_version'), r.get('target'), needs, r.get('target'),
                                             before.get('previous_version')))
    if r.get('arch') not in ARCHS:
        problems.append('architecture %s has no CANN packages (x86_64 and aarch64 do)' % r.get('arch'))
    for name in ('install_path', 'env_file'):
        value = str(r.get(name) or '')
        if not value.startswith('/'):
            variable = 'ascend_install_path' if name == 'install_path' else 'cann_env_file'
            problems.append('%s must be an absolute path, got %s' % (variable, value))
    script = str(r.get('profile_script') or '')
    if not (script.startswith('/') and re.match(r'.*\.sh$', script)):
        problems.append('cann_profile_script must be an absolute path ending in .sh (profile.d reads only those), got %s'
                        % script)
    return problems


def _packages(state):
    """(kind, read) pairs: ``kinds`` names the package of each read in ``packages``."""
    return list(zip(state.get('kinds') or [], state.get('packages') or []))


def _nnal_missing(state):
    """NNAL is wanted but its set_env.sh or its version is not there."""
    if not state.get('nnal_wanted'):
        return False
    nnal = [read for kind, read in _packages(state) if kind == 'nnal']
    return not state.get('nnal_script_exists') or not nnal or nnal[0].get('previous_version') is None


def _version_failures(state, nnal_missing):
    """One text per package read at another version than the target (a missing NNAL is said once, below)."""
    target = state.get('target')
    failures = []
    for kind, read in _packages(state):
        previous = read.get('previous_version')
        if kind == 'nnal' and nnal_missing:
            continue
        if previous is None or compare_versions(previous, target) != 0:
            where = read.get('version_file') or 'no version file'
            failures.append('%s %s is installed, not %s (%s)' % (kind, previous or 'none', target, where))
    return failures


def verify_problems(state):
    """What is wrong with CANN after the work (empty: verified).

    ``state``: ``target`` (cann_version), ``packages`` (ascend.vllm.ascend_package's read of each
    package: ``previous_version``, None when not installed, and ``version_file``), ``kinds`` (the
    package of each read: toolkit, ops or kernels, nnal), ``nnal_wanted``
    (cann_nnal), ``nnal_script_exists`` (NNAL's set_env.sh), ``nnal_dir``, ``nnal_package`` (its
    file name), ``env_file``, ``env_exists``, ``env_home`` (ASCEND_TOOLKIT_HOME as the file sets
    it), ``libatb`` (the libatb.so paths its LD_LIBRARY_PATH finds), ``env_current`` (the file is
    what the install's scripts set now; None: nothing to compare, as on a first install) and
    ``env_scripts``.
    """
    env_file = state.get('env_file') or ''
    exists = bool(state.get('env_exists'))
    nnal_missing = _nnal_missing(state)
    problems = _version_failures(state, nnal_missing)
    if nnal_missing:
        problems.append('NNAL is not installed under %s: vllm-ascend cannot load without libatb.so. Run the cann role with '
                        'cann_nnal: true to install %s' % (state.get('nnal_dir'), state.get('nnal_package')))
    if not exists:
        problems.append('%s is missing' % env_file)
    elif not str(state.get('env_home') or '').strip():
        problems.append('%s does not set ASCEND_TOOLKIT_HOME' % env_file)
    if exists and state.get('nnal_wanted') and not nnal_missing and not state.get('libatb'):
        problems.append('%s puts no libatb.so on LD_LIBRARY_PATH' % env_file)
    if exists and not nnal_missing and state.get('env_current') is False:
        problems.append('%s is out of date: it is not what %s set now. Run the cann role again to render it'
                        % (env_file, ' and '.join(state.get('env_scripts') or [])))
    return problems
