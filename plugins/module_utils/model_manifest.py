# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""SHA256 manifests of model directories, verified once and recorded.

A model directory holds tens to hundreds of gigabytes of weights. Hashing them on every run
would make a no-change run cost O(bytes); instead a verification is recorded (file name,
size, modification time in ns, inode, sha256) and a later run re-hashes only the files whose
stat no longer matches the record, or whose expected digest changed: O(files).

Pure functions: nothing here imports Ansible.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import os
import re

RECORD_VERSION = 1
_LINE = re.compile(r'^([0-9a-fA-F]{64}) [ *](.+)$')


class ManifestError(Exception):
    """A manifest that cannot be used (syntax, unsafe names)."""


def parse_manifest(text):
    """``sha256sum`` output -> ordered list of (relative name, lower-case sha256).

    Blank lines and ``#`` comments are skipped. Absolute names, ``..`` components and a name
    listed twice with different digests are refused: the manifest decides which files are
    written under the model directory.
    """
    entries = []
    seen = {}
    for number, raw in enumerate((text or '').splitlines(), 1):
        line = raw.rstrip('\r')
        if not line.strip() or line.lstrip().startswith('#'):
            continue
        match = _LINE.match(line)
        if not match:
            raise ManifestError('line %d is not "<sha256>  <file>": %r' % (number, line[:120]))
        digest, name = match.group(1).lower(), match.group(2)
        if name.startswith('./'):
            name = name[2:]
        parts = name.split('/')
        if name.startswith('/') or '..' in parts or '' in parts or '\\' in name:
            raise ManifestError('line %d names %r, which is not a relative path inside the model directory'
                                % (number, name))
        if name in seen:
            if seen[name] != digest:
                raise ManifestError('line %d lists %s again with another digest' % (number, name))
            continue
        seen[name] = digest
        entries.append((name, digest))
    if not entries:
        raise ManifestError('the manifest lists no files')
    return entries


def manifest_digest(entries):
    """One digest of a parsed manifest, independent of its formatting and line order."""
    text = ''.join('%s  %s\n' % (digest, name) for name, digest in sorted(entries))
    return hashlib.sha256(text.encode('utf-8')).hexdigest()


def sha256_file(path, block=4 * 1024 * 1024):
    digest = hashlib.sha256()
    with open(path, 'rb') as handle:
        while True:
            chunk = handle.read(block)
            if not chunk:
                break
            digest.update(chunk)
    return digest.hexdigest()


def stat_key(path):
    """(size, mtime_ns, inode) of a regular file, or None when it is missing or not a file."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not os.path.isfile(path):
        return None
    return {'size': info.st_size, 'mtime_ns': int(getattr(info, 'st_mtime_ns', info.st_mtime * 1e9)),
            'inode': info.st_ino}


def load_record(text):
    """The JSON record of an earlier verification, or an empty one when absent or unreadable."""
    try:
        data = json.loads(text) if text else {}
    except ValueError:
        data = {}
    if not isinstance(data, dict) or data.get('version') != RECORD_VERSION or not isinstance(data.get('files'), dict):
        return {'version': RECORD_VERSION, 'files': {}}
    return data


def dump_record(record):
    return json.dumps(record, indent=1, sort_keys=True) + '\n'


def check(directory, entries, record, hasher=sha256_file):
    """Compare a directory with a manifest, trusting the record for unchanged files.

    Returns a dict: ``ok`` (names that match), ``missing`` (names without a regular file),
    ``mismatched`` ([{name, expected, actual}]), ``hashed`` (names hashed by this call),
    ``bytes_hashed``, ``bytes_total`` (size of the present files) and ``record`` (the record
    describing the files that match, to be written back).
    """
    known = record.get('files', {})
    result = {'ok': [], 'missing': [], 'mismatched': [], 'hashed': [], 'bytes_hashed': 0, 'bytes_total': 0}
    files = {}
    for name, expected in entries:
        path = os.path.join(directory, *name.split('/'))
        key = stat_key(path)
        if key is None:
            result['missing'].append(name)
            continue
        result['bytes_total'] += key['size']
        seen = known.get(name)
        if isinstance(seen, dict) and seen.get('sha256') == expected and all(seen.get(k) == v for k, v in key.items()):
            actual = expected
        else:
            actual = hasher(path)
            result['hashed'].append(name)
            result['bytes_hashed'] += key['size']
        if actual != expected:
            result['mismatched'].append({'name': name, 'expected': expected, 'actual': actual})
            continue
        result['ok'].append(name)
        entry = dict(key)
        entry['sha256'] = expected
        files[name] = entry
    result['record'] = {'version': RECORD_VERSION, 'manifest_sha256': manifest_digest(entries), 'files': files}
    return result


def describe_problems(directory, result, limit=5):
    """One sentence naming what does not match (empty when everything does)."""
    parts = []
    bad = result['mismatched']
    if bad:
        shown = ', '.join('%s (sha256 %s, expected %s)' % (b['name'], b['actual'], b['expected']) for b in bad[:limit])
        parts.append('%d file(s) differ from the manifest: %s%s'
                     % (len(bad), shown, ' and %d more' % (len(bad) - limit) if len(bad) > limit else ''))
    missing = result['missing']
    if missing:
        parts.append('%d file(s) missing: %s%s' % (len(missing), ', '.join(missing[:limit]),
                                                   ' and %d more' % (len(missing) - limit) if len(missing) > limit else ''))
    if not parts:
        return ''
    return '%s: %s' % (directory, '; '.join(parts))
