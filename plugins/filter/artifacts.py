# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Filters of the artifacts role; the logic is in plugins/module_utils/artifact_checks.py.
Documentation: one ``<filter name>.yml`` file per filter next to this one."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.module_utils import artifact_checks


def artifacts_expected(sums_text, pins=None):
    if pins is not None and not isinstance(pins, dict):
        raise AnsibleFilterError('artifacts_expected: the pins must be a mapping of file name to SHA256, got %s'
                                 % type(pins).__name__)
    return artifact_checks.expected(sums_text or '', pins)


def artifacts_mismatch(name, actual, expectation, where, kept=False):
    if not isinstance(expectation, dict) or 'sha256' not in expectation:
        raise AnsibleFilterError('artifacts_mismatch: the expectation must be the result of artifacts_expected')
    return artifact_checks.mismatch(name, actual, expectation, where, bool(kept))


class FilterModule(object):
    """ascend.vllm artifacts filters."""

    def filters(self):
        return {'artifacts_expected': artifacts_expected, 'artifacts_mismatch': artifacts_mismatch}
