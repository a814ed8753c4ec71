# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""ascend.vllm.stage_record on the controller: the request's digest, then the module on the node.

The request is what decides a stage's work: the task's ``inputs``, the value of every option of
the calling role's ``main`` entry point (meta/argument_specs.yml, so a new option counts without
anyone listing it) but those in ``exclude`` (results the role publishes under an option's name),
and the code of the role and of the collection's plugins. Only digests travel. With the shared
``ascend_stage_records`` false a read answers "not current" without contacting the node.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import yaml

from ansible.module_utils.parsing.convert_bool import boolean
from ansible.plugins.action import ActionBase

from ansible_collections.ascend.vllm.plugins.module_utils import stage_record

_COLLECTION = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _role_options(role_path):
    """(names, secret names) of the role's main entry point."""
    spec_path = os.path.join(role_path, 'meta', 'argument_specs.yml')
    if not os.path.isfile(spec_path):
        return [], set()
    with open(spec_path) as handle:
        specs = (yaml.safe_load(handle) or {}).get('argument_specs') or {}
    options = (specs.get('main') or {}).get('options') or {}
    return sorted(options), set(name for name, spec in options.items() if (spec or {}).get('no_log'))


class ActionModule(ActionBase):
    """Digest the request on the controller; read or write the record on the node."""

    TRANSFERS_FILES = False
    _supports_check_mode = True

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        task_vars = task_vars or {}
        args = dict(self._task.args)
        role = self._task._role
        if role is None:
            result.update(failed=True, msg='ascend.vllm.stage_record runs in a role: it digests the role\'s options and code')
            return result
        if args.get('state') == 'absent':
            # Removing a record needs no request: no digest, no role options read.
            for key in ('inputs', 'exclude', 'role_options'):
                args.pop(key, None)
            result.update(self._execute_module(module_name='ascend.vllm.stage_record', module_args=args,
                                               task_vars=task_vars))
            return result
        role_path = role._role_path
        inputs, exclude = args.pop('inputs', None) or {}, args.pop('exclude', None) or []
        try:
            role_options = boolean(args.pop('role_options', True), strict=True)
        except TypeError:
            role_options = None
        if not isinstance(inputs, dict) or not isinstance(exclude, list) or role_options is None:
            result.update(failed=True, msg='ascend.vllm.stage_record: inputs must be a dict, exclude a list of '
                                           'option names and role_options a boolean')
            return result
        values = {'input:' + key: value for key, value in inputs.items()}
        # The switch itself is no request: a record written while it was off serves once it is on.
        excluded = set(exclude) | {'ascend_stage_records'}
        secrets = set()
        if role_options:
            names, secret_names = _role_options(role_path)
            for name in names:
                if name in task_vars and name not in excluded:
                    values[name] = self._templar.template(task_vars[name])
            secrets = secret_names & set(values)
        enabled = boolean(self._templar.template(task_vars.get('ascend_stage_records', True)), strict=False)
        values['code'] = stage_record.code_digest([role_path, os.path.join(_COLLECTION, 'plugins')])
        request_digest, per_key = stage_record.request_digests(values, secrets)
        args.update(digest=request_digest, inputs=per_key)
        if args.get('state', 'read') == 'read' and not enabled:
            # Records are still written, so turning them back on works at once.
            path = os.path.join(args.get('dir') or stage_record.RECORDS_DIR, '%s.json' % args.get('stage'))
            result.update(changed=False, current=False, facts={}, digest=request_digest, path=path,
                          reasons=['ascend_stage_records is false: every stage converges in full'])
            return result
        result.update(self._execute_module(module_name='ascend.vllm.stage_record', module_args=args,
                                           task_vars=task_vars))
        return result
