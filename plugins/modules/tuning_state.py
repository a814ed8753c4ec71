#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: tuning_state
short_description: Read every value the kernel_tuning role manages, in one pass
version_added: "0.1.0"
description:
  - Reads the sysctl keys named in O(sysctl) from C(/proc/sys), the CPU frequency governors of every CPU and those
    CPU 0 offers, the transparent huge pages policy, the kernel release, the state of C(irqbalance.service), the
    memlock limits of O(memlock_user) and, with O(hugepages), the huge page pools of every NUMA node.
  - Each sysctl, the governors and the THP policy are C(absent) (the kernel has no such file), C(ro) (this run
    cannot write it, as in a container's C(/proc/sys)) or C(rw).
  - The memlock limits are those a PAM session of the user gets (C(runuser -u <user>)); before the user exists,
    those of O(limits_file). Whether a session can be granted O(memlock_limit) at all is probed in a subshell that
    raises its own limit and exits (raising root's hard limit needs C(CAP_SYS_RESOURCE)).
  - Reads only; changes nothing.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  sysctl:
    description: Sysctl keys to read (C(vm.swappiness) is C(/proc/sys/vm/swappiness)).
    type: list
    elements: str
    default: []
  thp_file:
    description: The transparent huge pages policy file.
    type: path
    default: /sys/kernel/mm/transparent_hugepage/enabled
  sysfs_root:
    description:
      - Root of sysfs, for the CPU frequency governors and the NUMA nodes' huge page pools. The sysctl keys are read
        from the C(proc) directory next to it (C(/proc) for C(/sys)).
    type: path
    default: /sys
  memlock_user:
    description: The user whose memlock limits are read; empty reads none.
    type: str
    default: ''
  memlock_limit:
    description: The limit (C(ulimit -l) value, C(unlimited) or KiB) the probe asks for.
    type: str
    default: unlimited
  limits_file:
    description: The limits.d file the kernel_tuning role writes, read while O(memlock_user) does not exist yet.
    type: path
    default: /etc/security/limits.d/90-ascend-kernel-tuning.conf
  hugepages:
    description: Read the huge page pools of every NUMA node.
    type: bool
    default: false
  files:
    description:
      - Files to read as they are (the role's sysctl.d file, boot unit and limits.d file), with their mode and owner,
        so that a run can tell whether the persisted settings are as the role writes them.
    type: list
    elements: path
    default: []
  unit:
    description: A systemd unit whose C(LoadState), C(ActiveState) and C(UnitFileState) to read; empty reads none.
    type: str
    default: ''
notes:
  - Supports check mode; it never changes anything.
  - Commands run with C(LC_ALL=C).
seealso:
  - module: ascend.vllm.numa_facts
  - module: ascend.vllm.hugepages
'''

EXAMPLES = r'''
- name: Read what kernel_tuning manages
  ascend.vllm.tuning_state:
    sysctl: [vm.swappiness, kernel.numa_balancing]
    memlock_user: vllm
  register: tuning
'''

RETURN = r'''
state:
  description: What was read.
  returned: always
  type: dict
  contains:
    sysctl:
      description: Each key of O(sysctl) - C(absent), C(ro) or C(rw).
      type: dict
      sample: {"vm.swappiness": "rw", "kernel.numa_balancing": "rw"}
    sysctl_values:
      description: The value of each key that exists, whitespace as single spaces.
      type: dict
      sample: {"vm.swappiness": "10", "kernel.numa_balancing": "0"}
    governor_state:
      description: The CPUs' C(cpufreq/scaling_governor) files - C(absent) (no CPU has one), C(ro) or C(rw).
      type: str
    governors:
      description: The governors in use, each once, sorted.
      type: list
      elements: str
      sample: [performance]
    governors_available:
      description: C(scaling_available_governors) of CPU 0.
      type: list
      elements: str
    thp_state:
      description: The THP policy file - C(absent), C(ro) or C(rw).
      type: str
    thp:
      description: The THP policy in force; empty when the file is absent.
      type: str
      sample: never
    thp_available:
      description: The THP policies offered.
      type: list
      elements: str
      sample: [always, madvise, never]
    irqbalance:
      description: C(LoadState), C(ActiveState) and C(UnitFileState) of C(irqbalance.service).
      type: dict
      sample: {"LoadState": "not-found", "ActiveState": "inactive", "UnitFileState": ""}
    memlock:
      description:
        - The soft/hard memlock limits of O(memlock_user)'s PAM sessions (one value when equal); before the user
          exists, those of O(limits_file) with a note; C(not set) when neither is known.
      type: str
      sample: unlimited
    memlock_grantable:
      description: Whether a session can be granted O(memlock_limit) (true when no user is given).
      type: bool
    memlock_hard_now:
      description: Root's hard memlock limit as the probe saw it; C(?) when not probed.
      type: str
    hugepages:
      description: With O(hugepages), the NUMA nodes with their huge page pools (as M(ascend.vllm.numa_facts)); else empty.
      type: list
      elements: dict
    kernel:
      description: The kernel release (C(uname -r)).
      type: str
    files:
      description:
        - Each path of O(files) - C(exists), C(text) (null when it cannot be read as text), C(mode) (octal, as
          C(0644)), C(uid) and C(gid).
      type: dict
      sample: {"/etc/sysctl.d/90-ascend-kernel-tuning.conf": {"exists": true, "text": "vm.swappiness=10\n",
               "mode": "0644", "uid": 0, "gid": 0}}
    unit:
      description: C(LoadState), C(ActiveState) and C(UnitFileState) of O(unit); empty without O(unit).
      type: dict
      sample: {"LoadState": "loaded", "ActiveState": "inactive", "UnitFileState": "enabled"}
'''

import glob
import os
import pwd

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ascend.vllm.plugins.module_utils import numa
from ansible_collections.ascend.vllm.plugins.module_utils import pci
from ansible_collections.ascend.vllm.plugins.module_utils import tuning_state as ts


def _read(path):
    """A file's text; '' when it cannot be read (pci.read_file says None)."""
    return pci.read_file(path) or ''


def _run(module, argv, check=True):
    rc, out, err = module.run_command(argv, environ_update={'LC_ALL': 'C'})
    if check and rc != 0:
        module.fail_json(msg='`%s` failed with rc=%s: %s' % (' '.join(argv), rc, (err or out).strip()),
                         cmd=argv, rc=rc, stdout=out, stderr=err)
    return rc, out


def read_files(paths):
    """{path: {exists, text, mode, uid, gid}}: what the role's own files hold now."""
    files = {}
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            files[path] = {'exists': False, 'text': None, 'mode': None, 'uid': None, 'gid': None}
            continue
        files[path] = {'exists': True, 'text': _read_exact(path), 'mode': '%04o' % (info.st_mode & 0o7777),
                       'uid': info.st_uid, 'gid': info.st_gid}
    return files


def _read_exact(path):
    """A file's text as its bytes hold it (line endings too, as the template module compares);
    None when it cannot be read as UTF-8 text."""
    try:
        with open(path, 'rb') as handle:
            return handle.read().decode('utf-8')
    except (IOError, OSError, UnicodeDecodeError):
        return None


def read_cpufreq(sysfs_root):
    files = sorted(glob.glob(os.path.join(sysfs_root, 'devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor')))
    if not files:
        return 'absent', [], []
    state = ts.file_state(True, all(os.access(path, os.W_OK) for path in files))
    available = _read(os.path.join(sysfs_root, 'devices/system/cpu/cpu0/cpufreq/scaling_available_governors'))
    return state, ts.governors_in_use(_read(path) for path in files), available.split()


def read_sysctl(proc_root, names):
    states, values = {}, {}
    for name in names:
        path = ts.sysctl_path(proc_root, name)
        states[name] = ts.file_state(os.path.exists(path), os.access(path, os.W_OK))
        if states[name] != 'absent':
            values[name] = ts.sysctl_value(_read(path))
    return states, values


def read_memlock(module, user, limit, limits_file):
    """(memlock, grantable, hard limit now) as kernel_tuning reports them."""
    # The subshell tries the limit on itself and exits: nothing outlives the probe.
    rc, out = _run(module, ['/bin/sh', '-c', 'ulimit -H -l; ulimit -l "$1"', 'probe', limit], check=False)
    hard_now = (out.splitlines() or ['?'])[0] or '?'
    try:
        pwd.getpwnam(user)
    except KeyError:
        return ts.memlock_summary(user, file_values=ts.limits_memlock(_read(limits_file), user)), rc == 0, hard_now
    dummy, pam = _run(module, ['runuser', '-u', user, '--', '/bin/sh', '-c', 'ulimit -S -l; ulimit -H -l'])
    return ts.memlock_summary(user, pam_values=pam.splitlines()), rc == 0, hard_now


def main():
    module = AnsibleModule(
        argument_spec=dict(
            sysctl=dict(type='list', elements='str', default=[]),
            thp_file=dict(type='path', default='/sys/kernel/mm/transparent_hugepage/enabled'),
            sysfs_root=dict(type='path', default='/sys'),
            memlock_user=dict(type='str', default=''),
            memlock_limit=dict(type='str', default='unlimited'),
            limits_file=dict(type='path', default='/etc/security/limits.d/90-ascend-kernel-tuning.conf'),
            hugepages=dict(type='bool', default=False),
            files=dict(type='list', elements='path', default=[]),
            unit=dict(type='str', default=''),
        ),
        supports_check_mode=True,
    )
    params = module.params
    sysfs_root = params['sysfs_root']
    proc_root = os.path.join(os.path.dirname(os.path.normpath(sysfs_root)), 'proc')

    state = {}
    state['sysctl'], state['sysctl_values'] = read_sysctl(proc_root, params['sysctl'])
    state['governor_state'], state['governors'], state['governors_available'] = read_cpufreq(sysfs_root)
    thp_file = params['thp_file']
    state['thp_state'] = ts.file_state(os.path.exists(thp_file), os.access(thp_file, os.W_OK))
    state['thp'], state['thp_available'] = ts.thp_policy(_read(thp_file) if state['thp_state'] != 'absent' else '')
    state['kernel'] = os.uname()[2]
    dummy, irq = _run(module, ['systemctl', 'show', 'irqbalance.service',
                               '--property=LoadState,ActiveState,UnitFileState'])
    state['irqbalance'] = ts.systemctl_properties(irq)
    state['unit'] = {}
    if params['unit']:
        dummy, unit = _run(module, ['systemctl', 'show', params['unit'], '--property=LoadState,ActiveState,UnitFileState'])
        state['unit'] = ts.systemctl_properties(unit)
    state['files'] = read_files(params['files'])
    if params['memlock_user']:
        state['memlock'], state['memlock_grantable'], state['memlock_hard_now'] = read_memlock(
            module, params['memlock_user'], params['memlock_limit'], params['limits_file'])
    else:
        state['memlock'], state['memlock_grantable'], state['memlock_hard_now'] = 'not set', True, '?'
    state['hugepages'] = []
    if params['hugepages']:
        meminfo = os.path.join(proc_root, 'meminfo')
        state['hugepages'] = [dict(node, cpulist=numa.format_cpu_list(node['cpus']))
                              for node in numa.read_nodes(sysfs_root, meminfo)]
    module.exit_json(changed=False, state=state)


if __name__ == '__main__':
    main()
