# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Pure helpers of the ``cann`` role: the environment the CANN ``set_env.sh`` scripts set.

systemd does not source shell files, so the role runs a clean ``bash`` (``env -i`` with a
minimal PATH and HOME) twice - as it is, and after sourcing the toolkit and NNAL scripts - each
printing ``env -0``, and keeps what the scripts added or changed. The result is written as a
systemd ``EnvironmentFile``. Nothing here imports Ansible or touches the host. Python 3.8+
(and 2.7-clean syntax for ansible-test).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

# Variables the shell itself maintains: never part of what the scripts set.
SHELL_VARIABLES = frozenset(['_', 'SHLVL', 'PWD', 'OLDPWD'])
# Exported bash functions show up in env as BASH_FUNC_name%%=() { ...
_FUNCTION = re.compile(r'^BASH_FUNC_.*%%$')
_NAME = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*$')
# Values written without quotes: what systemd and a POSIX shell read alike.
_PLAIN = re.compile(r'^[A-Za-z0-9_./:,+=@%^-]*$')


class CannEnvError(ValueError):
    """The printed environment cannot be read."""


def parse_env(text):
    """``env -0`` output (NUL-separated ``NAME=value`` entries) -> dict.

    Newline-separated output is accepted too when it holds no NUL. Entries without ``=`` or
    with a name that is not a shell variable name (exported functions) are skipped.
    """
    if text is None:
        raise CannEnvError('no environment output to read')
    if not isinstance(text, str):
        raise CannEnvError('environment output must be a string, got %s' % type(text).__name__)
    entries = text.split('\0') if '\0' in text else text.splitlines()
    result = {}
    for entry in entries:
        if not entry:
            continue
        name, sep, value = entry.partition('=')
        if not sep or not _NAME.match(name) or _FUNCTION.match(name):
            continue
        result[name] = value
    return result


def _is_path_list(name):
    # PATH, LD_LIBRARY_PATH, PYTHONPATH, ASCEND_OPP_PATH ...
    return name.endswith('PATH')


def clean_path_list(value):
    """Drop empty entries of a colon-separated list.

    The vendor scripts append ``:$LD_LIBRARY_PATH`` (and PYTHONPATH, PATH) even when it is
    empty; an empty entry makes the loader (or Python) search the working directory.
    """
    return ':'.join(part for part in value.split(':') if part)


def env_diff(before, after):
    """The variables ``after`` adds to or changes from ``before`` (dicts or ``env -0`` text).

    Returns a dict; path lists (``PATH``, ``*PATH``) lose empty entries. Variables the scripts
    unset are not reported (an EnvironmentFile cannot unset).
    """
    if not isinstance(before, dict):
        before = parse_env(before)
    if not isinstance(after, dict):
        after = parse_env(after)
    changed = {}
    for name in sorted(after):
        if name in SHELL_VARIABLES:
            continue
        value = after[name]
        if before.get(name) == value:
            continue
        if _is_path_list(name):
            value = clean_path_list(value)
            if before.get(name) == value:
                continue
        changed[name] = value
    return changed


def quote_value(value):
    """A value as systemd's EnvironmentFile parser and a POSIX shell both read it back."""
    if _PLAIN.match(value):
        return value
    escaped = re.sub(r'(["\\$`])', r'\\\1', value)
    return '"%s"' % escaped


def env_file_lines(variables, header=None):
    """``NAME=value`` lines, sorted by name, for an EnvironmentFile; a ``# header`` first."""
    if not isinstance(variables, dict):
        raise CannEnvError('expected a mapping of variables, got %s' % type(variables).__name__)
    lines = []
    for line in (header or '').splitlines():
        lines.append(('# ' + line).rstrip())
    for name in sorted(variables):
        if not isinstance(name, str) or not _NAME.match(name):
            raise CannEnvError('%r is not a valid environment variable name' % (name,))
        value = variables[name]
        if value is None:
            value = ''
        if not isinstance(value, str):
            value = str(value)
        if '\0' in value:
            raise CannEnvError('the value of %s holds a NUL character' % name)
        lines.append('%s=%s' % (name, quote_value(value)))
    return '\n'.join(lines) + '\n'


# systemd's default PATH for services: the PATH of the clean shell, so the PATH written to the
# EnvironmentFile is what a unit would otherwise have, plus CANN's entries.
CLEAN_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
# Separates the clean and the sourced environment in one command's output.
MARKER = '--- cann environment after sourcing ---'


def script_path(script):
    """The file of a script entry ``path [args]`` (NNAL's set_env.sh takes ``--cxx_abi=``)."""
    return script.split(' ', 1)[0]


def clean_shell(clean_path=CLEAN_PATH):
    """argv of the clean shell the scripts are sourced in: ``env -i`` with systemd's default PATH,
    root's HOME and LANG=C, bash without profile or rc files; the program follows as ``-c`` text."""
    return ['env', '-i', 'PATH=%s' % clean_path, 'HOME=/root', 'LANG=C', 'bash', '--noprofile', '--norc', '-c']


def _quote(text):
    return "'%s'" % text.replace("'", "'\"'\"'")


def source_program(scripts):
    """The bash program that prints the clean environment (``env -0``), the marker, then the
    environment after sourcing each script in order; a script that fails stops it with rc 3."""
    lines = ['env -0', "printf '%%s\\0' %s" % _quote(MARKER)]
    for script in scripts:
        path, _sep, args = script.partition(' ')
        lines.append('. %s %s >&2 || { echo %s >&2; exit 3; }'
                     % (_quote(path), args, _quote('sourcing %s failed' % script)))
    lines.append('env -0')
    return '\n'.join(lines) + '\n'


def sourced_variables(stdout):
    """What the scripts added or changed, from ``source_program``'s output."""
    if MARKER not in (stdout or ''):
        raise CannEnvError('the clean shell printed no marker between the two environments')
    before, after = stdout.split(MARKER, 1)
    return env_diff(before, after)


# Reads an EnvironmentFile as a unit would get it: sourced with every variable exported, in a
# clean shell; the file is the program's $0.
ENV_FILE_PROGRAM = 'set -a\n. "$0"\nset +a\nenv -0\n'


def env_file_view(printed, is_file):
    """What a service with this EnvironmentFile gets that matters to vLLM: ``toolkit_home``
    (ASCEND_TOOLKIT_HOME) and ``libatb`` - each libatb.so the dynamic loader finds on its
    LD_LIBRARY_PATH, in order. ``printed``: the ``env -0`` output of ENV_FILE_PROGRAM;
    ``is_file(path)`` says whether a file exists."""
    variables = parse_env(printed)
    found = []
    for directory in variables.get('LD_LIBRARY_PATH', '').split(':'):
        if directory and is_file('%s/libatb.so' % directory):
            found.append('%s/libatb.so' % directory)
    return {'toolkit_home': variables.get('ASCEND_TOOLKIT_HOME', ''), 'libatb': found}
