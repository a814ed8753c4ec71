# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Pure helpers of the ``ascend_package`` module: Ascend ``.run`` package names, installed
versions, the install/upgrade/refuse decision, installer arguments and results.

Nothing here imports Ansible or touches the host: files are read through a ``read(path)``
callable (text or None) that the module supplies, so the unit tests exercise every rule
directly. Python 3.8+ (and 2.7-clean syntax for ansible-test).

Package kinds and what their installers accept (vendor packages 24.x-26.x, CANN 8.x/9.x):

========  ===========================  ===========================================
kind      install / upgrade scene       other options used here
========  ===========================  ===========================================
driver    ``--full`` / ``--upgrade``    ``--install-for-all``, ``--install-path=``
                                        (not with ``--upgrade``), ``--force``,
                                        ``--install-username=/--install-usergroup=``
                                        (not with ``--upgrade``)
firmware  ``--full`` / ``--upgrade``    ``--install-path=``
toolkit   ``--install`` / ``--upgrade`` ``--install-for-all``, ``--install-path=``
kernels   ``--install`` / ``--upgrade`` same
ops       ``--install`` / ``--upgrade`` same (``--full`` prints the usage and exits 0)
nnal      ``--install`` / ``--upgrade`` same
========  ===========================  ===========================================

``--check``, ``--version`` and ``--uninstall`` of the HDK packages refuse any other option,
``--quiet`` included.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import posixpath
import re

from ansible_collections.ascend.vllm.plugins.module_utils.stack import StackError, compare_versions, same_version

KINDS = ('driver', 'firmware', 'toolkit', 'kernels', 'ops', 'nnal')
HDK_KINDS = ('driver', 'firmware')
CANN_KINDS = ('toolkit', 'kernels', 'ops', 'nnal')

ACTIONS = ('none', 'install', 'upgrade', 'downgrade', 'repair', 'uninstall', 'refuse')

INSTALL_INFO = '/etc/ascend_install.info'
SECLOG_DIR = '/var/log/ascend_seclog'
INSTALL_LOG = SECLOG_DIR + '/ascend_install.log'
OPERATION_LOG = SECLOG_DIR + '/operation.log'
# Logs the installers write, per kind (the HDK scripts only use ascend_install.log).
INSTALLER_LOGS = {
    'driver': INSTALL_LOG,
    'firmware': INSTALL_LOG,
    'toolkit': SECLOG_DIR + '/ascend_toolkit_install.log',
    'kernels': SECLOG_DIR + '/ascend_kernels_install.log',
    'ops': SECLOG_DIR + '/ascend_ops_install.log',
    'nnal': SECLOG_DIR + '/ascend_nnal_install.log',
}

_ARCH = r'(?P<arch>aarch64|x86-64|x86_64)'
_VERSION = r'(?P<version>[0-9][0-9A-Za-z.\-]*?)'
# Chip spellings in file names: 910b, 910_93, 310p, 910 (A3 packages say "Atlas-A3").
_CHIP = r'(?P<chip>[0-9]+[a-z]*(?:_[0-9]+)?)'
PACKAGE_PATTERNS = (
    ('driver', re.compile(r'^Ascend-hdk-%s-npu-driver_%s_linux-%s\.run$' % (_CHIP, _VERSION, _ARCH))),
    ('driver', re.compile(r'^Atlas-(?P<chip>A3)-hdk-npu-driver_%s_linux-%s\.run$' % (_VERSION, _ARCH))),
    ('firmware', re.compile(r'^Ascend-hdk-%s-npu-firmware_%s\.run$' % (_CHIP, _VERSION))),
    ('firmware', re.compile(r'^Atlas-(?P<chip>A3)-hdk-npu-firmware_%s\.run$' % _VERSION)),
    ('toolkit', re.compile(r'^Ascend-cann-toolkit_%s_linux-%s\.run$' % (_VERSION, _ARCH))),
    ('kernels', re.compile(r'^Ascend-cann-kernels-%s_%s_linux-%s\.run$' % (_CHIP, _VERSION, _ARCH))),
    ('kernels', re.compile(r'^Atlas-(?P<chip>A3)-cann-kernels_%s_linux-%s\.run$' % (_VERSION, _ARCH))),
    ('ops', re.compile(r'^Ascend-cann-(?P<chip>[0-9A-Za-z_]+)-ops_%s_linux-%s\.run$' % (_VERSION, _ARCH))),
    ('nnal', re.compile(r'^Ascend-cann-nnal_%s_linux-%s\.run$' % (_VERSION, _ARCH))),
)
_CHIP_NAMES = {'a3': '910_93'}
_ANSI = re.compile(r'\x1b\[[0-9;]*[A-Za-z]')


