"""awx/build-ee.sh --create-only: the ansible-builder context an AWX site builds its image from."""
import json
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]


def pin(name):
    """Version pinned in requirements-dev.txt (what CI runs)."""
    for line in (REPO / 'requirements-dev.txt').read_text().splitlines():
        match = re.match(r'^%s==(\S+)$' % re.escape(name), line.strip())
        if match:
            return match.group(1)
    raise AssertionError('%s is not pinned in requirements-dev.txt' % name)


@pytest.fixture(scope='module')
def context(tmp_path_factory):
    work = tmp_path_factory.mktemp('ee')
    env = dict(os.environ, EE_WORKDIR=str(work))
    # build-ee.sh finds the toolchain through scripts/lib.sh; the virtualenv running the tests
    # is that toolchain.
    env['ASCEND_VENV'] = str(Path(sys.executable).parent.parent)
    result = subprocess.run(['bash', str(REPO / 'awx' / 'build-ee.sh'), '--create-only'],
                            env=env, capture_output=True, text=True, check=False, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    return work / 'context'


def test_containerfile_installs_the_ansible_core_ci_runs(context):
    text = (context / 'Containerfile').read_text()
    refs = re.search(r'^ARG ANSIBLE_INSTALL_REFS="([^"]*)"$', text, re.M).group(1).split()
    assert 'ansible-core==%s' % pin('ansible-core') in refs
    assert any(ref.startswith('ansible-runner==') for ref in refs)
    assert re.search(r'^ARG PYCMD="/usr/bin/python3\.11"$', text, re.M)
    assert 'LABEL ansible-execution-environment=true' in text


def test_galaxy_requirements_install_this_collection_from_the_built_tarball(context):
    requirements = yaml.safe_load((context / '_build' / 'requirements.yml').read_text())
    names = {item['name']: item for item in requirements['collections']}
    assert names['collection/ascend-vllm.tar.gz']['type'] == 'file'
    assert (context / '_build' / 'collection' / 'ascend-vllm.tar.gz').is_file()
    galaxy = yaml.safe_load((REPO / 'galaxy.yml').read_text())
    # Every collection the roles depend on is baked in.
    assert set(galaxy['dependencies']) <= set(names)


def test_the_tarball_is_this_collection_without_test_tooling(context):
    galaxy = yaml.safe_load((REPO / 'galaxy.yml').read_text())
    with tarfile.open(context / '_build' / 'collection' / 'ascend-vllm.tar.gz') as tar:
        manifest = json.load(tar.extractfile('MANIFEST.json'))['collection_info']
        members = tar.getnames()
    assert (manifest['namespace'], manifest['name'], manifest['version']) == \
        ('ascend', 'vllm', galaxy['version'])
    assert 'roles/npu_driver/tasks/main.yml' in members
    assert 'plugins/modules/npu_facts.py' in members
    assert not [m for m in members if m.startswith(('tests/simulator/', 'awx/build/', '.sandbox/', '.venv/'))]


def test_system_packages_come_from_bindep(context):
    bindep = (context / '_build' / 'bindep.txt').read_text()
    assert 'openssh-clients [platform:rpm]' in bindep


TEST_TOOLS = ('molecule', 'pytest', 'testinfra', 'ansible-lint', 'yamllint', 'antsibull', 'prometheus')


def test_the_build_needs_and_bakes_in_no_test_tool(context):
    script = (REPO / 'awx' / 'build-ee.sh').read_text()
    assert 'setup.sh' not in script and 'apt-get' not in script
    build = [line.split('==')[0] for line in (REPO / 'awx' / 'requirements-build.txt').read_text().splitlines()
             if line and not line.startswith('#')]
    assert build == ['ansible-core', 'ansible-builder']
    for name in build:
        assert 'ansible%s==%s' % (name[len('ansible'):], pin(name)) in (REPO / 'awx' / 'requirements-build.txt').read_text()
    # What the image installs: the Containerfile, the Python, system and collection requirements
    # (ansible-builder's own helper scripts under _build/scripts aside).
    baked = '\n'.join(path.read_text() for path in [context / 'Containerfile'] + list((context / '_build').glob('*'))
                      if path.is_file() and not path.name.endswith('.tar.gz')).lower()
    assert not [tool for tool in TEST_TOOLS if tool in baked]


def _collection_tarball(namespace, name, dest):
    """A collection artifact, as `ansible-galaxy collection download` leaves it, made from the installed
    copy: its files, FILES.json listing those that are there, MANIFEST.json with that list's checksum."""
    import hashlib
    import io
    import ansible_collections
    root = next(Path(base) / namespace / name for base in ansible_collections.__path__
                if (Path(base) / namespace / name / 'MANIFEST.json').is_file())
    manifest = json.loads((root / 'MANIFEST.json').read_text())
    files = json.loads((root / 'FILES.json').read_text())
    files['files'] = [entry for entry in files['files']
                      if entry['name'] == '.' or (root / entry['name']).exists() and '__pycache__' not in entry['name']]
    listing = json.dumps(files, indent=4).encode()
    manifest['file_manifest_file']['chksum_sha256'] = hashlib.sha256(listing).hexdigest()
    path = dest / ('%s-%s-%s.tar.gz' % (namespace, name, manifest['collection_info']['version']))
    with tarfile.open(path, 'w:gz') as tar:
        for member, data in (('MANIFEST.json', json.dumps(manifest, indent=4).encode()), ('FILES.json', listing)):
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for entry in files['files']:
            if entry['name'] != '.':
                tar.add(str(root / entry['name']), arcname=entry['name'], recursive=False)
    return path


def _create(work, collections):
    env = dict(os.environ, EE_WORKDIR=str(work), EE_COLLECTIONS_DIR=str(collections),
               ASCEND_VENV=str(Path(sys.executable).parent.parent))
    return subprocess.run(['bash', str(REPO / 'awx' / 'build-ee.sh'), '--create-only'],
                          env=env, capture_output=True, text=True, check=False, timeout=300)


def test_an_air_gapped_build_installs_every_collection_from_tarballs_without_galaxy(tmp_path):
    collections = tmp_path / 'bundle-collections'
    collections.mkdir()
    for namespace, name in (('ansible', 'posix'), ('community', 'general'), ('containers', 'podman')):
        _collection_tarball(namespace, name, collections)
    result = _create(tmp_path / 'ee', collections)
    assert result.returncode == 0, result.stdout + result.stderr
    build = tmp_path / 'ee' / 'context' / '_build'
    requirements = yaml.safe_load((build / 'requirements.yml').read_text())['collections']
    assert all(item['type'] == 'file' and (build / item['name']).is_file() for item in requirements)
    assert len(requirements) == 4
    containerfile = (tmp_path / 'ee' / 'context' / 'Containerfile').read_text()
    assert 'ARG ANSIBLE_GALAXY_CLI_COLLECTION_OPTS="--offline"' in containerfile
    # The image's galaxy step, as the Containerfile runs it: offline, from those files only. No
    # server is configured, so a lookup of Galaxy would fail the install.
    env = dict(os.environ, ANSIBLE_GALAXY_SERVER='http://127.0.0.1:9/', ANSIBLE_COLLECTIONS_PATH=str(tmp_path / 'none'))
    galaxy = str(Path(sys.executable).parent / 'ansible-galaxy')
    done = subprocess.run([galaxy, 'collection', 'install', '--offline', '-r', 'requirements.yml',
                           '-p', str(tmp_path / 'installed')], cwd=build, env=env, capture_output=True, text=True,
                          check=False, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    installed = tmp_path / 'installed' / 'ansible_collections'
    for path in ('ascend/vllm/roles/vllm_service', 'ansible/posix/plugins', 'community/general/plugins',
                 'containers/podman/plugins'):
        assert (installed / path).is_dir(), path


def test_an_air_gapped_build_without_a_dependency_names_it(tmp_path):
    collections = tmp_path / 'bundle-collections'
    collections.mkdir()
    _collection_tarball('ansible', 'posix', collections)
    result = _create(tmp_path / 'ee', collections)
    assert result.returncode == 2
    assert 'has no community-general-<version>.tar.gz' in result.stderr
