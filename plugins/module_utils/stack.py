# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Resolve and validate an Ascend software stack against the stack matrix.

``ascend_stack_release`` picks a row of ``stack_matrix.RELEASES``; ``ascend_stack_overrides``
may replace single versions. The result is accepted when it stays inside the matrix, that is
when every pair of the stack versions (vllm_ascend, vllm, cann, torch, torch_npu) appears
together in some row, and an overridden driver is not older than a published minimum. A
combination outside the matrix is refused with a message naming each conflicting pair, unless
the caller allows unlisted stacks, in which case it is returned with ``listed: false`` and the
same findings as warnings.

Everything here is a pure function of its arguments and the data module: no ansible-core
imports, Python 3.8+, so the filter plugins, preflight and the unit tests share one code path.

Ascend version strings (``compare_versions``) do not follow one scheme: drivers are
``24.1.rc3`` / ``24.1.0`` / ``24.1.rc1.b030``, firmware ``7.5.0.1.129``, CANN ``8.2.RC1`` /
``8.1.RC1.alpha001`` / ``9.1.0``, pip packages ``2.5.1.post1`` / ``2.9.0.post1+git4c901a4``.
They are ordered by these rules:

1. Case is ignored and a leading ``v`` is dropped. Parts are separated by ``.`` or ``-``.
2. The leading numeric parts are the release numbers, compared as integers; missing trailing
   numbers count as 0, so ``25.5`` == ``25.5.0``.
3. What follows is a chain of qualifiers, compared in order, each against "nothing" (a final):
   ``dev`` < ``alpha``/``a`` < ``beta``/``b`` < ``rc`` < (final) < build < ``post``.
   So ``24.1.rc3`` < ``24.1.0`` (a release candidate comes before the final of the same
   minor, and after every earlier release: ``24.0.5`` < ``24.1.rc1``), ``8.1.RC1.alpha001`` <
   ``8.1.RC1`` and ``2.5.1`` < ``2.5.1.post1``. A qualifier's number defaults to 0.
4. A separate ``b<digits>`` part (``24.1.rc1.b030``) or a bare number after a qualifier is a
   vendor build of what precedes it: it sorts after that version and before the next one
   (``24.1.rc1`` < ``24.1.rc1.b030`` < ``24.1.rc1.b040`` < ``24.1.rc2``). Written inside a
   part (``3.2.0b1``) ``b`` means beta, as in PEP 440.
5. A local label after ``+`` (``+git4c901a4``) makes a version sort after the same version
   without one; two labels compare part by part, numbers above words (PEP 440).
