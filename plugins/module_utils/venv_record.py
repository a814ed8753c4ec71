# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Installed files of a virtualenv's distributions against their RECORD (pure functions and
file reads; no import of the venv's packages).

pip writes ``<name>-<version>.dist-info/RECORD`` for every wheel it installs: one CSV row per
file, ``path,sha256=<urlsafe base64 without padding>,size`` (PEP 376 / the wheel spec's
RECORD; files without a hash - RECORD itself, byte code compiled after the install - have
empty fields). A file that is missing or whose hash differs was changed after the install:
the package must be reinstalled. Used by the venv_check module.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import csv
import glob
import hashlib
import io
import os
import re


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


def check_distribution(site_dir, dist_info):
    """``{missing, changed, files}`` of one installed distribution (paths as RECORD gives them)."""
    record = os.path.join(dist_info, 'RECORD')
    with open(record, encoding='utf-8') as handle:
        rows = parse_record(handle.read())
    missing, changed = [], []
    for relative, algorithm, digest in rows:
        # Byte code is a cache the interpreter rewrites when its source is newer (a wheel may ship
        # .pyc files with a hash, as numpy 1.26's numpy/distutils/__pycache__ does): not judged.
        if relative.endswith(('.pyc', '.pyo')):
            continue
        path = os.path.normpath(os.path.join(site_dir, relative))
        if not os.path.isfile(path):
            missing.append(relative)
            continue
        try:
            if file_digest(path, algorithm) != digest:
                changed.append(relative)
        except ValueError:
            # An algorithm this Python's hashlib does not know: not judged.
            continue
    return {'missing': missing, 'changed': changed, 'files': len(rows)}


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


def check(venv, names):
    """Check the distributions ``names`` of ``venv``, and for a metapackage among them (a
    distribution with no files of its own, such as ``vllm`` installed as an alias of another
    build) the distributions it requires.

    Returns ``{distributions: [{name, version, files, missing, changed}], absent: [name],
    damaged: [name]}``; ``absent`` are names not installed (or a venv without site-packages).
    """
    dirs = site_packages(venv)
    installed = {}
    for site_dir in dirs:
        for name, (path, version) in dist_infos(site_dir).items():
            installed.setdefault(name, (site_dir, path, version))
    result = {'distributions': [], 'absent': [], 'damaged': []}
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
        found = check_distribution(site_dir, path)
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
