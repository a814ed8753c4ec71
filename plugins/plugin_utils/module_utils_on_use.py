# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The collection's module_utils, imported when a filter first uses them, not when its file loads.

ansible-core finds one ``ascend.vllm.*`` filter by loading every file in plugins/filter
(``Jinja2Loader.get_with_context`` walks the package), in the worker process of each task, and
its collection loader compiles a collection's Python from source each time (no bytecode cache).
With top-level imports, every task that used any of the collection's filters compiled most of
plugins/module_utils; through ``module_utils(name)`` it compiles only what its filter calls.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib

_PACKAGE = 'ansible_collections.ascend.vllm.plugins.module_utils.'


class _OnUse(object):
    """Stands for a module_utils module; the first attribute read imports it."""

    def __init__(self, name):
        self.__dict__['_name'] = name
        self.__dict__['_module'] = None

    def __getattr__(self, attr):
        module = self.__dict__['_module']
        if module is None:
            module = self.__dict__['_module'] = importlib.import_module(_PACKAGE + self.__dict__['_name'])
        return getattr(module, attr)


def module_utils(name):
    """``plugins/module_utils/<name>.py``, imported on first use."""
    return _OnUse(name)