class PackageError(ValueError):
    """A package, an installed state or a request that cannot be handled; the text is the
    whole message for the operator."""


# ---------------------------------------------------------------------------------------------
# File names

def parse_package_name(name):
    """``{kind, version, chip, arch}`` of a vendor file name, or None when it is not one.

    ``arch`` is ``aarch64``/``x86_64`` (the HDK spelling ``x86-64`` is normalised) or None for
    firmware; ``chip`` is the family (``910b``, ``910_93``, ``310p``) or None for packages
    shared by every chip (toolkit, NNAL).
    """
    base = (name or '').rsplit('/', 1)[-1]
    for kind, pattern in PACKAGE_PATTERNS:
        match = pattern.match(base)
        if not match:
            continue
        groups = match.groupdict()
        chip = groups.get('chip')
        if chip is not None:
            chip = _CHIP_NAMES.get(chip.lower(), chip.lower())
        arch = groups.get('arch')
        if arch is not None:
            arch = arch.replace('-', '_')
        return {'kind': kind, 'version': groups['version'], 'chip': chip, 'arch': arch}
    return None


# ---------------------------------------------------------------------------------------------
# version.info and install.info

def parse_kv(text):
    """``key=value`` lines (version.info, ascend_install.info) into a dict.

    Blank lines, comments and lines without ``=`` are skipped; values are stripped of
    whitespace and of one pair of surrounding double quotes. The last occurrence wins.
    """
    values = {}
    for line in (text or '').splitlines():
        line = line.strip()
        if not line or line.startswith('#') or '=' not in line:
            continue
        key, value = line.split('=', 1)
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        values[key.strip()] = value
    return values


def parse_colon_info(text):
    """``Key : value`` lines into a dict: NNAL's ``nnal/atb/<version>/version.info``.

    The real file (written by ATB's scripts/release.sh, hicann/ascend-transformer-boost, the same
    on the 8.2.RC1 ... 9.1.0 release branches) has no ``key=value`` line::

            Ascend-cann-atb : 9.1.0
            Ascend-cann-atb Version : 9.1.0.B150
            Platform : aarch64
            branch : br_release_cann_9.1.0_20261223
            commit id : 15b2c00c...

    Lines are indented by four spaces in the packages and often pasted without; both are read.
    Keys keep their case and inner spaces; the first ``:`` splits; the last occurrence wins.
    """
    values = {}
    for line in (text or '').lstrip('\ufeff').splitlines():
        key, sep, value = line.strip().partition(':')
        if sep and key.strip():
            values[key.strip()] = value.strip()
    return values


def info_version(info, keys=('Version', 'version')):
    """The first non-empty value of ``keys`` in a parsed info file, or None."""
    for key in keys:
        value = (info or {}).get(key)
        if value:
            return value
    return None


