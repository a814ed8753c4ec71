# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Pure helpers of the support_bundle module: what to collect, how much, and redaction.

Nothing here imports Ansible or touches the system, so the unit tests exercise every rule
directly; the module does the reading, running and archiving.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

REDACTED = '<redacted>'

# Variable and option names whose values are secrets wherever they appear: environment files,
# unit files, command lines in the journal, JSON and YAML.
# "token" only as a word of the name (HF_TOKEN, access-token), not max_tokens or tokenizer.
_SECRET_NAME = (r'[A-Za-z0-9_.-]*(?:api[_-]?key|(?<![A-Za-z])token(?![A-Za-z])|passw(?:or)?d|secret|credential'
                r'|private[_-]?key)[A-Za-z0-9_.-]*')

_PATTERNS = [
    # KEY=value, KEY: value, "key": "value", key = 'value': a quoted value up to its closing quote
    # (backslash escapes inside "...", as systemd EnvironmentFiles and JSON write them), an
    # unquoted one up to the end of the token
    (re.compile(r'''(?P<lead>["']?(?P<name>%s)["']?\s*[=:]\s*)(?P<q>["']?)'''
                r'''(?P<value>(?<=")(?:[^"\\\n]|\\.)+|(?<=')[^'\n]+|[^\s"',;}]+)''' % _SECRET_NAME,
                re.IGNORECASE), 'assignment'),
    # --api-key VALUE, --api-key=VALUE, --hf-token VALUE
    (re.compile(r'(?P<lead>--%s(?:=|\s+))(?P<q>["\']?)(?P<value>[^\s"\']+)' % _SECRET_NAME, re.IGNORECASE), 'option'),
    # Authorization: Bearer VALUE / Basic VALUE
    (re.compile(r'(?P<lead>\b(?:Bearer|Basic)\s+)(?P<q>)(?P<value>[A-Za-z0-9._~+/=-]{4,})'), 'bearer'),
    # scheme://user:password@host
    (re.compile(r'(?P<lead>[a-z][a-z0-9+.-]*://[^/\s:@]+:)(?P<q>)(?P<value>[^@\s/]+)(?=@)', re.IGNORECASE), 'url'),
]


def redact(text, literals=()):
    """Return (text, count): ``text`` with secrets replaced by ``<redacted>``.

    ``literals`` are known secret values (the API key, tokens) replaced wherever they occur,
    even outside a recognisable KEY=value; values shorter than 4 characters are ignored, as
    replacing them would shred ordinary text. Then values of secret-looking names, secret
    command-line options, bearer tokens and passwords in URLs are replaced.
    """
    count = 0
    for literal in sorted({str(v) for v in literals if v is not None and len(str(v)) >= 4}, key=len, reverse=True):
        occurrences = text.count(literal)
        if occurrences:
            text = text.replace(literal, REDACTED)
            count += occurrences

    def substitute(match):
        if match.group('value') == REDACTED or match.group('value').startswith('<redacted'):
            return match.group(0)
        substitute.count += 1
        return match.group('lead') + match.group('q') + REDACTED

    for pattern, dummy in _PATTERNS:
        substitute.count = 0
        text = pattern.sub(substitute, text)
        count += substitute.count
    return text, count


def newest_within(entries, max_bytes):
    """Choose log files, newest first, until ``max_bytes`` is used up.

    ``entries``: iterable of (path, size, mtime). Returns (chosen, skipped): ``chosen`` is a
    list of (path, offset) - read the file from ``offset`` to its end, so the one file that
    does not fit whole contributes its newest part (its tail); ``skipped`` counts the files
    left out. Ties in mtime are broken by path, so the choice is stable.
    """
    remaining = max(int(max_bytes), 0)
    chosen = []
    skipped = 0
    for path, size, dummy in sorted(entries, key=lambda e: (-e[2], e[0])):
        size = max(int(size), 0)
        if remaining <= 0:
            skipped += 1
            continue
        if size <= remaining:
            chosen.append((path, 0))
            remaining -= size
        else:
            chosen.append((path, size - remaining))
            remaining = 0
    return chosen, skipped


def tail_lines(text, count):
    """The last ``count`` lines of ``text``; none for a count of 0 or less."""
    if count <= 0:
        return ''
    lines = text.splitlines(True)
    return ''.join(lines[-count:])


_NPU_ID = re.compile(r'^\s*NPU ID\s*:\s*(\d+)\s*$', re.MULTILINE)


def parse_npu_ids(text):
    """NPU ids listed by ``npu-smi info -l`` (``NPU ID : 0`` lines), in order, unique."""
    ids = []
    for match in _NPU_ID.finditer(text or ''):
        value = int(match.group(1))
        if value not in ids:
            ids.append(value)
    return ids


def npu_smi_commands(npu_smi, npu_ids, max_npus):
    """(file, argv) pairs of the per-NPU queries: board and health of up to ``max_npus`` NPUs."""
    commands = []
    for npu_id in list(npu_ids)[:max_npus]:
        commands.append(('npu-smi/board-%d.txt' % npu_id, [npu_smi, 'info', '-t', 'board', '-i', str(npu_id)]))
        commands.append(('npu-smi/health-%d.txt' % npu_id, [npu_smi, 'info', '-t', 'health', '-i', str(npu_id)]))
    return commands


def system_commands():
    """(file, argv) pairs of the host-wide commands (argv[0] looked up on PATH by the module)."""
    return [
        ('system/uname.txt', ['uname', '-a']),
        ('system/uptime.txt', ['uptime']),
        ('system/lscpu.txt', ['lscpu']),
        ('system/numactl-hardware.txt', ['numactl', '--hardware']),
        ('system/free.txt', ['free', '-m']),
        ('system/df.txt', ['df', '-h']),
        ('system/lspci-huawei.txt', ['lspci', '-nn', '-d', '19e5:']),
        ('system/sysctl.txt', ['sysctl', '-a']),
        ('system/ip-addr.txt', ['ip', '-brief', 'address']),
        ('system/dmesg.txt', ['dmesg']),
        ('system/failed-units.txt', ['systemctl', '--failed', '--no-pager', '--plain']),
    ]


_UNIT_LINE = re.compile(r'^(\S+\.service)\s')


def parse_units(text):
    """Unit names from ``systemctl list-units``/``list-unit-files --plain --no-legend`` output."""
    units = []
    for line in (text or '').splitlines():
        match = _UNIT_LINE.match(line.strip())
        if match and match.group(1) not in units:
            units.append(match.group(1))
    return units


def safe_name(path):
    """A file name for ``path`` inside the bundle: the path without its leading slash."""
    return path.lstrip('/').replace('..', '_')
