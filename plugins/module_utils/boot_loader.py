# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Where a node's GRUB reads the kernel command line, and how to rebuild it.

1 GiB huge pages of the whole host are reserved at boot from the kernel command line: the
hugepages module writes ``hugepagesz=1G hugepages=N`` into GRUB_CMDLINE_LINUX of
/etc/default/grub, and the configuration GRUB reads must then be generated again where the
firmware's GRUB looks for it:

- Debian and Ubuntu: ``update-grub`` (grub-mkconfig -o /boot/grub/grub.cfg); on UEFI the EFI
  system partition holds a small grub.cfg that forwards to that one.
- The RPM family (openEuler, Kylin, EulerOS, RHEL): ``grub2-mkconfig -o <file>``. BIOS:
  /boot/grub2/grub.cfg. UEFI: the vendor directory of the EFI system partition
  (/boot/efi/EFI/<vendor>/grub.cfg: openEuler, kylin, redhat up to RHEL 8), unless that file is a
  stub forwarding to /boot/grub2/grub.cfg with ``configfile`` (Fedora 34 and later, RHEL 9) -
  the rule linux-system-roles' bootloader role applies (tasks/main.yml: "Use a general grub conf
  path if UEFI path has a stub config"); the candidate paths are those of
  voxpupuli/puppet-augeasproviders_grub (lib/puppetx/augeasproviders_grub/util.rb).
