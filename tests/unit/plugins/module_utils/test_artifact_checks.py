# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.module_utils import artifact_checks as ac

GOOD = 'a' * 64
OTHER = 'b' * 64
DRV = 'Ascend-hdk-910b-npu-driver_25.5.2_linux-aarch64.run'
SUMS = '%s  %s\n%s *fw.run\r\nnot a line\n' % (GOOD.upper(), DRV, OTHER)
WHERE = 'http://mirror/ascend/SHA256SUMS'


def test_parse_sums_reads_text_and_binary_mode_lines():
    assert ac.parse_sums(SUMS) == {DRV: GOOD, 'fw.run': OTHER}
    assert ac.parse_sums('') == {}


def test_a_pin_wins_and_is_remembered_as_the_origin():
    exp = ac.expected(SUMS, {DRV: ' ' + 'C' * 64})
    assert exp['sha256'] == {DRV: 'c' * 64, 'fw.run': OTHER}
    assert exp['origin'] == {DRV: 'pin', 'fw.run': 'sums'}
    assert exp['listed'][DRV] == GOOD


def test_a_file_that_arrived_wrong_blames_the_source():
    exp = ac.expected(SUMS)
    assert ac.mismatch(DRV, OTHER, exp, WHERE) == (
        '%s arrived with SHA256 %s, expected %s (listed in %s); the copy was removed. The source file is damaged or '
        'its SHA256SUMS is stale: fetch the vendor package again.' % (DRV, OTHER, GOOD, WHERE))


def test_a_wrong_pin_is_named_when_the_list_matches_the_file():
    exp = ac.expected(SUMS, {DRV: '0' * 64})
    assert ac.mismatch(DRV, GOOD, exp, WHERE) == (
        '%s arrived with SHA256 %s, expected %s (pinned in ascend_artifacts_sha256); the copy was removed. It matches '
        '%s: the pin ascend_artifacts_sha256[%s] is wrong.' % (DRV, GOOD, '0' * 64, WHERE, DRV))


@pytest.mark.parametrize('pins, tail', [
    ({DRV: '0' * 64}, 'It matches %s: the pin ascend_artifacts_sha256[%s] is wrong.' % (WHERE, DRV)),
    ({}, '%s does not describe that file: regenerate it, or fetch the vendor package again.' % WHERE),
])
def test_a_cached_file_the_source_holds_too_is_kept_and_the_expectation_questioned(pins, tail):
    exp = ac.expected(SUMS if pins else '%s  %s\n' % (OTHER, DRV), pins)
    text = ac.mismatch(DRV, GOOD, exp, WHERE, kept=True)
    assert text.startswith('%s: the source and the cache hold the same file, SHA256 %s, but the ' % (DRV, GOOD))
    assert 'the cached file was kept.' in text and 'removed' not in text
    assert text.endswith(tail)


def test_a_pin_without_a_listed_entry_names_both_suspects():
    exp = ac.expected('', {DRV: '0' * 64})
    assert ac.mismatch(DRV, GOOD, exp, WHERE).endswith(
        'The pin ascend_artifacts_sha256[%s] is wrong, or the source file is damaged.' % DRV)


FILTERS = __import__('ansible_collections.ascend.vllm.plugins.filter.artifacts',
                     fromlist=['FilterModule']).FilterModule().filters()
SETTINGS = {'retries': 3, 'retry_delay': 10, 'timeout': 60}
CURL = ['/usr/bin/curl', '--fail', '--location', '--silent', '--show-error', '--retry', '3', '--retry-delay', '10',
        '--connect-timeout', '60']


def test_artifacts_filters_are_registered():
    assert sorted(FILTERS) == ['artifacts_curl_argv', 'artifacts_expected', 'artifacts_mismatch',
                               'artifacts_staged_problems', 'artifacts_to_fetch']


@pytest.mark.parametrize('flags, tail', [
    ({}, []),
    ({'has_user': True, 'use_proxy': True, 'validate_certs': True}, ['--config', '-']),
    # Inventory strings, as a template may hand them over.
    ({'has_user': 'false', 'use_proxy': 'false', 'validate_certs': 'no'}, ['--noproxy', '*', '--insecure']),
])
def test_curl_argv(flags, tail):
    assert FILTERS['artifacts_curl_argv']('/usr/bin/curl\n', dict(SETTINGS, **flags)) == CURL + tail


def test_curl_argv_never_carries_credentials():
    argv = FILTERS['artifacts_curl_argv']('/usr/bin/curl', dict(SETTINGS, has_user=True, password='s3cret'))
    assert 's3cret' not in ' '.join(argv)


def test_curl_argv_names_what_is_missing():
    from ansible.errors import AnsibleFilterError
    with pytest.raises(AnsibleFilterError, match="lack 'timeout'"):
        FILTERS['artifacts_curl_argv']('/usr/bin/curl', {'retries': 1, 'retry_delay': 1})


def test_staged_problems():
    stats = [{'item': DRV, 'stat': {'exists': False}},
             {'item': 'fw.run', 'stat': {'exists': True, 'checksum': GOOD}}]
    assert FILTERS['artifacts_staged_problems'](stats, '/var/cache/ascend/', {'fw.run': OTHER}) == [
        '/var/cache/ascend/%s is missing' % DRV,
        '/var/cache/ascend/fw.run has SHA256 %s, expected %s' % (GOOD, OTHER)]
    assert FILTERS['artifacts_staged_problems']([], '/c', {}) == []


def test_to_fetch_takes_the_missing_and_the_different_in_order():
    want = {'a.run': 'a' * 64, 'b.run': 'b' * 64, 'c.run': 'c' * 64}
    stats = [
        {'item': 'c.run', 'stat': {'exists': True, 'checksum': 'c' * 64}},
        {'item': 'b.run', 'stat': {'exists': False}},
        {'item': 'a.run', 'stat': {'exists': True, 'checksum': 'f' * 64}},
        {'item': 'd.run', 'stat': {'exists': True, 'checksum': 'd' * 64}},
    ]
    assert ac.to_fetch(stats, want) == ['b.run', 'a.run', 'd.run']
    assert FILTERS['artifacts_to_fetch'](stats[:1], want) == []
    with pytest.raises(AnsibleFilterError):
        FILTERS['artifacts_to_fetch'](stats, ['a.run'])
