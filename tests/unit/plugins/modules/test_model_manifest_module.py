"""ascend.vllm.model_manifest against a model directory in a temporary directory."""
import hashlib
import json

import pytest

from ansible_collections.ascend.vllm.plugins.modules import model_manifest


@pytest.fixture
def model(tmp_path):
    directory = tmp_path / 'm'
    directory.mkdir()
    (directory / 'config.json').write_bytes(b'{}')
    (directory / 'model.safetensors').write_bytes(b'w' * 4096)
    lines = ['%s  %s' % (hashlib.sha256((directory / n).read_bytes()).hexdigest(), n)
             for n in ('config.json', 'model.safetensors')]
    (directory / 'SHA256SUMS').write_text('\n'.join(lines) + '\n')
    return directory


def test_verify_records_once_then_changes_nothing(run_module, model):
    failed, result = run_module(model_manifest, {'path': str(model)})
    assert not failed and result['changed'] and sorted(result['hashed']) == ['config.json', 'model.safetensors']
    record = json.loads((model / '.sha256-verified.json').read_text())
    assert sorted(record['files']) == ['config.json', 'model.safetensors']
    failed, again = run_module(model_manifest, {'path': str(model)})
    assert not failed and not again['changed'] and again['hashed'] == [] and again['bytes_hashed'] == 0
    assert again['manifest_sha256'] == result['manifest_sha256']


def test_check_mode_writes_no_record(run_module, model):
    failed, result = run_module(model_manifest, {'path': str(model)}, check_mode=True)
    assert not failed and result['changed']
    assert not (model / '.sha256-verified.json').exists()


def test_mismatch_fails_with_both_digests(run_module, model):
    (model / 'model.safetensors').write_bytes(b'v' * 4096)
    failed, result = run_module(model_manifest, {'path': str(model)})
    actual = hashlib.sha256(b'v' * 4096).hexdigest()
    expected = hashlib.sha256(b'w' * 4096).hexdigest()
    assert failed
    assert result['msg'] == ('model_manifest: %s: 1 file(s) differ from the manifest: model.safetensors '
                             '(sha256 %s, expected %s)' % (model, actual, expected))
    assert result['needed'] == ['model.safetensors']


def test_planned_reports_needed_files_without_failing_or_writing(run_module, model, tmp_path):
    manifest = (model / 'SHA256SUMS').read_text()
    empty = tmp_path / 'empty'
    empty.mkdir()
    failed, result = run_module(model_manifest, {'path': str(empty), 'manifest': manifest, 'state': 'planned'})
    assert not failed and not result['changed']
    assert result['needed'] == ['config.json', 'model.safetensors'] and result['files'] == 2
    assert result['digests']['model.safetensors'] == hashlib.sha256(b'w' * 4096).hexdigest()
    assert list(empty.iterdir()) == []


def test_unreadable_or_bad_manifest(run_module, tmp_path):
    failed, result = run_module(model_manifest, {'path': str(tmp_path)})
    assert failed and result['msg'] == 'model_manifest: cannot read the manifest %s/SHA256SUMS' % tmp_path
    failed, result = run_module(model_manifest, {'path': str(tmp_path), 'manifest': 'junk'})
    assert failed and 'unusable manifest' in result['msg'] and "line 1 is not" in result['msg']
