#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: venv_check
short_description: Check the installed files of a virtualenv's packages against their RECORD
version_added: "0.1.0"
description:
  - For each named distribution of a virtualenv, reads the C(RECORD) file pip wrote when it installed the wheel and
    compares every listed file with its SHA256 - a file deleted or edited after the install is reported, so a damaged
    package is found before the next restart imports it.
  - Reads files only; it never changes the host, and it does not import the virtualenv's packages.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  venv:
    description: The virtualenv's directory.
    type: path
    required: true
  distributions:
    description: Names of the distributions to check (any spelling pip accepts).
    type: list
    elements: str
    required: true
  intact_since:
    description:
      - The RV(intact) of an earlier check of the same virtualenv (its keys are normalized names; another spelling
        only means the files are hashed). A distribution named there is hashed again only when what stat() says of
        its files (size, modification and change times, inode) differs from then; a write, truncation, replacement
        or deletion moves the change time.
      - Leave it empty to hash every file.
    type: dict
    default: {}
notes:
  - Supports check mode; the module never changes the host.
  - Files listed without a hash (RECORD itself, byte code compiled after the install) and byte code (C(.pyc), which
    the interpreter rewrites when its source is newer, even when a wheel ships it with a hash) are not judged.
seealso:
  - module: ascend.vllm.vllm_health
'''

EXAMPLES = r'''
- name: Check the stack's packages
  ascend.vllm.venv_check:
    venv: /opt/ascend-vllm/venv
    distributions: [vllm, vllm-ascend, torch, torch-npu]
  register: venv_state

- name: Reinstall what was damaged
  ansible.builtin.command:
    argv: "{{ ['/opt/ascend-vllm/venv/bin/pip', 'install', '--no-deps', '--force-reinstall'] + venv_state.reinstall }}"
  when: venv_state.reinstall | length > 0

- name: Check them again later in the same run, hashing only what stat() says changed
  ascend.vllm.venv_check:
    venv: /opt/ascend-vllm/venv
    distributions: [vllm, vllm-ascend, torch, torch-npu]
    intact_since: "{{ venv_state.intact }}"
'''

RETURN = r'''
distributions:
  description: One entry per installed distribution that was asked for.
  returned: always
  type: list
  elements: dict
  contains:
    name: {description: Normalized name., type: str}
    version: {description: Installed version., type: str}
    files: {description: Files with a hash in RECORD., type: int}
    missing: {description: Files of RECORD that are gone., type: list, elements: str}
    changed: {description: Files whose SHA256 differs from RECORD., type: list, elements: str}
    hashed: {description: Whether its files were hashed (false when O(intact_since) vouched for them)., type: bool}
intact:
  description:
    - For each intact distribution, a digest of what stat() said of its files, for O(intact_since) of a later check.
    - A distribution with a file changed in the last 2 seconds has none (it could change again within the same clock
      tick and keep its times).
  returned: always
  type: dict
  sample: {vllm: 3f9a0c1d2e4b5a6978879a5b4c3d2e1f00112233445566778899aabbccddeeff}
absent:
  description: Names asked for that are not installed.
  returned: always
  type: list
  elements: str
damaged:
  description: Names of the distributions with a missing or changed file.
  returned: always
  type: list
  elements: str
problems:
  description: One sentence per damaged distribution.
  returned: always
  type: list
  elements: str
  sample: ["vllm 0.23.0 in /opt/ascend-vllm/venv: 1 file(s) missing (vllm/entrypoints/cli/main.py) since it was installed"]
reinstall:
  description: C(name==version) of each damaged distribution, for C(pip install --force-reinstall --no-deps).
  returned: always
  type: list
  elements: str
'''

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native

from ansible_collections.ascend.vllm.plugins.module_utils import venv_record as vr


def main():
    module = AnsibleModule(
        argument_spec=dict(
            venv=dict(type='path', required=True),
            distributions=dict(type='list', elements='str', required=True),
            intact_since=dict(type='dict', default={}),
        ),
        supports_check_mode=True,
    )
    venv = module.params['venv']
    try:
        result = vr.check(venv, module.params['distributions'], module.params['intact_since'])
    except (IOError, OSError, UnicodeDecodeError) as exc:
        module.fail_json(msg='venv_check: cannot read the packages of %s: %s' % (venv, to_native(exc)))
    damaged = [d for d in result['distributions'] if d['name'] in result['damaged']]
    module.exit_json(
        changed=False,
        distributions=result['distributions'],
        absent=result['absent'],
        damaged=result['damaged'],
        problems=[vr.describe(d, venv) for d in damaged],
        reinstall=['%s==%s' % (d['name'], d['version']) for d in damaged],
        intact=result['intact'],
    )


if __name__ == '__main__':
    main()
