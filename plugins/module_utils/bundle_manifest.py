# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The SHA256SUMS of an offline bundle directory, re-hashing only what changed.

Every regular file below the bundle directory is listed (relative POSIX paths, sorted, in
``sha256sum`` format). As for model directories (:mod:`model_manifest`), each file's size,
modification time in ns, inode and digest are recorded, and a later run re-hashes only the
files whose stat no longer matches the record.

A file modified within the file system's timestamp granularity of being hashed can keep its
modification time; such a file is not recorded (it is hashed again by the next run), as git
does for its "racily clean" index entries: a file enters the record only when its modification
time is at least ``RACY_NS`` older than the start of the run that hashed it.

Pure functions: nothing here imports Ansible.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import fnmatch
import hashlib
import os
import re
import time

from ansible_collections.ascend.vllm.plugins.module_utils.model_manifest import (
    RECORD_VERSION,
    dump_record,
    load_record,
    sha256_file,
    stat_key,
)

__all__ = ['BundleError', 'RACY_NS', 'RECORD_VERSION', 'check_relpath', 'dump_record', 'excluded', 'load_record',
           'manifest_sha256', 'manifest_text', 'own_relpath', 'scan', 'sha256_file', 'stat_key']

# Modification times this close to the start of a run are not trusted by the next one.
RACY_NS = 2 * 10 ** 9
_DIGEST = re.compile(r'^[0-9a-f]{64}$')


class BundleError(Exception):
    """A bundle that cannot be listed (unsafe names, links leaving the directory)."""


def check_relpath(relpath):
    """Refuse a path that ``sha256sum -c`` (or a manifest reader) would misread or resolve
    outside the bundle directory; returns it unchanged otherwise."""
    if '\n' in relpath or '\r' in relpath:
        raise BundleError('%r: a manifest path cannot contain a newline' % (relpath,))
    if relpath.startswith('/'):
        raise BundleError("%r: a manifest path must be relative (it starts with '/')" % (relpath,))
    parts = relpath.split('/')
    if '..' in parts:
        raise BundleError("%r: a manifest path cannot have a '..' component" % (relpath,))
    if '\\' in relpath:
        raise BundleError('%r: a manifest path cannot contain a backslash (sha256sum escapes it)' % (relpath,))
    if '' in parts or '.' in parts:
        raise BundleError("%r: a manifest path cannot have empty or '.' components" % (relpath,))
    return relpath


def manifest_text(entries):
    """``sha256sum`` text of ``entries`` (relative path -> sha256): one ``<hex>  <path>`` line
    per file, sorted by path, each ending in a newline; '' for no entries."""
    lines = []
    for relpath in sorted(entries):
        check_relpath(relpath)
        digest = entries[relpath]
        if not isinstance(digest, str) or not _DIGEST.match(digest):
            raise BundleError('%r: %r is not a lower-case hexadecimal sha256' % (relpath, digest))
        lines.append('%s  %s\n' % (digest, relpath))
    return ''.join(lines)


def manifest_sha256(text):
    """Digest of a manifest text (file names that are not UTF-8 kept byte for byte)."""
    return hashlib.sha256(text.encode('utf-8', 'surrogateescape')).hexdigest()


def excluded(relpath, patterns):
    """Whether ``relpath`` matches one of the glob ``patterns`` (:func:`fnmatch.fnmatchcase`
    on the whole relative path; ``*`` also matches ``/``)."""
    return any(fnmatch.fnmatchcase(relpath, pattern) for pattern in patterns or ())


def _inside(target, root):
    prefix = root if root.endswith(os.sep) else root + os.sep
    return target.startswith(prefix)


def _own_file(relpath, skip):
    """One of ``skip`` or a temporary file left by writing one (``<name>.tmp.<pid>``)."""
    if relpath in skip:
        return True
    base, dot, pid = relpath.rpartition('.tmp.')
    return bool(dot) and pid.isdigit() and base in skip


def _now_ns():
    return int(time.time() * 1e9)