Any other word is refused rather than guessed at.
"""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

import copy
import re

try:
    from collections.abc import Mapping
except ImportError:  # pragma: no cover - Python 2 is not a supported target
    Mapping = dict

from ansible_collections.ascend.vllm.plugins.module_utils import stack_matrix

# Stack versions that must appear together in a row, in the order messages name them.
PAIR_KEYS = ('vllm_ascend', 'vllm', 'cann', 'torch', 'torch_npu')
OVERRIDE_KEYS = ('vllm', 'vllm_ascend', 'cann', 'torch', 'torch_npu', 'driver')
# Overrides that change what a container image of the release would carry.
_IMAGE_CONTENT_KEYS = ('vllm', 'cann', 'torch', 'torch_npu')

PACKAGE_CHIPS = ('910b', '910_93', '310p')
# The per-chip operators package: "kernels" up to CANN 8.3, "ops" from 8.5.0.
OPS_RENAME_CANN = '8.5.0'
_KERNELS_PACKAGE = {
    '910b': 'Ascend-cann-kernels-910b',
    '910_93': 'Atlas-A3-cann-kernels',
    '310p': 'Ascend-cann-kernels-310p',
}
_OPS_PACKAGE = {
    '910b': 'Ascend-cann-910b-ops',
    '910_93': 'Ascend-cann-A3-ops',
    '310p': 'Ascend-cann-310p-ops',
}
# HDK (NPU driver and firmware) packages, per chip family: the file name prefix (the A3 packages are
# published as Atlas-A3-...), the firmware shipped in the same HDK release as each driver (vendor
# download lists), and the driver's spelling of the architecture (x86_64 with a dash).
_HDK_PREFIX = {
    '910b': 'Ascend-hdk-910b-npu',
    '910_93': 'Atlas-A3-hdk-npu',
    '310p': 'Ascend-hdk-310p-npu',
}
HDK_FIRMWARE = {
    '24.1.rc3': '7.5.0.1.129',
    '25.0.rc1.1': '7.7.0.1.231',
    '25.5.0': '7.8.0.5.216',
    '25.5.2': '7.8.0.7.220',
    '26.0.rc1': '9.0.0.0.205',
}
_HDK_ARCH = {'x86_64': 'x86-64', 'aarch64': 'aarch64'}
ARCH_ALIASES = {
    'x86_64': 'x86_64',
    'amd64': 'x86_64',
    'aarch64': 'aarch64',
    'arm64': 'aarch64',
}

_ALLOW_HINT = 'Set ascend_stack_allow_unlisted: true to accept it.'

_TRUE = frozenset(['true', 'yes', 'on', '1', 'y'])
_FALSE = frozenset(['false', 'no', 'off', '0', 'n', ''])


class StackError(ValueError):
    """The requested stack, or an argument describing it, is not acceptable."""


def type_name(value):
    if value is None:
        return 'null'
    if isinstance(value, bool):
        return 'boolean'
    if isinstance(value, int):
        return 'integer'
    if isinstance(value, float):
        return 'float'
    if isinstance(value, str):
        return 'string'
    if isinstance(value, Mapping):
        return 'mapping'
    if isinstance(value, (list, tuple)):
        return 'list'
    return type(value).__name__


# ---------------------------------------------------------------------------------------------
# Version comparison

_QUALIFIER_RANKS = {
    'dev': -4,
    'a': -3,
    'alpha': -3,
    'b': -2,
    'beta': -2,
    'rc': -1,
    'post': 2,
}
_BUILD_RANK = 1
_FINAL = (0, 0)
_TOKEN_RE = re.compile(r'\d+|[a-z]+')
_SEPARATOR_RE = re.compile(r'[.\-]')
_LOCAL_SEPARATOR_RE = re.compile(r'[.\-_]')


def _version_error(text, why):
    return StackError("cannot read version %r: %s (expected forms such as 24.1.rc3, 25.5.0, "
                      "7.5.0.1.129, 8.2.RC1, 2.8.0.post2)" % (text, why))


def _tokens(text, part):
    tokens = _TOKEN_RE.findall(part)
    if ''.join(tokens) != part:
        raise _version_error(text, 'part %r holds characters other than letters and digits' % part)
    return tokens


def _qualifiers(text, tokens, standalone):
    """Turn alternating word/number tokens of one part into (rank, number) pairs."""
    if standalone and len(tokens) == 2 and tokens[0] == 'b' and tokens[1].isdigit():
        return [(_BUILD_RANK, int(tokens[1]))]
    pairs = []
    index = 0
    while index < len(tokens):
        word = tokens[index]
        if word.isdigit():
            raise _version_error(text, 'unexpected number %r' % word)
        number = 0
        if index + 1 < len(tokens) and tokens[index + 1].isdigit():
            number = int(tokens[index + 1])
            index += 1
        index += 1
        if word in _QUALIFIER_RANKS:
            pairs.append((_QUALIFIER_RANKS[word], number))
        else:
            raise _version_error(text, 'unknown part %r' % word)
    return pairs


def _local_key(text, local):
    key = []
    for part in _LOCAL_SEPARATOR_RE.split(local):
        if not part or not part.isalnum():
            raise _version_error(text, 'bad local label %r' % local)
        key.append((1, int(part), '') if part.isdigit() else (0, 0, part))
    return key


def version_key(text):
    """Parse an Ascend version string into ``(release, qualifiers, local)``.

    ``release`` is a tuple of ints, ``qualifiers`` a list of ``(rank, number)`` and ``local``
    None or a list. Raise StackError when the string is not a version.
    """
    if not isinstance(text, str):
        raise StackError('cannot read version %r: expected a string, got %s' % (text, type_name(text)))
    value = text.strip().lower()
    if value[:1] == 'v' and value[1:2].isdigit():
        value = value[1:]
    if not value:
        raise _version_error(text, 'it is empty')
    public, plus, local = value.partition('+')
    if plus and not local:
        raise _version_error(text, 'empty local label after "+"')
    release = []
    qualifiers = []
    for part in _SEPARATOR_RE.split(public):
        if not part:
            raise _version_error(text, 'empty part')
        tokens = _tokens(text, part)
        if not release and not tokens[0].isdigit():
            raise _version_error(text, 'it does not start with a number')
        if not qualifiers and tokens[0].isdigit():
            release.append(int(tokens[0]))
            qualifiers.extend(_qualifiers(text, tokens[1:], standalone=False))
        elif qualifiers and len(tokens) == 1 and tokens[0].isdigit():
            qualifiers.append((_BUILD_RANK, int(tokens[0])))
        else:
            qualifiers.extend(_qualifiers(text, tokens, standalone=True))
    return tuple(release), qualifiers, (_local_key(text, local) if plus else None)


def compare_versions(left, right):
    """Compare two Ascend version strings: -1, 0 or 1 (see the module docstring for the rules)."""
    l_release, l_qual, l_local = version_key(left)
    r_release, r_qual, r_local = version_key(right)
    width = max(len(l_release), len(r_release))
    l_release += (0,) * (width - len(l_release))
    r_release += (0,) * (width - len(r_release))
    depth = max(len(l_qual), len(r_qual))
    l_qual = l_qual + [_FINAL] * (depth - len(l_qual))
    r_qual = r_qual + [_FINAL] * (depth - len(r_qual))
    l_full = (l_release, l_qual, l_local is not None, l_local or [])
    r_full = (r_release, r_qual, r_local is not None, r_local or [])
    return (l_full > r_full) - (l_full < r_full)


def same_version(left, right):
    """True when both name the same version; strings that are not versions must match exactly."""
    if left == right:
        return True
    try:
        return compare_versions(left, right) == 0
    except StackError:
        return False


# ---------------------------------------------------------------------------------------------
# Argument handling

def _to_bool(value, name):
    if isinstance(value, bool):
        return value
    if value is None:
        return False
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        lowered = value.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
    raise StackError('%s must be a boolean (true or false), got %s %r' % (name, type_name(value), value))


def _check_rows(matrix):
    if not isinstance(matrix, (list, tuple)) or not matrix:
        raise StackError('the stack matrix must be a non-empty list of rows')
    return matrix


def default_release(matrix=None):
    """The newest release whose status is "final"."""
    rows = _check_rows(stack_matrix.RELEASES if matrix is None else matrix)
    finals = [row['release'] for row in rows if row.get('status') == 'final']
    if not finals:
        raise StackError('the stack matrix has no final release')
    newest = finals[0]
    for release in finals[1:]:
        if compare_versions(release, newest) > 0:
            newest = release
    return newest


def known_releases(matrix=None):
    rows = _check_rows(stack_matrix.RELEASES if matrix is None else matrix)
    return [row['release'] for row in rows]


def _find_row(release, rows):
    if release is None or (isinstance(release, str) and not release.strip()):
        release = stack_matrix.DEFAULT_RELEASE if rows is stack_matrix.RELEASES else default_release(rows)
    elif not isinstance(release, str):
        raise StackError("ascend_stack_release must be a string such as '%s' (quote it in YAML), got %s %r"
                         % (stack_matrix.DEFAULT_RELEASE, type_name(release), release))
    wanted = release.strip()
    for row in rows:
        if row['release'] == wanted:
            return row
    for row in rows:
        if same_version(row['release'], wanted):
            return row
    raise StackError('ascend_stack_release: unknown release %r; known releases: %s'
                     % (wanted, ', '.join(known_releases(rows))))


def release_row(release=None, matrix=None):
    """A copy of the matrix row of ``release`` (None: the default release); StackError if unknown."""
    rows = _check_rows(stack_matrix.RELEASES if matrix is None else matrix)
    return copy.deepcopy(_find_row(release, rows))


def _check_overrides(overrides):
    """Validate ``overrides``; return {key: stripped value} for the keys actually set."""
    if overrides is None:
        return {}
    if not isinstance(overrides, Mapping):
        raise StackError("ascend_stack_overrides must be a mapping such as {cann: '8.5.1'}, got %s %r"
                         % (type_name(overrides), overrides))
    unknown = sorted(str(key) for key in overrides if key not in OVERRIDE_KEYS)
    if unknown:
        raise StackError('ascend_stack_overrides: unknown key%s %s; allowed keys: %s'
                         % ('s' if len(unknown) > 1 else '', ', '.join(repr(key) for key in unknown),
                            ', '.join(OVERRIDE_KEYS)))
    values = {}
    for key in OVERRIDE_KEYS:
        value = overrides.get(key)
        # null and "" mean "not overridden", so inventories can template the key away.
        if value is None:
            continue
        if not isinstance(value, str):
            raise StackError("ascend_stack_overrides.%s must be a string such as '%s' (quote version "
                             "numbers in YAML), got %s %r" % (key, _example(key), type_name(value), value))
        if value.strip():
            values[key] = value.strip()
    if 'driver' in values:
        try:
            version_key(values['driver'])
        except StackError as exc:
            raise StackError('ascend_stack_overrides.driver: %s' % exc)
    return values


def _example(key):
    if key == 'driver':
        return '24.1.0'
    return stack_matrix.RELEASES[-1][key]


# ---------------------------------------------------------------------------------------------
# Matrix membership

def _rows_with(rows, key, value):
    return [row for row in rows if same_version(row[key], value)]


def _join_values(rows, key):
    seen = []
    for row in rows:
        if row[key] not in seen:
            seen.append(row[key])
    return seen[0] if len(seen) == 1 else '%s or %s' % (', '.join(seen[:-1]), seen[-1])


def _pair_conflict(rows, subject, s_value, other, o_value):
    """The message for a pair that no row holds together."""
    o_rows = _rows_with(rows, other, o_value)
    s_rows = _rows_with(rows, subject, s_value)
    if o_rows:
        needs = '%s needs %s %s' % (o_value, subject, _join_values(o_rows, subject))
    else:
        needs = '%s %s is not in the stack matrix' % (other, o_value)
    if s_rows:
        belongs = '%s %s belongs to %s %s' % (subject, s_value, other, _join_values(s_rows, other))
    else:
        belongs = '%s %s is not in the stack matrix' % (subject, s_value)
    return '%s=%s does not go with %s=%s (%s; %s)' % (subject, s_value, other, o_value, needs, belongs)


def _together(rows, first, first_value, second, second_value):
    return any(same_version(row[first], first_value) and same_version(row[second], second_value)
               for row in rows)


def _conflicts(rows, values, overridden):
    """One message per conflicting pair that involves an override.

    The values that were not overridden all come from one row, so an override that clashes
    with them is reported once, against the first of them that it does not go with (normally
    vllm_ascend, i.e. the release). Two overrides that do not go with each other are a pair of
    their own, named with the later key in PAIR_KEYS first.
    """
    found = []
    kept = [key for key in PAIR_KEYS if key not in overridden]
    for subject in overridden:
        for other in kept:
            if not _together(rows, subject, values[subject], other, values[other]):
                found.append(_pair_conflict(rows, subject, values[subject], other, values[other]))
                break
    for index, first in enumerate(overridden):
        for second in overridden[index + 1:]:
            if not _together(rows, first, values[first], second, values[second]):
                found.append(_pair_conflict(rows, second, values[second], first, values[first]))
    return found


def _driver_findings(row, driver):
    """(conflicts, warnings) for an overridden driver version."""
    conflicts = []
    warnings = []
    if row.get('driver_min') and compare_versions(driver, row['driver_min']) < 0:
        conflicts.append('driver=%s is older than driver %s, the minimum for vllm_ascend %s'
                         % (driver, row['driver_min'], row['release']))
    elif row.get('driver_recommended') and compare_versions(driver, row['driver_recommended']) < 0:
        warnings.append('ascend_stack_overrides: driver=%s is older than driver %s, recommended for '
                        'vllm_ascend %s' % (driver, row['driver_recommended'], row['release']))
    return conflicts, warnings


# ---------------------------------------------------------------------------------------------
# Container image

def _image_tag(vllm_ascend, chip='910b', os_family='ubuntu'):
    image = stack_matrix.IMAGE
    return '%s%s%s%s' % (image['tag_prefix'], vllm_ascend, image['chip_suffixes'][chip],
                         image['os_suffixes'][os_family])


def _image(row, values, overridden):
    image = stack_matrix.IMAGE
    tags = {}
    for chip in row['chips']:
        if chip in image['chip_suffixes'] and chip in row.get('image_chips', row['chips']):
            tags[chip] = dict((os_family, _image_tag(values['vllm_ascend'], chip, os_family))
                              for os_family in image['os_suffixes'])
    tag = _image_tag(values['vllm_ascend'])
    return {
        'repository': image['repository'],
        'tag': tag,
        'ref': '%s:%s' % (image['repository'], tag),
        'tags': tags,
        # An image carries the release's own vLLM, CANN and torch, not overridden ones.
        'matches_stack': not any(key in overridden for key in _IMAGE_CONTENT_KEYS),
    }


def image_ref(stack, chip='910b', os_family='ubuntu'):
    """Full image reference for a resolved stack, chip family and image OS (ubuntu, openeuler)."""
    stack = _as_stack(stack)
    family = _package_chip(chip, purpose='container image', allowed=stack['image']['tags'])
    if not isinstance(os_family, str) or os_family.strip().lower() not in stack_matrix.IMAGE['os_suffixes']:
        raise StackError('image OS %r is not one of: %s'
                         % (os_family, ', '.join(stack_matrix.IMAGE['os_suffixes'])))
    return '%s:%s' % (stack['image']['repository'], stack['image']['tags'][family][os_family.strip().lower()])


# ---------------------------------------------------------------------------------------------
# Public API

def resolve_stack(release=None, overrides=None, allow_unlisted=False, matrix=None):
    """Resolve ``release`` plus ``overrides`` into one stack, or raise StackError.

    ``matrix`` replaces ``stack_matrix.RELEASES`` (tests and what-if reports). The returned
    dict holds the row's values with the overrides applied, ``overridden`` (the keys whose
    value differs from the row; an overridden value equal to the row's, such as 8.2.rc1 for
    8.2.RC1, takes the row's spelling and is not listed), ``listed`` and ``warnings``.
    """
    rows = _check_rows(stack_matrix.RELEASES if matrix is None else matrix)
    row = _find_row(release, rows)
    given = _check_overrides(overrides)
    allow = _to_bool(allow_unlisted, 'ascend_stack_allow_unlisted')

    values = dict((key, row[key]) for key in PAIR_KEYS)
    overridden = []
    for key in PAIR_KEYS:
        if key in given and not same_version(given[key], row[key]):
            values[key] = given[key]
            overridden.append(key)
    # Python range, chips, triton-ascend and driver advice belong to the vllm-ascend version:
    # when vllm_ascend is overridden to another release of the matrix, they come from that row.
    meta = row
    if 'vllm_ascend' in overridden:
        meta = (_rows_with(rows, 'vllm_ascend', values['vllm_ascend']) or [row])[0]
    driver = given.get('driver')
    conflicts = _conflicts(rows, values, overridden)
    warnings = []
    if meta is not row:
        warnings.append('ascend_stack_overrides: vllm_ascend=%s is release %s of the stack matrix; '
                        'set ascend_stack_release: %s instead of overriding release %s'
                        % (values['vllm_ascend'], meta['release'], meta['release'], row['release']))
    if driver is not None:
        overridden.append('driver')
        driver_conflicts, driver_warnings = _driver_findings(meta, driver)
        conflicts.extend(driver_conflicts)
        warnings.extend(driver_warnings)

    if conflicts and not allow:
        raise StackError('ascend_stack_overrides: %s. %s' % ('; '.join(conflicts), _ALLOW_HINT))
    warnings.extend('ascend_stack_overrides: %s. Accepted because ascend_stack_allow_unlisted is true.'
                    % conflict for conflict in conflicts)

    result = {
        'release': row['release'],
        'status': row['status'],
        'python_min': meta['python_min'],
        'python_max': meta['python_max'],
        'torch_npu_source': row['torch_npu_source'],
        'triton_ascend': meta['triton_ascend'],
        'triton_ascend_excluded_chips': list(meta['triton_ascend_excluded_chips']),
        'pip_check_expected': pip_check_expected(meta),
        'pip_indexes': copy.deepcopy(meta.get('pip_indexes') or {}),
        'binds_cpus_on': list(meta.get('binds_cpus_on') or []),
        'wheel_chips': list(meta['wheel_chips']) if meta.get('wheel_chips') is not None else None,
        'ray': meta.get('ray'),
        # An overridden version is another wheel: the row's floor says nothing of it.
        'glibc': dict((name, floor) for name, floor in (meta.get('glibc') or {}).items()
                      if name.replace('-', '_') not in overridden),
        'chips': dict(meta['chips']),
        'driver': driver,
        'driver_target': driver or stack_matrix.DEFAULT_DRIVER,
        'driver_min': meta['driver_min'],
        'driver_recommended': meta['driver_recommended'],
        'overridden': overridden,
        'listed': not conflicts,
        'warnings': warnings,
    }
    result.update(values)
    result['image'] = _image(meta, values, overridden)
    return result


_EXPECTED_RE = re.compile(r'^\s*(?P<package>[A-Za-z0-9._-]+)\s*->\s*(?P<requires>[A-Za-z0-9._-]+)\s*'
                          r'(?:\((?P<qualifiers>[^)]*)\))?\s*$')


def pip_check_expected(row):
    """The row's ``pip_check_expected`` as ``{package, requires, missing, arch}`` dicts.

    ``"a -> b"`` is a version conflict of a's requirement on b on every architecture;
    ``"a -> b (missing, x86_64)"`` accepts b being absent, on x86_64 only.
    """
    expected = []
    for text in row.get('pip_check_expected') or []:
        match = _EXPECTED_RE.match(str(text))
        qualifiers = [q.strip() for q in (match.group('qualifiers') or '').split(',') if q.strip()] if match else []
        unknown = [q for q in qualifiers if q not in ('missing', 'aarch64', 'x86_64')]
        if not match or unknown:
            raise StackError('stack matrix row %s: pip_check_expected entry %r is not "package -> requires" '
                             'with optional (missing, aarch64|x86_64)' % (row.get('release'), text))
        arches = [q for q in qualifiers if q != 'missing']
        expected.append({'package': match.group('package'), 'requires': match.group('requires'),
                         'missing': 'missing' in qualifiers, 'arch': arches[0] if arches else None})
    return expected


def _as_stack(stack):
    """Accept a resolved stack, or a release (string or None) to resolve without overrides."""
    if stack is None or isinstance(stack, str):
        return resolve_stack(stack)
    if isinstance(stack, Mapping) and 'release' in stack and 'cann' in stack:
        return stack
    raise StackError('expected a stack resolved by stack_resolve or a release string, got %s'
                     % type_name(stack))


def matrix_data():
    """A copy of the whole matrix, for reports."""
    return {
        'default_release': stack_matrix.DEFAULT_RELEASE,
        'releases': copy.deepcopy(stack_matrix.RELEASES),
        'chip_families': dict((key, {'label': value['label'], 'aliases': list(value['aliases'])})
                              for key, value in stack_matrix.CHIP_FAMILIES.items()),
        'unsupported_chip_families': dict(
            (key, {'label': value['label'], 'aliases': list(value['aliases']), 'reason': value['reason']})
            for key, value in stack_matrix.UNSUPPORTED_CHIP_FAMILIES.items()),
        'support_levels': dict(stack_matrix.SUPPORT_LEVELS),
        'torch_npu_sources': dict(stack_matrix.TORCH_NPU_SOURCES),
        'image': copy.deepcopy(stack_matrix.IMAGE),
    }


def chip_family(name):
    """Canonical chip family for a family, SoC or chip name, or None when unknown.

    ``910B3``, ``ascend910b3``, ``A2`` -> ``910b``; ``ascend910_9392``, ``A3`` -> ``910_93``;
    ``310P3`` -> ``310p``; ``910A``, ``910ProB``, ``910`` -> ``910`` (unsupported);
    ``310B4`` -> ``310b`` (unsupported). npu-smi prints the bare chip name ``Ascend910`` on
    Atlas A3, which reads as the original 910: pass the SoC name or the family instead.
    """
    if not isinstance(name, str):
        return None
    value = name.strip().lower().replace(' ', '')
    if value.startswith('ascend'):
        value = value[len('ascend'):].lstrip('-_')
    families = list(stack_matrix.CHIP_FAMILIES.items()) + list(stack_matrix.UNSUPPORTED_CHIP_FAMILIES.items())
    for family, info in families:
        if value in info['aliases']:
            return family
    best = None
    best_len = 0
    for family, info in families:
        for prefix in info['prefixes']:
            if value.startswith(prefix) and len(prefix) > best_len:
                best, best_len = family, len(prefix)
    return best


def _releases_where(family, levels):
    return [row['release'] for row in stack_matrix.RELEASES if row['chips'].get(family) in levels]


def chip_support(stack, chip):
    """``(level, message)`` for running ``stack`` on ``chip`` (a family, SoC or chip name).

    level is one of supported, partial, experimental, unsupported (not by this release, or by
    none) and unknown (a name that is not an Ascend chip family).
    """
    stack = _as_stack(stack)
    family = chip_family(chip)
    release = stack['vllm_ascend']
    if family is None:
        return 'unknown', ('%r is not a known Ascend chip family; known: %s; not supported by any '
                           'release: %s' % (chip, ', '.join(stack_matrix.CHIP_FAMILIES),
                                            ', '.join(stack_matrix.UNSUPPORTED_CHIP_FAMILIES)))
    if family in stack_matrix.UNSUPPORTED_CHIP_FAMILIES:
        info = stack_matrix.UNSUPPORTED_CHIP_FAMILIES[family]
        message = '%s is not supported by any vllm-ascend release: %s' % (info['label'], info['reason'])
        if family == '910' and str(chip).strip().lower() in ('910', 'ascend910'):
            message += ('. On Atlas A3 npu-smi names the chip Ascend910: pass its SoC name '
                        '(e.g. ascend910_9392) or the family 910_93')
        return 'unsupported', message
    label = stack_matrix.CHIP_FAMILIES[family]['label']
    level = stack['chips'].get(family)
    supported_in = _releases_where(family, ('supported',))
    if level is None:
        others = _releases_where(family, tuple(stack_matrix.SUPPORT_LEVELS))
        if others:
            hint = 'releases that support it: %s (set ascend_stack_release)' % ', '.join(others)
        else:
            hint = stack_matrix.CHIP_FAMILIES[family].get('unlisted') or 'no release supports it yet'
        return 'unsupported', '%s is not supported by vllm-ascend %s; %s' % (label, release, hint)
    if level == 'supported':
        return level, '%s is supported by vllm-ascend %s' % (label, release)
    hint = ('fully supported in: %s' % ', '.join(supported_in)) if supported_in else 'no release supports it fully yet'
    return level, '%s is %s in vllm-ascend %s; %s' % (label, stack_matrix.SUPPORT_LEVELS[level], release, hint)


_PYTHON_RE = re.compile(r'^\s*(\d+)\.(\d+)')


def _python_minor(text, name):
    match = _PYTHON_RE.match(text) if isinstance(text, str) else None
    if not match:
        raise StackError('%s: cannot read a Python version from %r (expected e.g. 3.11.7)' % (name, text))
    return int(match.group(1)), int(match.group(2))


def python_ok(stack, version):
    """True when ``version`` ("3.11.7" or "3.11") is within the stack's inclusive Python range."""
    stack = _as_stack(stack)
    wanted = _python_minor(version, 'python version')
    return (_python_minor(stack['python_min'], 'python_min') <= wanted
            <= _python_minor(stack['python_max'], 'python_max'))


