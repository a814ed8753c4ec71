# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The sandbox's connection: containers.podman.podman with pipelining.

A module normally costs three podman calls (mount, mkdir of a temporary directory, exec);
piping it into `podman exec -i` makes that one. Measured on the sandbox (benchmarks/connection.sh):
40 command tasks on one node went from 52.4 s to 22.3 s, and the controller's CPU time from 23.8 s
to 7.7 s. The upstream plugin declares no pipelining because it runs `podman exec` without `-i`,
so nothing reaches the module's stdin (containers/ansible-podman-collections#275); this one passes
`-i` when there is input. Files (copy, template, fetch) still go through the mounted container
filesystem, mounted on the first transfer. Test infrastructure: the roles never name it.
"""
from __future__ import annotations

DOCUMENTATION = """
name: sandbox_podman
short_description: Run tasks in the sandbox's podman containers, pipelined
description:
  - containers.podman.podman, with modules piped into C(podman exec -i) instead of copied in.
author: ascend.vllm contributors
options:
  remote_addr:
    description: The name or ID of the container.
    default: inventory_hostname
    vars:
      - name: ansible_host
      - name: inventory_hostname
      - name: ansible_podman_host
  remote_user:
    description: User to run commands as inside the container.
    vars:
      - name: ansible_user
  podman_extra_args:
    description: Extra arguments to the podman command line.
    default: ''
    vars:
      - name: ansible_podman_extra_args
  podman_executable:
    description: Executable for podman.
    default: podman
    vars:
      - name: ansible_podman_executable
  pipelining:
    description: Pipe modules into the container instead of copying them.
    type: boolean
    default: true
    vars:
      - name: ansible_pipelining
"""

import shlex

from ansible.module_utils.common.text.converters import to_native
from ansible.plugins.connection import ConnectionBase
from ansible_collections.containers.podman.plugins.connection.podman import Connection as PodmanConnection


class Connection(PodmanConnection):
    """containers.podman.podman with pipelining and a mount only when files move."""

    transport = 'sandbox_podman'
    has_pipelining = True

    def _connect(self):
        # No `podman mount` per task: most tasks move no file.
        ConnectionBase._connect(self)  # pylint: disable=protected-access
        self._connected = True
        return self

    def _mounted(self):
        if self._mount_point is None:
            PodmanConnection._connect(self)  # pylint: disable=protected-access

    def exec_command(self, cmd, in_data=None, sudoable=False):
        ConnectionBase.exec_command(self, cmd, in_data=in_data, sudoable=sudoable)
        args = ['exec']
        if in_data is not None:
            args.append('-i')
        if self.user:
            args.extend(('--user', self.user))
        return self._podman(args, shlex.split(to_native(cmd, errors='surrogate_or_strict')), in_data)

    def put_file(self, in_path, out_path):
        self._mounted()
        return super().put_file(in_path, out_path)

    def fetch_file(self, in_path, out_path):
        self._mounted()
        return super().fetch_file(in_path, out_path)
