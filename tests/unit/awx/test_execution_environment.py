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
