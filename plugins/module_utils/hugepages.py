# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Paths and configuration-file edits for huge page pools (pure functions, no ansible-core)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

SIZES_KB = {'2M': 2048, '1G': 1048576}

MANAGED_HEADER = '# Managed by the ascend.vllm hugepages module; local edits are overwritten.'

# hugepagesz= spellings the kernel accepts for 1 GiB pages.
_GIGANTIC_SIZE_RE = re.compile(r'^hugepagesz=(1g|1024m|1048576k)$', re.IGNORECASE)
_CMDLINE_LINE_RE = re.compile(r'^(\s*(?:export\s+)?GRUB_CMDLINE_LINUX=)(["\']?)(.*?)\2(\s*(?:#.*)?)$')


def size_kb(size):
    """``2M`` / ``1G`` -> page size in kB."""
    try:
        return SIZES_KB[size.upper()]
    except (KeyError, AttributeError):
        raise ValueError('unsupported huge page size %r (use one of %s)' % (size, ', '.join(sorted(SIZES_KB))))


def pool_dir(sysfs_root, kb, node=None):
    """sysfs directory of one huge page pool (global, or of one NUMA node)."""
    name = 'hugepages-%dkB' % kb
    if node is None:
        return os.path.join(sysfs_root, 'kernel', 'mm', 'hugepages', name)
    return os.path.join(sysfs_root, 'devices', 'system', 'node', 'node%d' % node, 'hugepages', name)


def nr_hugepages_path(sysfs_root, kb, node=None):
    return os.path.join(pool_dir(sysfs_root, kb, node), 'nr_hugepages')


def missing_pool_reason(sysfs_root, kb, node=None):
    """Why a pool's sysfs directory is absent, phrased for the operator."""
    if node is not None:
        node_dir = os.path.join(sysfs_root, 'devices', 'system', 'node', 'node%d' % node)
        if not os.path.isdir(node_dir):
            return 'NUMA node %d does not exist (%s is missing)' % (node, node_dir)
    return ('the kernel offers no %dkB huge page pool (%s is missing): the size is not supported '
            'with this page size/CPU, or hugetlbfs support is not built in'
            % (kb, pool_dir(sysfs_root, kb, node)))


def render_sysctl(count):
    """Content of our sysctl.d file for the default-size (2 MiB) pool."""
    return '%s\nvm.nr_hugepages = %d\n' % (MANAGED_HEADER, count)


def tmpfiles_line(path, count):
    """A systemd-tmpfiles ``w`` line that writes ``count`` into a sysfs file at boot."""
    return 'w %s - - - - %d' % (path, count)


def update_tmpfiles(text, path, count):
    """Set the ``w`` line for ``path`` in a tmpfiles.d file, keeping every other line."""
    wanted = tmpfiles_line(path, count)
    out = []
    placed = False
    for line in (text or '').splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[0].startswith('w') and fields[1] == path:
            if not placed:
                out.append(wanted)
                placed = True
            continue  # drop duplicates for the same path
        out.append(line)
    if not placed:
        if not any(line.strip() for line in out):
            out = [MANAGED_HEADER]
        out.append(wanted)
    return '\n'.join(out) + '\n'


def _remove_gigantic(tokens):
    """Drop every ``hugepagesz=1G`` and the ``hugepages=`` that belongs to it.

    Returns (remaining tokens, index of the first removed pair or None, counts seen).
    """
    out = []
    first = None
    counts = []
    owner = False  # the last hugepagesz= seen was 1G: the next hugepages= is ours
    for token in tokens:
        lowered = token.lower()
        if _GIGANTIC_SIZE_RE.match(token):
            if first is None:
                first = len(out)
            owner = True
            continue
        if lowered.startswith('hugepagesz='):
            owner = False
        elif lowered.startswith('hugepages=') and owner:
            owner = False
            counts.append(token.split('=', 1)[1])
            continue
        out.append(token)
    return out, first, counts


def gigantic_pages_on_cmdline(cmdline):
    """Count of 1 GiB pages requested on a kernel command line (``/proc/cmdline``); 0 if none."""
    counts = _remove_gigantic((cmdline or '').split())[2]
    try:
        return int(counts[-1]) if counts else 0
    except ValueError:
        return None


def update_grub_cmdline(text, count):
    """Set ``hugepagesz=1G hugepages=<count>`` in GRUB_CMDLINE_LINUX of /etc/default/grub.

    Other arguments and their order are kept. ``count`` 0 removes the pair. When several
    GRUB_CMDLINE_LINUX lines exist, the pair goes where it was first found, else on the last
    one (the assignment the shell evaluates last).
    """
    lines = (text or '').splitlines()
    targets = [i for i, line in enumerate(lines) if _CMDLINE_LINE_RE.match(line)]
    if not targets:
        if count <= 0:
            return text if text is not None else ''
        prefix = (text or '')
        if prefix and not prefix.endswith('\n'):
            prefix += '\n'
        return prefix + 'GRUB_CMDLINE_LINUX="hugepagesz=1G hugepages=%d"\n' % count
    edited = {}
    insert_line = None
    insert_at = None
    for i in targets:
        match = _CMDLINE_LINE_RE.match(lines[i])
        tokens, first = _remove_gigantic(match.group(3).split())[:2]
        edited[i] = (match, tokens)
        if first is not None and insert_line is None:
            insert_line, insert_at = i, first
    if insert_line is None:
        insert_line = targets[-1]
        insert_at = len(edited[insert_line][1])
    if count > 0:
        edited[insert_line][1][insert_at:insert_at] = ['hugepagesz=1G', 'hugepages=%d' % count]
    for i, (match, tokens) in edited.items():
        quote = match.group(2) or ('"' if len(tokens) != 1 else '')
        lines[i] = '%s%s%s%s%s' % (match.group(1), quote, ' '.join(tokens), quote, match.group(4))
    out = '\n'.join(lines)
    if text.endswith('\n') or not text:
        out += '\n'
    return out


def sysctl_overrides(sysctl_file):
    """Files in the same sysctl.d directory, read after ours, that also set vm.nr_hugepages."""
    directory, ours = os.path.split(sysctl_file)
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    found = []
    for name in names:
        if name <= ours or not name.endswith('.conf'):
            continue
        path = os.path.join(directory, name)
        try:
            with open(path, 'r') as handle:
                content = handle.read()
        except (IOError, OSError, UnicodeDecodeError):
            continue
        for line in content.splitlines():
            line = line.strip()
            if line.startswith(('#', ';')):
                continue
            key = re.split(r'\s*=\s*', line, 1)[0].strip().lstrip('-').replace('/', '.')
            if key == 'vm.nr_hugepages':
                found.append(path)
                break
    return found
