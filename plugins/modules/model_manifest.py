#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: model_manifest
short_description: Verify a model directory against a SHA256 manifest, once, and record it
version_added: "0.1.0"
description:
  - Compares the files of a model directory with a C(sha256sum)-format manifest (the
    C(SHA256SUMS) of a model mirror). The first verification hashes every file and records
    each file's size, modification time, inode and digest in O(record_file); later runs
    re-hash only files whose stat no longer matches the record or whose expected digest
    changed, so a run where nothing changed costs one C(stat) per file, not a read of the
    weights.
  - With O(state=verified) a missing or different file fails the task, naming the files and
    both digests; the record is (re)written when it changes (the only change the module makes).
  - With O(state=planned) nothing is written and nothing fails; RV(needed) lists the files to
    fetch (missing or different), which is how a role decides what to download or copy.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  path:
    description: Model directory on the host.
    type: path
    required: true
  manifest:
    description:
      - Manifest text (C(<sha256>  <relative name>) per line). When unset, O(manifest_file) is read.
    type: str
  manifest_file:
    description:
      - Manifest file on the host. Default C(SHA256SUMS) in O(path).
    type: path
  record_file:
    description:
      - Where the verification is recorded. Default C(.sha256-verified.json) in O(path).
    type: path
  state:
    description:
      - C(verified) - fail unless every file matches, record the verification.
      - C(planned) - only report what matches and what is needed.
    type: str
    choices: [verified, planned]
    default: verified
notes:
  - Supports check mode (nothing is written) and diff-free operation.
  - Files in the directory that the manifest does not list are ignored.
seealso:
  - module: ansible.builtin.get_url
'''

EXAMPLES = r'''
- name: What of the model is still to be fetched
  ascend.vllm.model_manifest:
    path: /var/lib/vllm/models/DeepSeek-R1-Distill-Qwen-7B
    manifest: "{{ lookup('ansible.builtin.file', 'models/DeepSeek-R1-Distill-Qwen-7B/SHA256SUMS') }}"
    state: planned
  register: plan

- name: Verify the weights (hashes only what changed since the last verification)
  ascend.vllm.model_manifest:
    path: /var/lib/vllm/models/DeepSeek-R1-Distill-Qwen-7B
'''

RETURN = r'''
manifest_sha256:
  description: Digest of the manifest's entries (sorted), independent of its formatting.
  returned: always
  type: str
files:
  description: Number of files the manifest lists.
  returned: always
  type: int
  sample: 6
digests:
  description: The manifest as a dict, file name to expected sha256.
  returned: always
  type: dict
  sample: {config.json: 3f0c0e9b...}
needed:
  description: Files that are missing or differ from the manifest.
  returned: always
  type: list
  elements: str
  sample: [model-00001-of-00002.safetensors]
missing:
  description: Files the manifest lists that are not regular files in the directory.
  returned: always
  type: list
  elements: str
mismatched:
  description: Files whose digest differs - C(name), C(expected), C(actual).
  returned: always
  type: list
  elements: dict
hashed:
  description: Files hashed by this run (the others matched the record).
  returned: always
  type: list
  elements: str
bytes_hashed:
  description: Bytes read to hash them.
  returned: always
  type: int
bytes_total:
  description: Size of the listed files present in the directory.
  returned: always
  type: int
record_file:
  description: Path of the record.
  returned: always
  type: str
'''

import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native

from ansible_collections.ascend.vllm.plugins.module_utils import model_manifest as mm


def _read(path):
    try:
        with open(path, 'r') as handle:
            return handle.read()
    except (IOError, OSError):
        return None


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type='path', required=True),
            manifest=dict(type='str'),
            manifest_file=dict(type='path'),
            record_file=dict(type='path'),
            state=dict(type='str', choices=['verified', 'planned'], default='verified'),
        ),
        mutually_exclusive=[['manifest', 'manifest_file']],
        supports_check_mode=True,
    )
    path = module.params['path']
    manifest_file = module.params['manifest_file'] or os.path.join(path, 'SHA256SUMS')
    record_file = module.params['record_file'] or os.path.join(path, '.sha256-verified.json')
    text = module.params['manifest']
    if text is None:
        text = _read(manifest_file)
        if text is None:
            module.fail_json(msg='model_manifest: cannot read the manifest %s' % manifest_file)
    try:
        entries = mm.parse_manifest(text)
    except mm.ManifestError as exc:
        module.fail_json(msg='model_manifest: unusable manifest for %s: %s' % (path, to_native(exc)))

    old_text = _read(record_file)
    record = mm.load_record(old_text)
    try:
        result = mm.check(path, entries, record)
    except (IOError, OSError) as exc:
        module.fail_json(msg='model_manifest: cannot read %s: %s' % (path, to_native(exc)))

    output = dict(
        changed=False,
        manifest_sha256=result['record']['manifest_sha256'],
        files=len(entries),
        digests=dict(entries),
        needed=[b['name'] for b in result['mismatched']] + result['missing'],
        missing=result['missing'],
        mismatched=result['mismatched'],
        hashed=result['hashed'],
        bytes_hashed=result['bytes_hashed'],
        bytes_total=result['bytes_total'],
        record_file=record_file,
    )
    if module.params['state'] == 'planned':
        module.exit_json(**output)

    problems = mm.describe_problems(path, result)
    if problems:
        output['msg'] = 'model_manifest: %s' % problems
        module.fail_json(**output)

    new_text = mm.dump_record(result['record'])
    if new_text != old_text:
        output['changed'] = True
        if not module.check_mode:
            tmp = '%s.tmp.%d' % (record_file, os.getpid())
            try:
                with open(tmp, 'w') as handle:
                    handle.write(new_text)
                os.chmod(tmp, 0o644)
                os.rename(tmp, record_file)
            except (IOError, OSError) as exc:
                module.fail_json(msg='model_manifest: cannot write the record %s: %s' % (record_file, to_native(exc)))
    module.exit_json(**output)


if __name__ == '__main__':
    main()