def driver_check(stack, version):
    """``(level, message)`` for an installed or planned NPU driver under ``stack``.

    level: ok, below_recommended (warn), below_minimum (refuse) or unknown (no version).
    """
    stack = _as_stack(stack)
    if version is None or (isinstance(version, str) and not version.strip()):
        return 'unknown', 'no NPU driver version to check against vllm-ascend %s' % stack['vllm_ascend']
    if not isinstance(version, str):
        raise StackError('driver version must be a string, got %s %r' % (type_name(version), version))
    version = version.strip()
    if stack.get('driver_min') and compare_versions(version, stack['driver_min']) < 0:
        return 'below_minimum', ('NPU driver %s is older than %s, the minimum for vllm-ascend %s'
                                 % (version, stack['driver_min'], stack['vllm_ascend']))
    if stack.get('driver_recommended') and compare_versions(version, stack['driver_recommended']) < 0:
        return 'below_recommended', ('NPU driver %s is older than %s, recommended for vllm-ascend %s'
                                     % (version, stack['driver_recommended'], stack['vllm_ascend']))
    return 'ok', 'NPU driver %s is suitable for vllm-ascend %s' % (version, stack['vllm_ascend'])


def _package_chip(chip, purpose, allowed):
    family = chip_family(chip)
    if family not in allowed:
        raise StackError('no %s is known for chip %r; known chips: %s'
                         % (purpose, chip, ', '.join(allowed)))
    return family


