#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: hugepages
short_description: Ensure and verify a huge page pool, at runtime and across reboots
version_added: "0.1.0"
description:
  - Sets the number of 2 MiB or 1 GiB huge pages of the host, or of one NUMA node, writes it to
    the running kernel and reads it back. When the kernel allocated a different number (memory
    too fragmented or too small) the module fails stating requested and allocated pages, or
    only warns with O(allow_partial=true).
  - With O(persistent=true) the value also survives a reboot - 2 MiB pages of the whole host
    through a sysctl.d file (C(vm.nr_hugepages)); pages of one NUMA node through a
    systemd-tmpfiles line that writes the node's sysfs value at boot; 1 GiB pages of the whole
    host through C(hugepagesz=1G hugepages=N) in C(GRUB_CMDLINE_LINUX) of the GRUB defaults
    file, which needs a reboot and is reported as RV(reboot_required).
  - Changes only what differs; supports check mode and diff mode.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  size:
    description: Huge page size.
    type: str
    choices: ['2M', '1G']
    default: '2M'
  count:
    description: Number of pages wanted in the pool. C(0) releases the pool.
    type: int
    required: true
  node:
    description:
      - NUMA node whose pool is set (C(<sysfs_root>/devices/system/node/node<N>/hugepages)).
      - When unset, the host-wide pool (C(<sysfs_root>/kernel/mm/hugepages)) is set and the
        kernel spreads the pages over the nodes.
    type: int
  persistent:
    description: Also configure the value for the next boots (see the description).
    type: bool
    default: true
  allow_partial:
    description:
      - Warn instead of failing when the kernel allocates a different number of pages than
        requested.
      - For 1 GiB host-wide pages with O(persistent=true) a shortfall never fails - the pages
        are allocated at the next boot from the kernel command line and RV(reboot_required)
        is true.
    type: bool
    default: false
  sysfs_root:
    description: Root of sysfs.
    type: path
    default: /sys
  sysctl_file:
    description: Our sysctl.d file for host-wide 2 MiB pages (the whole file is managed).
    type: path
    default: /etc/sysctl.d/90-ascend-hugepages.conf
  tmpfiles_file:
    description:
      - systemd-tmpfiles file for per-node pools; one C(w) line per pool is managed, other
        lines are kept.
    type: path
    default: /etc/tmpfiles.d/90-ascend-hugepages.conf
  grub_file:
    description:
      - GRUB defaults file whose C(GRUB_CMDLINE_LINUX) receives the 1 GiB setting. Regenerate
        the boot loader configuration (C(grub2-mkconfig) / C(update-grub)) when
        RV(persist_changed) is true.
    type: path
    default: /etc/default/grub
  proc_cmdline:
    description:
      - Command line of the running kernel, compared with the persisted 1 GiB setting to
        decide RV(reboot_required).
    type: path
    default: /proc/cmdline
notes:
  - The sysctl C(vm.nr_hugepages) applies to the default huge page size, which is 2 MiB on
    x86_64 and on aarch64 kernels with 4 KiB base pages.
  - Per-node 1 GiB pools made persistent are allocated by systemd-tmpfiles early at boot;
    they can still fall short on a fragmented host, which the next run reports.
  - Supports check mode (nothing is written; C(changed) is predicted) and diff mode.
seealso:
  - module: ascend.vllm.numa_facts
'''

EXAMPLES = r'''
- name: 16384 x 2 MiB pages (32 GiB) for the KV pool, kept across reboots
  ascend.vllm.hugepages:
    size: 2M
    count: 16384

- name: 8192 x 2 MiB pages on each NUMA node that holds NPUs
  ascend.vllm.hugepages:
    size: 2M
    count: 8192
    node: "{{ item }}"
  loop: "{{ ansible_facts.ascend_numa.npus | map(attribute='numa_node') | unique | list }}"

- name: 1 GiB pages from the kernel command line
  ascend.vllm.hugepages:
    size: 1G
    count: 64
  register: gigantic

- name: Tell the caller a reboot is pending
  ansible.builtin.set_fact:
    ascend_reboot_required: "{{ gigantic.reboot_required }}"
