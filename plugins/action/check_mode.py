# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""ascend.vllm.check_mode on the controller: whether the task runs in check mode.

ansible_check_mode reflects --check only; a play, block, role or task with ``check_mode: true``
is seen here, because the task's own check_mode inherits from all of them. Nothing runs on the node.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ascend.vllm.plugins.plugin_utils.controller_action import ControllerAction


class ActionModule(ControllerAction):
    """Report the task's effective check mode without contacting the node."""

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        if self._task.args:
            result.update(failed=True, msg='ascend.vllm.check_mode takes no options, got: %s'
                          % ', '.join(sorted(self._task.args)))
            return result
        result.update(changed=False, check_mode=bool(self._task.check_mode))
        return result
