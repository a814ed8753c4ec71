#!/usr/bin/python
# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: support_bundle
short_description: Collect an Ascend serving node's support bundle into one tar.gz, secrets redacted
version_added: "0.1.0"
description:
  - Writes one C(.tar.gz) on the node with what a support case about an Ascend NPU server running
    vLLM needs - C(npu-smi) outputs (C(info), C(info -l), C(info -m), board and health per NPU),
    the newest NPU logs up to a size bound (C(/var/log/npu/slog), C(/var/log/ascend_seclog)), the
    journal and unit definition of the services matching O(units), installed versions
    (C(version.info) and C(*install.info) files below O(install_path), C(/etc/ascend_install.info),
    C(pip freeze) of each of O(venvs)), and host state (C(uname), C(lscpu), C(numactl --hardware),
    C(free), C(df), C(lspci -d 19e5:), C(sysctl -a), addresses, failed units, the tail of C(dmesg)).
  - Every text placed in the bundle is redacted first - the values in O(redact_values) wherever they
    occur, values of secret-looking names (C(*API_KEY*), C(*TOKEN*), C(*PASSWORD*), C(*SECRET*), ...)
    in C(KEY=value) lines, YAML mappings and JSON, secret command-line options (C(--api-key X)), bearer
    tokens and passwords in URLs - and RV(redactions) counts the replacements.
  - A command that is missing or fails does not stop the collection; its exit status and error go
    into C(summary.txt) and RV(sections). Each command runs under C(timeout) when that exists.
  - The archive is written to a temporary file and renamed into O(dest), mode 0600. In check mode
    nothing runs and nothing is written; the result says what would be collected.
author:
  - ascend.vllm maintainers (@ascend-vllm)
options:
  dest:
    description: Path of the C(.tar.gz) to write on the node; its directory must exist.
    type: path
    required: true
  name:
    description: Top directory inside the archive (default - the file name of O(dest) without C(.tar.gz)).
    type: str
  install_path:
    description: Ascend install path whose version and install files are collected.
    type: path
    default: /usr/local/Ascend
  npu_smi_path:
    description: C(npu-smi) to run; default - from PATH, C(/usr/local/bin), C(/usr/local/sbin),
      C(<install_path>/driver/tools).
    type: path
  max_npus:
    description: Board and health are queried for at most this many NPUs.
    type: int
    default: 16
  log_dirs:
    description: Log directories collected newest file first, together bounded by O(log_max_mb).
    type: list
    elements: path
    default: [/var/log/npu/slog, /var/log/ascend_seclog]
  log_max_mb:
    description: Bound of the log files' total size in the bundle, in MiB (the newest part of the
      file that does not fit whole is kept).
    type: int
    default: 50
  units:
    description: Glob patterns of systemd services whose journal and unit files are collected.
    type: list
    elements: str
    default: ['vllm*', 'ray*', 'ascend*']
  journal_lines:
    description: Journal lines per unit.
    type: int
    default: 2000
  dmesg_lines:
    description: Lines of the kernel ring buffer (its tail).
    type: int
    default: 500
  venvs:
    description: Virtualenvs whose C(pip freeze) is collected (missing ones are noted, not errors).
    type: list
    elements: path
    default: []
  extra_paths:
    description: More files or directories (not recursive) to include, redacted; missing ones are noted.
    type: list
    elements: path
    default: [/etc/hccn.conf, /etc/ascend-vllm]
  redact_values:
    description: Secret values replaced wherever they occur (the service API key, hub tokens).
    type: list
    elements: str
    default: []
  command_timeout:
    description: Seconds each command may run.
    type: int
    default: 60
notes:
  - Runs as root to read the NPU logs and the journal.
seealso:
  - name: playbooks/diagnostics.yml
    description: Collects the bundle of every node and fetches it to the controller.
    link: https://github.com/ascend-vllm/ascend.vllm/blob/main/playbooks/diagnostics.yml
'''

EXAMPLES = r'''
- name: Collect the support bundle
  ascend.vllm.support_bundle:
    dest: /var/tmp/ascend-support-{{ inventory_hostname }}.tar.gz
    venvs: [/opt/ascend-vllm/venv]
    redact_values: ["{{ vllm_service_api_key }}"]
'''

RETURN = r'''
path:
  description: The archive written on the node (in check mode - the one that would be).
  returned: always
  type: str
  sample: /var/tmp/ascend-support-node1.tar.gz
size:
  description: Size of the archive in bytes (0 in check mode).
  returned: always
  type: int
