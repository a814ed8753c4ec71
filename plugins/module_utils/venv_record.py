# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Installed files of a virtualenv's distributions against their RECORD (pure functions and
file reads; no import of the venv's packages).

pip writes ``<name>-<version>.dist-info/RECORD`` for every wheel it installs: one CSV row per
file, ``path,sha256=<urlsafe base64 without padding>,size`` (PEP 376 / the wheel spec's
RECORD; files without a hash - RECORD itself, byte code compiled after the install - have
empty fields). A file that is missing or whose hash differs was changed after the install:
the package must be reinstalled. Used by the venv_check module.

Hashing is what a check costs (with torch and torch-npu, gigabytes), so a check also gives, per
intact distribution, a digest of what stat() says of its files (size, modification and change
times in nanoseconds, inode): a later check handed that digest hashes the distribution's files again
only when the digest differs. A write, a truncation, a replacement or a deletion moves the change
time, which no one can set back (git's index judges files the same way); a file whose times are
within ``RACY_SECONDS`` of the check could still change inside the same clock tick, so such a
distribution gets no digest (git's "racily clean" entries, Documentation/technical/racy-git.txt).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import csv
import glob
import hashlib
import io
import json
import os
import re
import stat
import time

# A file changed this close to the check (seconds) leaves its distribution without a stat digest.
RACY_SECONDS = 2.0


def _now():
    return time.time()


def normalize(name):
    """PEP 503 name: lower case, runs of ``-_.`` as one ``-``."""
    return re.sub(r'[-_.]+', '-', str(name)).lower()


def parse_record(text):
    """RECORD text -> [(path, algorithm, urlsafe-b64 digest)] for the rows that carry a hash."""
    rows = []
    for row in csv.reader(io.StringIO(text)):
        if len(row) < 2 or not row[1] or '=' not in row[1]:
            continue
        algorithm, digest = row[1].split('=', 1)
        rows.append((row[0], algorithm, digest))
    return rows


def file_digest(path, algorithm):
    """The RECORD form of ``path``'s digest (urlsafe base64, no padding)."""
    hasher = hashlib.new(algorithm)
    with open(path, 'rb') as handle:
        for block in iter(lambda: handle.read(1 << 20), b''):
            hasher.update(block)
    return base64.urlsafe_b64encode(hasher.digest()).rstrip(b'=').decode('ascii')


def site_packages(venv):
    """The site-packages directories of ``venv`` (lib/pythonX.Y/site-packages)."""
    return sorted(glob.glob(os.path.join(venv, 'lib', 'python*', 'site-packages')))


def dist_infos(site_dir):
    """{normalized name: (dist-info path, version)} of ``site_dir``."""
    found = {}
    for path in sorted(glob.glob(os.path.join(site_dir, '*.dist-info'))):
        base = os.path.basename(path)[:-len('.dist-info')]
        name, version = base.split('-', 1) if '-' in base else (base, '')
        found[normalize(name)] = (path, version)
    return found


def _stat_key(path):
    """What stat() says of ``path`` that a change of its content moves; None when it is not a file."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def check_distribution(site_dir, dist_info, stat_digest=None, now=None):
    """``{missing, changed, files, hashed, stat_digest}`` of one installed distribution (paths as
    RECORD gives them). With ``stat_digest`` of an earlier check that found it intact, its files
    are hashed only when what stat() says of them differs; ``stat_digest`` in the answer is None
    for a damaged distribution or one with a file changed within RACY_SECONDS."""
    record = os.path.join(dist_info, 'RECORD')
    with open(record, encoding='utf-8') as handle:
        rows = parse_record(handle.read())
    # Byte code is a cache the interpreter rewrites when its source is newer (a wheel may ship
    # .pyc files with a hash, as numpy 1.26's numpy/distutils/__pycache__ does): not judged.
    judged = [(relative, algorithm, digest, os.path.normpath(os.path.join(site_dir, relative)))
              for relative, algorithm, digest in rows if not relative.endswith(('.pyc', '.pyo'))]
    keys = [[record, _stat_key(record)]] + [[relative, _stat_key(path)] for relative, _a, _d, path in judged]
    state = hashlib.sha256(json.dumps(keys).encode('utf-8')).hexdigest()
    settled = (now if now is not None else _now()) - RACY_SECONDS
    racy = any(key is not None and max(key[1], key[2]) > settled * 1e9 for _path, key in keys)
    result = {'missing': [], 'changed': [], 'files': len(rows), 'hashed': True, 'stat_digest': None}
    if stat_digest is not None and stat_digest == state and not racy:
        return dict(result, hashed=False, stat_digest=state)
    for (relative, algorithm, digest, path), (_relative, key) in zip(judged, keys[1:]):
        if key is None:
            result['missing'].append(relative)
            continue
        try:
            if file_digest(path, algorithm) != digest:
                result['changed'].append(relative)
        except ValueError:
            # An algorithm this Python's hashlib does not know: not judged.
            continue
    if not (result['missing'] or result['changed'] or racy):
        result['stat_digest'] = state
    return result


_REQUIREMENT_NAME = re.compile(r'^\s*([A-Za-z0-9][A-Za-z0-9._-]*)')


def carried_by(dist_info):
    """The distributions a files-less distribution (a metapackage: RECORD lists only its own
    dist-info) stands for - the names of its unconditional ``Requires-Dist``; [] otherwise."""
    own = os.path.basename(dist_info) + '/'
    with open(os.path.join(dist_info, 'RECORD'), encoding='utf-8') as handle:
        paths = [row[0] for row in csv.reader(io.StringIO(handle.read())) if row]
    if any(not path.startswith(own) for path in paths):
        return []
    try:
        with open(os.path.join(dist_info, 'METADATA'), encoding='utf-8') as handle:
            lines = handle.read().split('\n\n', 1)[0].splitlines()
    except OSError:
        return []
    names = []
    for line in lines:
        if line.startswith('Requires-Dist:') and ';' not in line:
            match = _REQUIREMENT_NAME.match(line.split(':', 1)[1])
            if match:
                names.append(match.group(1))
    return names


def check(venv, names, intact_since=None, now=None):
    """Check the distributions ``names`` of ``venv``, and for a metapackage among them (a
    distribution with no files of its own, such as ``vllm`` installed as an alias of another
    build) the distributions it requires. ``intact_since`` is the ``intact`` of an earlier check.

    Returns ``{distributions: [{name, version, files, missing, changed, hashed}], absent: [name],
    damaged: [name], intact: {name: stat digest}}``; ``absent`` are names not installed (or a venv
    without site-packages).
    """
    intact_since = intact_since or {}
    dirs = site_packages(venv)
    installed = {}
    for site_dir in dirs:
        for name, (path, version) in dist_infos(site_dir).items():
            installed.setdefault(name, (site_dir, path, version))
    result = {'distributions': [], 'absent': [], 'damaged': [], 'intact': {}}
    names = list(names)
    seen = set(normalize(name) for name in names)
    for name in names:
        key = normalize(name)
        if key not in installed:
            result['absent'].append(name)
            continue
        site_dir, path, version = installed[key]
        for carried in carried_by(path):
            if normalize(carried) not in seen:
                seen.add(normalize(carried))
                names.append(carried)
        found = check_distribution(site_dir, path, intact_since.get(key), now)
        state = found.pop('stat_digest')
        if state is not None:
            result['intact'][key] = state
        entry = dict(found, name=key, version=version)
        result['distributions'].append(entry)
        if found['missing'] or found['changed']:
            result['damaged'].append(key)
    return result


def describe(entry, venv, limit=3):
    """One sentence for a damaged distribution."""
    parts = []
    for kind in ('missing', 'changed'):
        files = entry[kind]
        if files:
            shown = ', '.join(files[:limit]) + (', ...' if len(files) > limit else '')
            parts.append('%d file(s) %s (%s)' % (len(files), kind, shown))
    return '%s %s in %s: %s since it was installed' % (entry['name'], entry['version'], venv, '; '.join(parts))
