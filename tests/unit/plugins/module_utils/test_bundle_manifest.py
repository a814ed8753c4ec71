"""SHA256SUMS of bundle directories: manifest text, exclusion, what is re-hashed, links."""
import hashlib
import os

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import bundle_manifest as bm
from ansible_collections.ascend.vllm.plugins.module_utils import model_manifest as mm

OLD_NS = 1000 * 10 ** 9   # 1970, long before any run


def sha(data):
    return hashlib.sha256(data).hexdigest()


class CountingHasher(object):
    def __init__(self):
        self.paths = []

    def __call__(self, path):
        self.paths.append(path)
        return mm.sha256_file(path)


def test_manifest_text_is_sorted_sha256sum_format():
    entries = {'b/x': 'b' * 64, 'a': 'a' * 64, 'B': 'c' * 64}
    assert bm.manifest_text(entries) == '%s  B\n%s  a\n%s  b/x\n' % ('c' * 64, 'a' * 64, 'b' * 64)
    assert bm.manifest_text({}) == ''
    assert bm.manifest_sha256('x  y\n') == sha(b'x  y\n')


@pytest.mark.parametrize('relpath, message', [
    ('a\nb', "'a\\nb': a manifest path cannot contain a newline"),
    ('a\rb', "'a\\rb': a manifest path cannot contain a newline"),
    ('/etc/passwd', "'/etc/passwd': a manifest path must be relative (it starts with '/')"),
    ('..', "'..': a manifest path cannot have a '..' component"),
    ('a/../../b', "'a/../../b': a manifest path cannot have a '..' component"),
    ('a\\b', "'a\\\\b': a manifest path cannot contain a backslash (sha256sum escapes it)"),
    ('a//b', "'a//b': a manifest path cannot have empty or '.' components"),
    ('./a', "'./a': a manifest path cannot have empty or '.' components"),
    ('', "'': a manifest path cannot have empty or '.' components"),
])
def test_manifest_text_refuses_unusable_paths(relpath, message):
    with pytest.raises(bm.BundleError) as exc:
        bm.manifest_text({relpath: 'a' * 64})
    assert str(exc.value) == message


def test_dots_inside_names_are_fine():
    assert bm.check_relpath('a..b/.hidden/x..') == 'a..b/.hidden/x..'


def test_manifest_text_refuses_a_bad_digest():
    with pytest.raises(bm.BundleError) as exc:
        bm.manifest_text({'a': 'A' * 64})
    assert str(exc.value) == "'a': '%s' is not a lower-case hexadecimal sha256" % ('A' * 64)


@pytest.mark.parametrize('relpath, patterns, expected', [
    ('x.partial', ['*.partial'], True),
    ('sub/x.partial', ['*.partial'], True),
    ('tmp/a/b', ['tmp/*'], True),
    ('tmp', ['tmp/*'], False),
    ('README', ['*.partial', 'tmp/*'], False),
    ('README', [], False),
    ('README', None, False),
    ('Readme', ['README'], False),
])
def test_excluded(relpath, patterns, expected):
    assert bm.excluded(relpath, patterns) is expected


def test_first_scan_hashes_all_second_none(bundle):
    hasher = CountingHasher()
    first = bm.scan(str(bundle), {}, hasher=hasher)
    names = ['README', 'packages/Ascend-cann-toolkit.run', 'wheels/vllm-0.9.1-py3-none-any.whl']
    assert sorted(first['entries']) == names and first['hashed'] == names
    assert first['files'] == 3 and first['bytes'] == 8015 and first['bytes_hashed'] == 8015
    assert first['entries']['README'] == sha(b'offline bundle\n')
    assert sorted(first['record']['files']) == names
    assert first['record']['files']['README']['sha256'] == sha(b'offline bundle\n')
    assert set(first['record']['files']['README']) == {'size', 'mtime_ns', 'inode', 'sha256'}

    hasher = CountingHasher()
    record = bm.load_record(bm.dump_record(first['record']))
    second = bm.scan(str(bundle), record, hasher=hasher)
    assert hasher.paths == [] and second['hashed'] == [] and second['bytes_hashed'] == 0
    assert second['entries'] == first['entries'] and second['record'] == first['record']


def test_changed_content_of_the_same_size_is_rehashed_alone(bundle, old_file):
    record = bm.scan(str(bundle), {})['record']
    old_file(bundle / 'wheels' / 'vllm-0.9.1-py3-none-any.whl', b'v' * 3000, mtime_ns=OLD_NS + 1)
    hasher = CountingHasher()
    result = bm.scan(str(bundle), record, hasher=hasher)
    assert result['hashed'] == ['wheels/vllm-0.9.1-py3-none-any.whl'] and result['bytes_hashed'] == 3000
    assert hasher.paths == [str(bundle / 'wheels' / 'vllm-0.9.1-py3-none-any.whl')]
    assert result['entries']['wheels/vllm-0.9.1-py3-none-any.whl'] == sha(b'v' * 3000)


