"""The stage record: digests of the request, fingerprints of files, and why a record is stale."""
import os

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import stage_record as sr


def test_digest_ignores_key_order_and_names_each_key():
    whole, per_key = sr.request_digests({'b': [1, 2], 'a': {'y': 1, 'x': 2}})
    assert whole == sr.request_digests({'a': {'x': 2, 'y': 1}, 'b': [1, 2]})[0]
    assert sorted(per_key) == ['a', 'b'] and all(len(v) == 16 for v in per_key.values())


def test_a_secret_counts_in_the_whole_digest_only():
    whole, per_key = sr.request_digests({'key': 'hunter2', 'port': 8000}, secret_keys={'key'})
    assert per_key['key'] == sr.SECRET
    assert whole != sr.request_digests({'key': 'hunter3', 'port': 8000}, secret_keys={'key'})[0]


def test_fingerprints(tmp_path):
    small = tmp_path / 'version.info'
    small.write_text('Version=9.1.0\n')
    assert sr.fingerprint(str(tmp_path / 'none')) == {'state': 'missing'}
    assert sr.fingerprint(str(small / 'under-a-file')) == {'state': 'missing'}
    assert sr.fingerprint(str(tmp_path))['state'] == 'directory'
    before = sr.fingerprint(str(small))
    assert before['state'] == 'file' and len(before['sha256']) == 64
    small.write_text('Version=9.1.1\n')
    assert sr.fingerprint(str(small)) != before


def test_a_large_file_is_fingerprinted_by_size_and_mtime(tmp_path, monkeypatch):
    monkeypatch.setattr(sr, 'CONTENT_LIMIT', 4)
    big = tmp_path / 'lib.so'
    big.write_bytes(b'123456')
    os.utime(str(big), ns=(1, 2))
    found = sr.fingerprint(str(big))
    assert (found['state'], found['size'], found['mtime_ns']) == ('file', 6, 2) and 'sha256' not in found


def test_code_digest_follows_content_and_names_not_bytecode(tmp_path):
    (tmp_path / 'tasks').mkdir()
    (tmp_path / 'tasks' / 'main.yml').write_text('- debug: {}\n')
    first = sr.code_digest([str(tmp_path)])
    (tmp_path / '__pycache__').mkdir()
    (tmp_path / '__pycache__' / 'x.cpython-311.pyc').write_bytes(b'\0')
    (tmp_path / 'tasks' / 'y.pyc').write_bytes(b'\0')
    assert sr.code_digest([str(tmp_path)]) == first
    (tmp_path / 'tasks' / 'main.yml').write_text('- debug: {msg: x}\n')
    assert sr.code_digest([str(tmp_path)]) != first
    (tmp_path / 'tasks' / 'main.yml').rename(tmp_path / 'tasks' / 'other.yml')
    (tmp_path / 'tasks' / 'other.yml').write_text('- debug: {}\n')
    assert sr.code_digest([str(tmp_path)]) != first


def record(files=None, **values):
    whole, per_key = sr.request_digests(values or {'cann_version': '9.1.0', 'stack': 'a'})
    return sr.build('cann', whole, per_key, files or {}, {'cann_installed_version': '9.1.0'}), whole, per_key


def test_a_record_of_the_same_request_and_files_is_current():
    files = {'/etc/ascend-vllm/cann.env': {'state': 'file', 'sha256': 'ab'}}
    rec, whole, per_key = record(files)
    assert sr.stale_reasons(rec, whole, per_key, dict(files)) == []


@pytest.mark.parametrize('rec, expected', [
    (None, ['no record of an earlier converge']),
    ({'format': None}, ['the record is of another format']),
    (['not', 'a', 'dict'], ['the record is of another format']),
    ({'format': 99, 'digest': 'x'}, ['the record is of another format']),
])
def test_no_usable_record(rec, expected):
    assert sr.stale_reasons(rec, 'd', {}, {}) == expected


