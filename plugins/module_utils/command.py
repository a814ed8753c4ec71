# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Helpers shared by modules that run vendor tools on the target host.

Pure functions: nothing here imports Ansible, so the unit tests exercise them directly and
modules inject ``module.run_command`` through :func:`module_runner`.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

# Vendor tools translate their messages and number formats; parsers expect the C locale.
C_LOCALE = {'LC_ALL': 'C', 'LANG': 'C'}


class CommandFailed(Exception):
    """A command returned a non-zero exit status (or could not be started)."""

    def __init__(self, argv, rc, stdout='', stderr=''):
        self.argv = list(argv)
        self.rc = rc
        self.stdout = stdout or ''
        self.stderr = stderr or ''
        super(CommandFailed, self).__init__(describe_failure(self.argv, rc, self.stdout, self.stderr))


def command_string(argv):
    """Render argv the way an operator would type it (for messages only)."""
    parts = []
    for arg in argv:
        arg = str(arg)
        if not arg or any(c in arg for c in ' \t"\'$\\'):
            arg = "'" + arg.replace("'", "'\\''") + "'"
        parts.append(arg)
    return ' '.join(parts)


def first_lines(text, count=3):
    """The first ``count`` non-blank lines of ``text``, joined with `` / ``."""
    lines = [line.strip() for line in (text or '').splitlines() if line.strip()]
    shown = ' / '.join(lines[:count])
    if len(lines) > count:
        shown += ' / ...'
    return shown


def describe_failure(argv, rc, stdout='', stderr='', max_lines=3):
    """One line naming the command, its exit status and the start of what it printed.

    npu-smi writes some errors to stdout, so stdout is quoted when stderr is empty.
    """
    msg = '`%s` failed with rc=%s' % (command_string(argv), rc)
    detail = first_lines(stderr, max_lines)
    if detail:
        msg += ': ' + detail
    else:
        detail = first_lines(stdout, max_lines)
        if detail:
            msg += ' (no stderr; stdout: %s)' % detail
        else:
            msg += ' (no output)'
    return msg


def is_executable_file(path):
    return bool(path) and os.path.isfile(path) and os.access(path, os.X_OK)


def find_executable(name, search_path=None, extra_dirs=()):
    """Locate ``name`` in ``search_path`` (a PATH-style string) and then ``extra_dirs``.

    Returns the first executable regular file found, or None. The explicit extra directories
    matter because Ascend installs npu-smi outside the PATH of non-login shells.
    """
    dirs = []
    if search_path:
        dirs.extend(d for d in search_path.split(os.pathsep) if d)
    dirs.extend(extra_dirs)
    seen = set()
    for directory in dirs:
        if directory in seen:
            continue
        seen.add(directory)
        candidate = os.path.join(directory, name)
        if is_executable_file(candidate):
            return candidate
    return None


def module_runner(module):
    """Adapt ``AnsibleModule.run_command`` to the ``run(argv) -> (rc, out, err)`` contract
    used by the gather functions, always in the C locale and without raising on rc != 0."""

    def run(argv):
        rc, out, err = module.run_command(list(argv), check_rc=False, environ_update=dict(C_LOCALE))
        return rc, out or '', err or ''

    return run