def test_recently_modified_files_are_not_trusted_by_the_next_scan(bundle, old_file):
    """A file hashed within RACY_NS of its modification may change again without a new mtime."""
    target = bundle / 'README'
    now = 5000 * 10 ** 9
    old_file(target, b'offline bundle\n', mtime_ns=now - 10 ** 9)
    first = bm.scan(str(bundle), {}, now_ns=now)
    assert 'README' not in first['record']['files'] and len(first['record']['files']) == 2
    old_file(target, b'OFFLINE BUNDLE\n', mtime_ns=now - 10 ** 9)   # same size, same mtime, same inode
    second = bm.scan(str(bundle), first['record'], now_ns=now + 10 * 10 ** 9)
    assert second['hashed'] == ['README'] and second['entries']['README'] == sha(b'OFFLINE BUNDLE\n')
    assert second['record']['files']['README']['sha256'] == sha(b'OFFLINE BUNDLE\n')


def test_new_and_removed_files(bundle, old_file):
    record = bm.scan(str(bundle), {})['record']
    old_file(bundle / 'images' / 'vllm-ascend.tar', b'i' * 10)
    (bundle / 'README').unlink()
    result = bm.scan(str(bundle), record)
    assert result['hashed'] == ['images/vllm-ascend.tar']
    assert sorted(result['entries']) == ['images/vllm-ascend.tar', 'packages/Ascend-cann-toolkit.run',
                                         'wheels/vllm-0.9.1-py3-none-any.whl']
    assert 'README' not in result['record']['files']


def test_skip_and_exclude(bundle, old_file):
    old_file(bundle / 'SHA256SUMS', b'old\n')
    old_file(bundle / 'SHA256SUMS.tmp.4242', b'left by an interrupted write\n')
    old_file(bundle / 'SHA256SUMS.tmp.x', b'not ours\n')
    old_file(bundle / '.bundle-hashes.json', b'{}')
    old_file(bundle / 'wheels' / 'x.whl.partial', b'p')
    old_file(bundle / 'tmp' / 'a' / 'b', b'p')
    os.symlink('/etc/hostname', str(bundle / 'tmp' / 'outside'))
    result = bm.scan(str(bundle), {}, exclude=['*.partial', 'tmp'], skip=['SHA256SUMS', '.bundle-hashes.json'])
    assert sorted(result['entries']) == ['README', 'SHA256SUMS.tmp.x', 'packages/Ascend-cann-toolkit.run',
                                         'wheels/vllm-0.9.1-py3-none-any.whl']


def test_links_inside_are_followed_links_outside_refused(bundle, tmp_path, old_file):
    os.symlink('packages/Ascend-cann-toolkit.run', str(bundle / 'latest.run'))
    os.symlink('wheels', str(bundle / 'wheelhouse'))
    result = bm.scan(str(bundle), {})
    assert result['entries']['latest.run'] == sha(b'r' * 5000)
    assert not any(name.startswith('wheelhouse') for name in result['entries'])

    old_file(tmp_path / 'secret', b's')
    os.symlink(str(tmp_path / 'secret'), str(bundle / 'packages' / 'escape'))
    os.symlink('../..', str(bundle / 'wheels' / 'up'))
    os.symlink('missing', str(bundle / 'dangling'))
    with pytest.raises(bm.BundleError) as exc:
        bm.scan(str(bundle), {})
    assert str(exc.value) == ('symbolic links that point outside %s: packages/escape -> %s, wheels/up -> ../..; '
                              'symbolic links that point to nothing: dangling -> missing'
                              % (os.path.realpath(str(bundle)), tmp_path / 'secret'))
    result = bm.scan(str(bundle), {}, exclude=['packages/escape', 'wheels/up', 'dangling'])
    assert result['files'] == 4


def test_a_walked_name_with_a_newline_is_refused(bundle, old_file):
    old_file(bundle / 'bad\nname', b'x')
    with pytest.raises(bm.BundleError) as exc:
        bm.scan(str(bundle), {})
    assert str(exc.value) == "'bad\\nname': a manifest path cannot contain a newline"


def test_own_relpath(tmp_path):
    link = tmp_path / 'link'
    os.symlink(str(tmp_path / 'real'), str(link))
    (tmp_path / 'real' / 'sub').mkdir(parents=True)
    assert bm.own_relpath(str(link), str(tmp_path / 'real' / 'sub' / 'r.json')) == 'sub/r.json'
    assert bm.own_relpath(str(tmp_path / 'real'), str(tmp_path / 'elsewhere.json')) is None
