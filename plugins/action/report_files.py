# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""ascend.vllm.report_files on the controller: a run's report files, written in one task, and its stats.

The preflight and verify roles leave their reports on the controller. Written with the file,
copy and template modules that took one local module run per file, each a new Python process;
here they are written by the controller's own process, each atomically (a temporary file in the
same directory, then a rename), so a reader never sees half a report. Nothing runs on the node.
The report's AWX stats go with it (``stats``, returned as set_stats returns them): one task, not two.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import tempfile

from ansible.module_utils.common.text.converters import to_bytes, to_text

from ansible_collections.ascend.vllm.plugins.module_utils import report_files as rf
from ansible_collections.ascend.vllm.plugins.plugin_utils.controller_action import ControllerAction


class ActionModule(ControllerAction):
    """Write report files under a directory of the controller."""

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        try:
            request = rf.request_of(self._task.args)
        except rf.ReportFilesError as exc:
            result.update(failed=True, msg='ascend.vllm.report_files: %s' % exc)
            return result
        if request['stats'] is not None:
            # What set_stats returns: the strategy publishes it from any task's result (also in check mode).
            result['ansible_stats'] = request['stats']
        directory = request['dir']
        if not directory:
            result.update(changed=False, paths=[], written=[])
            return result
        present = {}
        for item in request['files']:
            path = os.path.join(directory, item['name'])
            present[item['name']] = self._read(path)
        try:
            dir_mode_now = os.stat(directory).st_mode & 0o7777 if os.path.isdir(directory) else None
        except OSError:
            dir_mode_now = None
        plan = rf.plan(request, dir_mode_now, present)
        result.update(changed=plan['changed'], paths=[os.path.join(directory, name) for name in plan['names']],
                      written=[os.path.join(directory, name) for name in plan['write']])
        if self._task.check_mode or not plan['changed']:
            return result
        try:
            if plan['create_dir']:
                os.makedirs(directory, request['dir_mode'])
            if plan['create_dir'] or plan['chmod_dir']:
                os.chmod(directory, request['dir_mode'])
            for item in request['files']:
                if item['name'] in plan['write'] or item['name'] in plan['chmod']:
                    self._write(os.path.join(directory, item['name']), item['content'], item['mode'])
        except (IOError, OSError) as exc:
            result.update(failed=True, msg='ascend.vllm.report_files: cannot write under %s: %s' % (directory, exc))
        return result

    @staticmethod
    def _read(path):
        """(content, mode) of an existing file, None when there is none."""
        try:
            with open(path, 'rb') as handle:
                return to_text(handle.read(), errors='surrogate_or_strict'), os.stat(path).st_mode & 0o7777
        except (IOError, OSError):
            return None

    @staticmethod
    def _write(path, content, mode):
        handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), prefix='.%s.' % os.path.basename(path))
        try:
            with os.fdopen(handle, 'wb') as stream:
                stream.write(to_bytes(content, errors='surrogate_or_strict'))
            os.chmod(temporary, mode)
            os.rename(temporary, path)
        except BaseException:
            if os.path.exists(temporary):
                os.unlink(temporary)
            raise
