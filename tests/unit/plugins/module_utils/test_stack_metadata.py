# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Every stack matrix row against the metadata PyPI publishes for its packages
(tests/unit/fixtures/metadata): what the row pins must be what pip installs."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

import os

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from ansible_collections.ascend.vllm.plugins.module_utils import stack_matrix
from ansible_collections.ascend.vllm.plugins.module_utils.pip_check import canonical
from ansible_collections.ascend.vllm.plugins.module_utils.stack import resolve_stack

METADATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'fixtures', 'metadata')
# Every row: finals, post releases and the opt-in release candidate all have published packages.
FINAL_ROWS = list(stack_matrix.RELEASES)
# vllm-ascend versions PyPI publishes as an sdist only (no wheel): their committed copy is the
# sdist's PKG-INFO, and a row pins them from another index.
SDIST_ONLY = {'0.23.0.post1', '0.30.0rc2'}


def published(name, version, arch=None):
    """(Requires-Python specifier, {canonical name: [Requirement]}) of a committed METADATA copy."""
    base = os.path.join(METADATA, '%s-%s' % (name, version))
    path = '%s-%s.txt' % (base, arch) if arch and os.path.exists('%s-%s.txt' % (base, arch)) else base + '.txt'
    python, requires = SpecifierSet(''), {}
    with open(path) as handle:
        for line in handle:
            key, dummy, value = line.partition(':')
            if key == 'Requires-Python':
                python = SpecifierSet(value.strip())
            elif key == 'Requires-Dist':
                req = Requirement(value.strip())
                if req.marker is None or req.marker.evaluate({'extra': ''}):
                    requires.setdefault(canonical(req.name), []).append(req)
    return python, requires


def published_requires(name, version, arch=None):
    return published(name, version, arch)[1]


def pinned(requires, name):
    """The version an ``==`` requirement pins, else None."""
    for req in requires.get(name, []):
        for spec in req.specifier:
            if spec.operator == '==':
                return spec.version
    return None


def admits(requires, name, version):
    return all(req.specifier.contains(version, prereleases=True) for req in requires.get(name, []))


@pytest.mark.parametrize('row', FINAL_ROWS, ids=lambda row: row['release'])
def test_row_installs_what_vllm_ascend_requires(row):
    python, requires = published('vllm-ascend', row['vllm_ascend'])
    # torch: the row's pin satisfies vllm-ascend's requirement (0.9.1 asks torch>=2.5.1).
    assert 'torch' in requires and admits(requires, 'torch', row['torch'])
    assert pinned(requires, 'torch-npu') == row['torch_npu']
    assert pinned(requires, 'triton-ascend') == row['triton_ascend']
    # The interpreter range the row allows is inside vllm-ascend's Requires-Python.
    assert Version(row['python_min'] + '.0') in python
    assert Version(row['python_max'] + '.0') in python
    assert row['torch_npu_source'] == 'pypi'


@pytest.mark.parametrize('row', FINAL_ROWS, ids=lambda row: row['release'])
@pytest.mark.parametrize('arch', ['aarch64', 'x86_64'])
def test_torch_npu_requires_the_rows_torch(row, arch):
    requires = published_requires('torch-npu', row['torch_npu'], arch)
    wanted = pinned(requires, 'torch')
    # aarch64: the plain wheel; x86_64: the +cpu build of the same torch.
    assert wanted == (row['torch'] if arch == 'aarch64' else row['torch'] + '+cpu')


def _torch_companion(name, torch, candidates):
    """The newest committed ``name`` (torchvision, torchaudio) that admits ``torch``."""
    for version in sorted(candidates, key=Version, reverse=True):
        requires = published_requires(name, version)
        if pinned(requires, 'torch') == torch:
            return version
    return None


TORCHVISION = ['0.20.1', '0.22.0', '0.22.1', '0.23.0', '0.24.0', '0.25.0', '0.26.0']
TORCHAUDIO = ['2.5.1', '2.7.0', '2.7.1', '2.8.0', '2.9.0', '2.10.0', '2.11.0']


def _newest(name, candidates, admitted):
    for version in sorted(candidates, key=Version, reverse=True):
        if admitted(version):
            return version
    return None


