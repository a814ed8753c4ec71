"""The prepared node images (tests/sandbox/image/prepared.sh) and the scenarios that start from them.

A scenario whose nodes start with the NPU driver (ASCEND_SANDBOX_IMAGE_DRIVER) or the driver and
CANN (ASCEND_SANDBOX_IMAGE_CANN) installed must not install them again in its prepare step, and
every node of it starts from the same image; the recipe hash covers paths that exist.
"""
import re
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]
BASE = yaml.safe_load((REPO / '.config/molecule/config.yml').read_text())
SCENARIOS = sorted(p.parent.name for p in (REPO / 'molecule').glob('*/molecule.yml'))
IMAGES = {'${ASCEND_SANDBOX_IMAGE_DRIVER}': ['npu_driver'], '${ASCEND_SANDBOX_IMAGE_CANN}': ['npu_driver', 'cann']}


def scenario(name):
    config = yaml.safe_load((REPO / 'molecule' / name / 'molecule.yml').read_text())
    platforms = config.get('platforms', BASE['platforms'])
    prepare = (config.get('provisioner', {}).get('playbooks', {}).get('prepare')
               or config.get('ansible', {}).get('playbooks', {}).get('prepare')
               or BASE['ansible']['playbooks']['prepare'])
    return platforms, REPO / 'molecule' / name / prepare


def roles_run(playbook):
    """Roles a prepare playbook runs, following its import_playbook lines."""
    text = playbook.read_text()
    roles = set(re.findall(r'(?:name|role): ascend\.vllm\.([a-z_]+)', text))
    for imported in re.findall(r'import_playbook: (\S+)', text):
        roles |= roles_run((playbook.parent / imported).resolve())
    return roles


PREPARED = [name for name in SCENARIOS if {p['image'] for p in scenario(name)[0]} & set(IMAGES)]


def test_the_scenarios_that_use_the_prepared_images():
    assert PREPARED == ['benchmark', 'cann', 'container', 'decommission', 'diagnostics', 'dp_engine', 'hccn', 'monitoring',
                        'multinode', 'ray_cluster', 'vllm_service']


@pytest.mark.parametrize('name', PREPARED)
def test_a_scenario_on_a_prepared_image_does_not_install_it_again(name):
    platforms, prepare = scenario(name)
    images = {p['image'] for p in platforms}
    assert len(images) == 1, 'every node of %s starts from the same image: %s' % (name, sorted(images))
    assert not roles_run(prepare) & set(IMAGES[images.pop()])


def test_the_bare_node_scenarios_still_install_the_driver():
    for name in ('npu_driver', 'site', 'operations', 'aarch64'):
        assert {p['image'] for p in scenario(name)[0]} <= {'${ASCEND_SANDBOX_IMAGE}', '${ASCEND_SANDBOX_IMAGE_ARM64}'}


def test_the_recipe_hash_reads_paths_that_exist():
    script = (REPO / 'tests/sandbox/image/prepared.sh').read_text()
    block = script[script.index('--exclude=__pycache__'):script.index('| sha256sum')]
    paths = [word for word in block.split() if '/' in word or word in ('plugins',)]
    assert 'roles/npu_driver' in paths and 'roles/cann' in paths
    for path in paths:
        assert (REPO / path).exists(), path
