#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: vllm_health
short_description: Health gate of a vLLM OpenAI-compatible server run by a systemd unit
version_added: "0.1.0"
description:
  - Waits until C(GET /health) answers 200, then checks that C(GET /v1/models) lists the served
    model name and that a real C(POST /v1/completions) returns tokens.
  - While waiting it watches the systemd unit (O(unit)) - a unit that fails, stops, or is
    restarted by systemd (its C(NRestarts) grows) ends the wait at once instead of after
    O(timeout).
  - Every failure message ends with the last O(journal_lines) lines of the unit's journal, so
    the reason (a Python traceback of C(vllm serve)) is in the task's output. When those lines end
    with vLLM's "See root cause above" (its API server after the engine core failed), the
    exception line of the failed process is looked for in the last 400 lines of the unit's current run (since it
    left the inactive state, restarts by systemd included) and named first.
  - A known failure found in those 400 lines (a wheel built for another chip, NNAL missing, a driver too old for
    graph mode, NPU network time-outs, an NPU held by another process, out of memory, ...) is named with its cause
    and fix before the excerpt, and returned as RV(diagnosis).
  - Read-only; runs in check mode too.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  url:
    description:
      - Base URL of the server, for example C(http://127.0.0.1:8000).
      - Required unless O(unit_file) is given.
    type: str
  served_model_name:
    description:
      - Name C(/v1/models) must list; the completion asks for this model.
      - Required unless O(unit_file) is given.
    type: str
  api_key:
    description: Bearer token for C(/v1) routes, when the server requires one.
    type: str
  unit_file:
    description:
      - A unit file the role wrote. The address, port and first served model name are taken from its C(vllm serve)
        command line instead of O(url) and O(served_model_name), and the key from O(key_file) instead of
        O(api_key).
      - For the gate after a rollback, which must ask the restored files where the service listens.
    type: path
  key_file:
    description:
      - With O(unit_file), the API key file the unit reads (a C(VLLM_API_KEY=) line, or the bare key of the
        container method); a missing file means no key. Read on the node; the key is not returned.
    type: path
  unit:
    description: systemd unit running the server (watched while waiting; its journal is quoted on failure).
    type: str
  timeout:
    description: Seconds to wait for C(/health) (model loading takes minutes on real weights).
    type: int
    default: 1800
  interval:
    description: Seconds between two polls.
    type: float
    default: 2
  completion:
    description: Send a completion request and require tokens back.
    type: bool
    default: true
  prompt:
    description: Prompt of the test completion.
    type: str
    default: The capital of France is
  max_tokens:
    description: C(max_tokens) of the test completion.
    type: int
    default: 8
  metrics:
    description:
      - Read vLLM's C(/metrics) too and return its load (requests running and waiting, KV-cache use, tokens
        generated). A C(/metrics) that does not answer is not a failure; RV(health.metrics) is then null.
    type: bool
    default: false
  journal_lines:
    description: Lines of the unit's journal quoted in a failure message.
    type: int
    default: 40
notes:
  - Supports check mode.
'''

EXAMPLES = r'''
- name: Health gate
  ascend.vllm.vllm_health:
    url: http://127.0.0.1:8000
    served_model_name: deepseek-r1-distill-qwen-7b
    unit: vllm-main.service
    api_key: "{{ vllm_service_api_key }}"
  register: gate
'''

RETURN = r'''
health:
  description: What the gate saw.
  returned: success
  type: dict
  contains:
    url:
      description: Base URL the gate asked (from O(unit_file) when given).
      type: str
      sample: http://127.0.0.1:8000
    health_status:
      description: HTTP status of /health.
      type: int
      sample: 200
    models:
      description: Model ids /v1/models listed.
      type: list
      elements: str
    completion_tokens:
      description: C(usage.completion_tokens) of the test completion (null when not asked).
      type: int
    completion_text:
      description: Text of the test completion.
      type: str
    seconds_waited:
      description: Seconds until /health answered 200.
      type: float
    main_pid:
      description: Main PID of the unit when one was given.
      type: int
    metrics:
      description:
        - With O(metrics), the sums over their series of C(vllm:num_requests_running), C(vllm:num_requests_waiting),
          C(vllm:kv_cache_usage_perc) (0-1) and C(vllm:generation_tokens_total), as C(requests_running),
          C(requests_waiting), C(kv_cache_usage_perc), C(generation_tokens) (null for a metric not exposed);
          null without O(metrics) or when C(/metrics) did not answer 200.
      type: dict
    load:
      description: The metrics as one phrase (empty when none was read).
      type: str
      sample: 0 running, 0 waiting, KV cache 0.0 %, 8 tokens generated
journal:
  description: Journal tail of the unit (on failure).
  returned: failure
  type: str
