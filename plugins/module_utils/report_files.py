# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""What the ascend.vllm.report_files action writes: its arguments checked, and which files differ
from what is there. Pure; the action does the reading and writing."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

_MODE = re.compile(r'^0?[0-7]{3,4}$')
_OPTIONS = ('dir', 'dir_mode', 'files', 'stats')
_STATS_OPTIONS = ('data', 'aggregate', 'per_host')
_FILE_OPTIONS = ('name', 'content', 'mode')


class ReportFilesError(ValueError):
    pass


def _mode(value, what):
    # A number is refused: YAML reads 0640 as 416 and 640 as 640, and only the string says which was meant.
    if not isinstance(value, str) or not _MODE.match(value):
        raise ReportFilesError('%s must be an octal mode given as a string such as "0640", got %r' % (what, value))
    return int(value, 8)


def _text(content):
    """A file's text. Templating in ansible-core before 2.19 turns JSON text without true, false or null
    into a dict or list: that is written back as JSON (as the copy module does), never as its repr."""
    if content is None:
        return ''
    if isinstance(content, (dict, list)):
        return json.dumps(content, indent=2, sort_keys=True) + '\n'
    return '%s' % (content,)


def _stats(stats):
    """``stats`` as set_stats takes it - {data, aggregate, per_host} - or None."""
    if stats is None:
        return None
    if not isinstance(stats, dict) or sorted(set(stats) - set(_STATS_OPTIONS)) or not isinstance(stats.get('data'), dict):
        raise ReportFilesError('stats is {data (a mapping), aggregate, per_host}, as set_stats takes them, got %r' % (stats,))
    flags = {}
    for flag in ('aggregate', 'per_host'):
        value = stats.get(flag, False)
        if not isinstance(value, bool):
            raise ReportFilesError('stats.%s must be true or false, got %r' % (flag, value))
        flags[flag] = value
    return dict(flags, data=stats['data'])


def request_of(args):
    """The checked arguments: ``dir`` (absolute; empty - no file is written), ``dir_mode``, ``files``
    (``name`` - a file name, no directory - ``content``, ``mode``), modes as integers, and ``stats``
    (what set_stats would publish, or None)."""
    unknown = sorted(set(args) - set(_OPTIONS))
    if unknown:
        raise ReportFilesError('unknown option(s) %s; the options are %s' % (', '.join(unknown), ', '.join(_OPTIONS)))
    directory = args.get('dir')
    if directory != '' and (not isinstance(directory, str) or not directory.startswith('/')):
        raise ReportFilesError('dir must be an absolute path (or empty: no file), got %r' % (directory,))
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
        checked.append({'name': name, 'content': _text(item.get('content', '')),
                        'mode': _mode(item.get('mode', '0640'), 'the mode of %s' % name)})
    return {'dir': directory.rstrip('/') or ('/' if directory else ''),
            'dir_mode': _mode(args.get('dir_mode', '0750'), 'dir_mode'),
            'files': checked if directory else [], 'stats': _stats(args.get('stats'))}


def plan(request, dir_mode_now, present):
    """Whether to create the directory or set its mode, which files to write (missing or other
    content) and which only need their mode set. ``dir_mode_now``: the directory's mode, None when
    it does not exist; ``present``: {name: (content, mode) or None}."""
    write, chmod = [], []
    for item in request['files']:
        now = present.get(item['name'])
        if now is None or now[0] != item['content']:
            write.append(item['name'])
        elif now[1] != item['mode']:
            chmod.append(item['name'])
    create_dir = dir_mode_now is None
    chmod_dir = not create_dir and dir_mode_now != request['dir_mode']
    return {'create_dir': create_dir, 'chmod_dir': chmod_dir, 'write': write, 'chmod': chmod,
            'changed': bool(create_dir or chmod_dir or write or chmod), 'names': [item['name'] for item in request['files']]}