def installed_state(kind, install_path, read, arch=None, install_info=INSTALL_INFO):
    """What is installed of ``kind`` under ``install_path``.

    ``read(path)`` returns a file's text or None. Returns a dict:
    ``version`` (None when nothing complete is installed), ``incomplete`` (an interrupted
    install left files or a recorded path without a finished version), ``path`` (the install
    path the package is recorded under), ``version_file`` (the file the version came from),
    ``info`` (that file parsed) and ``note`` (why an install counts as incomplete).
    """
    if kind not in KINDS:
        raise PackageError('unknown package kind %r; known kinds: %s' % (kind, ', '.join(KINDS)))
    base = install_path.rstrip('/') or '/'
    result = {'kind': kind, 'version': None, 'incomplete': False, 'path': base, 'version_file': None,
              'info': {}, 'note': None}
    if kind in HDK_KINDS:
        record = parse_kv(read(install_info))
        prefix = 'Driver' if kind == 'driver' else 'Firmware'
        recorded = record.get('%s_Install_Path_Param' % prefix)
        if recorded:
            result['path'] = recorded.rstrip('/') or '/'
        version_file = '%s/%s/version.info' % (result['path'].rstrip('/'), kind)
        text = read(version_file)
        result['version_file'] = version_file
        if text is not None:
            result['info'] = parse_kv(text)
            result['version'] = info_version(result['info'])
        if recorded and result['version'] is None:
            result['incomplete'] = True
            result['note'] = ('%s records %s_Install_Path_Param=%s but %s holds no version'
                              % (install_info, prefix, recorded, version_file))
        elif kind == 'driver' and recorded and record.get('Driver_Install_Status') != 'complete':
            result['incomplete'] = True
            result['note'] = ('%s has no Driver_Install_Status=complete: the last driver install did not finish'
                              % install_info)
        if result['incomplete']:
            result['version'] = None
        return result
    if kind == 'toolkit':
        if not arch:
            raise PackageError('the CPU architecture is needed to find the installed CANN toolkit')
        version_file = '%s/ascend-toolkit/latest/%s-linux/ascend_toolkit_install.info' % (base.rstrip('/'), arch)
        keys = ('version',)
    elif kind == 'kernels':
        # <= 8.3: version_dir= carries the release (8.2.RC1), Version= the inner build (8.2.0.0.201).
        version_file = '%s/ascend-toolkit/latest/opp_kernel/version.info' % base.rstrip('/')
        keys = ('version_dir', 'Version')
    elif kind == 'ops':
        if not arch:
            raise PackageError('the CPU architecture is needed to find the installed CANN ops package')
        # >= 8.5: the package's own record beside the toolkit's (hicann/ops-math quick_install.md:
        # cann/<arch>-linux/ascend_ops_install.info, version= the release). The per-library
        # share/info/ops_*/version.info files say version_dir=cann, not a version.
        version_file = '%s/cann/%s-linux/ascend_ops_install.info' % (base.rstrip('/'), arch)
        keys = ('version',)
    else:
        # NNAL: ``Ascend-cann-atb : <release>`` (the release, e.g. 9.1.0; ``... Version :`` is the
        # build, 9.1.0.B150) in the version.info of the version ``latest`` points at.
        version_file = '%s/nnal/atb/latest/version.info' % base.rstrip('/')
        text = read(version_file)
        result['version_file'] = version_file
        if text is not None:
            result['info'] = parse_colon_info(text)
            # The key as ATB writes it; any spelling of its case is taken.
            lowered = dict((key.lower(), value) for key, value in result['info'].items())
            result['version'] = lowered.get('ascend-cann-atb') or None
        return result
    text = read(version_file)
    result['version_file'] = version_file
    if text is not None:
        result['info'] = parse_kv(text)
        result['version'] = info_version(result['info'], keys)
    return result


# ---------------------------------------------------------------------------------------------
# Versions

def compare(left, right):
    """Ascend version order (see module_utils.stack); PackageError for unreadable versions."""
    try:
        return compare_versions(left, right)
    except StackError as exc:
        raise PackageError(str(exc))


def parse_ranges(text):
    """``[7.0.0,7.5.99],[24.1,24.1.]`` -> ``[('7.0.0', '7.5.99'), ('24.1', '24.1.')]``."""
    return [(low.strip(), high.strip()) for low, high in re.findall(r'\[([^,\]]*),([^\]]*)\]', text or '')]


def version_in_ranges(version, text):
    """Whether ``version`` is inside a ``compatible_version_fw`` / ``compatible_version_drv`` list.

    Bounds are inclusive. An upper bound ending in a dot (``[24.1,24.1.]``) means every
    release of that line: 24.1, 24.1.rc3, 24.1.0.1 ... A list without ranges admits nothing.
    """
    for low, high in parse_ranges(text):
        if high.endswith('.'):
            prefix = high[:-1]
            if version == prefix or version.lower().startswith(high.lower()):
                return True
            continue
        try:
            if (not low or compare(version, low) >= 0) and (not high or compare(version, high) <= 0):
                return True
        except PackageError:
            continue
    return False


COMPANION = {
    # kind: (key in the package's version.info, what the companion is)
    'driver': ('compatible_version_fw', 'firmware'),
    'firmware': ('compatible_version_drv', 'driver'),
}