diagnosis:
  description:
    - The known failures (vllm-ascend issues and upstream code) found in the journal of the unit's current run on
      failure (an earlier run's lines are not read), each with
      C(id), C(cause), C(fix), C(check), C(source) and the C(line) that matched; the failure message names each one's
      cause and fix before the journal excerpt. For an NPU held elsewhere, C(found) names the processes npu-smi shows
      on the NPUs (PID, name, NPU, and the systemd unit or container that holds each), the service's own left out.
  returned: failure
  type: list
  elements: dict
'''

import json
import os
import time

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.urls import open_url
from ansible.module_utils.six.moves.urllib.error import HTTPError, URLError
from ansible.module_utils.common.text.converters import to_native

from ansible_collections.ascend.vllm.plugins.module_utils import known_failures
from ansible_collections.ascend.vllm.plugins.module_utils import npu_smi
from ansible_collections.ascend.vllm.plugins.module_utils import vllm_health as vh

# How far back the root cause of a multi-process failure is looked for (vLLM's API server
# traceback alone is about 40 lines).
ROOT_CAUSE_LINES = 400


def _request(url, api_key=None, data=None, timeout=30):
    headers = {'Accept': 'application/json'}
    if api_key:
        headers['Authorization'] = 'Bearer %s' % api_key
    body = None
    if data is not None:
        headers['Content-Type'] = 'application/json'
        body = json.dumps(data)
    try:
        response = open_url(url, data=body, headers=headers, method='POST' if data is not None else 'GET',
                            timeout=timeout, use_proxy=False, validate_certs=False)
        return response.getcode(), to_native(response.read())
    except HTTPError as exc:
        try:
            text = to_native(exc.read())
        except Exception:  # pylint: disable=broad-except
            text = ''
        return exc.code, text
    except (URLError, OSError, IOError) as exc:
        return None, to_native(getattr(exc, 'reason', exc))
    except ValueError:
        # http.client refuses a header value with a line break and quotes it in the message:
        # the key must not reach the output, so the reason is given without it.
        return None, 'the request could not be sent (a header value is not valid HTTP)'


class Gate(object):
    def __init__(self, module):
        self.module = module
        self.params = module.params
        self.unit = self.params['unit']
        # With unit_file, read_address replaces them (kept out of params: the key is not echoed).
        self.url = (self.params['url'] or '').rstrip('/')
        self.name = self.params['served_model_name']
        self.key = self.params['api_key']
        # When the unit's current run began (it left the inactive state; systemd's restarts after a
        # failure keep it): the diagnosis reads the journal from then on, not an earlier run's lines.
        self.since = None

    def unit_state(self):
        if not self.unit:
            return None
        rc, out, err = self.module.run_command(
            ['systemctl', 'show', self.unit, '-p',
             'ActiveState,SubState,NRestarts,MainPID,Result,ExecMainStatus,InactiveExitTimestampMonotonic'],
            environ_update={'LC_ALL': 'C'})
        if rc != 0:
            return {'ActiveState': 'unknown', 'error': err.strip()}
        return vh.parse_show(out)

    def journal(self, lines=None, since=None):
        if not self.unit or self.params['journal_lines'] <= 0:
            return ''
        argv = ['journalctl', '-u', self.unit, '-n', str(lines or self.params['journal_lines']), '--no-pager', '-o', 'cat']
        if since:
            argv += ['--since', '@%d' % int(since)]
        rc, out, err = self.module.run_command(argv, environ_update={'LC_ALL': 'C'})
        return out if rc == 0 else 'journalctl failed (rc %d): %s' % (rc, err.strip())

    def npu_holders(self):
        """The processes other than the service's that npu-smi shows on the NPUs, with their unit or
        container ('' when npu-smi is not there, fails or shows none)."""
        path = npu_smi.locate_npu_smi(None, npu_smi.DEFAULT_INSTALL_PATH, os.environ.get('PATH', ''))
        if not path:
            return ''
        rc, out, err = self.module.run_command([path, 'info'], environ_update={'LC_ALL': 'C'})
        if rc != 0:
            return ''
        try:
            processes = npu_smi.parse_info(out)['processes']
        except npu_smi.NpuSmiParseError:
            return ''
        return known_failures.holders_text(npu_smi.attach_owners(processes), self.unit)

    def fail(self, message, **extra):
        journal = self.journal()
        diagnosis = []
        if journal:
            # A multi-process vLLM prints its own traceback after the failing process's: the
            # cause can be above the quoted tail, so a longer read looks for it, and for the
            # failures upstream's users are known to hit (module_utils/known_failures.py).
            longer = self.journal(ROOT_CAUSE_LINES, self.since)
            cause = vh.root_cause(longer) if 'See root cause above' in journal else None
            if cause and cause not in journal:
                message = '%s\nRoot cause, from an earlier journal line: %s' % (message, cause)
            diagnosis = known_failures.diagnose(longer)
            for row in diagnosis:
                if row['id'] == 'npu_held_elsewhere':
                    row['found'] = self.npu_holders()
            if diagnosis:
                message = '%s\n%s' % (message, known_failures.diagnosis_text(diagnosis))
            message = '%s\nLast %d journal lines of %s:\n%s' % (message, self.params['journal_lines'], self.unit,
                                                                journal.rstrip())
        self.module.fail_json(msg=message, journal=journal, diagnosis=diagnosis, **extra)

    def wait(self):
        url = self.url
        start = time.time()
        first = self.unit_state()
        restarts = first.get('NRestarts') if first else None
        self.since = vh.run_began(first, time.time(), time.monotonic())
        last = None
        while True:
            state = self.unit_state()
            problem = vh.unit_problem(state, restarts)
            if problem:
                self.fail('vllm_health: %s is %s before %s/health answered 200' % (self.unit, problem, url))
            status, text = _request(url + '/health', timeout=10)
            if status == 200:
                return time.time() - start, state
            last = status if status is not None else text
            if time.time() - start >= self.params['timeout']:
                self.fail('vllm_health: %s/health did not answer 200 within %d s (last answer: %s)'
                          % (url, self.params['timeout'], last))
            time.sleep(self.params['interval'])

    def run(self):
        url = self.url
        waited, state = self.wait()
        key = self.key
        name = self.name
        status, text = _request(url + '/v1/models', key)
        models, problem = vh.check_models(status, text, name)
        if problem:
            self.fail('vllm_health: %s/v1/models: %s' % (url, problem))
        result = {'url': url, 'health_status': 200, 'models': models, 'seconds_waited': round(waited, 1),
                  'completion_tokens': None, 'completion_text': None,
                  'main_pid': int(state.get('MainPID', 0)) if state else None}
        if self.params['completion']:
            status, text = _request(url + '/v1/completions', key,
                                    {'model': name, 'prompt': self.params['prompt'],
                                     'max_tokens': self.params['max_tokens'], 'temperature': 0})
            tokens, output, problem = vh.check_completion(status, text)
            if problem:
                self.fail('vllm_health: %s/v1/completions: %s' % (url, problem))
            result['completion_tokens'] = tokens
            result['completion_text'] = output
        result['metrics'] = None
        if self.params['metrics']:
            status, text = _request(url + '/metrics', key)
            if status == 200:
                result['metrics'] = vh.parse_metrics(text)
        result['load'] = vh.describe_load(result['metrics'])
        self.module.exit_json(changed=False, health=result)


def _read(path, missing=None):
    try:
        with open(path, 'rb') as handle:
            return to_native(handle.read(), errors='surrogate_or_strict')
    except (IOError, OSError) as exc:
        if missing is not None and not os.path.exists(path):
            return missing
        raise exc


def read_address(module, gate):
    """The gate's url, served model name and key from the unit file (and key file) on the node."""
    params = module.params
    try:
        unit_text = _read(params['unit_file'])
        key_text = _read(params['key_file'], missing=False) if params['key_file'] else False
        url, name, key = vh.unit_address(unit_text, key_text if key_text is not False else None)
    except (IOError, OSError, ValueError) as exc:
        module.fail_json(msg='vllm_health: cannot tell where the service of %s listens: %s'
                         % (params['unit_file'], to_native(exc)))
    gate.url, gate.name, gate.key = url, name, key


def main():
    module = AnsibleModule(
        argument_spec=dict(
            url=dict(type='str'),
            served_model_name=dict(type='str'),
            api_key=dict(type='str', no_log=True),
            unit_file=dict(type='path'),
            key_file=dict(type='path', no_log=False),
            unit=dict(type='str'),
            timeout=dict(type='int', default=1800),
            interval=dict(type='float', default=2),
            completion=dict(type='bool', default=True),
            metrics=dict(type='bool', default=False),
            prompt=dict(type='str', default='The capital of France is'),
            max_tokens=dict(type='int', default=8, no_log=False),
            journal_lines=dict(type='int', default=40),
        ),
        required_one_of=[('url', 'unit_file'), ('served_model_name', 'unit_file')],
        supports_check_mode=True,
    )
    gate = Gate(module)
    if module.params['unit_file']:
        read_address(module, gate)
    if any(char in (gate.key or '') for char in '\r\n\x00'):
        module.fail_json(msg='vllm_health: api_key has a line break or NUL byte, which no HTTP header can carry')
    gate.run()


if __name__ == '__main__':
    main()
