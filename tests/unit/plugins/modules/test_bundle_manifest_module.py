"""ascend.vllm.bundle_manifest against a bundle directory in a temporary directory."""
import hashlib
import json
import os

from ansible_collections.ascend.vllm.plugins.modules import bundle_manifest

OLD_NS = 1000 * 10 ** 9


def sha(data):
    return hashlib.sha256(data).hexdigest()


def expected_text(bundle, names):
    return ''.join('%s  %s\n' % (sha((bundle / name).read_bytes()), name) for name in sorted(names))


NAMES = ['README', 'packages/Ascend-cann-toolkit.run', 'wheels/vllm-0.9.1-py3-none-any.whl']


def test_first_run_writes_second_changes_nothing(run_module, bundle):
    failed, result = run_module(bundle_manifest, {'path': str(bundle)})
    text = expected_text(bundle, NAMES)
    assert not failed and result['changed']
    assert (result['files'], result['bytes'], result['hashed'], result['bytes_hashed']) == (3, 8015, 3, 8015)
    assert result['manifest_file'] == str(bundle / 'SHA256SUMS')
    assert result['sha256'] == sha(text.encode())
    assert (bundle / 'SHA256SUMS').read_text() == text
    record = json.loads((bundle / '.bundle-hashes.json').read_text())
    assert sorted(record['files']) == NAMES

    failed, again = run_module(bundle_manifest, {'path': str(bundle)})
    assert not failed and not again['changed'] and again['hashed'] == 0 and again['bytes_hashed'] == 0
    assert again['sha256'] == result['sha256'] and again['files'] == 3


def test_changed_content_is_rehashed_alone(run_module, bundle, old_file):
    run_module(bundle_manifest, {'path': str(bundle)})
    old_file(bundle / 'wheels' / 'vllm-0.9.1-py3-none-any.whl', b'v' * 3000, mtime_ns=OLD_NS + 1)
    failed, result = run_module(bundle_manifest, {'path': str(bundle)})
    assert not failed and result['changed'] and result['hashed'] == 1 and result['bytes_hashed'] == 3000
    assert '%s  wheels/vllm-0.9.1-py3-none-any.whl\n' % sha(b'v' * 3000) in (bundle / 'SHA256SUMS').read_text()


def test_new_file_is_listed(run_module, bundle, old_file):
    run_module(bundle_manifest, {'path': str(bundle)})
    old_file(bundle / 'images' / 'vllm-ascend.tar', b'i' * 10)
    failed, result = run_module(bundle_manifest, {'path': str(bundle)})
    assert not failed and result['changed'] and result['hashed'] == 1 and result['files'] == 4
    assert (bundle / 'SHA256SUMS').read_text() == expected_text(bundle, NAMES + ['images/vllm-ascend.tar'])


def test_record_only_change_is_not_a_change(run_module, bundle):
    run_module(bundle_manifest, {'path': str(bundle)})
    (bundle / '.bundle-hashes.json').unlink()
    failed, result = run_module(bundle_manifest, {'path': str(bundle)})
    assert not failed and not result['changed'] and result['hashed'] == 3
    assert (bundle / '.bundle-hashes.json').exists()


def test_excluded_record_and_manifest_are_not_listed(run_module, bundle, tmp_path, old_file):
    old_file(bundle / 'wheels' / 'x.whl.partial', b'p')
    old_file(bundle / 'meta' / 'keep', b'k')
    args = {'path': str(bundle), 'exclude': ['*.partial'], 'manifest_file': 'meta/SUMS',
            'record_file': str(bundle / 'meta' / 'record.json')}
    failed, result = run_module(bundle_manifest, args)
    assert not failed and result['manifest_file'] == str(bundle / 'meta' / 'SUMS')
    assert (bundle / 'meta' / 'SUMS').read_text() == expected_text(bundle, NAMES + ['meta/keep'])
    assert (bundle / 'meta' / 'record.json').exists() and not (bundle / '.bundle-hashes.json').exists()
    failed, again = run_module(bundle_manifest, args)
    assert not failed and not again['changed'] and again['hashed'] == 0

    outside = tmp_path / 'state' / 'hashes.json'
    outside.parent.mkdir()
    failed, result = run_module(bundle_manifest, {'path': str(bundle), 'record_file': str(outside)})
    assert not failed and outside.exists()
    assert 'SHA256SUMS' not in (bundle / 'SHA256SUMS').read_text()
    assert 'meta/record.json' in (bundle / 'SHA256SUMS').read_text()