def test_a_changed_request_names_the_options_that_changed():
    rec, whole, per_key = record(cann_version='9.1.0', stack='a', cann_nnal=True)
    new_whole, new_keys = sr.request_digests({'cann_version': '8.5.1', 'stack': 'a', 'cann_chip': '310p',
                                              'cann_nnal': True})
    assert sr.stale_reasons(rec, new_whole, new_keys, {}) == ['the request changed (cann_chip, cann_version)']


def test_a_changed_secret_is_named_when_nothing_else_changed():
    whole, per_key = sr.request_digests({'key': 'a', 'port': 1}, secret_keys={'key'})
    rec = sr.build('svc', whole, per_key, {}, {})
    new_whole, new_keys = sr.request_digests({'key': 'b', 'port': 1}, secret_keys={'key'})
    assert sr.stale_reasons(rec, new_whole, new_keys, {}) == ['the request changed (key)']


def test_files_gone_changed_or_appeared_are_named_in_order():
    files = {'/b/env': {'state': 'file', 'sha256': 'ab'}, '/a/version.info': {'state': 'file', 'sha256': 'cd'},
             '/c/none': {'state': 'missing'}}
    rec, whole, per_key = record(files)
    now = {'/a/version.info': {'state': 'missing'}, '/b/env': {'state': 'file', 'sha256': 'ef'},
           '/c/none': {'state': 'file', 'sha256': '00'}}
    assert sr.stale_reasons(rec, whole, per_key, now) == [
        '/a/version.info is gone', '/b/env changed', '/c/none appeared']


def test_a_file_not_read_counts_as_gone():
    rec, whole, per_key = record({'/a': {'state': 'file', 'sha256': 'ab'}})
    assert sr.stale_reasons(rec, whole, per_key, {}) == ['/a is gone']


def test_parse():
    assert sr.parse(b'{"format": 1}') == {'format': 1}
    assert sr.parse(b'{truncated') == {'format': None}
    assert sr.parse(b'\xff\xfe not text') == {'format': None}


def test_mode_and_owner_count(tmp_path):
    script = tmp_path / 'ascend-cann.sh'
    script.write_text('. set_env.sh\n')
    os.chmod(str(script), 0o644)
    before = sr.fingerprint(str(script))
    assert (before['mode'], before['uid']) == (0o644, os.getuid())
    os.chmod(str(script), 0o600)
    rec, whole, per_key = record({str(script): before})
    assert sr.stale_reasons(rec, whole, per_key, {str(script): sr.fingerprint(str(script))}) == [
        '%s changed' % script]


@pytest.mark.parametrize('files', [['a', 'b'], 'text', 3])
def test_a_record_whose_files_are_not_a_mapping_is_of_another_format(files):
    rec, whole, per_key = record()
    rec['files'] = files
    assert sr.stale_reasons(rec, whole, per_key, {}) == ['the record is of another format']


def test_accounts_are_fingerprinted_by_their_ids():
    root = sr.fingerprint('user:root')
    assert root['state'] == 'user' and root['uid'] == 0 and root['home'] == '/root'
    assert sr.fingerprint('group:root')['gid'] == 0
    assert sr.fingerprint('user:no-such-account-here') == {'state': 'missing'}
    assert sr.fingerprint('group:no-such-account-here') == {'state': 'missing'}


def test_a_glob_is_fingerprinted_by_the_names_it_matches(tmp_path):
    site = tmp_path / 'lib' / 'python3.11' / 'site-packages'
    (site / 'vllm-0.23.0.dist-info').mkdir(parents=True)
    (site / 'torch-2.11.0.dist-info').mkdir()
    pattern = 'glob:%s/lib/python*/site-packages/*.dist-info' % tmp_path
    before = sr.fingerprint(pattern)
    assert before['state'] == 'matches' and before['count'] == 2
    (site / 'torch-2.11.0.dist-info').rename(site / 'torch-2.10.0.dist-info')
    assert sr.fingerprint(pattern) != before
    assert sr.fingerprint('glob:%s/none/*' % tmp_path) == {'state': 'missing'}
