# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The inputs of the node_facts role and whether a run must resolve or read again.

The stack is resolved from ``ascend_stack_release``, ``ascend_stack_overrides`` and
``ascend_stack_allow_unlisted``; the node is read with ``ascend_install_path`` and
``node_facts_sysfs_root``. The role records the inputs of its last resolution
(``__node_facts_stack_inputs``) and read (``__node_facts_hardware_read``) with set_fact, so a
later role of the same run reads them again only when they differ, when ``node_facts_refresh``
asks, or when the last one left an error (the ``main`` entry point then fails the host again).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.module_utils.parsing.convert_bool import boolean

# The node_facts role's defaults (roles/node_facts/defaults/main.yml), for a caller that has none.
DEFAULTS = {'ascend_install_path': '/usr/local/Ascend', 'node_facts_sysfs_root': '/sys', 'node_facts_refresh': False}
MISSING = object()


def inputs(get):
    """``get(name, default)`` returns the caller's value of a variable, or ``default``.

    Returns ``stack`` and ``hardware`` (the inputs, as the role records them), ``stack_stale``
    (resolve again: an input differs from the last resolution), ``hardware_stale`` (read again:
    asked for, or an input differs from the last read), ``stale`` (either) and ``needed``
    (``stale``, or the last resolution or read left an error)."""
    stack = {'release': get('ascend_stack_release', None),
             'overrides': get('ascend_stack_overrides', {}),
             'allow_unlisted': get('ascend_stack_allow_unlisted', False)}
    hardware = {'install_path': get('ascend_install_path', DEFAULTS['ascend_install_path']),
                'sysfs_root': get('node_facts_sysfs_root', DEFAULTS['node_facts_sysfs_root'])}
    refresh = boolean(get('node_facts_refresh', DEFAULTS['node_facts_refresh']), strict=False)
    stack_stale = get('__node_facts_stack_inputs', MISSING) != stack
    hardware_stale = refresh or get('__node_facts_hardware_read', MISSING) != hardware
    stale = stack_stale or hardware_stale
    errors = bool(get('ascend_stack_error', '') or get('ascend_node_facts_error', ''))
    return {'stack': stack, 'hardware': hardware, 'stack_stale': stack_stale, 'hardware_stale': hardware_stale,
            'stale': stale, 'needed': stale or errors}
