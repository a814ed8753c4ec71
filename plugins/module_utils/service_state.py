# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""What ascend.vllm.service_state reads of a file: as the stat module's default (the link itself,
not its target) - whether it exists, its mode, owner and group - and, when asked, whether its
content has a given sha256 (``same``) or its text. The digest itself is never returned: the
service's API key file is one of the files. Python 3.8+ (and 2.7-clean syntax for ansible-test).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import grp
import hashlib
import os
import pwd
import stat


def _name(lookup, number):
    try:
        return lookup(number)[0]
    except KeyError:
        return ''


def file_view(path, digest=None, read=False):
    """``{path, exists, mode, owner, group}``, with ``same`` (the content's sha256 is ``digest``)
    when a digest is given and ``text`` when ``read``; a missing file has ``exists`` false, an
    empty mode, owner and group, ``same`` false and an empty text."""
    view = {'path': path, 'exists': False, 'mode': '', 'owner': '', 'group': ''}
    try:
        info = os.lstat(path)
    except OSError:
        info = None
    regular = info is not None and stat.S_ISREG(info.st_mode)
    if info is not None:
        view.update(exists=True, mode='%04o' % stat.S_IMODE(info.st_mode),
                    owner=_name(pwd.getpwuid, info.st_uid), group=_name(grp.getgrgid, info.st_gid))
    content = b''
    if regular and (digest is not None or read):
        with open(path, 'rb') as handle:
            content = handle.read()
    if digest is not None:
        view['same'] = regular and hashlib.sha256(content).hexdigest() == digest
    if read:
        view['text'] = content.decode('utf-8', 'surrogateescape')
    return view
