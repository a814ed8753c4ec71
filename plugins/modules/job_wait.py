#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: job_wait
short_description: Wait for background jobs of the node and print how they progress
version_added: "0.1.0"
description:
  - Waits for jobs started with C(async) and C(poll=0) (their C(ansible_job_id)s), polling them with
    M(ansible.builtin.async_status), and every O(heartbeat) seconds prints one line per host - the bytes under
    O(measure) on the node, with O(total_bytes) their share, and the rate since the previous line; otherwise how
    long the jobs have run. Instead of a silent wait, or a C(FAILED - RETRYING) line per poll, an operator (and an
    AWX job's output) sees a download grow.
  - Fails when a job fails (its result says failed; a command fails on a non-zero C(rc) by itself, a module such
    as M(ascend.vllm.ascend_package) may report an C(rc) in a result that succeeded), naming how many failed and
    why, or when the jobs have not finished within O(timeout). A single job that fails fails the task with its own result - its C(msg)
    and every other field it returned - as if it had run in the foreground.
  - Runs on the controller (an action plugin) and reads the node through M(ansible.builtin.async_status) and
    M(ansible.builtin.find).
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  jid:
    description: The job ids (C(ansible_job_id)) to wait for.
    type: list
    elements: str
    required: true
  label:
    description: What the jobs do, for the progress lines (C(download of DeepSeek-R1-Distill-Qwen-7B)).
    type: str
    required: true
  timeout:
    description: Seconds the jobs may run, counted from the start of this task.
    type: int
    required: true
  poll:
    description: Seconds between polls of the jobs.
    type: int
    default: 5
  heartbeat:
    description: Seconds between progress lines.
    type: int
    default: 30
  measure:
    description: Directories or files on the node whose size in bytes is the progress (hidden files included).
    type: list
    elements: path
    default: []
  total_bytes:
    description: The size the measured paths reach when the jobs are done.
    type: int
notes:
  - No check mode - the jobs it waits for are not started in check mode.
'''

EXAMPLES = r'''
- name: Start the download
  ansible.builtin.command:
    argv: [hf, download, deepseek-ai/DeepSeek-R1-Distill-Qwen-7B, --local-dir, /var/lib/vllm/models/DeepSeek-R1-Distill-Qwen-7B]
  async: 86400
  poll: 0
  register: download

- name: Wait for it, one line of bytes every 30 s
  ascend.vllm.job_wait:
    jid: ["{{ download.ansible_job_id }}"]
    label: download of DeepSeek-R1-Distill-Qwen-7B
    timeout: 86400
    measure: [/var/lib/vllm/models/DeepSeek-R1-Distill-Qwen-7B]
    total_bytes: 16000000000
# prints: node-1: download of DeepSeek-R1-Distill-Qwen-7B: 3.2 GiB of 14.9 GiB (21%), 85.0 MiB/s, running for 2m10s
'''

RETURN = r'''
results:
  description: The finished jobs' async_status results, in the order of O(jid).
  returned: always
  type: list
  elements: dict
progress:
  description: The progress lines printed, in order.
  returned: always
  type: list
  elements: str
  sample: ["node-1: download of deepseek-ai/DeepSeek-R1-Distill-Qwen-7B: 3.2 GiB of 14.9 GiB (21%), 85.0 MiB/s, running for 2m10s"]
elapsed:
  description: Seconds waited.
  returned: success
  type: int
  sample: 130
rc:
  description: The job's exit status, when one job was waited for and it has one.
  returned: when one job ran a command
  type: int
  sample: 0
'''

from ansible.module_utils.basic import AnsibleModule


def main():
    # Reached only when the action plugin is not used (it runs on the controller).
    module = AnsibleModule(
        argument_spec=dict(
            jid=dict(type='list', elements='str', required=True),
            label=dict(type='str', required=True),
            timeout=dict(type='int', required=True),
            poll=dict(type='int', default=5),
            heartbeat=dict(type='int', default=30),
            measure=dict(type='list', elements='path', default=[]),
            total_bytes=dict(type='int'),
        ),
        supports_check_mode=False,
    )
    module.fail_json(msg='ascend.vllm.job_wait runs as an action plugin on the controller')


if __name__ == '__main__':
    main()
