# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Ordering of Ascend version strings (driver, firmware, CANN, pip packages)."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

import random

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.stack import (
    StackError,
    compare_versions,
    same_version,
    version_key,
)

# (left, right, expected compare_versions(left, right))
TABLE = [
    # drivers
    ('24.1.rc3', '24.1.0', -1),
    ('24.1.0', '25.5.0', -1),
    ('24.1.rc3', '25.5.0', -1),
    ('24.1.rc2', '24.1.rc3', -1),
    ('24.1.rc3', '24.1.RC3', 0),
    ('24.0.5', '24.1.rc1', -1),
    ('24.1.rc3', '24.1.1', -1),
    ('25.5', '25.5.0', 0),
    ('25.5.rc1', '25.5', -1),
    ('25.5.1', '25.5', 1),
    ('26.1.0', '25.5.1', 1),
    ('24.1.rc1', '24.1.rc1.b030', -1),
    ('24.1.rc1.b030', '24.1.rc1.b040', -1),
    ('24.1.rc1.b030', '24.1.rc2', -1),
    ('24.1.rc1.b030', '24.1.0', -1),
    ('23.0.rc2.1', '23.0.rc2', 1),
    # firmware
    ('7.5.0.1.129', '7.5.0.1.129', 0),
    ('7.5.0.1.129', '7.5.0.2.220', -1),
    ('7.5.0.1.129', '7.3.0.1.231', 1),
    ('7.5.0.1.129', '7.5', 1),
    # CANN
    ('8.2.RC1', '8.2.0', -1),
    ('8.2.RC1', '8.3.RC2', -1),
    ('8.3.RC2', '8.5.0', -1),
    ('8.5.0', '8.5.1', -1),
    ('8.5.1', '9.1.0', -1),
    ('8.1.RC1.alpha001', '8.1.RC1', -1),
    ('8.1.RC1.alpha001', '8.1.RC1.alpha002', -1),
    ('8.1.RC1.alpha002', '8.1.RC1.beta1', -1),
    ('8.0.RC3.alpha003', '8.1.RC1.alpha001', -1),
    ('8.2.rc1', '8.2.RC1', 0),
    # pip packages
    ('2.5.1', '2.5.1.post1', -1),
    ('2.8.0.post2', '2.8.0.post10', -1),
    ('2.9.0.post1', '2.9.0.post1+git4c901a4', -1),
    ('2.9.0.post1+git4c901a4', '2.9.0.post2', -1),
    ('2.9.0.post1+git4c901a4', '2.9.0.post1+git4c901a4', 0),
    ('2.9.0.post1+1', '2.9.0.post1+abc', 1),
    ('2.10.0', '2.9.0', 1),
    ('3.2.0b1', '3.2.0', -1),
    ('3.2.0rc1', '3.2.0', -1),
    ('3.2.0a1', '3.2.0b1', -1),
    ('3.2.0.dev1', '3.2.0a1', -1),
    ('0.11.0rc0', '0.11.0', -1),
    ('v0.23.0', '0.23.0', 0),
    ('0.9.1', '0.11.0', -1),
    ('1.0-rc1', '1.0', -1),
]


@pytest.mark.parametrize('first, second, expected', TABLE, ids=['%s vs %s' % row[:2] for row in TABLE])
def test_compare_table(first, second, expected):
    assert compare_versions(first, second) == expected
    assert compare_versions(second, first) == -expected
    assert same_version(first, second) is (expected == 0)


def test_sorting_a_shuffled_driver_list():
    ordered = ['23.0.3', '24.1.rc1', '24.1.rc1.b030', '24.1.rc2', '24.1.rc3', '24.1.0', '24.1.0.1',
               '25.0.rc1', '25.0.rc1.1', '25.2.0', '25.5.0', '26.1.rc1', '26.1.0']
    shuffled = list(ordered)
    random.Random(7).shuffle(shuffled)
    result = []
    for item in shuffled:
        position = 0
        while position < len(result) and compare_versions(result[position], item) < 0:
            position += 1
        result.insert(position, item)
    assert result == ordered


def test_version_key_shape():
    assert version_key('24.1.rc3') == ((24, 1), [(-1, 3)], None)
    assert version_key('7.5.0.1.129') == ((7, 5, 0, 1, 129), [], None)
    assert version_key('24.1.rc1.b030') == ((24, 1), [(-1, 1), (1, 30)], None)
    assert version_key('2.9.0.post1+git4c901a4') == ((2, 9, 0), [(2, 1)], [(0, 0, 'git4c901a4')])


@pytest.mark.parametrize('text, why', [
    ('', 'it is empty'),
    ('rc1', 'it does not start with a number'),
    ('8.5.spc100', "unknown part 'spc'"),
    ('8..5', 'empty part'),
    ('8.5 beta', "part '5 beta' holds characters other than letters and digits"),
    ('2.9.0+', 'empty local label after "+"'),
    ('2.9.0+a..b', "bad local label 'a..b'"),
])
def test_not_a_version(text, why):
    with pytest.raises(StackError) as info:
        compare_versions(text, '1.0')
    assert str(info.value) == ("cannot read version %r: %s (expected forms such as 24.1.rc3, 25.5.0, "
                               "7.5.0.1.129, 8.2.RC1, 2.8.0.post2)" % (text, why))


def test_not_a_string():
    with pytest.raises(StackError, match=r"cannot read version 25\.5: expected a string, got float"):
        compare_versions(25.5, '25.5')


def test_same_version_falls_back_to_equality_for_non_versions():
    assert same_version('main', 'main') is True
    assert same_version('main', 'dev-branch') is False
