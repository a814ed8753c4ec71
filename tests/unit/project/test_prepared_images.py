"""The prepared node images (tests/sandbox/image/prepared.sh, prepared_engine.sh) and the
scenarios that start from them.

A scenario whose nodes start with the NPU driver (ASCEND_SANDBOX_IMAGE_DRIVER), the driver and
CANN (ASCEND_SANDBOX_IMAGE_CANN) or those and the real engine's virtualenv
(ASCEND_SANDBOX_IMAGE_ENGINE) installed must not install them again in its prepare step, and every
node of it starts from the same image; the engine image is installed with the settings of the
scenarios that use it; the recipe hashes cover paths that exist.
"""
import re
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[3]
BASE = yaml.safe_load((REPO / '.config/molecule/config.yml').read_text())
SCENARIOS = sorted(p.parent.name for p in (REPO / 'molecule').glob('*/molecule.yml'))
IMAGES = {'${ASCEND_SANDBOX_IMAGE_DRIVER}': ['npu_driver'], '${ASCEND_SANDBOX_IMAGE_CANN}': ['npu_driver', 'cann'],
          '${ASCEND_SANDBOX_IMAGE_ENGINE}': ['npu_driver', 'cann']}
ENGINE = '${ASCEND_SANDBOX_IMAGE_ENGINE}'


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


@pytest.mark.parametrize('script, wanted', [
    ('prepared.sh', ['roles/npu_driver', 'roles/cann']),
    ('prepared_engine.sh', ['roles/vllm_service', 'tests/sandbox/image/prepared_engine.yml']),
])
def test_the_recipe_hash_reads_paths_that_exist(script, wanted):
    text = (REPO / 'tests/sandbox/image' / script).read_text()
    block = text[text.index('--exclude=__pycache__'):text.index('| sha256sum')]
    paths = [word for word in block.split() if '/' in word or word in ('plugins',)]
    assert set(wanted) <= set(paths)
    for path in paths:
        assert (REPO / path).exists(), path


def test_the_engine_scenarios_install_what_the_engine_image_holds():
    """What decides the virtualenv's install (the venv record's inputs) is the same in the image's
    playbook and in every scenario that starts from it, so their converge finds the record current."""
    image_vars = yaml.safe_load((REPO / 'tests/sandbox/image/prepared_engine.yml').read_text())[0]['vars']
    decisive = ['ascend_stack_overrides', 'ascend_stack_allow_unlisted', 'vllm_service_pip_check_accept',
                'vllm_service_pip_index_url', 'vllm_service_pip_extra_index_urls', 'vllm_service_pip_extra_packages',
                'vllm_service_python', 'vllm_service_venv_dir', 'vllm_service_venv_check', 'vllm_service_model_source']
    users = [name for name in SCENARIOS if {p['image'] for p in scenario(name)[0]} == {ENGINE}]
    assert users == ['benchmark', 'dp_engine']
    for name in users:
        config = yaml.safe_load((REPO / 'molecule' / name / 'molecule.yml').read_text())
        group = config['provisioner']['inventory']['group_vars']['ascend_nodes']
        for key in decisive:
            assert group.get(key) == image_vars.get(key), (name, key)
        assert group['vllm_service_pip_wheelhouse'].endswith('/.sandbox/engine/node-wheels')
        assert image_vars['vllm_service_pip_wheelhouse'].endswith('/.sandbox/engine/node-wheels')
