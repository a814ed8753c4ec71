# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Counts what a playbook run executed, for benchmarks/converge.sh.

Writes JSON to the file named by ASCEND_TASK_COUNTS when the run ends:
``{"hosts": {host: {"ok": n, "changed": n, "skipped": n, "failed": n}},
   "modules": {host: {action: executions}},
   "roles": {role: {"ok": n, "changed": n, "skipped": n, "failed": n}}}`` - an execution is a
result that was not skipped, so ``modules[host]['ascend.vllm.npu_facts']`` is how often that
host's NPUs were read; ``roles`` sums the results over hosts by the role the task belongs to
(``(play)`` for a play's own tasks), which is where a run's tasks are.
"""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

DOCUMENTATION = '''
name: task_counts
type: aggregate
short_description: Count task results per host and module executions (benchmarks only)
description:
  - Writes the counts as JSON to the file named by the environment variable ASCEND_TASK_COUNTS at the end of the run.
requirements:
  - enable in configuration (ANSIBLE_CALLBACKS_ENABLED) with ANSIBLE_CALLBACK_PLUGINS pointing at this directory
'''

import json
import os
from collections import defaultdict

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = 'aggregate'
    CALLBACK_NAME = 'task_counts'
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super(CallbackModule, self).__init__()
        self._hosts = defaultdict(lambda: defaultdict(int))
        self._modules = defaultdict(lambda: defaultdict(int))
        self._roles = defaultdict(lambda: defaultdict(int))

    def _count(self, result, outcome):
        host = result._host.get_name()
        self._hosts[host][outcome] += 1
        role = result._task._role
        self._roles[role.get_name() if role else '(play)'][outcome] += 1
        if outcome != 'skipped':
            self._modules[host][result._task.action] += 1

    def v2_runner_on_ok(self, result):
        self._count(result, 'changed' if result._result.get('changed') else 'ok')

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._count(result, 'failed')

    def v2_runner_on_skipped(self, result):
        self._count(result, 'skipped')

    def v2_playbook_on_stats(self, stats):
        path = os.environ.get('ASCEND_TASK_COUNTS')
        if not path:
            return
        with open(path, 'w') as handle:
            json.dump({'hosts': self._hosts, 'modules': self._modules, 'roles': self._roles}, handle, indent=1, sort_keys=True)