files:
  description: Paths inside the archive, below its top directory.
  returned: always
  type: list
  elements: str
  sample: [summary.txt, npu-smi/info.txt, journal/vllm-main.service.log]
sections:
  description: One entry per command or file wanted, with what happened.
  returned: always
  type: list
  elements: dict
  contains:
    file: {description: Path in the archive., type: str}
    source: {description: The command line or the path read., type: str}
    status: {description: "C(ok), C(failed) (with rc and error), C(missing), C(skipped).", type: str}
redactions:
  description: Number of secrets replaced by C(<redacted>).
  returned: always
  type: int
diagnosis:
  description:
    - The known failures (a wheel for another chip, NNAL missing, an NPU held by another process, ...) found in the
      services' journals, each with C(unit), C(id), C(cause), C(fix), C(check), C(source) and the C(line) that
      matched; C(diagnosis.txt) in the archive says the same.
  returned: always
  type: list
  elements: dict
logs_skipped:
  description: Log files left out by the O(log_max_mb) bound.
  returned: always
  type: int
'''

import io
import os
import shutil
import tarfile
import tempfile
import time

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.text.converters import to_bytes, to_text

from ansible_collections.ascend.vllm.plugins.module_utils import known_failures
from ansible_collections.ascend.vllm.plugins.module_utils.command import C_LOCALE, command_string
from ansible_collections.ascend.vllm.plugins.module_utils.support_bundle import (
    newest_within, npu_smi_commands, parse_npu_ids, parse_units, redact, safe_name,
    system_commands, tail_lines)

NPU_SMI_DIRS = ['/usr/local/bin', '/usr/local/sbin']
VERSION_FILE_NAMES = ('version.info', 'version.cfg')
VERSION_WALK_DEPTH = 5


class Bundle(object):
    """Files of the archive in memory, redacted as they are added."""

    def __init__(self, literals):
        self.literals = literals
        self.files = {}
        self.sections = []
        self.redactions = 0

    def add_text(self, name, text, source, status='ok'):
        text, count = redact(to_text(text, errors='surrogate_or_replace'), self.literals)
        self.redactions += count
        self.files[name] = to_bytes(text, errors='surrogate_or_replace')
        self.sections.append({'file': name, 'source': source, 'status': status})

    def note(self, name, source, status):
        self.sections.append({'file': name, 'source': source, 'status': status})


def find_npu_smi(module, params):
    if params['npu_smi_path']:
        return params['npu_smi_path'] if os.access(params['npu_smi_path'], os.X_OK) else None
    found = module.get_bin_path('npu-smi', opt_dirs=NPU_SMI_DIRS + [os.path.join(params['install_path'], 'driver', 'tools')])
    return found


def run(module, argv, timeout):
    """rc, stdout, stderr of argv; rc 127 when the program does not exist."""
    program = argv[0] if os.path.isabs(argv[0]) else module.get_bin_path(argv[0])
    if not program:
        return 127, '', '%s: command not found' % argv[0]
    full = [program] + list(argv[1:])
    timeout_bin = module.get_bin_path('timeout')
    if timeout_bin:
        full = [timeout_bin, str(timeout)] + full
    return module.run_command(full, environ_update=C_LOCALE, check_rc=False)


def collect_command(module, bundle, name, argv, timeout, post=None):
    rc, out, err = run(module, argv, timeout)
    source = command_string(argv)
    if rc == 127 and not out:
        bundle.note(name, source, 'missing')
        return rc, out
    text = post(out) if post else out
    if rc != 0:
        text += '\n# rc=%d\n%s' % (rc, err)
        bundle.add_text(name, text, source, 'failed (rc=%d): %s' % (rc, (err.strip().splitlines() or [''])[-1]))
    else:
        bundle.add_text(name, text + (('\n# stderr:\n' + err) if err.strip() else ''), source)
    return rc, out


def read_file(path, offset=0):
    with open(path, 'rb') as handle:
        if offset:
            handle.seek(offset)
        return handle.read()


def collect_file(bundle, name, path, offset=0):
    try:
        data = read_file(path, offset)
    except (IOError, OSError) as exc:
        bundle.note(name, path, 'failed: %s' % exc)
        return
    prefix = '# newest %d bytes of %s\n' % (len(data), path) if offset else ''
    bundle.add_text(name, prefix + to_text(data, errors='surrogate_or_replace'), path)


def version_files(install_path):
    """version.info / *install.info files below install_path, a few levels deep."""
    found = []
    base_depth = install_path.rstrip('/').count('/')
    for root, dirs, files in os.walk(install_path):
        if root.count('/') - base_depth >= VERSION_WALK_DEPTH:
            dirs[:] = []
        dirs.sort()
        for name in sorted(files):
            if name in VERSION_FILE_NAMES or name.endswith('install.info'):
                found.append(os.path.join(root, name))
    return found


def log_entries(directory):
    entries = []
    for root, dummy, files in os.walk(directory):
        for name in files:
            path = os.path.join(root, name)
            try:
                stat = os.lstat(path)
            except OSError:
                continue
            if os.path.isfile(path) and not os.path.islink(path):
                entries.append((path, stat.st_size, stat.st_mtime))
    return entries


def collect(module, params, bundle):
    timeout = params['command_timeout']
    npu_smi = find_npu_smi(module, params)
    if npu_smi:
        collect_command(module, bundle, 'npu-smi/info.txt', [npu_smi, 'info'], timeout)
        dummy, listing = collect_command(module, bundle, 'npu-smi/list.txt', [npu_smi, 'info', '-l'], timeout)
        collect_command(module, bundle, 'npu-smi/mapping.txt', [npu_smi, 'info', '-m'], timeout)
        for name, argv in npu_smi_commands(npu_smi, parse_npu_ids(listing), params['max_npus']):
            collect_command(module, bundle, name, argv, timeout)
    else:
        bundle.note('npu-smi/', 'npu-smi', 'missing: no npu-smi (driver not installed?)')

    for name, argv in system_commands():
        post = (lambda text: tail_lines(text, params['dmesg_lines'])) if argv[0] == 'dmesg' else None
        collect_command(module, bundle, name, argv, timeout, post)

    # Versions.
    for path in ['/etc/ascend_install.info', '/etc/Ascend/ascend_cann_install.info', '/etc/os-release']:
        if os.path.isfile(path):
            collect_file(bundle, 'versions/' + safe_name(path), path)
    if os.path.isdir(params['install_path']):
        for path in version_files(params['install_path']):
            collect_file(bundle, 'versions/' + safe_name(path), path)
    else:
        bundle.note('versions/', params['install_path'], 'missing')
    for venv in params['venvs']:
        python = os.path.join(venv, 'bin', 'python')
        name = 'versions/pip-freeze-%s.txt' % safe_name(venv).replace('/', '_')
        if os.access(python, os.X_OK):
            collect_command(module, bundle, name, [python, '-m', 'pip', 'freeze', '--all'], timeout)
        else:
            bundle.note(name, venv, 'missing')

    # Services: journal and unit definition (with drop-ins) of every matching unit.
    units = []
    for listing in (['systemctl', 'list-units', '--all', '--type=service', '--plain', '--no-legend', '--no-pager'],
                    ['systemctl', 'list-unit-files', '--type=service', '--plain', '--no-legend', '--no-pager']):
        rc, out, dummy = run(module, listing + list(params['units']), timeout)
        if rc == 0:
            units.extend(u for u in parse_units(out) if u not in units)
    for unit in units:
        collect_command(module, bundle, 'journal/%s.log' % unit,
                        ['journalctl', '-u', unit, '-n', str(params['journal_lines']), '--no-pager', '-o', 'short-iso'],
                        timeout)
        collect_command(module, bundle, 'units/%s.txt' % unit, ['systemctl', 'cat', '--no-pager', unit], timeout)
        collect_command(module, bundle, 'units/%s.status.txt' % unit,
                        ['systemctl', 'status', '--no-pager', '--lines=0', unit], timeout)

    # Logs, newest first, bounded together.
    entries = []
    for directory in params['log_dirs']:
        if os.path.isdir(directory):
            entries.extend(log_entries(directory))
        else:
            bundle.note('logs/' + safe_name(directory), directory, 'missing')
    chosen, skipped = newest_within(entries, params['log_max_mb'] * 1024 * 1024)
    for path, offset in chosen:
        collect_file(bundle, 'logs/' + safe_name(path), path, offset)

    # Extra files and directories (not recursive).
    for path in params['extra_paths']:
        if os.path.isdir(path):
            for name in sorted(os.listdir(path)):
                full = os.path.join(path, name)
                if os.path.isfile(full):
                    collect_file(bundle, 'config/' + safe_name(full), full)
        elif os.path.isfile(path):
            collect_file(bundle, 'config/' + safe_name(path), path)
        else:
            bundle.note('config/' + safe_name(path), path, 'missing')
    return skipped


def diagnosis(bundle):
    """The known failures (module_utils/known_failures.py) in the services' journals of the bundle:
    [{unit, id, cause, fix, check, source, line}] and the text of diagnosis.txt."""
    found, lines = [], []
    for name in sorted(bundle.files):
        if not (name.startswith('journal/') and name.endswith('.log')):
            continue
        unit = name[len('journal/'):-len('.log')]
        rows = known_failures.diagnose(to_text(bundle.files[name], errors='surrogate_or_replace'))
        for row in rows:
            found.append(dict(row, unit=unit))
        if rows:
            lines.append('%s:\n%s' % (unit, known_failures.diagnosis_text(rows)))
    text = '\n\n'.join(lines) if lines else 'No known failure found in the services\' journals.'
    return found, text + '\n'


def summary(bundle, name, skipped):
    lines = ['Support bundle %s' % name,
             'created: %s' % time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
             'log files left out by the size bound: %d' % skipped,
             '', 'file\tstatus\tsource']
    for section in bundle.sections:
        lines.append('%s\t%s\t%s' % (section['file'], section['status'], section['source']))
    return '\n'.join(lines) + '\n'


def write_archive(dest, name, files):
    directory = os.path.dirname(os.path.abspath(dest))
    handle, temp = tempfile.mkstemp(prefix='.support-bundle-', suffix='.tar.gz', dir=directory)
    os.close(handle)
    try:
        os.chmod(temp, 0o600)
        now = time.time()
        with tarfile.open(temp, 'w:gz') as tar:
            for path in sorted(files):
                info = tarfile.TarInfo('%s/%s' % (name, path))
                info.size = len(files[path])
                info.mtime = now
                info.mode = 0o600
                tar.addfile(info, io.BytesIO(files[path]))
        shutil.move(temp, dest)
    except Exception:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
    return os.path.getsize(dest)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            dest=dict(type='path', required=True),
            name=dict(type='str'),
            install_path=dict(type='path', default='/usr/local/Ascend'),
            npu_smi_path=dict(type='path'),
            max_npus=dict(type='int', default=16),
            log_dirs=dict(type='list', elements='path', default=['/var/log/npu/slog', '/var/log/ascend_seclog']),
            log_max_mb=dict(type='int', default=50),
            units=dict(type='list', elements='str', default=['vllm*', 'ray*', 'ascend*']),
            journal_lines=dict(type='int', default=2000),
            dmesg_lines=dict(type='int', default=500),
            venvs=dict(type='list', elements='path', default=[]),
            extra_paths=dict(type='list', elements='path', default=['/etc/hccn.conf', '/etc/ascend-vllm']),
            redact_values=dict(type='list', elements='str', default=[], no_log=True),
            command_timeout=dict(type='int', default=60),
        ),
        supports_check_mode=True,
    )
    params = module.params
    dest = params['dest']
    name = params['name'] or os.path.basename(dest).replace('.tar.gz', '').replace('.tgz', '')
    if not os.path.isdir(os.path.dirname(os.path.abspath(dest))):
        module.fail_json(msg='support_bundle: the directory of dest %s does not exist' % dest)
    for option in ('log_max_mb', 'journal_lines', 'dmesg_lines', 'max_npus', 'command_timeout'):
        if params[option] < 0:
            module.fail_json(msg='support_bundle: %s must be 0 or more, got %d' % (option, params[option]))

    result = dict(changed=True, path=dest, size=0, files=[], sections=[], redactions=0, logs_skipped=0, diagnosis=[])
    if module.check_mode:
        result['sections'] = [{'file': '-', 'source': 'check mode', 'status': 'skipped'}]
        module.exit_json(**result)

    bundle = Bundle(params['redact_values'])
    skipped = collect(module, params, bundle)
    found, text = diagnosis(bundle)
    bundle.add_text('diagnosis.txt', text, 'the journals against the known failures (docs/troubleshooting.md)')
    bundle.add_text('summary.txt', summary(bundle, name, skipped), 'support_bundle')
    try:
        size = write_archive(dest, name, bundle.files)
    except (IOError, OSError, tarfile.TarError) as exc:
        module.fail_json(msg='support_bundle: cannot write %s: %s' % (dest, exc))
    result.update(size=size, files=sorted(bundle.files), sections=bundle.sections,
                  redactions=bundle.redactions, logs_skipped=skipped, diagnosis=found)
    module.exit_json(**result)


if __name__ == '__main__':
    main()