def check_companion(kind, version, info, companion):
    """None when the HDK half ``kind`` ``version`` (version.info ``info``) admits the other half
    ``companion``; otherwise the message that refuses the pair."""
    key, other = COMPANION[kind]
    ranges = (info or {}).get(key)
    if not ranges:
        return None
    if version_in_ranges(companion, ranges):
        return None
    return ('%s %s admits %s versions %s (%s in its version.info); %s %s is outside that range. '
            'Pick the %s of the same HDK release as the %s'
            % (kind, version, other, ranges, key, other, companion, other, kind))


# ---------------------------------------------------------------------------------------------
# Decision

def decide(state, installed, package_version, allow_downgrade=False):
    """``(action, reason)`` for bringing ``installed`` (see installed_state) to the package.

    action: ``none``, ``install`` (nothing installed), ``repair`` (an interrupted install is
    replaced), ``upgrade``, ``downgrade`` (only with ``allow_downgrade``), ``uninstall`` or
    ``refuse`` (a newer version is installed and downgrades are not allowed).
    ``state`` is ``present`` (exactly this version), ``latest`` (this version or newer) or
    ``absent``.
    """
    current = installed.get('version')
    incomplete = installed.get('incomplete')
    if state == 'absent':
        if current or incomplete:
            return 'uninstall', 'installed: %s' % (current or 'an unfinished install')
        return 'none', 'not installed'
    if incomplete:
        return 'repair', installed.get('note') or 'an unfinished install is replaced'
    if not current:
        return 'install', 'not installed'
    order = compare(package_version, current)
    if order == 0:
        return 'none', '%s is installed' % current
    if order > 0:
        return 'upgrade', '%s is installed, the package is newer' % current
    if state == 'latest':
        return 'none', '%s is installed, newer than the package' % current
    if allow_downgrade:
        return 'downgrade', '%s is installed, the package is older and downgrades are allowed' % current
    return 'refuse', ('%s %s is installed, newer than the package (%s): refusing to downgrade. Set '
                      'allow_downgrade=true to replace it, or use a package of %s or newer'
                      % (installed.get('kind') or 'a version', current, package_version, current))


def uninstall_script(kind, installed):
    """The vendor's own uninstall script of an installed package, or None where none is documented.

    ``<p>/driver/script/uninstall.sh`` and ``<p>/firmware/script/uninstall.sh`` (hiascend.com, the
    Atlas 300V guide's "software uninstall", 300V_0067: driver first, then firmware, after every
    other package). CANN (the CANN 8.0.0 install guide's "Uninstalling the CANN", instg_0031, and
    6.3.RC1's instg_000083): ``<p>/ascend-toolkit/<version>/<arch>-linux/script/uninstall.sh``,
    ``<p>/ascend-toolkit/<version>/opp_kernel/script/uninstall.sh`` (kernels) and
    ``<p>/nnal/atb/<version>/scripts/uninstall.sh`` (NNAL), each reached through ``latest``, the
    directory of the package's install record. None found for the operators package of CANN 8.5+.
    Both guides name ``<package>.run --uninstall`` as the other way.
    """
    if kind in HDK_KINDS:
        return '%s/%s/script/uninstall.sh' % (installed['path'].rstrip('/'), kind)
    record = installed.get('version_file')
    if not record:
        return None
    if kind in ('toolkit', 'kernels'):
        return posixpath.dirname(record) + '/script/uninstall.sh'
    if kind == 'nnal':
        return posixpath.dirname(record) + '/scripts/uninstall.sh'
    return None


def choose_uninstaller(kind, installed, names, directory, arch=None):
    """How to uninstall ``installed`` when ``path`` is a directory of packages (the node's cache).

    ``names``: the file names in ``directory``. Returns ``('package', <file>)`` - the ``.run`` of
    this kind and of the installed version (and of ``arch`` when the name carries one) - else
    ``('script', <path>)`` - the package's own documented uninstall script (uninstall_script).
    Raises PackageError when neither exists for this kind.
    """
    version = installed.get('version')
    if version:
        for name in sorted(names):
            parsed = parse_package_name(name)
            if not parsed or parsed['kind'] != kind or not same_version(parsed['version'], version):
                continue
            if arch and parsed['arch'] and parsed['arch'] != arch:
                continue
            return 'package', '%s/%s' % (directory.rstrip('/'), name)
    script = uninstall_script(kind, installed)
    if script:
        return 'script', script
    raise PackageError('%s %s is installed, but %s holds no package of it (a .run of kind %s, version %s) and the '
                       'vendor documents no uninstall script for it: put its package there, or give its path'
                       % (kind, version or '(an unfinished install)', directory, kind, version or 'any'))


