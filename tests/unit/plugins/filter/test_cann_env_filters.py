# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The cann_env filters: wrappers of module_utils.cann_env with their documentation files."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

import os

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.filter.cann_env import FilterModule

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))))
FILTERS = FilterModule().filters()


def test_filter_names():
    # What the scripts set is read by ascend.vllm.cann_environment (tested with the module).
    assert sorted(FILTERS) == ['cann_env_file']


@pytest.mark.parametrize('name', sorted(FILTERS))
def test_each_filter_has_a_doc_file(name):
    with open(os.path.join(REPO_ROOT, 'plugins', 'filter', name + '.yml')) as handle:
        text = handle.read()
    assert 'name: %s\n' % name in text
    for key in ('DOCUMENTATION:', 'EXAMPLES:', 'RETURN:'):
        assert key in text


def test_cann_env_file():
    assert FILTERS['cann_env_file']({'B': 'x y', 'A': '1'}, 'top') == '# top\nA=1\nB="x y"\n'
    assert FILTERS['cann_env_file']({'A': '1'}) == 'A=1\n'


@pytest.mark.parametrize('name, args', [
    ('cann_env_file', ({'bad name': '1'},)),
])
def test_errors_are_filter_errors(name, args):
    with pytest.raises(AnsibleFilterError):
        FILTERS[name](*args)