def _expected_conflicts(row, arch):
    """What ``pip check`` reports after vLLM, the CUDA triton out, vllm-ascend (and on x86_64 the
    triton xgrammar brings back out again), worked out from the committed metadata alone."""
    env = {'platform_machine': arch, 'platform_system': 'Linux', 'python_version': '3.11', 'extra': ''}

    def reqs(name, version):
        found = {}
        for req_name, items in published_requires(name, version, arch).items():
            kept = [r for r in items if r.marker is None or r.marker.evaluate(env)]
            if kept:
                found[req_name] = kept
        return found

    def ok(requires, name, version):
        return all(r.specifier.contains(version, prereleases=True) for r in requires.get(name, []))

    vllm = reqs('vllm', row['vllm'])
    ascend = reqs('vllm-ascend', row['vllm_ascend'])
    installed = {'torch': row['torch'] + ('+cpu' if arch == 'x86_64' else '')}
    for name, candidates in (('torchvision', TORCHVISION), ('torchaudio', TORCHAUDIO)):
        if name in ascend:
            installed[name] = _torch_companion(name, row['torch'], [v for v in candidates if admits(ascend, name, v)])
        else:
            installed[name] = pinned(vllm, name)
    # numpy below 2 where vllm-ascend asks it; opencv the newest vLLM admits, capped by vllm-ascend.
    installed['numpy'] = '1.26.4' if not ok(ascend, 'numpy', '2.2.0') else '2.2.0'
    # (vLLM's step takes the newest it admits; vllm-ascend's step moves it under its own cap.)
    installed['opencv-python-headless'] = (
        _newest('opencv', OPENCV, lambda v: ok(ascend, 'opencv-python-headless', v))
        if 'opencv-python-headless' in ascend else _newest('opencv', OPENCV, lambda v: ok(vllm, 'opencv-python-headless', v)))
    if 'xformers' in vllm:
        installed['xformers'] = pinned(vllm, 'xformers')
    if 'xgrammar' in vllm:
        installed['xgrammar'] = _newest('xgrammar', XGRAMMAR, lambda v: ok(vllm, 'xgrammar', v))
    if 'humming-kernels' in vllm:
        installed['humming-kernels'] = pinned(vllm, 'humming-kernels')
    conflicts = set()
    for name in ('torch', 'torchvision', 'torchaudio', 'opencv-python-headless'):
        if not ok(vllm, name, installed[name]):
            conflicts.add('vllm -> %s' % name)
    for name in ('torchvision', 'torchaudio', 'xformers', 'opencv-python-headless', 'xgrammar', 'humming-kernels'):
        if name not in installed:
            continue
        requires = reqs(name, installed[name])
        for dep in ('torch', 'numpy'):
            if dep in requires and not ok(requires, dep, installed[dep]):
                conflicts.add('%s -> %s' % (name, dep))
        if 'triton' in requires:   # the CUDA triton: uninstalled on every node
            conflicts.add('%s -> triton (missing)' % name)
    return conflicts


OPENCV = ['4.11.0.86', '5.0.0.93']
XGRAMMAR = ['0.1.19', '0.1.25', '0.1.27', '0.2.9']


@pytest.mark.parametrize('row', FINAL_ROWS, ids=lambda row: row['release'])
@pytest.mark.parametrize('arch', ['aarch64', 'x86_64'])
def test_expected_pip_conflicts_follow_from_the_metadata(row, arch):
    from ansible_collections.ascend.vllm.plugins.module_utils.pip_plan import pip_plan
    plan = pip_plan(resolve_stack(row['release']), arch, '910b', wheelhouse=True)
    declared = set('%s -> %s%s' % (e['package'], e['requires'], ' (missing)' if e['missing'] else '')
                   for e in plan['expected'])
    assert declared == _expected_conflicts(row, arch)


def test_vllm_pins_a_newer_torch_than_vllm_ascend_in_every_row():
    for row in FINAL_ROWS:
        vllm = published_requires('vllm', row['vllm'])
        assert Version(pinned(vllm, 'torch')) > Version(row['torch']), row['release']


