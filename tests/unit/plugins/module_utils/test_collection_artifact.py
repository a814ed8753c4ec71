"""Collection artifacts compared by content: FILES.json and MANIFEST.json's collection_info."""
import gzip
import hashlib
import io
import json
import os
import tarfile
import time

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import collection_artifact as ca

INFO = {'namespace': 'acme', 'name': 'tiny', 'version': '1.0.0', 'authors': ['someone'], 'readme': 'README.md'}


def files_json(digest):
    return json.dumps({'files': [{'name': 'README.md', 'ftype': 'file', 'chksum_type': 'sha256',
                                  'chksum_sha256': digest, 'format': 1}], 'format': 1}, indent=1).encode()


def make_artifact(path, info=None, files=None, mtime=None, members=('MANIFEST.json', 'FILES.json'), prefix=''):
    """A tar.gz laid out like ansible-galaxy's, its members and gzip header stamped ``mtime``."""
    files = files if files is not None else files_json('a' * 64)
    manifest = json.dumps({'collection_info': dict(info or INFO),
                           'file_manifest_file': {'name': 'FILES.json', 'chksum_sha256': hashlib.sha256(files).hexdigest()},
                           'format': 1}).encode()
    data = {'MANIFEST.json': manifest, 'FILES.json': files, 'README.md': b'hi\n'}
    mtime = time.time() if mtime is None else mtime
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode='w') as archive:
        for name in list(members) + ['README.md']:
            info_ = tarfile.TarInfo(prefix + name)
            info_.size = len(data[name])
            info_.mtime = mtime
            archive.addfile(info_, io.BytesIO(data[name]))
    with open(str(path), 'wb') as handle:
        with gzip.GzipFile(fileobj=handle, mode='wb', mtime=mtime) as compressed:
            compressed.write(raw.getvalue())
    return str(path)


def test_identity_ignores_build_times(tmp_path):
    a = make_artifact(tmp_path / 'a.tar.gz', mtime=1000)
    b = make_artifact(tmp_path / 'b.tar.gz', mtime=2000)
    with open(a, 'rb') as one, open(b, 'rb') as two:
        assert one.read() != two.read()
    identity = ca.artifact_identity(a)
    assert identity == {'files_sha256': hashlib.sha256(files_json('a' * 64)).hexdigest(), 'collection_info': INFO}
    assert ca.same_artifact(identity, ca.artifact_identity(b))


def test_identity_with_dot_slash_members(tmp_path):
    a = make_artifact(tmp_path / 'a.tar.gz', prefix='./')
    assert ca.artifact_identity(a)['collection_info'] == INFO


def test_different_files_or_metadata_differ(tmp_path):
    base = ca.artifact_identity(make_artifact(tmp_path / 'a.tar.gz'))
    other_file = ca.artifact_identity(make_artifact(tmp_path / 'b.tar.gz', files=files_json('b' * 64)))
    info = dict(INFO, authors=['someone else'])
    other_info = ca.artifact_identity(make_artifact(tmp_path / 'c.tar.gz', info=info))
    assert not ca.same_artifact(base, other_file)
    assert not ca.same_artifact(base, other_info)


def test_unknown_identity_is_never_the_same():
    assert not ca.same_artifact(None, None)
    assert not ca.same_artifact(None, {'files_sha256': 'x', 'collection_info': {}})


def test_unreadable_artifacts(tmp_path):
    junk = tmp_path / 'junk.tar.gz'
    junk.write_bytes(b'not a tar')
    with pytest.raises(ca.ArtifactError, match='is not a readable collection artifact'):
        ca.artifact_identity(str(junk))
    missing = make_artifact(tmp_path / 'm.tar.gz', members=('MANIFEST.json',))
    with pytest.raises(ca.ArtifactError, match='has no FILES.json'):
        ca.artifact_identity(missing)
    with pytest.raises(ca.ArtifactError, match='is not a readable collection artifact'):
        ca.artifact_identity(str(tmp_path / 'absent.tar.gz'))


def test_helpers(tmp_path):
    assert ca.galaxy_build_argv('/v/bin/ansible-galaxy', '/src', '/out') == [
        '/v/bin/ansible-galaxy', 'collection', 'build', '/src', '--output-path', '/out']
    assert ca.ansible_galaxy_beside('/v/bin/python3') == '/v/bin/ansible-galaxy'
    assert ca.ansible_galaxy_beside('') is None
    assert ca.built_artifact(str(tmp_path)) is None
    (tmp_path / 'acme-tiny-1.0.0.tar.gz').write_bytes(b'')
    (tmp_path / 'notes.txt').write_bytes(b'')
    assert ca.built_artifact(str(tmp_path)) == os.path.join(str(tmp_path), 'acme-tiny-1.0.0.tar.gz')
    (tmp_path / 'acme-tiny-1.0.1.tar.gz').write_bytes(b'')
    assert ca.built_artifact(str(tmp_path)) is None
