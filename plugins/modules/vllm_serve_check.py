#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: vllm_serve_check
short_description: Check a vllm serve command line with the engine that will run it
version_added: "0.1.0"
description:
  - Runs the installed vLLM's own C(vllm) command-line parser over the C(vllm serve) arguments, under the
    engine's interpreter (O(command), the service's virtualenv or C(python3) in the serving image), and stops
    where C(vllm serve) would start the server - after the parse and the checks C(vllm serve) makes before it
    loads a model. Nothing is started, written or loaded.
  - Reads the model's C(config.json) (O(model_config)) and checks the tensor-parallel size vLLM parsed against
    the model's attention heads.
  - Returns the problems, each with the role variable that set the option (O(role_settings), O(variables)); it does not fail on
    them, the caller decides. It fails when the engine cannot be run or gives no answer, naming the command,
    its exit status and its error output.
  - Read-only; runs in check mode too. In check mode an engine that is not installed yet, or gives no answer, is
    reported as not checked (RV(checked) false, RV(reason)) instead of failing.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  command:
    description:
      - The interpreter to run the check with, as an argument list, for example C([/opt/vllm/venv/bin/python]). The
        check program follows as C(-c PROGRAM); the arguments go to its standard input.
      - One of O(command) and O(image).
    type: list
    elements: str
  image:
    description:
      - A serving image whose C(python3) runs the check, in a container of O(engine) without network, with
        O(volumes) mounted and CANN's C(set_env.sh) scripts sourced first, as the service's container runs vLLM.
      - One of O(command) and O(image).
    type: str
  engine:
    description: The container engine for O(image), C(podman) or C(docker) in C(/usr/bin), or a path.
    type: str
    default: podman
  volumes:
    description: Read-only mounts (C(host:container:ro)) of the container, the driver's as the service has them.
    type: list
    elements: str
    default: []
  argv:
    description: The command line after C(vllm), starting with C(serve).
    type: list
    elements: str
    required: true
  environment:
    description: Variables the engine needs to import (the CANN environment of a virtualenv install).
    type: dict
    default: {}
  model_config:
    description: Path of the model's C(config.json) on the node; not read when missing or not given.
    type: path
  role_settings:
    description:
      - The vllm_service settings that name where an option came from - C(extra_args) (vllm_service_extra_args),
        C(tensor_parallel_size) and C(data_parallel_size) (set or null) - so a refusal names the variable.
    type: dict
    default: {}
  variables:
    description: Option name (C(max-model-len)) to the variable that set it, on top of O(role_settings); others are
      the profile's.
    type: dict
    default: {}
  timeout:
    description: Seconds the engine may take to import and parse.
    type: int
    default: 300
notes:
  - Supports check mode.
'''

EXAMPLES = r'''
- name: Check the serve command line with the installed vLLM
  ascend.vllm.vllm_serve_check:
    command: [/opt/vllm/venv/bin/python]
    argv: [serve, /var/lib/vllm/models/DeepSeek-R1-Distill-Qwen-7B, --tensor-parallel-size, "4", --port, "8000"]
    environment: {ASCEND_TOOLKIT_HOME: /usr/local/Ascend/ascend-toolkit/latest}
    model_config: /var/lib/vllm/models/DeepSeek-R1-Distill-Qwen-7B/config.json
    role_settings: {extra_args: {}, tensor_parallel_size: 4}
  register: serve_check

- name: Check it with the serving image's vLLM
  ascend.vllm.vllm_serve_check:
    image: quay.io/ascend/vllm-ascend:v0.23.0
    volumes: [/usr/local/Ascend/driver/lib64:/usr/local/Ascend/driver/lib64:ro]
    argv: [serve, /models/DeepSeek-R1-Distill-Qwen-7B, --max-model-len, "32768"]
'''

RETURN = r'''
checked:
  description: Whether the engine ran the check (false only in check mode, with no engine installed yet).
  returned: always
  type: bool
reason:
  description: Why the engine was not asked (check mode only).
  returned: when not checked
  type: str
version:
  description: The vLLM version that parsed the command line.
  returned: when checked
  type: str
  sample: 0.23.0
problems:
  description: What the engine or the model refuses, each C({what, variable}).
  returned: always
  type: list
  elements: dict
message:
  description: The problems as one refusal, empty when there are none.
  returned: always
  type: str
'''

import json
import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_native

from ansible_collections.ascend.vllm.plugins.module_utils import vllm_serve_check as vc


def main():
    module = AnsibleModule(
        argument_spec=dict(
            command=dict(type='list', elements='str'),
            image=dict(type='str'),
            engine=dict(type='str', default='podman'),
            volumes=dict(type='list', elements='str', default=[]),
            argv=dict(type='list', elements='str', required=True),
            environment=dict(type='dict', default={}),
            model_config=dict(type='path'),
            role_settings=dict(type='dict', default={}),
            variables=dict(type='dict', default={}),
            timeout=dict(type='int', default=300),
        ),
        required_one_of=[('command', 'image')],
        mutually_exclusive=[('command', 'image')],
        supports_check_mode=True,
    )
    params = module.params
    settings = params['role_settings'] or {}
    variables = vc.role_variables(settings.get('extra_args'), settings.get('tensor_parallel_size'),
                                  settings.get('data_parallel_size'))
    variables.update(params['variables'] or {})
    command = (vc.container_command(params['engine'], params['image'], params['volumes']) if params['image']
               else list(params['command']))
    if not command:
        module.fail_json(msg='vllm_serve_check: command is empty')
    if os.path.isabs(command[0]) and not os.path.exists(command[0]):
        if module.check_mode:
            module.exit_json(changed=False, checked=False, problems=[], message='',
                             reason='%s does not exist' % command[0])
        module.fail_json(msg='vllm_serve_check: %s does not exist (is vLLM installed?)' % command[0])
    argv = command + ['-c', vc.PROGRAM]
    environ = dict((str(k), str(v)) for k, v in (params['environment'] or {}).items())
    rc, out, err = module.run_command(['timeout', str(params['timeout'])] + argv, data=json.dumps(params['argv']),
                                      environ_update=environ, binary_data=True)
    try:
        result = vc.engine_result(out)
    except vc.CheckError as exc:
        if module.check_mode:
            # A dry run before the install (no image loaded, no virtualenv yet) has no engine to ask.
            module.exit_json(changed=False, checked=False, problems=[], message='',
                             reason='%s (rc %s)' % (to_native(exc), rc))
        module.fail_json(msg='vllm_serve_check: %s -c PROGRAM: %s (rc %s): %s' % (
            ' '.join(command), to_native(exc), rc, (err or out or '').strip()[-2000:]), rc=rc, stderr=err)
    problems = []
    where = 'vLLM %s' % result.get('version') if result.get('version') else 'vLLM'
    if not result.get('ok'):
        option = vc.refused_option(result.get('error'))
        problems.append({'what': result.get('error') or 'refused', 'variable': vc.variable_of(option, variables)
                         if option else 'vllm_service_extra_args'})
    else:
        config = None
        path = params['model_config']
        if path and os.path.isfile(path):
            try:
                with open(path) as handle:
                    config = json.load(handle)
            except (IOError, OSError, ValueError) as exc:
                module.fail_json(msg='vllm_serve_check: cannot read %s: %s' % (path, to_native(exc)))
        problems.extend(vc.parallel_problems(config, result.get('values'), variables))
    module.exit_json(changed=False, checked=True, version=result.get('version') or '', problems=problems,
                     message=vc.message(problems, where) if problems else '')


if __name__ == '__main__':
    main()