'''

RETURN = r'''
requested:
  description: Pages requested (O(count)).
  returned: always
  type: int
  sample: 16384
allocated:
  description:
    - Pages the kernel holds in the pool after the run (in check mode, the current value).
  returned: always
  type: int
  sample: 16384
previous:
  description: Pages in the pool before the run.
  returned: always
  type: int
  sample: 0
reboot_required:
  description:
    - True for a persistent host-wide 1 GiB pool while the running kernel was not booted with
      the requested C(hugepagesz=1G hugepages=N).
  returned: always
  type: bool
  sample: false
size_kb:
  description: Page size in kB.
  returned: always
  type: int
  sample: 2048
node:
  description: NUMA node of the pool, null for the host-wide pool.
  returned: always
  type: int
  sample: 0
sysfs_path:
  description: sysfs file of the pool's page count.
  returned: always
  type: str
  sample: /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
persist_file:
  description: File that keeps the value across reboots; null with O(persistent=false).
  returned: always
  type: str
  sample: /etc/sysctl.d/90-ascend-hugepages.conf
persist_changed:
  description: The persistence file was (or, in check mode, would be) changed.
  returned: always
  type: bool
  sample: true
'''

import os
import tempfile

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ascend.vllm.plugins.module_utils.pci import read_file
from ansible_collections.ascend.vllm.plugins.module_utils.hugepages import (
    gigantic_pages_on_cmdline,
    missing_pool_reason,
    nr_hugepages_path,
    render_sysctl,
    size_kb,
    sysctl_overrides,
    update_grub_cmdline,
    update_tmpfiles,
)


def read_count(module, path):
    text = read_file(path)
    try:
        return int(text.strip())
    except (AttributeError, ValueError):
        module.fail_json(msg='cannot read the page count from %s (got %r)' % (path, text))


def write_pool(path, count):
    """Ask the kernel for ``count`` pages; it may allocate fewer (or free fewer) than asked."""
    with open(path, 'w') as handle:
        handle.write('%d\n' % count)


def write_atomic(module, path, content):
    """Write through a temporary file in the target directory, then rename over the target."""
    directory = os.path.dirname(path) or '.'
    if not os.path.isdir(directory):
        try:
            os.makedirs(directory, 0o755)
        except OSError as exc:
            module.fail_json(msg='cannot create %s: %s' % (directory, exc))
    fd, tmp = tempfile.mkstemp(prefix='.ascend-hugepages.', dir=directory)
    try:
        with os.fdopen(fd, 'w') as handle:
            handle.write(content)
        if not os.path.exists(path):
            os.chmod(tmp, 0o644)
    except (IOError, OSError) as exc:
        os.unlink(tmp)
        module.fail_json(msg='cannot write %s: %s' % (path, exc))
    module.atomic_move(tmp, path)


def plan_persistence(module, kb, count, node):
    """(file, current text, wanted text) of the persistence mechanism for this pool."""
    params = module.params
    if node is not None:
        path = params['tmpfiles_file']
        current = read_file(path)
        wanted = update_tmpfiles(current or '', nr_hugepages_path(params['sysfs_root'], kb, node), count)
    elif params['size'] == '2M':
        path = params['sysctl_file']
        current = read_file(path)
        wanted = render_sysctl(count)
    else:
        path = params['grub_file']
        current = read_file(path)
        if current is None and count == 0:
            return path, None, None  # no boot configuration asks for 1G pages: nothing to undo
        if current is None:
            module.fail_json(
                msg='%s does not exist: 1G pages of the whole host are set on the kernel command '
                    'line through GRUB; set grub_file, or persistent=false' % path)
        wanted = update_grub_cmdline(current, count)
    return path, current, wanted


def main():
    module = AnsibleModule(
        argument_spec=dict(
            size=dict(type='str', choices=['2M', '1G'], default='2M'),
            count=dict(type='int', required=True),
            node=dict(type='int'),
            persistent=dict(type='bool', default=True),
            allow_partial=dict(type='bool', default=False),
            sysfs_root=dict(type='path', default='/sys'),
            sysctl_file=dict(type='path', default='/etc/sysctl.d/90-ascend-hugepages.conf'),
            tmpfiles_file=dict(type='path', default='/etc/tmpfiles.d/90-ascend-hugepages.conf'),
            grub_file=dict(type='path', default='/etc/default/grub'),
            proc_cmdline=dict(type='path', default='/proc/cmdline'),
        ),
        supports_check_mode=True,
    )
    params = module.params
    count = params['count']
    node = params['node']
    if count < 0:
        module.fail_json(msg='count must be 0 or more, got %d' % count)
    if node is not None and node < 0:
        module.fail_json(msg='node must be 0 or more, got %d' % node)
    kb = size_kb(params['size'])
    where = 'on NUMA node %d' % node if node is not None else 'host-wide'
    path = nr_hugepages_path(params['sysfs_root'], kb, node)
    if not os.path.exists(path):
        module.fail_json(msg='cannot set %dkB huge pages %s: %s'
                             % (kb, where, missing_pool_reason(params['sysfs_root'], kb, node)))

    previous = read_count(module, path)
    runtime_changed = previous != count

    persist_file = None
    persist_changed = False
    diff = [{
        'before_header': path, 'after_header': path,
        'before': '%d\n' % previous, 'after': '%d\n' % count,
    }]
    if params['persistent']:
        persist_file, current, wanted = plan_persistence(module, kb, count, node)
        persist_changed = current != wanted
        if persist_changed:
            diff.append({
                'before_header': persist_file, 'after_header': persist_file,
                'before': current or '', 'after': wanted,
            })

    gigantic_boot = params['persistent'] and node is None and params['size'] == '1G'
    allocated = previous
    restored = False
    if not module.check_mode:
        if runtime_changed:
            try:
                write_pool(path, count)
            except (IOError, OSError) as exc:
                # The kernel refuses with ENOMEM/EINVAL; the read-back below still tells what it did.
                module.warn('writing %d to %s failed: %s' % (count, path, exc))
            allocated = read_count(module, path)
        if allocated != count and not gigantic_boot and not params['allow_partial']:
            # A failed run leaves nothing half-changed: give the pages back and persist nothing.
            try:
                write_pool(path, previous)
                restored = read_count(module, path) == previous
            except (IOError, OSError) as exc:
                module.warn('restoring %d to %s failed: %s' % (previous, path, exc))
        elif persist_changed:
            write_atomic(module, persist_file, wanted)

    reboot_required = False
    if gigantic_boot:
        running = gigantic_pages_on_cmdline(read_file(params['proc_cmdline']) or '')
        reboot_required = running != count

    changed = runtime_changed or persist_changed
    result = dict(
        changed=changed, requested=count, allocated=allocated, previous=previous,
        reboot_required=reboot_required, size_kb=kb, node=node, sysfs_path=path,
        persist_file=persist_file, persist_changed=persist_changed,
    )
    if module._diff:
        result['diff'] = diff

    if params['persistent'] and node is None and params['size'] == '2M':
        for other in sysctl_overrides(persist_file):
            module.warn('%s also sets vm.nr_hugepages and is read after %s: it decides the value '
                        'at boot' % (other, persist_file))

    if not module.check_mode and allocated != count:
        shortfall = ('requested %d %dkB huge pages %s, the kernel allocated %d (previously %d)'
                     % (count, kb, where, allocated, previous))
        if gigantic_boot:
            module.warn('%s; the rest are allocated at the next boot from the kernel command line'
                        % shortfall)
            result['reboot_required'] = True
        elif params['allow_partial']:
            module.warn(shortfall)
        else:
            if allocated < count:
                reason = ('not enough free contiguous memory%s. Free memory (stop services, drop '
                          'caches), lower count, reboot with the persisted value, or set '
                          'allow_partial=true' % (' on that node' if node is not None else ''))
            else:
                reason = ('pages still in use cannot be released. Stop the processes holding '
                          'them (vLLM, memcache) and run again, or set allow_partial=true')
            result['msg'] = '%s: %s. %s' % (
                shortfall, reason,
                'The pool was set back to %d and nothing was persisted' % previous if restored
                else 'The pool could not be set back to %d' % previous)
            result['persist_changed'] = False
            module.fail_json(**result)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