def test_check_mode_writes_nothing(run_module, bundle, old_file):
    failed, result = run_module(bundle_manifest, {'path': str(bundle)}, check_mode=True)
    assert not failed and result['changed'] and result['hashed'] == 3
    assert sorted(os.listdir(str(bundle))) == ['README', 'packages', 'wheels']

    run_module(bundle_manifest, {'path': str(bundle)})
    before = (bundle / 'SHA256SUMS').read_text()
    old_file(bundle / 'new', b'n')
    failed, result = run_module(bundle_manifest, {'path': str(bundle)}, check_mode=True)
    assert not failed and result['changed'] and result['files'] == 4
    assert (bundle / 'SHA256SUMS').read_text() == before


def test_diff_mode(run_module, bundle, old_file):
    failed, result = run_module(bundle_manifest, {'path': str(bundle)}, diff=True)
    assert not failed and result['diff']['before'] == '' and result['diff']['after'] == expected_text(bundle, NAMES)
    old_file(bundle / 'new', b'n')
    failed, result = run_module(bundle_manifest, {'path': str(bundle)}, diff=True, check_mode=True)
    assert result['diff']['before'] == expected_text(bundle, NAMES)
    assert result['diff']['after'] == expected_text(bundle, NAMES + ['new'])


def test_symlink_escaping_the_bundle_fails(run_module, bundle, tmp_path, old_file):
    old_file(tmp_path / 'secret', b's')
    os.symlink(str(tmp_path / 'secret'), str(bundle / 'packages' / 'escape'))
    failed, result = run_module(bundle_manifest, {'path': str(bundle)})
    assert failed
    assert result['msg'] == 'bundle_manifest: %s: symbolic links that point outside %s: packages/escape -> %s' % (
        bundle, os.path.realpath(str(bundle)), tmp_path / 'secret')
    assert not (bundle / 'SHA256SUMS').exists()


def test_unusable_arguments(run_module, bundle, tmp_path):
    failed, result = run_module(bundle_manifest, {'path': str(tmp_path / 'nope')})
    assert failed and result['msg'] == 'bundle_manifest: %s is not a directory' % (tmp_path / 'nope')
    failed, result = run_module(bundle_manifest, {'path': str(bundle / 'README')})
    assert failed and result['msg'] == 'bundle_manifest: %s is not a directory' % (bundle / 'README')
    failed, result = run_module(bundle_manifest, {'path': str(bundle), 'manifest_file': '../SHA256SUMS'})
    assert failed and result['msg'] == "bundle_manifest: unusable manifest_file: '../SHA256SUMS': a manifest path cannot have a '..' component"
    failed, result = run_module(bundle_manifest, {'path': str(bundle), 'manifest_file': '/tmp/SHA256SUMS'})
    assert failed and result['msg'] == ("bundle_manifest: unusable manifest_file: '/tmp/SHA256SUMS': "
                                        "a manifest path must be relative (it starts with '/')")


def test_name_with_newline_fails(run_module, bundle, old_file):
    old_file(bundle / 'bad\nname', b'x')
    failed, result = run_module(bundle_manifest, {'path': str(bundle)})
    assert failed and result['msg'] == "bundle_manifest: %s: 'bad\\nname': a manifest path cannot contain a newline" % bundle
