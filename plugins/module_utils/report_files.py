# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""What the ascend.vllm.report_files action writes: its arguments checked, and which files differ
from what is there. Pure; the action does the reading and writing."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

_MODE = re.compile(r'^0?[0-7]{3,4}$')
_OPTIONS = ('dir', 'dir_mode', 'files')
_FILE_OPTIONS = ('name', 'content', 'mode')


class ReportFilesError(ValueError):
    pass


def _mode(value, what):
    # A number is refused: YAML reads 0640 as 416 and 640 as 640, and only the string says which was meant.
    if not isinstance(value, str) or not _MODE.match(value):
        raise ReportFilesError('%s must be an octal mode given as a string such as "0640", got %r' % (what, value))
    return int(value, 8)


def request_of(args):
    """The checked arguments: ``dir`` (absolute), ``dir_mode`` and ``files`` (``name`` - a file name,
    no directory - ``content``, ``mode``), modes as integers."""
    unknown = sorted(set(args) - set(_OPTIONS))
    if unknown:
        raise ReportFilesError('unknown option(s) %s; the options are %s' % (', '.join(unknown), ', '.join(_OPTIONS)))
    directory = args.get('dir')
    if not isinstance(directory, str) or not directory.startswith('/'):
        raise ReportFilesError('dir must be an absolute path, got %r' % (directory,))
    files = args.get('files')
    if not isinstance(files, list) or not files:
        raise ReportFilesError('files must be a non-empty list of {name, content, mode}')
    checked, names = [], set()
    for item in files:
        if not isinstance(item, dict) or sorted(set(item) - set(_FILE_OPTIONS)) or 'name' not in item:
            raise ReportFilesError('each of files is {name, content, mode}, got %r' % (item,))
        name = item['name']
        if not isinstance(name, str) or not name or '/' in name or name in ('.', '..'):
            raise ReportFilesError('a file name has no directory part, got %r' % (name,))
        if name in names:
            raise ReportFilesError('%s is named twice' % name)
        names.add(name)
        content = item.get('content', '')
        checked.append({'name': name, 'content': '' if content is None else '%s' % (content,),
                        'mode': _mode(item.get('mode', '0640'), 'the mode of %s' % name)})
    return {'dir': directory.rstrip('/') or '/', 'dir_mode': _mode(args.get('dir_mode', '0750'), 'dir_mode'),
            'files': checked}


def plan(request, dir_exists, present):
    """Which files to write (missing or other content) and which only need their mode set.
    ``present``: {name: (content, mode) or None}."""
    write, chmod = [], []
    for item in request['files']:
        now = present.get(item['name'])
        if now is None or now[0] != item['content']:
            write.append(item['name'])
        elif now[1] != item['mode']:
            chmod.append(item['name'])
    return {'create_dir': not dir_exists, 'write': write, 'chmod': chmod,
            'changed': bool(not dir_exists or write or chmod), 'names': [item['name'] for item in request['files']]}
