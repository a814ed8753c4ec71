"""The built collection (what ansible-galaxy installs at a site) is complete: every file a shipped
playbook includes, imports or templates by a fixed relative path is inside the tarball."""
import os
import subprocess
import sys
import tarfile
from pathlib import Path, PurePosixPath

import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]
# Keywords whose value names a file relative to the playbook (or task file) that uses it.
FILE_KEYS = ('ansible.builtin.include_tasks', 'ansible.builtin.import_tasks', 'ansible.builtin.import_playbook',
             'ansible.builtin.include_vars', 'include_tasks', 'import_tasks', 'import_playbook', 'include_vars')


@pytest.fixture(scope='module')
def members(tmp_path_factory):
    out = tmp_path_factory.mktemp('build')
    # The ansible-galaxy of the toolchain running the tests.
    galaxy = str(Path(sys.executable).parent / 'ansible-galaxy')
    result = subprocess.run([galaxy, 'collection', 'build', '--force', '--output-path', str(out)],
                            cwd=REPO, capture_output=True, text=True, check=False, timeout=300,
                            env=dict(os.environ, ANSIBLE_NOCOLOR='1'))
    assert result.returncode == 0, result.stdout + result.stderr
    (tarball,) = out.glob('ascend-vllm-*.tar.gz')
    with tarfile.open(tarball) as archive:
        return {name: archive.extractfile(name).read().decode('utf-8', 'replace')
                for name in archive.getnames() if name.endswith(('.yml', '.yaml'))}, set(archive.getnames())


def file_refs(node):
    """(keyword, path) of every fixed relative file reference in a parsed YAML document."""
    if isinstance(node, list):
        for item in node:
            yield from file_refs(item)
    elif isinstance(node, dict):
        for key, value in node.items():
            if key in FILE_KEYS:
                path = value.get('file') if isinstance(value, dict) else value
                if isinstance(path, str) and '{{' not in path:
                    yield key, path
            else:
                yield from file_refs(value)


def shipped_refs(yaml_files):
    for name, text in sorted(yaml_files.items()):
        if not name.startswith('playbooks/') and name != 'site.yml':
            continue
        for key, path in file_refs(yaml.safe_load(text)):
            yield name, key, path


def resolve(playbook, path):
    parts = []
    for part in (PurePosixPath(playbook).parent / path).parts:
        if part == '..':
            if parts:
                parts.pop()
        elif part != '.':
            parts.append(part)
    return '/'.join(parts)


def test_shipped_playbooks_reference_only_shipped_files(members):
    yaml_files, names = members
    missing = ['%s: %s %s' % (playbook, key, path) for playbook, key, path in shipped_refs(yaml_files)
               if resolve(playbook, path) not in names]
    assert missing == []


def test_the_check_sees_references():
    # The check above is only as good as its reader: the site playbook's imports are found.
    refs = list(shipped_refs({'site.yml': (REPO / 'site.yml').read_text()}))
    assert refs and all(resolve('site.yml', ref[2]).startswith('playbooks/') for ref in refs)


def test_the_sandbox_playbook_is_test_bed_only(members):
    # It creates podman containers from tests/sandbox, which the collection does not ship.
    names = members[1]
    assert 'playbooks/sandbox.yml' not in names
    assert not any(name.startswith('tests/sandbox/') for name in names)


def test_an_installed_collection_runs_the_site_playbook_by_name(members, tmp_path):
    # `ansible-playbook ascend.vllm.site` reads playbooks/site.yml of the installed collection.
    names = members[1]
    assert 'playbooks/site.yml' in names
    site = yaml.safe_load(members[0]['playbooks/site.yml'])
    stages = [play['ansible.builtin.import_playbook'] for play in site]
    assert stages[0] == 'preflight.yml' and stages[-1] == 'verify.yml' and 'vllm_service.yml' in stages
    # The checkout's site.yml is that playbook, not a second list of stages.
    assert [play['ansible.builtin.import_playbook'] for play in yaml.safe_load((REPO / 'site.yml').read_text())] == [
        'playbooks/site.yml']
    playbook = str(Path(sys.executable).parent / 'ansible-playbook')
    result = subprocess.run([playbook, '--syntax-check', '-i', 'localhost,', 'ascend.vllm.site'], cwd=str(tmp_path),
                            capture_output=True, text=True, check=False, timeout=300,
                            env=dict(os.environ, ANSIBLE_NOCOLOR='1', ANSIBLE_COLLECTIONS_PATH=str(REPO / 'collections')))
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith('ascend/vllm/playbooks/site.yml')
