# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The base of the collection's actions that are answered on the controller alone."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.plugins.action import ActionBase


class ControllerAction(ActionBase):
    """An action that never contacts the node: no connection, no files to transfer, check mode supported."""

    TRANSFERS_FILES = False
    _supports_check_mode = True
    _requires_connection = False
