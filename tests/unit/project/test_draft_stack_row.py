"""scripts/draft_stack_row.py drafts a stack matrix row from what a release publishes: here the
committed copies of the 0.23.0 wheel's metadata, build info and the wheels' manylinux tags
(tests/unit/fixtures/metadata), and Dockerfiles with the lines the script reads, give back the
0.23.0 row's values."""
import importlib.util
import zipfile
from pathlib import Path

from ansible_collections.ascend.vllm.plugins.module_utils import stack_matrix

REPO = Path(__file__).resolve().parents[3]
METADATA = REPO / 'tests' / 'unit' / 'fixtures' / 'metadata'
SPEC = importlib.util.spec_from_file_location('draft_stack_row', str(REPO / 'scripts' / 'draft_stack_row.py'))
draft_stack_row = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(draft_stack_row)


def tags():
    found = {}
    for line in (METADATA / 'wheel-tags.txt').read_text().splitlines():
        if line and not line.startswith('#'):
            requirement, arch, wheel = line.split()
            if arch == 'aarch64':
                found[requirement] = wheel
    return found


def test_the_0_23_0_row_is_drafted_from_its_published_files(tmp_path):
    wheels = tags()
    name = wheels['vllm-ascend==0.23.0']
    build = (METADATA / 'vllm-ascend-build-info.txt').read_text().split('== ' + name + '\n', 1)[1].split('==', 1)[0]
    wheel = tmp_path / name
    with zipfile.ZipFile(str(wheel), 'w') as archive:
        archive.writestr('vllm_ascend-0.23.0.dist-info/METADATA', (METADATA / 'vllm-ascend-0.23.0.txt').read_text())
        archive.writestr('vllm_ascend/_build_info.py', build)
    source = tmp_path / 'vllm-ascend'
    source.mkdir()
    # The lines of the release's Dockerfile the script reads (CANN, vLLM, Ray, the image's Python).
    (source / 'Dockerfile').write_text('ARG CANN_VERSION="9.1.0"\nFROM quay.io/ascend/cann:${CANN_VERSION}-910b-ubuntu22.04'
                                       '-py3.12\nARG VLLM_TAG=v0.23.0\nRUN pip install \'ray>=2.47.1,<=2.48.0\'\n')
    for suffix in ('.a3', '.310p'):
        (source / ('Dockerfile' + suffix)).write_text('FROM scratch\n')
    row = draft_stack_row.draft('0.23.0', str(wheel), str(source), 'final', pick=lambda req, dest: wheels[req])
    want = [r for r in stack_matrix.RELEASES if r['release'] == '0.23.0'][0]
    for key in ('release', 'status', 'vllm', 'vllm_ascend', 'python_min', 'python_max', 'cann', 'torch', 'torch_npu',
                'triton_ascend', 'image_chips', 'wheel_chips', 'ray', 'glibc'):
        assert row[key] == want[key], key
    assert set(row['chips']) == set(want['chips'])
    assert row['pip_check_expected'].startswith('TODO')


def test_the_0_30_0rc2_row_is_drafted_from_its_sdist(tmp_path):
    # PyPI publishes 0.30.0rc2 as an sdist only: the pins come from its PKG-INFO (the committed copy),
    # CANN / vLLM / Ray / Python and the image chips from its Dockerfiles (the lines the script reads).
    (tmp_path / 'PKG-INFO').write_text((METADATA / 'vllm-ascend-0.30.0rc2.txt').read_text())
    (tmp_path / 'Dockerfile').write_text('ARG CANN_VERSION="9.2.0_20260930220649"\nFROM ${CANN_QUAY_URL}:'
                                         '${CANN_VERSION}-910b-ubuntu22.04-py3.12\nARG VLLM_TAG=v0.30.0\n'
                                         "RUN python3 -m pip install 'modelscope<1.38' 'ray>=2.47.1,<=2.48.0'\n")
    for suffix in ('.a3', '.310p', '.a5'):
        (tmp_path / ('Dockerfile' + suffix)).write_text('FROM scratch\n')
    row = draft_stack_row.draft('0.30.0rc2', None, str(tmp_path), pick=lambda req, dest: tags().get(req, 'x.whl'))
    want = [r for r in stack_matrix.RELEASES if r['release'] == '0.30.0rc2'][0]
    for key in ('release', 'status', 'vllm', 'vllm_ascend', 'python_min', 'python_max', 'cann', 'torch', 'torch_npu',
                'triton_ascend', 'image_chips', 'ray', 'glibc'):
        assert row[key] == want[key], key
    assert row['wheel_chips'].startswith('TODO: PyPI publishes no wheel')