def test_what_pip_indexes_list_is_not_on_pypi():
    """A row's pip_indexes names requirements PyPI does not publish; the committed copy has the
    versions PyPI does publish (triton-ascend: 3.2.0 only)."""
    published = sorted(f[len('triton-ascend-'):-len('.txt')] for f in os.listdir(METADATA) if f.startswith('triton-ascend-'))
    assert published == ['3.2.0']
    for row in FINAL_ROWS:
        for requirements in row['pip_indexes'].values():
            for text in requirements:
                req = Requirement(text)
                if canonical(req.name) == 'vllm-ascend':
                    assert str(req.specifier) == '==' + row['vllm_ascend'] and row['vllm_ascend'] in SDIST_ONLY
                    continue
                assert canonical(req.name) == 'triton-ascend'
                assert not any(req.specifier.contains(v) for v in published), (row['release'], text)
        if row['vllm_ascend'] in SDIST_ONLY:
            assert 'vllm-ascend==%s' % row['vllm_ascend'] in row['pip_indexes'].get('ascend-mirror', [])
        if row['triton_ascend'] and row['triton_ascend'] not in published:
            assert 'triton-ascend==%s' % row['triton_ascend'] in row['pip_indexes'].get('ascend-mirror', [])


def _build_chips():
    """{vllm-ascend version: chip family} of what each published wheel is built for
    (tests/unit/fixtures/metadata/vllm-ascend-build-info.txt)."""
    from ansible_collections.ascend.vllm.plugins.module_utils.stack import chip_family
    builds, version = {}, None
    with open(os.path.join(METADATA, 'vllm-ascend-build-info.txt')) as handle:
        for line in handle:
            line = line.strip()
            if line.startswith('== '):
                version = line.split('-')[1]
            elif line.startswith('__device_type__'):
                builds[version] = {'A2': '910b', 'A3': '910_93', '_310P': '310p', 'A5': '950dt'}[line.split("'")[1]]
            elif line.startswith('__soc_version__') or 'kernels:' in line:
                builds[version] = chip_family(line.split("'")[1] if "'" in line else line.rsplit(' ', 1)[1])
    return builds


def test_every_published_wheel_is_an_a2_build_and_the_rows_say_so():
    # Reverting a row to wheel_chips None (every chip) installs on an A3 or 300I Duo node a wheel
    # whose worker refuses the chip (vllm_ascend/utils.py check_ascend_device_type from v0.13.0).
    builds = _build_chips()
    assert builds == {'0.9.1': '910b', '0.11.0': '910b', '0.13.0': '910b', '0.18.0': '910b', '0.23.0': '910b'}
    for row in FINAL_ROWS:
        if row['vllm_ascend'] in SDIST_ONLY:
            continue
        assert row['wheel_chips'] == [builds[row['vllm_ascend']]], row['release']


def _glibc_floors():
    """{(package, version, arch): '2.N' or None} from the wheels pip takes
    (tests/unit/fixtures/metadata/wheel-tags.txt); None where no wheel exists."""
    import re
    floors = {}
    with open(os.path.join(METADATA, 'wheel-tags.txt')) as handle:
        for line in handle:
            if line.startswith('#') or not line.strip():
                continue
            requirement, arch, wheel = line.split()
            name, version = requirement.split('==')
            levels = [int(m) for m in re.findall(r'manylinux_2_(\d+)_', wheel)]
            levels += [{'manylinux2014': 17, 'manylinux2010': 12, 'manylinux1': 5}[m]
                       for m in re.findall(r'(manylinux2014|manylinux2010|manylinux1)_', wheel)]
            floors[(name, version, arch)] = '2.%d' % min(levels) if levels else None
    return floors


def test_the_glibc_floors_are_the_published_wheels_tags():
    # Reverting a floor (0.23.0's vllm-ascend is manylinux_2_34 only) lets preflight pass a node pip
    # cannot install from wheels.
    floors = _glibc_floors()
    for row in FINAL_ROWS:
        pins = {'vllm-ascend': row['vllm_ascend'], 'torch-npu': row['torch_npu'], 'torch': row['torch']}
        want = {}
        for name, version in pins.items():
            arches = ['aarch64'] if name == 'torch' else ['aarch64', 'x86_64']
            found = set(floors.get((name, version, arch)) for arch in arches if (name, version, arch) in floors)
            if found:
                assert len(found) == 1, (row['release'], name, found)
                want[name] = found.pop()
        assert row['glibc'] == want, row['release']
    assert [r['glibc']['vllm-ascend'] for r in stack_matrix.RELEASES if r['release'] == '0.23.0'] == ['2.34']