- Boot Loader Specification entries (GRUB_ENABLE_BLSCFG=true with /boot/loader/entries/*.conf):
  each entry carries its own options, which grubby edits; a regenerated grub.cfg does not
  change them (Fedora's documentation issue fedora-linux-sysadmin-guide#17: "grubby must be
  used for that task"; RHEL 9.3's release notes: grub2-mkconfig leaves them unless given
  --update-bls-cmdline). grubby keeps one value per argument name: ``--args`` first deletes every
  argument of the same name (grubby-bls, update_args), and ``--remove-args`` with a name alone
  removes every value. So the pair is removed by its exact old values, and entries that also
  carry another page size (hugepagesz=2M hugepages=N) are refused rather than lose it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import glob
import os
import re

from ansible_collections.ascend.vllm.plugins.module_utils.hugepages import gigantic_pages_on_cmdline

DEFAULTS_FILE = '/etc/default/grub'
ENTRIES_DIR = '/boot/loader/entries'
EFI_DIR = '/boot/efi/EFI'
BIOS_CONFIGS = ('/boot/grub/grub.cfg', '/boot/grub2/grub.cfg')
TOOLS = ('update-grub', 'grub2-mkconfig', 'grub-mkconfig', 'grubby')
# A stub is a few lines; a generated grub.cfg is kilobytes. Read no more than this of each.
READ_LIMIT = 65536
SKIP_HINT = ("give each 1G pool a NUMA node in kernel_tuning_hugepages (set at runtime, no boot loader change), "
             "or add 'hugepages' to kernel_tuning_skip and put hugepagesz=1G hugepages=%d on the kernel command "
             "line yourself")

_BLS_RE = re.compile(r'^\s*GRUB_ENABLE_BLSCFG=["\']?true["\']?\s*(?:#.*)?$', re.MULTILINE)
_OPTIONS_RE = re.compile(r'^\s*options\s+(.*?)\s*$', re.MULTILINE)


def _read(path):
    try:
        with open(path, 'rb') as handle:
            return handle.read(READ_LIMIT).decode('utf-8', 'replace')
    except (IOError, OSError):
        return None


def is_stub(text):
    """A grub.cfg that only hands over to another one (``configfile``) and has no menu itself."""
    text = text or ''
    return 'configfile' in text and 'menuentry' not in text and 'blscfg' not in text


def read_layout(tools, root='/'):
    """What decides the command: firmware, tools found (name -> path), the grub.cfg files and
    whether they are stubs, the defaults file and BLS entries. ``root`` is where the node's file
    system is mounted ('/' on the node itself)."""
    def at(path):
        return os.path.join(root, path.lstrip('/'))

    configs = []
    efi_configs = sorted(glob.glob(at(EFI_DIR + '/*/grub.cfg')))
    for path in list(BIOS_CONFIGS) + ['/' + os.path.relpath(p, root) for p in efi_configs]:
        text = _read(at(path))
        if text is not None:
            configs.append({'path': path, 'stub': is_stub(text), 'efi': path.startswith(EFI_DIR + '/')})
    defaults = _read(at(DEFAULTS_FILE))
    entries = sorted(glob.glob(at(ENTRIES_DIR + '/*.conf')))
    options = []
    for entry in entries:
        found = _OPTIONS_RE.search(_read(entry) or '')
        if found:
            options.append(found.group(1))
    return {
        'firmware': 'uefi' if os.path.isdir(at('/sys/firmware/efi')) else 'bios',
        'tools': dict((name, path) for name, path in (tools or {}).items() if path),
        'configs': configs,
        'defaults_file': defaults is not None,
        'bls': bool(defaults and _BLS_RE.search(defaults)) and len(entries) > 0,
        # The options line of each BLS entry: what grubby will change.
        'bls_options': options,
    }


def _grubby_commands(grubby, count, old_counts):
    commands = [[grubby, '--update-kernel=ALL', '--remove-args=hugepagesz=1G hugepages=%s' % old]
                for old in old_counts if str(old) != str(count)]
    if count > 0:
        commands.append([grubby, '--update-kernel=ALL', '--args=hugepagesz=1G hugepages=%d' % count])
    return commands


def _other_page_sizes(options):
    """hugepagesz= values other than 1G on the BLS entries' command lines."""
    sizes = []
    for line in options:
        for token in line.split():
            if token.lower().startswith('hugepagesz=') and token.split('=', 1)[1].upper() not in ('1G', '1024M', '1048576K'):
                if token not in sizes:
                    sizes.append(token)
    return sizes


def cmdline_plan(layout, count):
    """How to carry ``count`` 1G pages (0: none) of /etc/default/grub to the next boot.

    Returns ``{'commands': [argv, ...], 'config': the grub.cfg written, 'problem': '', 'fix': ''}``;
    when this node's layout has no known way, ``problem`` says why (one sentence that preflight and
    kernel_tuning both state) and ``fix`` what to do instead.
    """
    layout = layout or {}
    tools = layout.get('tools') or {}
    configs = layout.get('configs') or []
    firmware = layout.get('firmware') or 'bios'

    def refuse(what):
        return {'commands': [], 'config': '',
                'problem': '%s 1G pages of the whole host go on the kernel command line: %s' % (count, what),
                'fix': SKIP_HINT % max(int(count or 0), 1)}

    if not layout.get('defaults_file'):
        return refuse('%s does not exist: this node does not boot through GRUB\'s defaults file' % DEFAULTS_FILE)
    found = [c['path'] for c in configs]
    if tools.get('update-grub'):
        # update-grub writes /boot/grub/grub.cfg, which a UEFI GRUB of Debian reaches through its stub.
        return {'commands': [[tools['update-grub']]], 'config': '/boot/grub/grub.cfg', 'problem': '', 'fix': ''}
    mkconfig = tools.get('grub2-mkconfig') or tools.get('grub-mkconfig')
    if not mkconfig:
        return refuse('neither update-grub, grub2-mkconfig nor grub-mkconfig is on the node\'s PATH (or /usr/sbin, '
                      '/sbin), so the boot loader configuration cannot be generated again')
    general = '/boot/grub2/grub.cfg' if tools.get('grub2-mkconfig') else '/boot/grub/grub.cfg'
    if firmware == 'uefi':
        full = [c['path'] for c in configs if c['efi'] and not c['stub']]
        if len(full) > 1:
            return refuse('UEFI boot with more than one generated grub.cfg on the EFI system partition (%s): which '
                          'one the firmware starts is not known' % ', '.join(full))
        target = full[0] if full else general
    else:
        target = general
    if target not in found:
        return refuse('%s boot, but %s does not exist (found: %s)'
                      % (firmware.upper(), target, ', '.join(found) or 'no grub.cfg'))
    commands = [[mkconfig, '-o', target]]
    if layout.get('bls'):
        if not tools.get('grubby'):
            return refuse('the boot entries are Boot Loader Specification files (GRUB_ENABLE_BLSCFG=true, %s), whose '
                          'options only grubby changes, and grubby is not installed' % ENTRIES_DIR)
        options = layout.get('bls_options') or []
        others = _other_page_sizes(options)
        if others:
            return refuse('the Boot Loader Specification entries also set %s, and grubby keeps one value per argument '
                          'name: adding hugepagesz=1G would drop it' % ', '.join(others))
        old = []
        for line in options:
            pages = gigantic_pages_on_cmdline(line)
            if pages and pages not in old:
                old.append(pages)
        commands += _grubby_commands(tools['grubby'], int(count or 0), old)
    return {'commands': commands, 'config': target, 'problem': '', 'fix': ''}


def cmdline_pages(hugepages, skip):
    """``[count]`` of the 1G pages of the whole host asked for in kernel_tuning_hugepages (the last
    such entry; 0 removes them), or ``[]`` when there is none or 'hugepages' is skipped: only then
    is the boot loader left unread. A list, so that "none" survives every templating mode."""
    if 'hugepages' in (skip or []):
        return []
    wanted = [p for p in hugepages or [] if isinstance(p, dict) and str(p.get('size', '2M')) == '1G'
              and p.get('node') is None]
    if not wanted:
        return []
    try:
        return [int(wanted[-1].get('count'))]
    except (TypeError, ValueError):
        return []  # request_problems refuses the count