def install_args(kind, action, install_path, install_for_all=True, force=False, username=None,
                 usergroup=None, extra=None):
    """Options for the package run that carries out ``action`` (without the file itself).

    The HDK installers take ``--full`` for a new install, and also to replace an unfinished
    or a newer version (it removes the old tree first); CANN packages ``--install``.
    ``--upgrade`` keeps the recorded install path, so ``--install-path=`` is left out then.
    """
    if kind not in KINDS:
        raise PackageError('unknown package kind %r' % kind)
    args = []
    if action == 'uninstall':
        if kind in HDK_KINDS:
            return ['--uninstall']          # HDK: --uninstall stands alone
        return ['--uninstall', '--quiet', '--install-path=%s' % install_path]
    if action not in ('install', 'repair', 'upgrade', 'downgrade'):
        raise PackageError('no installer run for action %r' % action)
    upgrade = action == 'upgrade'
    if kind in HDK_KINDS:
        args.append('--upgrade' if upgrade else '--full')
    else:
        args.append('--upgrade' if upgrade else '--install')
    args.extend(['--quiet', '--nox11'])
    if install_for_all and kind != 'firmware':
        args.append('--install-for-all')
    if not (upgrade and kind in HDK_KINDS):
        args.append('--install-path=%s' % install_path)
    if bool(username) != bool(usergroup):
        raise PackageError('install_username and install_usergroup go together: set both or neither')
    # The driver takes the run user only on a new install (--upgrade keeps the recorded one);
    # the firmware has no run user.
    if username and kind != 'firmware' and not (upgrade and kind == 'driver'):
        args.extend(['--install-username=%s' % username, '--install-usergroup=%s' % usergroup])
    if force and kind == 'driver':
        args.append('--force')
    args.extend(extra or [])
    return args


# ---------------------------------------------------------------------------------------------
# Results

def strip_ansi(text):
    return _ANSI.sub('', text or '')


def interpret_rc(kind, action, rc, stdout='', stderr=''):
    """``(ok, reboot_required, reason)`` for an installer run.

    rc 0 is success; rc 2 is success with a reboot pending (the driver installed, its hot
    reset failed) - unless the output shows the self-extracting header's own exit 2 for a
    damaged payload. Firmware always takes effect at the next boot; a driver says so with
    "Reboot needed".
    """
    text = strip_ansi(stdout) + '\n' + strip_ansi(stderr)
    damaged = re.search(r'Error in (SHA256|MD5|CRC) checksums?|archive is corrupted', text, re.I)
    if rc not in (0, 2):
        return False, False, 'rc=%s' % rc
    if rc == 2 and damaged:
        return False, False, 'rc=2 and the payload is damaged'
    reboot = rc == 2 or bool(re.search(r'reboot (needed|required)', text, re.I))
    if kind == 'firmware' and action != 'none':
        reboot = True
    return True, reboot, 'rc=%s' % rc


def error_lines(stdout='', stderr='', limit=4):
    """The installer's own error lines (``[ERROR]...``, makeself ``Error in ...``), else the
    last lines it printed: what a failure message should quote."""
    lines = [line.strip() for line in (strip_ansi(stdout) + '\n' + strip_ansi(stderr)).splitlines() if line.strip()]
    # makeself prints its progress and the checksum error on one line: keep the error only
    lines = [re.sub(r'^.*?(?=Error in )', '', line) for line in lines]
    errors = [line for line in lines if re.search(r'\[ERROR\]|\bERROR\b|^Error|ERR_NO', line)]
    chosen = errors or lines[-limit:]
    return chosen[:limit]


def log_tail(text, lines=20):
    """The last ``lines`` non-blank lines of a log (colour codes removed)."""
    if lines <= 0:
        return []
    kept = [line.rstrip() for line in strip_ansi(text).splitlines() if line.strip()]
    return kept[-lines:]
