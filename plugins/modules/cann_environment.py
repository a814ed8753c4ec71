#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: cann_environment
short_description: Read the environment the CANN scripts set and the environment file services get, in one pass
version_added: "0.1.0"
description:
  - Sources O(scripts) (the toolkit's and NNAL's C(set_env.sh)) in order in a clean C(bash) - C(env -i) with
    O(clean_path), root's C(HOME) and C(LANG=C), no profile or rc files - and returns what they add to or change in
    that environment (C(variables)); path lists lose their empty entries, which would make the loader search the
    working directory. systemd does not source shell files, so the cann role writes these variables to its
    EnvironmentFile.
  - Reads O(env_file) as a service gets it - sourced with every variable exported, in a clean shell - and returns its
    text, C(ASCEND_TOOLKIT_HOME) and each C(libatb.so) found on its C(LD_LIBRARY_PATH), as the dynamic loader would
    look.
  - Reads only; changes nothing.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  scripts:
    description:
      - The scripts to source, each C(path [arguments]) (NNAL's takes C(--cxx_abi=0|1)).
      - A script whose file is missing fails the module, naming it, unless it is in O(optional).
    type: list
    elements: str
    default: []
  optional:
    description: Paths of O(scripts) that are left out when their file is missing (C(present) says so).
    type: list
    elements: path
    default: []
  source:
    description: Source O(scripts). False only looks for their files (C(present)), as before the toolkit is installed.
    type: bool
    default: true
  env_file:
    description: The EnvironmentFile to read; unset reads none.
    type: path
  clean_path:
    description: C(PATH) of the clean shell (systemd's default for services).
    type: str
    default: /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
notes:
  - Supports check mode; the module never changes the host.
seealso:
  - module: ascend.vllm.ascend_package
'''

EXAMPLES = r'''
- name: Read what the toolkit and NNAL scripts set, and the environment file
  ascend.vllm.cann_environment:
    scripts:
      - /usr/local/Ascend/ascend-toolkit/set_env.sh
      - /usr/local/Ascend/nnal/atb/set_env.sh --cxx_abi=1
    optional: [/usr/local/Ascend/nnal/atb/set_env.sh]
    env_file: /etc/ascend/cann.env
  register: cann_env
'''

RETURN = r'''
variables:
  description: What sourcing the scripts added to or changed in the clean environment; empty when none was sourced.
  returned: always
  type: dict
  sample: {ASCEND_TOOLKIT_HOME: /usr/local/Ascend/ascend-toolkit/latest, LD_LIBRARY_PATH: /usr/local/Ascend/ascend-toolkit/latest/lib64}
sourced:
  description: The entries of O(scripts) that were sourced, in order.
  returned: always
  type: list
  elements: str
present:
  description: Whether the file of each script of O(scripts) exists, by path.
  returned: always
  type: dict
  sample: {/usr/local/Ascend/ascend-toolkit/set_env.sh: true, /usr/local/Ascend/nnal/atb/set_env.sh: false}
env_file:
  description: O(env_file) as a service gets it; C(exists) false and the rest empty when it is missing or not asked for.
  returned: always
  type: dict
  contains:
    path:
      description: O(env_file).
      type: str
    exists:
      description: Whether it is a file.
      type: bool
    content:
      description: Its text.
      type: str
    toolkit_home:
      description: C(ASCEND_TOOLKIT_HOME) after sourcing it, empty when unset.
      type: str
    libatb:
      description: Each C(libatb.so) found in the directories of its C(LD_LIBRARY_PATH), in order.
      type: list
      elements: str
'''

import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_text

from ansible_collections.ascend.vllm.plugins.module_utils import cann_env
from ansible_collections.ascend.vllm.plugins.module_utils.command import describe_failure, module_runner


def _run(module, run, shell, program, extra, label):
    rc, out, err = run(shell + [program] + extra)
    if rc != 0:
        # The program is long and the same on every node: the failure names what it did instead.
        module.fail_json(msg='ascend.vllm.cann_environment: %s'
                         % describe_failure(shell + ['<%s>' % label] + extra, rc, '', err), rc=rc, stderr=err)
    return out


def main():
    module = AnsibleModule(
        argument_spec=dict(
            scripts=dict(type='list', elements='str', default=[]),
            optional=dict(type='list', elements='path', default=[]),
            source=dict(type='bool', default=True),
            env_file=dict(type='path'),
            clean_path=dict(type='str', default=cann_env.CLEAN_PATH),
        ),
        supports_check_mode=True,
    )
    params = module.params
    run = module_runner(module)
    shell = cann_env.clean_shell(params['clean_path'])
    present = dict((cann_env.script_path(script), os.path.isfile(cann_env.script_path(script)))
                   for script in params['scripts'])
    missing = [path for path, exists in present.items() if not exists and path not in params['optional']]
    if params['source'] and missing:
        module.fail_json(msg='ascend.vllm.cann_environment: %s: no such file (a script to source)' % ', '.join(missing),
                         present=present)
    sourced = [script for script in params['scripts'] if params['source'] and present[cann_env.script_path(script)]]
    variables = {}
    if sourced:
        out = _run(module, run, shell, cann_env.source_program(sourced), [], 'source %s' % ', '.join(sourced))
        try:
            variables = cann_env.sourced_variables(out)
        except cann_env.CannEnvError as exc:
            module.fail_json(msg='ascend.vllm.cann_environment: sourcing %s: %s' % (', '.join(sourced), exc))
    view = {'path': params['env_file'] or '', 'exists': False, 'content': '', 'toolkit_home': '', 'libatb': []}
    if params['env_file'] and os.path.isfile(params['env_file']):
        with open(params['env_file'], 'rb') as handle:
            view['content'] = to_text(handle.read(), errors='surrogate_or_strict')
        out = _run(module, run, shell, cann_env.ENV_FILE_PROGRAM, [params['env_file']], 'read it with set -a')
        try:
            view.update(cann_env.env_file_view(out, os.path.isfile), exists=True)
        except cann_env.CannEnvError as exc:
            module.fail_json(msg='ascend.vllm.cann_environment: reading %s: %s' % (params['env_file'], exc))
    module.exit_json(changed=False, variables=variables, sourced=sourced, present=present, env_file=view)


if __name__ == '__main__':
    main()
