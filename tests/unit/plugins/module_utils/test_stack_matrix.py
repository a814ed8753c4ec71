# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""The stack matrix data: the published table, and the invariants the resolver relies on."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import stack_matrix
from ansible_collections.ascend.vllm.plugins.module_utils.stack import (
    PAIR_KEYS,
    compare_versions,
    default_release,
    resolve_stack,
)

ROW_FIELDS = {
    'release', 'status', 'vllm', 'vllm_ascend', 'python_min', 'python_max', 'cann', 'torch',
    'torch_npu', 'torch_npu_source', 'triton_ascend', 'triton_ascend_excluded_chips', 'chips',
    'driver_min', 'driver_recommended', 'notes', 'pip_check_expected', 'pip_indexes', 'binds_cpus_on', 'image_chips',
    'wheel_chips', 'ray', 'glibc',
}

# vllm-ascend's versioning policy; torch-npu and triton-ascend as the published wheels require
# them (test_stack_metadata.py holds these to the committed metadata).
PUBLISHED = [
    # release, vllm, python, cann, torch, torch_npu, source, triton, chips
    ('0.9.1', '0.9.1', ('3.9', '3.11'), '8.2.RC1', '2.5.1', '2.5.1.post1', 'pypi', None,
     {'910b': 'supported', '910_93': 'partial'}),
    ('0.11.0', '0.11.0', ('3.9', '3.11'), '8.3.RC2', '2.7.1', '2.7.1', 'pypi', None,
     {'910b': 'supported', '910_93': 'supported', '310p': 'experimental'}),
    ('0.13.0', '0.13.0', ('3.10', '3.11'), '8.5.0', '2.8.0', '2.8.0.post2', 'pypi', '3.2.0',
     {'910b': 'supported', '910_93': 'supported', '310p': 'experimental'}),
    ('0.18.0', '0.18.0', ('3.10', '3.11'), '8.5.1', '2.9.0', '2.9.0', 'pypi', '3.2.0',
     {'910b': 'supported', '910_93': 'supported', '310p': 'experimental'}),
    ('0.23.0', '0.23.0', ('3.10', '3.12'), '9.1.0', '2.10.0', '2.10.0.post4', 'pypi', '3.2.2',
     {'910b': 'supported', '910_93': 'supported', '310p': 'experimental'}),
    ('0.23.0.post1', '0.23.0', ('3.10', '3.12'), '9.1.0', '2.10.0', '2.10.0.post4', 'pypi', '3.2.2',
     {'910b': 'supported', '910_93': 'supported', '310p': 'experimental'}),
    # the newest release candidate (opt-in): versioning_policy.md's v0.30.0rc1 line, its sdist's pins
    ('0.30.0rc2', '0.30.0', ('3.10', '3.12'), '9.2.0', '2.10.0', '2.10.0.post4', 'pypi', '3.2.2',
     {'910b': 'experimental', '910_93': 'experimental', '310p': 'experimental'}),
]


def _row(release):
    return [row for row in stack_matrix.RELEASES if row['release'] == release][0]


def test_releases_are_the_published_ones_in_order():
    assert [row['release'] for row in stack_matrix.RELEASES] == [entry[0] for entry in PUBLISHED]


@pytest.mark.parametrize('entry', PUBLISHED, ids=[entry[0] for entry in PUBLISHED])
def test_row_matches_published_table(entry):
    release, vllm, python, cann, torch, torch_npu, source, triton, chips = entry
    row = _row(release)
    assert set(row) == ROW_FIELDS
    assert row['vllm_ascend'] == release
    assert row['vllm'] == vllm
    assert (row['python_min'], row['python_max']) == python
    assert row['cann'] == cann
    assert row['torch'] == torch
    assert row['torch_npu'] == torch_npu
    assert row['torch_npu_source'] == source
    assert row['triton_ascend'] == triton
    assert row['chips'] == chips
    # upstream's versioning policy: "v0.23.0 post release, v0.23.0.post1" (opt-in here)
    assert row['status'] == {'0.23.0.post1': 'post', '0.30.0rc2': 'rc'}.get(release, 'final')
    # Graph modes of 0.23.0 need HDK 25.5.1 (its release notes, vllm-ascend PR #10555): a minimum.
    assert row['driver_min'] == ('25.5.1' if release.startswith(('0.23.0', '0.30.0')) else None)


def test_driver_advice():
    assert _row('0.13.0')['driver_recommended'] == '25.5'
    # vllm-ascend's documented release stack (mkdocs.yml release_hdk_version) and CANN 9.1.0's
    # release notes: HDK 26.0.RC1.
    assert _row('0.23.0')['driver_recommended'] == '26.0.rc1'
    assert [row['release'] for row in stack_matrix.RELEASES if row['driver_recommended']] == [
        '0.13.0', '0.23.0', '0.23.0.post1', '0.30.0rc2']


def test_default_driver_meets_every_recommendation():
    for row in stack_matrix.RELEASES:
        for advice in (row['driver_min'], row['driver_recommended']):
            if advice:
                assert compare_versions(stack_matrix.DEFAULT_DRIVER, advice) >= 0, row['release']


def test_triton_ascend_is_not_for_310p_on_0_23_0():
    assert _row('0.23.0')['triton_ascend_excluded_chips'] == ['310p']


