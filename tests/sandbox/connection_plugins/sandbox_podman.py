# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The sandbox's connection: containers.podman.podman, pipelined, entering the node with nsenter.

A module normally costs three podman calls (mount, mkdir of a temporary directory, exec);
piping it into `podman exec -i` makes that one. Measured on the sandbox (benchmarks/connection.sh):
40 command tasks on one node went from 52.4 s to 22.3 s, and the controller's CPU time from 23.8 s
to 7.7 s. The upstream plugin declares no pipelining because it runs `podman exec` without `-i`,
so nothing reaches the module's stdin (containers/ansible-podman-collections#275); this one passes
`-i` when there is input.
That one call is still a podman process, a conmon and an OCI runtime exec per task. As root, the
plugin enters the container's namespaces with nsenter (util-linux) instead - what `podman exec`
asks runc to do, without podman around it - with the container's environment (its Config.Env),
in the cgroups of the container's init and with its open-file and process limits, as a `podman
exec` process is (a node's own podman, the container method's, places its containers by them).
The container's ID, init PID and environment are read once per run (one `podman container
inspect`, kept in the run's local temporary directory for the other tasks' workers) and checked on
every use against /proc/<pid>/cgroup, which names the container's ID: a restarted or recreated
node is inspected again. Files (copy, template, fetch) go through /proc/<pid>/root, the node's own
view of its file system; without nsenter (not root, `exec_via: podman`, a remote user) through
the mounted container, mounted on the first transfer. Test infrastructure: the roles never name it.
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
  exec_via:
    description:
      - C(nsenter) enters the container's namespaces directly (root on the controller only; anything
        else falls back to C(podman)); C(podman) runs C(podman exec) for every command.
    type: string
    default: nsenter
    choices: [nsenter, podman]
    env:
      - name: ASCEND_SANDBOX_EXEC
    vars:
      - name: ansible_sandbox_exec
  pipelining:
    description: Pipe modules into the container instead of copying them.
    type: boolean
    default: true
    vars:
      - name: ansible_pipelining
"""

import json
import os
import re
import resource
import shlex
import shutil
import subprocess

from ansible import constants as C
from ansible.module_utils.common.text.converters import to_bytes, to_native
from ansible.plugins.connection import ConnectionBase
from ansible.utils.display import Display
from ansible_collections.containers.podman.plugins.connection.podman import Connection as PodmanConnection


display = Display()

# nsenter's own failures (the target is gone) print this prefix and exit 1 before any command ran.
NSENTER_FAILED = b'nsenter: '
INSPECT_FORMAT = '{{.Id}} {{.State.Pid}} {{json .Config.Env}}'


def parse_inspect(text):
    """(id, pid, environment) from one line of `podman container inspect --format INSPECT_FORMAT`."""
    ident, pid, env = to_native(text).strip().split(' ', 2)
    environment = dict(item.split('=', 1) for item in json.loads(env) if '=' in item)
    # Not in a `podman exec` process's environment either.
    environment.pop('container_uuid', None)
    # podman exec sets HOME from the user's passwd entry; the sandbox runs modules as root.
    environment.setdefault('HOME', '/root')
    return {'id': ident, 'pid': int(pid), 'env': environment}


def alive(target, proc='/proc'):
    """Whether target's PID is still the init (PID 1 inside) of the container it was read from.

    A restarted node has another init; its old PID may by then be a process of the node's own
    services, some of which run in mount namespaces of their own (ProtectSystem=, PrivateTmp=).
    """
    if not target or target.get('pid', 0) <= 0:
        return False
    try:
        with open('%s/%d/status' % (proc, target['pid']), encoding='utf-8') as handle:
            nspid = [line.split()[1:] for line in handle if line.startswith('NSpid:')]
        with open('%s/%d/cgroup' % (proc, target['pid']), encoding='utf-8') as handle:
            cgroup = handle.read()
    except OSError:
        return False
    return bool(nspid) and nspid[0][-1:] == ['1'] and target['id'] in cgroup


# /proc/<pid>/limits rows a module process takes from the node's init.
LIMITS = {'Max open files': 'RLIMIT_NOFILE', 'Max processes': 'RLIMIT_NPROC'}


def cgroup_files(pid, proc='/proc'):
    """Per mounted hierarchy of PID, the cgroup.procs files to move a process next to it, best first.

    systemd as a node's init moves itself into init.scope below the container's cgroup, where
    `podman exec` processes do not go: the container's cgroup comes first, init's own second (on
    a pure cgroup v2 host a cgroup with children may refuse processes).
    """
    mounts = []
    with open('%s/self/mountinfo' % proc, encoding='utf-8') as handle:
        for line in handle:
            left, _sep, right = line.partition(' - ')
            fields, after = left.split(), right.split()
            if len(fields) > 4 and len(after) > 2 and after[0] in ('cgroup', 'cgroup2') and fields[3] == '/':
                mounts.append((after[0], fields[4], set(after[2].split(','))))
    files = []
    with open('%s/%d/cgroup' % (proc, pid), encoding='utf-8') as handle:
        for line in handle:
            hierarchy, controllers, path = line.rstrip('\n').split(':', 2)
            if hierarchy == '0' and not controllers:
                found = [mount for mount in mounts if mount[0] == 'cgroup2']
            else:
                wanted = set(controllers.split(','))
                found = [mount for mount in mounts if mount[0] == 'cgroup' and wanted <= mount[2]]
            if not found:
                continue
            paths = [path.rstrip('/')[:-len('/init.scope')], path] if path.endswith('/init.scope') else [path]
            files.append([os.path.join(found[0][1], each.lstrip('/'), 'cgroup.procs') for each in paths])
    return files


def process_limits(pid, proc='/proc'):
    """{resource name: [soft, hard]} of LIMITS from /proc/<pid>/limits (-1: unlimited)."""
    limits = {}
    with open('%s/%d/limits' % (proc, pid), encoding='utf-8') as handle:
        for line in handle:
            columns = re.split(r'\s{2,}', line.strip())
            if columns[0] in LIMITS and len(columns) >= 3:
                limits[LIMITS[columns[0]]] = [-1 if value == 'unlimited' else int(value) for value in columns[1:3]]
    return limits


def join_node(target):
    """A preexec function: the child joins the node's cgroups and takes its limits (best effort)."""
    def join():
        for choices in target.get('cgroups', []):
            for path in choices:
                try:
                    with open(path, 'w', encoding='ascii') as handle:
                        handle.write(str(os.getpid()))
                    break
                except OSError:
                    continue
        for name, (soft, hard) in target.get('limits', {}).items():
            try:
                resource.setrlimit(getattr(resource, name), (resource.RLIM_INFINITY if soft < 0 else soft,
                                                             resource.RLIM_INFINITY if hard < 0 else hard))
            except (OSError, ValueError):
                pass
    return join


class Connection(PodmanConnection):
    """containers.podman.podman with pipelining, nsenter instead of podman exec, no mount per task."""

    transport = 'sandbox_podman'
    has_pipelining = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._target = None

    def _connect(self):
        # No `podman mount` per task: most tasks move no file.
        ConnectionBase._connect(self)  # pylint: disable=protected-access
        self._connected = True
        return self

    def _cache_path(self):
        # The run's local temporary directory: one per ansible-playbook run, shared by its workers.
        return os.path.join(C.DEFAULT_LOCAL_TMP, 'sandbox_podman-%s.json' % self._container_id)

    def _nsenter(self):
        """The nsenter executable when this connection may enter the node with it, else None."""
        if self.user or self.get_option('exec_via') != 'nsenter' or os.geteuid() != 0:
            return None
        return shutil.which('nsenter')

    def _resolve(self, fresh=False):
        """The container's id, init PID and environment, or None when podman cannot say."""
        if not fresh and alive(self._target):
            return self._target
        path = self._cache_path()
        if not fresh:
            try:
                with open(path, encoding='utf-8') as handle:
                    cached = json.load(handle)
                if alive(cached):
                    self._target = cached
                    return cached
            except (OSError, ValueError, KeyError, TypeError):
                pass
        rc, out, err = self._podman(['container', 'inspect', '--format', INSPECT_FORMAT])
        if rc != 0:
            display.vvv('podman container inspect failed (rc %d): %s' % (rc, to_native(err).strip()),
                        host=self._container_id)
            return None
        try:
            target = parse_inspect(out)
        except ValueError:
            return None
        if not alive(target):
            return None
        try:
            target['cgroups'] = cgroup_files(target['pid'])
            target['limits'] = process_limits(target['pid'])
        except OSError:
            return None
        self._target = target
        partial = '%s.%d' % (path, os.getpid())
        try:
            with open(partial, 'w', encoding='utf-8') as handle:
                json.dump(target, handle)
            os.replace(partial, path)
        except OSError:
            pass
        return target

    def _enter(self, nsenter, target, argv, in_data):
        command = [nsenter, '--target', str(target['pid']), '--all', '--root', '--wd', '--'] + argv
        display.vvv('NSENTER %s' % (command,), host=self._container_id)
        process = subprocess.Popen([to_bytes(part, errors='surrogate_or_strict') for part in command],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env=target['env'], preexec_fn=join_node(target))
        stdout, stderr = process.communicate(input=in_data)
        return process.returncode, stdout, stderr

    def exec_command(self, cmd, in_data=None, sudoable=False):
        ConnectionBase.exec_command(self, cmd, in_data=in_data, sudoable=sudoable)
        argv = shlex.split(to_native(cmd, errors='surrogate_or_strict'))
        nsenter = self._nsenter()
        target = self._resolve() if nsenter else None
        if target:
            rc, stdout, stderr = self._enter(nsenter, target, argv, in_data)
            if not (rc == 1 and stderr.startswith(NSENTER_FAILED)):
                return rc, stdout, stderr
            # The node restarted between the check and the call: read it again, once.
            target = self._resolve(fresh=True)
            if target:
                return self._enter(nsenter, target, argv, in_data)
        args = ['exec']
        if in_data is not None:
            args.append('-i')
        if self.user:
            args.extend(('--user', self.user))
        return self._podman(args, argv, in_data)

    def _mounted(self):
        if self._mount_point is not None:
            return
        target = self._resolve() if self._nsenter() else None
        if target:
            # The node's own view of its files, volumes included; no podman call.
            self._mount_point = to_bytes('/proc/%d/root' % target['pid'])
        else:
            PodmanConnection._connect(self)  # pylint: disable=protected-access

    def put_file(self, in_path, out_path):
        self._mounted()
        return super().put_file(in_path, out_path)

    def fetch_file(self, in_path, out_path):
        self._mounted()
        return super().fetch_file(in_path, out_path)
