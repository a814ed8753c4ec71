# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Numbers read the way the roles' Jinja read them, for rules that moved into Python."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


def as_int(value, default=0):
    """Jinja's ``int`` filter: an int, text of one (or of a float, truncated), else ``default``.
    Values from ``-e key=value`` arrive as text."""
    try:
        return int(value)
    except (TypeError, ValueError):
        try:
            return int(float(value))
        except (TypeError, ValueError, OverflowError):
            return default