@pytest.mark.parametrize('row', stack_matrix.RELEASES, ids=lambda row: row['release'])
def test_row_invariants(row):
    assert compare_versions(row['python_min'], row['python_max']) <= 0
    assert set(row['chips']) <= set(stack_matrix.CHIP_FAMILIES)
    assert set(row['chips'].values()) <= set(stack_matrix.SUPPORT_LEVELS)
    assert row['torch_npu_source'] in stack_matrix.TORCH_NPU_SOURCES
    assert set(row['triton_ascend_excluded_chips']) <= set(row['chips'])
    assert row['status'] in ('final', 'post', 'rc')
    assert row['wheel_chips'] is None or set(row['wheel_chips']) <= set(row['chips'])
    for key in PAIR_KEYS:
        compare_versions(row[key], row[key])


def test_rows_are_ordered_oldest_first():
    releases = [row['release'] for row in stack_matrix.RELEASES]
    for older, newer in zip(releases, releases[1:]):
        assert compare_versions(older, newer) < 0


def test_default_release_is_newest_final():
    assert stack_matrix.DEFAULT_RELEASE == default_release() == '0.23.0'


@pytest.mark.parametrize('row', stack_matrix.RELEASES, ids=lambda row: row['release'])
def test_every_row_resolves_to_itself(row):
    stack = resolve_stack(row['release'])
    for key in PAIR_KEYS + ('python_min', 'python_max', 'triton_ascend', 'driver_min',
                            'driver_recommended', 'chips', 'status', 'torch_npu_source'):
        assert stack[key] == row[key], key
    assert stack['release'] == row['release']
    assert stack['listed'] is True
    assert stack['overridden'] == []
    assert stack['warnings'] == []
    assert stack['driver'] is None
    assert stack['image']['tag'] == 'v' + row['release']
    assert stack['image']['ref'] == 'quay.io/ascend/vllm-ascend:v' + row['release']


def test_unsupported_families_have_reasons_and_are_in_no_row():
    assert set(stack_matrix.UNSUPPORTED_CHIP_FAMILIES) == {'910', '310b'}
    assert 'bf16' in stack_matrix.UNSUPPORTED_CHIP_FAMILIES['910']['reason']
    for family, info in stack_matrix.UNSUPPORTED_CHIP_FAMILIES.items():
        assert info['reason']
        assert all(family not in row['chips'] for row in stack_matrix.RELEASES)


def test_chip_aliases_do_not_overlap():
    seen = {}
    for table in (stack_matrix.CHIP_FAMILIES, stack_matrix.UNSUPPORTED_CHIP_FAMILIES):
        for family, info in table.items():
            assert family in info['aliases']
            for alias in info['aliases']:
                assert alias not in seen, (alias, seen.get(alias), family)
                seen[alias] = family


def test_image_rule_is_data():
    assert stack_matrix.IMAGE['repository'] == 'quay.io/ascend/vllm-ascend'
    assert stack_matrix.IMAGE['tag_prefix'] == 'v'
    assert stack_matrix.IMAGE['chip_suffixes'] == {'910b': '', '910_93': '-a3', '310p': '-310p'}
    assert stack_matrix.IMAGE['os_suffixes'] == {'ubuntu': '', 'openeuler': '-openeuler'}


def test_published_images_per_release():
    # v0.9.1 has no Dockerfile.a3: no A3 image of that release.
    assert _row('0.9.1')['image_chips'] == ['910b']
    assert sorted(resolve_stack('0.9.1')['image']['tags']) == ['910b']
    assert sorted(resolve_stack('0.11.0')['image']['tags']) == ['310p', '910_93', '910b']


def test_the_post_release_wheel_serves_a2_only_and_needs_the_ascend_mirror():
    # v0.23.0.post1 installation.md: the wheel route "supports only A2"; PyPI has its sdist only.
    row = _row('0.23.0.post1')
    assert row['wheel_chips'] == ['910b']
    assert row['pip_indexes'] == {'ascend-mirror': ['vllm-ascend==0.23.0.post1', 'triton-ascend==3.2.2']}
    # ... as every wheel the package indexes publish (tests/unit/fixtures/metadata/vllm-ascend-build-info.txt).
    assert all(r['wheel_chips'] == ['910b'] for r in stack_matrix.RELEASES)


def test_ray_is_what_the_upstream_images_install():
    # Dockerfiles of v0.11.0 ... v0.23.0: ray>=2.47.1,<=2.48.0 (v0.9.1: ray>=2.47.1).
    assert {row['release']: row['ray'] for row in stack_matrix.RELEASES} == dict(
        (row['release'], '2.48.0') for row in stack_matrix.RELEASES)
    assert resolve_stack('0.23.0')['ray'] == '2.48.0'


def test_rows_inherit_what_they_do_not_list():
    rows = stack_matrix._inherit([
        {'release': '1', 'status': 'final', 'vllm': '1', 'vllm_ascend': '1', 'notes': '', 'cann': 'a',
         'chips': {'910b': 'supported'}},
        {'release': '2', 'status': 'rc', 'vllm': '2', 'vllm_ascend': '2', 'notes': 'n', 'cann': 'b'},
    ])
    assert rows[1] == {'release': '2', 'status': 'rc', 'vllm': '2', 'vllm_ascend': '2', 'notes': 'n', 'cann': 'b',
                       'chips': {'910b': 'supported'}}
    # each row holds its own copy
    rows[1]['chips']['310p'] = 'experimental'
    assert rows[0]['chips'] == {'910b': 'supported'}
    with pytest.raises(ValueError, match='stack row 3 does not name notes'):
        stack_matrix._inherit(rows + [{'release': '3', 'status': 'rc', 'vllm': '3', 'vllm_ascend': '3'}])
    # every field of every published row is there whole
    assert all(set(row) == set(stack_matrix.RELEASES[0]) for row in stack_matrix.RELEASES)
