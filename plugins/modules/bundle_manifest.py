#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: bundle_manifest
short_description: Write the SHA256SUMS of an offline bundle directory, hashing only what changed
version_added: "0.1.0"
description:
  - Lists every regular file below O(path) (recursively, relative POSIX paths, sorted) with its
    sha256 in C(sha256sum) format - C(<sha256>  <relative path>) per line - and writes the list to
    O(manifest_file), so the bundle can be checked with C(sha256sum -c) from O(path) after it has
    been carried to an offline site.
  - Each file's size, modification time, inode and digest are recorded in O(record_file); a later
    run re-hashes only the files whose stat no longer matches the record, so a run where nothing
    changed costs one C(stat) per file, not a read of the bundle.
  - The task reports a change only when the manifest text differs from O(manifest_file) (or it is
    missing). The record is rewritten whenever it differs, which alone is not a change.
  - The manifest and the record themselves are never listed, nor files matching O(exclude).
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  path:
    description: Bundle directory on the host.
    type: path
    required: true
  manifest_file:
    description:
      - Name of the manifest, relative to O(path) (its directory must exist).
    type: str
    default: SHA256SUMS
  record_file:
    description:
      - Where the digests are recorded between runs. Default C(.bundle-hashes.json) in O(path).
    type: path
  exclude:
    description:
      - Glob patterns (Python C(fnmatch), case-sensitive) matched against the relative POSIX path of
        each file and directory; a match is not listed and a matching directory is not descended.
        C(*) also matches C(/), so C(cache/*) leaves out everything below C(cache).
    type: list
    elements: str
    default: []
notes:
  - Supports check mode (everything is computed, nothing is written) and diff mode (the manifest text).
  - Symbolic links to files are followed and listed with the digest of what they point to; links to
    directories are not descended. A link that points outside O(path), or to nothing, fails the task
    naming it unless O(exclude) leaves it out.
  - A path containing a newline or a backslash cannot be written in the manifest and fails the task.
  - A file modified less than two seconds before a run is hashed again by the next run, since the
    file system may not have given a modification in the same instant a new timestamp.
seealso:
  - module: ascend.vllm.model_manifest
'''

EXAMPLES = r'''
- name: Write the checksums of the offline bundle
  ascend.vllm.bundle_manifest:
    path: /srv/ascend-bundle
    exclude: ['*.partial', 'tmp/*']
  register: bundle_sums

- name: Pin the whole bundle by the digest of its manifest
  ansible.builtin.debug:
    msg: "bundle sha256 {{ bundle_sums.sha256 }} ({{ bundle_sums.files }} files, {{ bundle_sums.bytes }} bytes)"
'''

RETURN = r'''
files:
  description: Number of files listed.
  returned: always
  type: int
  sample: 42
bytes:
  description: Total size of the listed files.
  returned: always
  type: int
  sample: 7516192768
hashed:
  description: Number of files hashed by this run (the others matched the record).
  returned: always
  type: int
  sample: 1
bytes_hashed:
  description: Bytes read to hash them.
  returned: always
  type: int
manifest_file:
  description: Absolute path of the manifest.
  returned: always
  type: str
  sample: /srv/ascend-bundle/SHA256SUMS
sha256:
  description: sha256 of the manifest text; one digest that pins every file of the bundle.
  returned: always
  type: str
  sample: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08
record_file:
  description: Path of the record.
  returned: always
  type: str
  sample: /srv/ascend-bundle/.bundle-hashes.json
'''

import os
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native, to_text

from ansible_collections.ascend.vllm.plugins.module_utils import bundle_manifest as bm


def _read(path):
    try:
        with open(path, 'rb') as handle:
            return handle.read()
    except (IOError, OSError):
        return None


def _write(module, path, data, what):
    # Beside the target, then AnsibleModule.atomic_move: readers never see half a manifest.
    try:
        fd, tmp = tempfile.mkstemp(prefix='.%s.' % os.path.basename(path), dir=os.path.dirname(path))
        with os.fdopen(fd, 'wb') as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
    except (IOError, OSError) as exc:
        module.fail_json(msg='bundle_manifest: cannot write the %s %s: %s' % (what, path, to_native(exc)))
    module.atomic_move(tmp, path)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type='path', required=True),
            manifest_file=dict(type='str', default='SHA256SUMS'),
            record_file=dict(type='path'),
            exclude=dict(type='list', elements='str', default=[]),
        ),
        supports_check_mode=True,
    )
    path = os.path.abspath(module.params['path'])
    if not os.path.isdir(path):
        module.fail_json(msg='bundle_manifest: %s is not a directory' % path)
    try:
        manifest_rel = bm.check_relpath(module.params['manifest_file'])
    except bm.BundleError as exc:
        module.fail_json(msg='bundle_manifest: unusable manifest_file: %s' % to_native(exc))
    manifest_file = os.path.join(path, *manifest_rel.split('/'))
    record_file = os.path.abspath(module.params['record_file'] or os.path.join(path, '.bundle-hashes.json'))
    skip = [manifest_rel]
    record_rel = bm.own_relpath(path, record_file)
    if record_rel is not None:
        skip.append(record_rel)

    old_record = _read(record_file)
    record = bm.load_record(old_record.decode('utf-8', 'replace') if old_record is not None else None)
    try:
        result = bm.scan(path, record, exclude=module.params['exclude'], skip=skip)
        text = bm.manifest_text(result['entries'])
    except bm.BundleError as exc:
        module.fail_json(msg='bundle_manifest: %s: %s' % (path, to_native(exc)))
    except (IOError, OSError) as exc:
        module.fail_json(msg='bundle_manifest: cannot read %s: %s' % (path, to_native(exc)))

    new_manifest = text.encode('utf-8', 'surrogateescape')
    old_manifest = _read(manifest_file)
    changed = new_manifest != old_manifest
    output = dict(
        changed=changed,
        files=result['files'],
        bytes=result['bytes'],
        hashed=len(result['hashed']),
        bytes_hashed=result['bytes_hashed'],
        manifest_file=manifest_file,
        sha256=bm.manifest_sha256(text),
        record_file=record_file,
    )
    if module._diff:
        output['diff'] = dict(
            before='' if old_manifest is None else to_text(old_manifest, errors='surrogate_or_replace'),
            after=to_text(new_manifest, errors='surrogate_or_replace'),
            before_header=manifest_file,
            after_header=manifest_file,
        )

    new_record = bm.dump_record(result['record']).encode('utf-8', 'surrogateescape')
    if not module.check_mode:
        if changed:
            _write(module, manifest_file, new_manifest, 'manifest')
        if new_record != old_record:
            _write(module, record_file, new_record, 'record')
    module.exit_json(**output)


if __name__ == '__main__':
    main()
