"""ascend.vllm.collection_artifact building a tiny collection with the real ansible-galaxy."""
import os
import shutil
import sys
import tempfile

import pytest

from ansible_collections.ascend.vllm.plugins.modules import collection_artifact

GALAXY = os.path.join(os.path.dirname(sys.executable), 'ansible-galaxy')
if not os.access(GALAXY, os.X_OK):
    GALAXY = shutil.which('ansible-galaxy')

pytestmark = pytest.mark.skipif(not GALAXY, reason='ansible-galaxy is not installed')

GALAXY_YML = 'namespace: acme\nname: tiny\nversion: 1.0.0\nreadme: README.md\nauthors:\n  - someone\n'


@pytest.fixture(autouse=True)
def private_tmp(tmp_path, monkeypatch):
    """The module's temporary directories go here, so a test can see that none is left."""
    directory = tmp_path / 'tmp'
    directory.mkdir()
    monkeypatch.setattr(tempfile, 'tempdir', str(directory))
    return directory


@pytest.fixture
def collection(tmp_path):
    src = tmp_path / 'src'
    (src / 'plugins' / 'modules').mkdir(parents=True)
    (src / 'galaxy.yml').write_text(GALAXY_YML)
    (src / 'README.md').write_text('# acme.tiny\n')
    (src / 'plugins' / 'modules' / 'hello.py').write_text('# hello\n')
    return src


def args(src, dest):
    return {'src': str(src), 'dest': str(dest), 'ansible_galaxy': GALAXY}


def test_build_then_rebuild_unchanged_then_changed(run_module, collection, tmp_path, private_tmp):
    dest = tmp_path / 'dist' / 'collections'
    failed, result = run_module(collection_artifact, args(collection, dest))
    artifact = dest / 'acme-tiny-1.0.0.tar.gz'
    assert not failed and result['changed'], result
    assert result['path'] == str(artifact) and artifact.is_file()
    assert (result['namespace'], result['name'], result['version']) == ('acme', 'tiny', '1.0.0')
    assert oct(os.stat(str(dest)).st_mode & 0o777) == oct(0o755)
    assert sorted(os.listdir(str(dest))) == ['acme-tiny-1.0.0.tar.gz']

    os.utime(str(artifact), (1000, 1000))
    failed, again = run_module(collection_artifact, args(collection, dest))
    assert not failed and not again['changed'] and again['path'] == str(artifact)
    assert os.stat(str(artifact)).st_mtime == 1000

    (collection / 'plugins' / 'modules' / 'hello.py').write_text('# hello, again\n')
    failed, changed = run_module(collection_artifact, args(collection, dest))
    assert not failed and changed['changed'] and os.stat(str(artifact)).st_mtime != 1000
    assert os.listdir(str(private_tmp)) == []


def test_other_versions_are_left_alone(run_module, collection, tmp_path):
    dest = tmp_path / 'dest'
    dest.mkdir()
    (dest / 'acme-tiny-0.9.0.tar.gz').write_bytes(b'older')
    failed, result = run_module(collection_artifact, args(collection, dest))
    assert not failed and result['changed']
    assert sorted(os.listdir(str(dest))) == ['acme-tiny-0.9.0.tar.gz', 'acme-tiny-1.0.0.tar.gz']
    assert (dest / 'acme-tiny-0.9.0.tar.gz').read_bytes() == b'older'


def test_unreadable_artifact_in_dest_is_replaced(run_module, collection, tmp_path):
    dest = tmp_path / 'dest'
    dest.mkdir()
    (dest / 'acme-tiny-1.0.0.tar.gz').write_bytes(b'junk')
    failed, result = run_module(collection_artifact, args(collection, dest))
    assert not failed and result['changed']
    assert (dest / 'acme-tiny-1.0.0.tar.gz').read_bytes()[:2] == b'\x1f\x8b'


def test_check_mode_moves_nothing(run_module, collection, tmp_path, private_tmp):
    dest = tmp_path / 'dest'
    failed, result = run_module(collection_artifact, args(collection, dest), check_mode=True)
    assert not failed and result['changed'] and result['path'] == str(dest / 'acme-tiny-1.0.0.tar.gz')
    assert not dest.exists() and os.listdir(str(private_tmp)) == []

    run_module(collection_artifact, args(collection, dest))
    (collection / 'README.md').write_text('# acme.tiny, changed\n')
    os.utime(str(dest / 'acme-tiny-1.0.0.tar.gz'), (1000, 1000))
    failed, result = run_module(collection_artifact, args(collection, dest), check_mode=True)
    assert not failed and result['changed'] and os.stat(str(dest / 'acme-tiny-1.0.0.tar.gz')).st_mtime == 1000


def test_default_ansible_galaxy_is_found(run_module, collection, tmp_path):
    failed, result = run_module(collection_artifact, {'src': str(collection), 'dest': str(tmp_path / 'dest')})
    assert not failed and result['changed']


def test_broken_galaxy_yml_fails_with_the_command(run_module, collection, tmp_path, private_tmp):
    (collection / 'galaxy.yml').write_text('namespace: acme\n')
    failed, result = run_module(collection_artifact, args(collection, tmp_path / 'dest'))
    assert failed
    assert result['msg'].startswith('collection_artifact: `%s collection build %s --output-path ' % (GALAXY, collection))
    assert '` failed with rc=%d: ' % result['rc'] in result['msg'] and result['rc'] != 0
    assert 'missing the following mandatory keys' in result['msg']
    assert result['cmd'][:4] == [GALAXY, 'collection', 'build', str(collection)]
    assert not (tmp_path / 'dest').exists()
    assert os.listdir(str(private_tmp)) == []


def test_unusable_arguments(run_module, collection, tmp_path):
    failed, result = run_module(collection_artifact, args(tmp_path, tmp_path / 'dest'))
    assert failed and result['msg'] == 'collection_artifact: %s is not a collection source directory (no galaxy.yml)' % tmp_path
    (tmp_path / 'file').write_text('')
    failed, result = run_module(collection_artifact, args(collection, tmp_path / 'file'))
    assert failed and result['msg'] == 'collection_artifact: dest %s exists and is not a directory' % (tmp_path / 'file')
    failed, result = run_module(collection_artifact, dict(args(collection, tmp_path / 'dest'), ansible_galaxy=str(tmp_path / 'nope')))
    assert failed and result['msg'] == 'collection_artifact: ansible_galaxy %s is not an executable file' % (tmp_path / 'nope')