def _outside(path, relpath, root, found):
    """True (and ``relpath -> link`` appended to ``found``) when the link ``path`` leads out of ``root``."""
    if _inside(os.path.realpath(path), root):
        return False
    found.append('%s -> %s' % (relpath, os.readlink(path)))
    return True


def scan(directory, record, exclude=(), skip=(), hasher=sha256_file, now_ns=None):
    """List and hash the regular files below ``directory``, trusting ``record`` for files whose
    (size, mtime_ns, inode) still match it.

    ``exclude`` are glob patterns (:func:`excluded`; a matching directory is not descended),
    ``skip`` exact relative paths left out (the manifest and the record themselves, and the
    ``<name>.tmp.<pid>`` files an interrupted write of them leaves). Symbolic
    links to files are followed; links to directories are not descended (what they point to
    inside the directory is listed where it is). Links that point outside ``directory`` or to
    nothing raise :class:`BundleError` naming every such link, unless they are excluded.

    Returns a dict: ``entries`` (relative path -> sha256), ``files``, ``bytes`` (their total
    size), ``hashed`` (relative paths hashed by this call, sorted), ``bytes_hashed`` and
    ``record`` (to be written back).
    """
    now_ns = _now_ns() if now_ns is None else now_ns
    root = os.path.realpath(directory)
    known = (record or {}).get('files') or {}
    skip = set(skip or ())
    outside = []
    dangling = []
    found = []

    def fail(error):
        raise error

    for current, dirnames, filenames in os.walk(directory, onerror=fail):
        rel_dir = os.path.relpath(current, directory)
        prefix = '' if rel_dir == os.curdir else rel_dir.replace(os.sep, '/') + '/'
        kept = []
        for name in sorted(dirnames):
            relpath = prefix + name
            if excluded(relpath, exclude):
                continue
            path = os.path.join(current, name)
            if os.path.islink(path):
                # Not descended; named when it leads out of the bundle.
                _outside(path, relpath, root, outside)
                continue
            kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            relpath = prefix + name
            if _own_file(relpath, skip) or excluded(relpath, exclude):
                continue
            path = os.path.join(current, name)
            if os.path.islink(path):
                if _outside(path, relpath, root, outside):
                    continue
                target = os.path.realpath(path)
                if not os.path.exists(target):
                    dangling.append('%s -> %s' % (relpath, os.readlink(path)))
                    continue
            found.append((relpath, path))
    problems = []
    if outside:
        problems.append('symbolic links that point outside %s: %s' % (root, ', '.join(sorted(outside))))
    if dangling:
        problems.append('symbolic links that point to nothing: %s' % ', '.join(sorted(dangling)))
    if problems:
        raise BundleError('; '.join(problems))

    result = {'entries': {}, 'files': 0, 'bytes': 0, 'hashed': [], 'bytes_hashed': 0}
    files = {}
    for relpath, path in sorted(found):
        key = stat_key(path)
        if key is None:  # sockets, fifos, devices
            continue
        check_relpath(relpath)
        seen = known.get(relpath)
        if isinstance(seen, dict) and isinstance(seen.get('sha256'), str) and all(seen.get(k) == v for k, v in key.items()):
            digest = seen['sha256']
        else:
            digest = hasher(path)
            result['hashed'].append(relpath)
            result['bytes_hashed'] += key['size']
        result['entries'][relpath] = digest
        result['files'] += 1
        result['bytes'] += key['size']
        if key['mtime_ns'] < now_ns - RACY_NS:
            entry = dict(key)
            entry['sha256'] = digest
            files[relpath] = entry
    result['record'] = {'version': RECORD_VERSION, 'files': files}
    return result


def own_relpath(directory, path):
    """``path`` relative to ``directory`` (POSIX separators) when it lies inside it, else None.
    Both are resolved first, so a directory given through a symbolic link still matches."""
    root = os.path.realpath(directory)
    target = os.path.realpath(path)
    if not _inside(target, root):
        return None
    return os.path.relpath(target, root).replace(os.sep, '/')
