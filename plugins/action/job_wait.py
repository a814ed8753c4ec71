# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""ascend.vllm.job_wait: wait for background jobs of the node (``async``/``poll: 0``) and say how
they progress, instead of a silent wait or a "FAILED - RETRYING" line per poll.

Polls every job with async_status; every ``heartbeat`` seconds prints one line per host - the
bytes under ``measure`` on the node (with ``total_bytes``: the share, and the rate since the last
line), or how long the jobs have run. Returns the finished jobs' results.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.ascend.vllm.plugins.module_utils.job_progress import progress_line, total_size

display = Display()

ARGUMENTS = {
    'jid': {'type': 'list', 'elements': 'str', 'required': True},
    'label': {'type': 'str', 'required': True},
    'timeout': {'type': 'int', 'required': True},
    'poll': {'type': 'int', 'default': 5},
    'heartbeat': {'type': 'int', 'default': 30},
    'measure': {'type': 'list', 'elements': 'path', 'default': []},
    'total_bytes': {'type': 'int'},
}


# async_status's own fields, not the job's.
_ASYNC_KEYS = ('ansible_job_id', 'finished', 'started', 'results_file', 'stdout_lines', 'stderr_lines', 'invocation',
               '_ansible_parsed', 'changed')


class ActionModule(ActionBase):
    """Wait for async jobs, printing progress."""

    TRANSFERS_FILES = False
    _supports_check_mode = False

    def _status(self, jid, async_dir, task_vars):
        return self._execute_module(module_name='ansible.legacy.async_status', task_vars=task_vars,
                                    module_args={'jid': jid, '_async_dir': async_dir})

    def _measured(self, paths, task_vars):
        found = self._execute_module(module_name='ansible.legacy.find', task_vars=task_vars,
                                     module_args={'paths': paths, 'recurse': True, 'hidden': True, 'file_type': 'file'})
        return None if found.get('failed') else total_size(found.get('files'))

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        valid, args = self.validate_argument_spec(argument_spec=ARGUMENTS)
        del valid
        if args['poll'] < 1 or args['heartbeat'] < 1 or args['timeout'] < 1:
            result.update(failed=True, msg='job_wait: timeout, poll and heartbeat are seconds, at least 1')
            return result
        async_dir = self._remote_expand_user(self.get_shell_option('async_dir', default='~/.ansible_async'))
        host = task_vars.get('inventory_hostname', '') if task_vars else ''
        jobs = dict((jid, None) for jid in args['jid'])
        start = last_line = time.time()
        last_bytes = None
        lines = []
        while True:
            for jid, done in jobs.items():
                if done is None:
                    status = self._status(jid, async_dir, task_vars)
                    if status.get('finished') or status.get('failed'):
                        jobs[jid] = status
            now = time.time()
            running = [jid for jid, done in jobs.items() if done is None]
            if not running:
                break
            if now - last_line >= args['heartbeat']:
                measured = self._measured(args['measure'], task_vars) if args['measure'] else None
                rate = None
                if measured is not None and last_bytes is not None:
                    rate = (measured - last_bytes) / max(now - last_line, 1e-6)
                line = progress_line(host, args['label'], now - start, measured, args.get('total_bytes'), rate,
                                     len(running) if len(jobs) > 1 else None)
                display.display(line)
                lines.append(line)
                last_line, last_bytes = now, measured
            if now - start > args['timeout']:
                result.update(failed=True, msg='job_wait: %s did not finish within %d s (%d of %d jobs still running)'
                              % (args['label'], args['timeout'], len(running), len(jobs)))
                result['results'] = [jobs[jid] or {'ansible_job_id': jid, 'finished': False} for jid in args['jid']]
                result['progress'] = lines
                return result
            time.sleep(args['poll'])
        results = [jobs[jid] for jid in args['jid']]
        # A module's own verdict: a command fails on a non-zero rc by itself, while ascend_package
        # reports an installer's rc 2 (reboot needed) in a result that succeeded.
        failed = [r for r in results if r.get('failed')]
        # failed is always set: without it Ansible fails any result whose rc is not 0.
        result.update(changed=any(r.get('changed') for r in results), results=results, progress=lines,
                      elapsed=int(time.time() - start), failed=False)
        if len(results) == 1:
            for key in ('rc', 'stdout', 'stderr', 'stdout_lines', 'stderr_lines', 'msg'):
                if key in results[0]:
                    result[key] = results[0][key]
        if failed and len(results) == 1:
            # One job: its own failure, with every field it returned (a module's message and details stay
            # what callers and their tests know), as if it had not run in the background.
            result.update(dict((key, value) for key, value in results[0].items() if key not in _ASYNC_KEYS))
            result.update(failed=True, msg=results[0].get('msg') or 'job_wait: %s failed with rc=%s: %s' % (
                args['label'], results[0].get('rc'), results[0].get('stderr') or 'no output'))
        elif failed:
            result.update(failed=True, msg='job_wait: %s: %d of %d jobs failed: %s'
                          % (args['label'], len(failed), len(results),
                             '; '.join(str(r.get('msg') or r.get('stderr') or 'rc=%s' % r.get('rc')) for r in failed)))
        return result
