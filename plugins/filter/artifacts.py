# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Filters of the artifacts role; the logic is in plugins/module_utils/artifact_checks.py.
Documentation: one ``<filter name>.yml`` file per filter next to this one."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible.module_utils.parsing.convert_bool import boolean

from ansible_collections.ascend.vllm.plugins.plugin_utils.module_utils_on_use import module_utils

artifact_checks = module_utils('artifact_checks')


def artifacts_expected(sums_text, pins=None):
    if pins is not None and not isinstance(pins, dict):
        raise AnsibleFilterError('artifacts_expected: the pins must be a mapping of file name to SHA256, got %s'
                                 % type(pins).__name__)
    return artifact_checks.expected(sums_text or '', pins)


def artifacts_mismatch(name, actual, expectation, where, kept=False):
    if not isinstance(expectation, dict) or 'sha256' not in expectation:
        raise AnsibleFilterError('artifacts_mismatch: the expectation must be the result of artifacts_expected')
    return artifact_checks.mismatch(name, actual, expectation, where, bool(kept))


def artifacts_curl_argv(curl, settings):
    """curl's command line for a download (module_utils.artifact_checks.curl_argv)."""
    if not isinstance(settings, dict):
        raise AnsibleFilterError('artifacts_curl_argv: the settings must be a mapping, got %s' % type(settings).__name__)
    flags = dict((name, boolean(settings[name])) for name in ('has_user', 'use_proxy', 'validate_certs') if name in settings)
    try:
        return artifact_checks.curl_argv(str(curl), dict(settings, **flags))
    except (KeyError, TypeError) as exc:
        raise AnsibleFilterError('artifacts_curl_argv: the settings lack %s' % exc)


def artifacts_staged_problems(stats, cache_dir, want):
    """What is wrong with the packages staged on the node (module_utils.artifact_checks.staged_problems)."""
    if not isinstance(want, dict):
        raise AnsibleFilterError('artifacts_staged_problems: the expected SHA256 must be a mapping, got %s'
                                 % type(want).__name__)
    return artifact_checks.staged_problems(str(cache_dir), list(stats), want)


def artifacts_to_fetch(stats, want):
    """The files of a stat loop that are missing or differ from ``want`` (module_utils.artifact_checks.to_fetch)."""
    if not isinstance(want, dict):
        raise AnsibleFilterError('artifacts_to_fetch: the expected SHA256 must be a mapping, got %s' % type(want).__name__)
    return artifact_checks.to_fetch(list(stats), want)


class FilterModule(object):
    """ascend.vllm artifacts filters."""

    def filters(self):
        return {'artifacts_curl_argv': artifacts_curl_argv, 'artifacts_expected': artifacts_expected,
                'artifacts_mismatch': artifacts_mismatch, 'artifacts_staged_problems': artifacts_staged_problems,
                'artifacts_to_fetch': artifacts_to_fetch}
