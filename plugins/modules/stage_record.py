#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: stage_record
short_description: Read or write the record a stage leaves on a node after a converge
version_added: "0.1.0"
description:
  - A stage (a role that installs or configures) writes a record after it converged - a digest of what it was
    asked and fingerprints of the files that show the result - and reads it at the start of the next run. When
    the request and every file are as recorded, C(current) is true and the stage may skip its work; otherwise
    C(reasons) names why it runs in full (no record, the request changed and in which options, a file changed
    or gone).
  - The action plugin computes the request's digest on the controller from O(inputs), the value of every option
    of the calling role's C(main) entry point (its C(meta/argument_specs.yml)) and the code of the role and of the
    collection's plugins, so an upgrade of the collection runs every stage in full once. Options marked C(no_log)
    count in the digest only.
  - Records are C(<dir>/<stage>.json), root only (C(0700) directory, C(0600) file).
  - With the shared variable C(ascend_stage_records) false, a read answers C(current=false) without contacting the
    node; writes go on, so setting it back to true works at once.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  stage:
    description: The stage's name; the record's file name.
    type: str
    required: true
  state:
    description:
      - C(read) tests the record (changes nothing); C(write) records the node as it is now; C(absent) removes the
        record, so a converge that fails after it leaves none that could vouch for the node.
    type: str
    choices: [read, write, absent]
    default: read
  inputs:
    description:
      - Values of the request besides the role's options, such as the resolved stack or the node's chip family.
        Only their digests reach the node.
    type: dict
    default: {}
  role_options:
    description: Whether the calling role's options (entry point C(main)) count in the request.
    type: bool
    default: true
  exclude:
    description:
      - Role options left out of the request - results the role publishes under an option's name (a fact set by
        the role, or by another entry point of it, is not a request).
    type: list
    elements: str
    default: []
  digest:
    description: The request's digest; the action plugin computes it, it is not set in a task.
    type: str
  files:
    description:
      - With O(state=write), what the record fingerprints - absolute paths (a missing one is recorded as missing),
        C(user:NAME) and C(group:NAME) for accounts, C(glob:PATTERN) for the names a pattern matches.
    type: list
    elements: str
    default: []
  facts:
    description: With O(state=write), values the stage publishes, returned by a read that finds the record current.
    type: dict
    default: {}
  dir:
    description: The directory of the records.
    type: path
    default: /var/lib/ascend-vllm/stages
notes:
  - Supports check mode; a write in check mode writes nothing and reports whether it would.
  - Writing a record is bookkeeping of the collection, not a change to what the stage manages; roles run it with
    C(changed_when) false.
'''

EXAMPLES = r'''
- name: Read the record of CANN's last converge
  ascend.vllm.stage_record:
    stage: cann
    inputs:
      stack: "{{ ascend_stack }}"
  register: record

- name: Install CANN
  ansible.builtin.include_tasks: converge.yml
  when: not record.current

- name: Record the node as the converge left it
  ascend.vllm.stage_record:
    stage: cann
    state: write
    inputs:
      stack: "{{ ascend_stack }}"
    files: [/usr/local/Ascend/ascend-toolkit/latest/version.cfg, /etc/ascend-vllm/cann.env]
    facts:
      cann_installed_version: "{{ cann_installed_version }}"
  changed_when: false
  when: not record.current and not ansible_check_mode
'''

RETURN = r'''
current:
  description: Whether the record vouches for the node (O(state=read)).
  returned: always
  type: bool
  sample: true
reasons:
  description: Why the record does not vouch for the node; empty when it does.
  returned: always
  type: list
  elements: str
  sample: ["the request changed (cann_version, stack)", "/etc/ascend-vllm/cann.env changed"]
facts:
  description: The facts recorded with the record when it is current, else empty.
  returned: always
  type: dict
  sample: {"cann_installed_version": "9.1.0"}
digest:
  description: The request's digest (null with O(state=absent), which needs none).
  returned: always
  type: str
path:
  description: The record's file.
  returned: always
  type: str
  sample: /var/lib/ascend-vllm/stages/cann.json
'''

import os
import tempfile

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes
from ansible_collections.ascend.vllm.plugins.module_utils import stage_record


def _read(path):
    try:
        with open(path, 'rb') as handle:
            return stage_record.parse(handle.read())
    except FileNotFoundError:
        return None


def main():
    module = AnsibleModule(
        argument_spec=dict(
            stage=dict(type='str', required=True),
            state=dict(type='str', choices=['read', 'write', 'absent'], default='read'),
            role_options=dict(type='bool', default=True),
            exclude=dict(type='list', elements='str', default=[]),
            digest=dict(type='str'),
            inputs=dict(type='dict', default={}),
            files=dict(type='list', elements='str', default=[]),
            facts=dict(type='dict', default={}),
            dir=dict(type='path', default=stage_record.RECORDS_DIR),
        ),
        supports_check_mode=True,
    )
    params = module.params
    if not params['digest'] and params['state'] != 'absent':
        module.fail_json(msg='stage_record: no digest; the task must run through the ascend.vllm.stage_record action')
    path = os.path.join(params['dir'], params['stage'] + '.json')
    try:
        record = _read(path)
    except OSError as exc:
        module.fail_json(msg='stage_record: cannot read %s: %s' % (path, exc))
    result = dict(changed=False, path=path, digest=params['digest'], facts={})

    if params['state'] == 'absent':
        result['changed'] = record is not None
        if record is not None and not module.check_mode:
            try:
                os.remove(path)
            except OSError as exc:
                module.fail_json(msg='stage_record: cannot remove %s: %s' % (path, exc))
        result.update(current=False, reasons=[])
        module.exit_json(**result)

    if params['state'] == 'read':
        files = record.get('files') if isinstance(record, dict) else None
        files = files if isinstance(files, dict) else {}
        now = dict((p, stage_record.fingerprint(p)) for p in files)
        reasons = stage_record.stale_reasons(record, params['digest'], params['inputs'], now)
        result.update(current=not reasons, reasons=reasons, facts=record.get('facts', {}) if not reasons else {})
        module.exit_json(**result)

    new = stage_record.build(params['stage'], params['digest'], params['inputs'],
                             dict((p, stage_record.fingerprint(p)) for p in params['files']), params['facts'])
    result.update(current=True, reasons=[], changed=new != record)
    if result['changed'] and not module.check_mode:
        try:
            if not os.path.isdir(params['dir']):
                os.makedirs(params['dir'], 0o700)
            os.chmod(params['dir'], 0o700)
            # mkstemp's file is 0600 from the start, and a rename in one directory is atomic: no
            # moment in which the record is readable by others (a record may fingerprint a secret's file).
            handle, tmp = tempfile.mkstemp(prefix='.%s.' % params['stage'], dir=params['dir'])
            try:
                with os.fdopen(handle, 'wb') as out:
                    out.write(to_bytes(stage_record.canonical(new)))
                os.replace(tmp, path)
            finally:
                if os.path.exists(tmp):
                    os.remove(tmp)
        except OSError as exc:
            module.fail_json(msg='stage_record: cannot write %s: %s' % (path, exc))
    module.exit_json(**result)


if __name__ == '__main__':
    main()
