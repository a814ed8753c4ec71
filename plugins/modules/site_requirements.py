#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: site_requirements
short_description: What a site must provide for the play's hosts, worked out from the inventory alone
version_added: "0.1.0"
description:
  - Groups the play's hosts whose needs are the same and returns, for each group, the vendor C(.run) files (the NPU
    driver and firmware of the release's driver target, the CANN toolkit, operators and NNAL) with where the stages
    look for them, the Python requirements of the service's virtualenv in the order it installs them (one
    requirements file per step, with the index each requirement comes from and the C(pip download) command that
    fetches it with its dependencies for the nodes' architecture, Python and glibc), the container image of the
    container method, the OS packages of each stage for the nodes' OS family and the ports to open.
  - For each host, the C(vllm serve) command line and environment its profile and inventory give, and what only the
    node decides (the visible devices, the NUMA binding, the serving network's interface).
  - The lists come from the functions the stage roles use on the nodes (the stack matrix, the pip plan, the bundle
    planner, the model profiles), so the report says what a converge asks for.
  - The node is described by the inventory - C(ascend_node_chip) (default C(910b)), C(ascend_node_arch) (C(aarch64)),
    C(ascend_node_python) (C("3.11"), the service's virtualenv Python), C(ascend_node_glibc) (C("2.34")) and
    C(ascend_node_os_family) (C(RedHat) or C(Debian)); the report lists what it assumed.
  - Runs on the controller (an action plugin); no host is contacted. Variables that name an API key, a token or a
    password are never read.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  generated:
    description: A time stamp the Markdown report carries.
    type: str
    default: ""
notes:
  - Supports check mode; it never changes anything. M(ascend.vllm.report_files) writes the files it returns.
  - Used by C(playbooks/requirements.yml).
'''

EXAMPLES = r'''
- name: Work out what the site must provide
  ascend.vllm.site_requirements:
  run_once: true
  register: requirements

- name: Write the report
  ascend.vllm.report_files:
    dir: "{{ playbook_dir }}/reports/requirements"
    files: "{{ requirements.files }}"
  run_once: true
'''

RETURN = r'''
report:
  description:
    - C(groups) (each with C(hosts), C(node), C(stack), C(vendor_files), C(vendor_source), C(python), C(images),
      C(os_packages), C(ports)), C(hosts) (each host's C(argv), C(env), C(node_decides), C(model)), C(problems) and
      C(deferred) (variables that name a fact, by host).
  returned: success
  type: dict
files:
  description: C({name, content}) of requirements.json, requirements.md and one pip requirements file per step.
  returned: success
  type: list
  elements: dict
problems:
  description: One message per host the report could not be made for, naming the variable.
  returned: success
  type: list
  elements: str
'''

from ansible.module_utils.basic import AnsibleModule


def main():
    # Reached only when the action plugin is not used (it answers on the controller).
    module = AnsibleModule(argument_spec={'generated': {'type': 'str', 'default': ''}}, supports_check_mode=True)
    module.fail_json(msg='ascend.vllm.site_requirements runs on the controller (its action plugin)')


if __name__ == '__main__':
    main()
