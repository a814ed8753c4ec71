#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: service_state
short_description: Read a systemd service's files, its unit's state and leftover backups in one pass
version_added: "0.1.0"
description:
  - Reads each of O(files) as M(ansible.builtin.stat) does by default (a link is read as a link) - whether it
    exists, its mode, owner and group - and, for the files of O(digests), whether its content has that sha256, for
    those of O(read), its text.
  - The digests of the files are never returned, only whether they match, so a file holding a secret (the service's
    API key) can be read without hiding the task's result; O(digests) is hidden from the logs.
  - Reads C(systemctl show) O(properties) of O(unit), and lists the files that match O(backups) (backups a failed run
    left).
  - Reads only; changes nothing.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  files:
    description: The files to read, in order.
    type: list
    elements: path
    default: []
  digests:
    description: The sha256 (hex) of the content wanted in files of O(files), by path; each gets C(same).
    type: dict
    default: {}
  read:
    description: Files of O(files) whose text is returned (C(text)).
    type: list
    elements: path
    default: []
  unit:
    description: The systemd unit whose O(properties) are read; unset reads none.
    type: str
  properties:
    description: The properties of O(unit) to read.
    type: list
    elements: str
    default: [ActiveState, UnitFileState, NeedDaemonReload]
  backups:
    description: Absolute glob patterns of backup files to list.
    type: list
    elements: str
    default: []
notes:
  - Supports check mode; the module never changes the host.
seealso:
  - module: ansible.builtin.stat
'''

EXAMPLES = r'''
- name: Read the service's files and its unit's state
  ascend.vllm.service_state:
    files: [/etc/vllm/main.env, /etc/systemd/system/vllm-main.service]
    digests:
      /etc/vllm/main.env: "{{ lookup('ansible.builtin.template', 'vllm.env.j2') | hash('sha256') }}"
    read: [/etc/systemd/system/vllm-main.service]
    unit: vllm-main.service
    backups: ["/etc/systemd/system/vllm-main.service.*~"]
  register: service
'''

RETURN = r'''
files:
  description: One entry per file of O(files), in order.
  returned: always
  type: list
  elements: dict
  contains:
    path:
      description: The path.
      type: str
    exists:
      description: Whether it exists (a link counts, as for M(ansible.builtin.stat)).
      type: bool
    mode:
      description: Its mode, as an octal string; empty when it does not exist.
      type: str
      sample: "0640"
    owner:
      description: Its owner's name; empty when it does not exist or the owner has no name.
      type: str
    group:
      description: Its group's name; empty when it does not exist or the group has no name.
      type: str
    same:
      description: Whether its content has the sha256 of O(digests); false when it is not a regular file.
      type: bool
      returned: when the file is in O(digests)
    text:
      description: Its text; empty when it is not a regular file.
      type: str
      returned: when the file is in O(read)
unit:
  description: The properties read of O(unit); empty without O(unit).
  returned: always
  type: dict
  sample: {ActiveState: active, UnitFileState: enabled, NeedDaemonReload: "no"}
backups:
  description: The files (not directories) matching O(backups), sorted.
  returned: always
  type: list
  elements: str
'''

import glob
import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ascend.vllm.plugins.module_utils.command import describe_failure, module_runner
from ansible_collections.ascend.vllm.plugins.module_utils.service_state import file_view
from ansible_collections.ascend.vllm.plugins.module_utils.vllm_health import parse_show


def main():
    module = AnsibleModule(
        argument_spec=dict(
            files=dict(type='list', elements='path', default=[]),
            digests=dict(type='dict', default={}, no_log=True),
            read=dict(type='list', elements='path', default=[]),
            unit=dict(type='str'),
            properties=dict(type='list', elements='str', default=['ActiveState', 'UnitFileState', 'NeedDaemonReload']),
            backups=dict(type='list', elements='str', default=[]),
        ),
        supports_check_mode=True,
    )
    params = module.params
    unknown = sorted((set(params['digests']) | set(params['read'])) - set(params['files']))
    if unknown:
        module.fail_json(msg='ascend.vllm.service_state: %s named in digests or read but not in files' % ', '.join(unknown))
    files = [file_view(path, params['digests'].get(path), path in params['read']) for path in params['files']]
    unit = {}
    if params['unit']:
        argv = [module.get_bin_path('systemctl', required=True), 'show', params['unit'],
                '--property=%s' % ','.join(params['properties'])]
        rc, out, err = module_runner(module)(argv)
        if rc != 0:
            module.fail_json(msg='ascend.vllm.service_state: %s' % describe_failure(argv, rc, out, err), rc=rc, stderr=err)
        unit = parse_show(out)
    # Files only, as ansible.builtin.find lists them: a directory is never a backup to delete.
    backups = sorted(set(path for pattern in params['backups'] for path in glob.glob(pattern)
                         if os.path.islink(path) or not os.path.isdir(path)))
    module.exit_json(changed=False, files=files, unit=unit, backups=backups)


if __name__ == '__main__':
    main()
