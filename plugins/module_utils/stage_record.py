# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The record a stage leaves on a node after a converge, and the test a later run makes of it.

A record holds a digest of what the stage was asked (its role's options, the stack, the node's
hardware identity and the code of the collection that did the work) and fingerprints of the files
that show the result (version files, written configuration). A run that finds the same request
and every file as recorded may skip the stage's work: one read instead of the stage's tasks.
Anything else - no record, another request, a file changed or gone - is named as the reason the
stage runs in full. Drift outside the recorded files is the verify stage's to report.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import glob
import grp
import hashlib
import json
import os
import pwd
import stat

FORMAT = 1
# Where the records live (the module's default dir; decommission removes them from there).
RECORDS_DIR = '/var/lib/ascend-vllm/stages'
# Files up to this size are fingerprinted by their content, larger ones by size and mtime.
CONTENT_LIMIT = 1 << 20
SECRET = '(secret)'


def canonical(value):
    """One text per value: keys sorted, no whitespace, anything else as its str()."""
    return json.dumps(value, sort_keys=True, separators=(',', ':'), default=str)


def digest(value):
    return hashlib.sha256(canonical(value).encode('utf-8')).hexdigest()


def request_digests(values, secret_keys=()):
    """The digest of the whole request and a short digest per key, to name what changed.

    A secret's own digest is not kept (a record is readable by root only, but a short hash of a
    guessable secret would still tell it); it counts in the whole request's digest only."""
    per_key = {}
    for key in sorted(values):
        per_key[key] = SECRET if key in secret_keys else digest(values[key])[:16]
    return digest(values), per_key


def code_digest(roots):
    """The digest of every file under the roots (bytecode caches left out), names included."""
    sha = hashlib.sha256()
    for root in roots:
        for directory, subdirs, files in os.walk(root):
            subdirs[:] = sorted(d for d in subdirs if d != '__pycache__')
            for name in sorted(files):
                if name.endswith('.pyc'):
                    continue
                path = os.path.join(directory, name)
                sha.update(os.path.relpath(path, root).encode('utf-8') + b'\0')
                with open(path, 'rb') as handle:
                    sha.update(hashlib.sha256(handle.read()).digest())
    return sha.hexdigest()


def _account(entry):
    kind, name = entry.split(':', 1)
    try:
        if kind == 'user':
            found = pwd.getpwnam(name)
            return {'state': 'user', 'uid': found.pw_uid, 'gid': found.pw_gid, 'home': found.pw_dir,
                    'shell': found.pw_shell}
        found = grp.getgrnam(name)
        # Its id only: later stages add their service users to a group (HwHiAiUser).
        return {'state': 'group', 'gid': found.gr_gid}
    except KeyError:
        return {'state': 'missing'}


def _matches(pattern):
    names = sorted(glob.glob(pattern))
    if not names:
        return {'state': 'missing'}
    return {'state': 'matches', 'count': len(names), 'sha256': digest(names)}


def fingerprint(path):
    """What an entry is now. A path: missing, a directory, or a file by content (size and mtime when
    large); ``user:NAME`` and ``group:NAME``: the account's ids (a user's home and shell too);
    ``glob:PATTERN``: the names that match (a virtualenv's ``*.dist-info`` directories name every
    package and version it holds)."""
    if path.startswith(('user:', 'group:')):
        return _account(path)
    if path.startswith('glob:'):
        return _matches(path[len('glob:'):])
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return {'state': 'missing'}
    except OSError as exc:
        return {'state': 'unreadable', 'error': exc.__class__.__name__}
    # Mode and owner count: the stage sets them too (a profile script another user cannot read
    # is drift although its content is right).
    owner = {'mode': stat.S_IMODE(info.st_mode), 'uid': info.st_uid, 'gid': info.st_gid}
    if stat.S_ISDIR(info.st_mode):
        return dict(owner, state='directory')
    if not stat.S_ISREG(info.st_mode):
        return {'state': 'other', 'mode': stat.S_IFMT(info.st_mode)}
    if info.st_size > CONTENT_LIMIT:
        return dict(owner, state='file', size=info.st_size, mtime_ns=info.st_mtime_ns)
    sha = hashlib.sha256()
    try:
        with open(path, 'rb') as handle:
            for block in iter(lambda: handle.read(65536), b''):
                sha.update(block)
    except OSError as exc:
        return {'state': 'unreadable', 'error': exc.__class__.__name__}
    return dict(owner, state='file', sha256=sha.hexdigest())


def build(stage, request_digest, inputs, files, facts):
    """The record to write: files maps each path to its fingerprint now."""
    return {'format': FORMAT, 'stage': stage, 'digest': request_digest, 'inputs': dict(inputs),
            'files': dict(files), 'facts': dict(facts or {})}


def _describe(path, recorded, now):
    if now.get('state') == 'missing':
        return '%s is gone' % path
    if recorded.get('state') == 'missing':
        return '%s appeared' % path
    return '%s changed' % path


def stale_reasons(record, request_digest, inputs, files_now):
    """Why the record does not vouch for the node: [] when it does.

    record: the record read (None when there is none); inputs: the short per-key digests of this
    run's request; files_now: path -> fingerprint now, for every path the record lists."""
    if record is None:
        return ['no record of an earlier converge']
    if (not isinstance(record, dict) or record.get('format') != FORMAT
            or not isinstance(record.get('files') or {}, dict) or not isinstance(record.get('inputs') or {}, dict)):
        return ['the record is of another format']
    reasons = []
    if record.get('digest') != request_digest:
        before = record.get('inputs') or {}
        keys = sorted(k for k in set(before) | set(inputs) if before.get(k) != inputs.get(k))
        # Only a secret can have changed unseen: name the secrets then.
        keys = keys or sorted(k for k, v in inputs.items() if v == SECRET)
        reasons.append('the request changed (%s)' % ', '.join(keys) if keys else 'the request changed')
    for path in sorted(record.get('files') or {}):
        recorded = record['files'][path]
        now = files_now.get(path, {'state': 'missing'})
        if now != recorded:
            reasons.append(_describe(path, recorded, now))
    return reasons


def parse(data):
    """The record in a file's bytes; an unreadable one counts as of another format (so it is rewritten)."""
    try:
        return json.loads(data.decode('utf-8'))
    except ValueError:  # UnicodeDecodeError is one
        return {'format': None}
