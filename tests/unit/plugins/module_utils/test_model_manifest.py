"""SHA256 manifests: parsing, verification trusting the record, what is re-hashed."""
import hashlib
import os

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import model_manifest as mm


def sha(data):
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def model(tmp_path):
    files = {'config.json': b'{"a": 1}', 'sub/model.safetensors': b'x' * 1000}
    for name, data in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    manifest = ''.join('%s  %s\n' % (sha(data), name) for name, data in files.items())
    return tmp_path, manifest


def test_parse_manifest_formats():
    digest = 'a' * 64
    assert mm.parse_manifest('# c\n\n%s  ./x\n%s *y/z\n%s  x\n' % (digest, digest.upper(), digest)) == [
        ('x', digest), ('y/z', digest)]


@pytest.mark.parametrize('text, message', [
    ('nonsense\n', 'line 1 is not'),
    ('%s  /etc/passwd\n' % ('a' * 64), 'not a relative path'),
    ('%s  a/../../b\n' % ('a' * 64), 'not a relative path'),
    ('%s  x\n%s  x\n' % ('a' * 64, 'b' * 64), 'again with another digest'),
    ('\n# only comments\n', 'lists no files'),
])
def test_parse_manifest_refusals(text, message):
    with pytest.raises(mm.ManifestError, match=message):
        mm.parse_manifest(text)


def test_manifest_digest_ignores_order_and_format():
    a = mm.parse_manifest('%s  x\n%s  y\n' % ('a' * 64, 'b' * 64))
    b = mm.parse_manifest('%s *y\n%s  ./x\n' % ('B' * 64, 'a' * 64))
    assert mm.manifest_digest(a) == mm.manifest_digest(b)


def test_first_check_hashes_everything_second_nothing(model):
    directory, manifest = model
    entries = mm.parse_manifest(manifest)
    first = mm.check(str(directory), entries, mm.load_record(''))
    assert sorted(first['ok']) == ['config.json', 'sub/model.safetensors']
    assert sorted(first['hashed']) == ['config.json', 'sub/model.safetensors']
    assert first['bytes_hashed'] == 1008 and first['missing'] == [] and first['mismatched'] == []

    calls = []

    def hasher(path):
        calls.append(path)
        return mm.sha256_file(path)

    record = mm.load_record(mm.dump_record(first['record']))
    second = mm.check(str(directory), entries, record, hasher)
    assert calls == [] and second['hashed'] == [] and second['bytes_hashed'] == 0
    assert second['record'] == first['record']


def test_changed_file_is_rehashed_and_reported(model):
    directory, manifest = model
    entries = mm.parse_manifest(manifest)
    record = mm.check(str(directory), entries, {})['record']
    target = directory / 'sub' / 'model.safetensors'
    target.write_bytes(b'y' * 1000)
    os.utime(str(target), ns=(1, 1))
    result = mm.check(str(directory), entries, record)
    assert result['hashed'] == ['sub/model.safetensors']
    assert result['mismatched'] == [{'name': 'sub/model.safetensors', 'expected': sha(b'x' * 1000),
                                     'actual': sha(b'y' * 1000)}]
    assert 'sub/model.safetensors' not in result['record']['files']
    message = mm.describe_problems('/m', result)
    assert message == '/m: 1 file(s) differ from the manifest: sub/model.safetensors (sha256 %s, expected %s)' % (
        sha(b'y' * 1000), sha(b'x' * 1000))


def test_new_expected_digest_forces_a_hash_even_with_a_matching_stat(model):
    directory, manifest = model
    entries = mm.parse_manifest(manifest)
    record = mm.check(str(directory), entries, {})['record']
    changed = [(name, 'c' * 64 if name == 'config.json' else digest) for name, digest in entries]
    result = mm.check(str(directory), changed, record)
    assert result['hashed'] == ['config.json'] and result['mismatched'][0]['name'] == 'config.json'


def test_missing_files(model):
    directory, manifest = model
    (directory / 'config.json').unlink()
    result = mm.check(str(directory), mm.parse_manifest(manifest), {})
    assert result['missing'] == ['config.json']
    assert mm.describe_problems('/m', result) == '/m: 1 file(s) missing: config.json'


def test_unreadable_record_is_an_empty_one():
    assert mm.load_record('{not json') == {'version': mm.RECORD_VERSION, 'files': {}}
    assert mm.load_record('{"version": 99, "files": {}}')['files'] == {}
