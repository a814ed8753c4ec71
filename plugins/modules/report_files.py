#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: report_files
short_description: Write a run's report files on the controller and publish its stats in one task
version_added: "0.1.0"
description:
  - Writes each of O(files) under O(dir) on the controller, creating O(dir) when missing. A file whose content
    differs from what is there is written to a temporary file in the same directory and renamed over it, so a
    reader never sees half a report; a file that is already so only gets its mode set.
  - Runs on the controller (an action plugin) in the controller's own process; the node is not contacted. The
    preflight and verify roles write their reports with it.
  - In check mode nothing is written; C(changed) says whether it would be. Preflight sets C(check_mode) to false
    on its task, so its report is written in check mode too.
  - With O(stats), the task also publishes the report's custom stats, as M(ansible.builtin.set_stats) would (what
    AWX / Automation Controller and ansible-runner show as the job's artifacts) - also in check mode and when
    O(dir) is empty. Ansible publishes them from a task that succeeds only, so a directory that cannot be written
    fails the task, naming it, and the job carries no stats of that report.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  dir:
    description:
      - Absolute path of the directory on the controller.
      - Empty - no file is written (a report turned off); O(stats) are still published.
    type: path
    required: true
  dir_mode:
    description: Mode of O(dir) (set when it is created or has another), as an octal string.
    type: str
    default: "0750"
  files:
    description: The files to write.
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description: File name in O(dir), without a directory part.
        type: str
        required: true
      content:
        description: The file's content.
        type: str
        default: ""
      mode:
        description: The file's mode, as an octal string.
        type: str
        default: "0640"
  stats:
    description: Custom stats to publish, as M(ansible.builtin.set_stats) takes them.
    type: dict
    suboptions:
      data:
        description: The stats, by name.
        type: dict
        required: true
      aggregate:
        description: Merge into what earlier tasks published (true) or replace it (false).
        type: bool
        default: false
      per_host:
        description: Publish for each host of the task rather than for the whole run.
        type: bool
        default: false
notes:
  - Supports check mode.
'''

EXAMPLES = r'''
- name: Write the reports
  ascend.vllm.report_files:
    dir: "{{ playbook_dir }}/reports/verify"
    files:
      - name: verify.json
        content: "{{ results | to_nice_json }}"
    stats:
      data:
        my_report: "{{ results }}"
  run_once: true
  check_mode: false
'''

RETURN = r'''
paths:
  description: The paths of O(files), in their order.
  returned: always
  type: list
  elements: str
  sample: [/srv/ansible/reports/verify/verify.json]
written:
  description: The paths whose content was (in check mode - would be) written.
  returned: always
  type: list
  elements: str
ansible_stats:
  description: O(stats), for the run's custom stats (as M(ansible.builtin.set_stats) returns them).
  returned: when O(stats) is set
  type: dict
'''

from ansible.module_utils.basic import AnsibleModule


def main():
    # Reached only when the action plugin is not used: the files belong on the controller.
    module = AnsibleModule(argument_spec=dict(dir=dict(type='path', required=True),
                                              dir_mode=dict(type='str', default='0750'),
                                              files=dict(type='list', elements='dict', required=True),
                                              stats=dict(type='dict', options=dict(
                                                  data=dict(type='dict', required=True),
                                                  aggregate=dict(type='bool', default=False),
                                                  per_host=dict(type='bool', default=False)))),
                           supports_check_mode=True)
    module.fail_json(msg='ascend.vllm.report_files runs on the controller through its action plugin')


if __name__ == '__main__':
    main()
