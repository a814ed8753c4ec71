"""The collection's package naming (plugins/module_utils/stack.py) and the simulated packages
(ascend_sim.versions) must name the same files, or the roles would look for packages the
sandbox never builds (and, on a real site, for files the vendor never published)."""
import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import stack, stack_matrix
from ascend_sim import versions

SIM_CHIP = {'910b': '910b', '910_93': '910_93', '310p': '310p'}


@pytest.mark.parametrize('release', [row['vllm_ascend'] for row in stack_matrix.RELEASES])
@pytest.mark.parametrize('chip', sorted(SIM_CHIP))
@pytest.mark.parametrize('arch', ['aarch64', 'x86_64'])
def test_cann_package_names_match_the_simulated_catalogue(release, chip, arch):
    names = stack.package_names(release, chip, arch)
    cann = stack.resolve_stack(release)['cann']
    kind = versions.chip_package_kind(cann)
    assert names['toolkit'] == versions.package_filename('toolkit', cann, SIM_CHIP[chip], arch)
    assert names['nnal'] == versions.package_filename('nnal', cann, SIM_CHIP[chip], arch)
    assert names['ops'] == versions.package_filename(kind, cann, SIM_CHIP[chip], arch)