def _arch(arch):
    value = arch.strip().lower() if isinstance(arch, str) else None
    if value not in ARCH_ALIASES:
        raise StackError('architecture %r is not one of: x86_64, aarch64' % (arch,))
    return ARCH_ALIASES[value]


def hdk_packages(version, chip, arch, firmware=None):
    """File names of the HDK driver ``version`` and its firmware for a chip family and arch.

    Returns ``{driver, firmware, firmware_version, chips, archs}``: ``firmware_version`` is
    ``firmware`` when given, else the one shipped with ``version`` (HDK_FIRMWARE), else '';
    a name is '' when the chip family, the architecture or the firmware version is not known,
    so the caller can report every problem at once; ``chips`` and ``archs`` are the known ones.
    """
    version = '' if version is None else str(version)
    # The exact spelling of the file names (25.0.rc1.1, not 25.0.RC1.1): a driver name spelled otherwise
    # is not the vendor's file, so its firmware is unknown too.
    firmware_version = str(firmware) if firmware else HDK_FIRMWARE.get(version, '')
    prefix = _HDK_PREFIX.get(chip_family(chip) if chip else None)
    machine = _HDK_ARCH.get(arch)
    return {
        'driver': '%s-driver_%s_linux-%s.run' % (prefix, version, machine) if prefix and machine and version else '',
        'firmware': '%s-firmware_%s.run' % (prefix, firmware_version) if prefix and firmware_version else '',
        'firmware_version': firmware_version,
        'chips': sorted(_HDK_PREFIX),
        'archs': sorted(_HDK_ARCH),
    }


def package_names(stack, chip, arch):
    """File names of the CANN packages of ``stack`` for ``chip`` and ``arch``.

    Returns ``{"toolkit", "ops", "nnal"}``. The chip operators package is the
    "kernels" package up to CANN 8.3 and the "ops" package from CANN 8.5.0 on (the vendor
    renamed it in 8.5.0, not in 9.x as first assumed). Atlas A3 files carry their own
    prefixes: ``Atlas-A3-cann-kernels_<ver>`` and ``Ascend-cann-A3-ops_<ver>``.
    """
    stack = _as_stack(stack)
    family = _package_chip(chip, 'CANN package naming', PACKAGE_CHIPS)
    machine = _arch(arch)
    cann = stack['cann']
    suffix = '%s_linux-%s.run' % (cann, machine)
    if compare_versions(cann, OPS_RENAME_CANN) >= 0:
        ops = '%s_%s' % (_OPS_PACKAGE[family], suffix)
    else:
        ops = '%s_%s' % (_KERNELS_PACKAGE[family], suffix)
    return {
        'toolkit': 'Ascend-cann-toolkit_%s' % suffix,
        'ops': ops,
        'nnal': 'Ascend-cann-nnal_%s' % suffix,
    }
