# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""resolve_stack and the checks built on it: chips, Python, driver, package names, images."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

import copy

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import stack_matrix
from ansible_collections.ascend.vllm.plugins.module_utils.stack import (
    StackError,
    chip_family,
    chip_support,
    default_release,
    driver_check,
    image_ref,
    matrix_data,
    package_names,
    python_ok,
    release_row,
    resolve_stack,
)

HINT = ' Set ascend_stack_allow_unlisted: true to accept it.'
ACCEPTED = ' Accepted because ascend_stack_allow_unlisted is true.'


def _error(*args, **kwargs):
    with pytest.raises(StackError) as info:
        resolve_stack(*args, **kwargs)
    return str(info.value)


# ---------------------------------------------------------------------------------------------
# Releases

def test_default_is_newest_final():
    assert resolve_stack()['release'] == '0.23.0'
    assert resolve_stack('')['release'] == '0.23.0'
    assert resolve_stack('  ')['release'] == '0.23.0'


@pytest.mark.parametrize('spelling', ['0.18.0', ' 0.18.0 ', 'v0.18.0', '0.18'])
def test_release_spellings(spelling):
    assert resolve_stack(spelling)['release'] == '0.18.0'


def test_unknown_release_lists_known_ones():
    assert _error('0.20.0') == ("ascend_stack_release: unknown release '0.20.0'; known releases: "
                                "0.9.1, 0.11.0, 0.13.0, 0.18.0, 0.23.0, 0.23.0.post1, 0.30.0rc2")


def test_release_must_be_a_string():
    assert _error(0.9) == ("ascend_stack_release must be a string such as '0.23.0' (quote it in YAML), "
                           "got float 0.9")


def test_release_row_is_a_copy():
    row = release_row('0.23.0')
    row['chips']['910b'] = 'partial'
    assert _row_of(stack_matrix.RELEASES, '0.23.0')['chips']['910b'] == 'supported'
    with pytest.raises(StackError, match='unknown release'):
        release_row('1.0.0')


# ---------------------------------------------------------------------------------------------
# Overrides: each key, each conflicting pair

@pytest.mark.parametrize('key, value, expected', [
    ('cann', '8.5.1',
     'cann=8.5.1 does not go with vllm_ascend=0.23.0 (0.23.0 needs cann 9.1.0; '
     'cann 8.5.1 belongs to vllm_ascend 0.18.0)'),
    ('vllm', '0.18.0',
     'vllm=0.18.0 does not go with vllm_ascend=0.23.0 (0.23.0 needs vllm 0.23.0; '
     'vllm 0.18.0 belongs to vllm_ascend 0.18.0)'),
    ('torch', '2.8.0',
     'torch=2.8.0 does not go with vllm_ascend=0.23.0 (0.23.0 needs torch 2.10.0; '
     'torch 2.8.0 belongs to vllm_ascend 0.13.0)'),
    ('torch_npu', '2.10.0.post5',
     'torch_npu=2.10.0.post5 does not go with vllm_ascend=0.23.0 (0.23.0 needs torch_npu 2.10.0.post4; '
     'torch_npu 2.10.0.post5 is not in the stack matrix)'),
    ('vllm_ascend', '0.23.1',
     'vllm_ascend=0.23.1 does not go with vllm=0.23.0 (0.23.0 needs vllm_ascend 0.23.0 or 0.23.0.post1; '
     'vllm_ascend 0.23.1 is not in the stack matrix)'),
])
def test_single_override_outside_the_matrix(key, value, expected):
    assert _error('0.23.0', {key: value}) == 'ascend_stack_overrides: ' + expected + '.' + HINT


def test_the_documented_message():
    assert _error('0.23.0', {'cann': '8.5.1'}) == (
        'ascend_stack_overrides: cann=8.5.1 does not go with vllm_ascend=0.23.0 (0.23.0 needs cann 9.1.0; '
        'cann 8.5.1 belongs to vllm_ascend 0.18.0). Set ascend_stack_allow_unlisted: true to accept it.')


def test_two_overrides_that_clash_with_each_other_and_the_release():
    message = _error('0.23.0', {'torch': '2.8.0', 'cann': '8.5.1'})
    assert message == (
        'ascend_stack_overrides: '
        'cann=8.5.1 does not go with vllm_ascend=0.23.0 (0.23.0 needs cann 9.1.0; '
        'cann 8.5.1 belongs to vllm_ascend 0.18.0); '
        'torch=2.8.0 does not go with vllm_ascend=0.23.0 (0.23.0 needs torch 2.10.0; '
        'torch 2.8.0 belongs to vllm_ascend 0.13.0); '
        'torch=2.8.0 does not go with cann=8.5.1 (8.5.1 needs torch 2.9.0; '
        'torch 2.8.0 belongs to cann 8.5.0).' + HINT)


def test_overrides_that_agree_with_each_other_are_not_a_pair():
    message = _error('0.23.0', {'torch': '2.9.0', 'cann': '8.5.1'})
    assert 'torch=2.9.0 does not go with cann' not in message
    assert message.count('does not go with') == 2


def test_pair_of_two_unlisted_overrides():
    message = _error('0.23.0', {'cann': '7.0.0', 'torch': '1.0.0'})
    assert ('torch=1.0.0 does not go with cann=7.0.0 (cann 7.0.0 is not in the stack matrix; '
            'torch 1.0.0 is not in the stack matrix)') in message


@pytest.mark.parametrize('key', ['vllm', 'cann', 'torch', 'torch_npu'])
def test_each_override_key_is_applied_when_allowed(key):
    value = stack_matrix.RELEASES[0][key]
    stack = resolve_stack('0.23.0', {key: value}, allow_unlisted=True)
    assert stack[key] == value
    assert stack['overridden'] == [key]
    assert stack['listed'] is False
    assert len(stack['warnings']) == 1
    assert stack['warnings'][0].startswith('ascend_stack_overrides: %s=%s does not go with vllm_ascend=0.23.0'
                                           % (key, value))
    assert stack['warnings'][0].endswith(ACCEPTED)
    assert stack['image']['matches_stack'] is False
    assert stack['python_max'] == '3.12'


def test_allow_unlisted_warning_text():
    stack = resolve_stack('0.23.0', {'cann': '8.5.1'}, True)
    assert stack['warnings'] == [
        'ascend_stack_overrides: cann=8.5.1 does not go with vllm_ascend=0.23.0 (0.23.0 needs cann 9.1.0; '
        'cann 8.5.1 belongs to vllm_ascend 0.18.0).' + ACCEPTED]
    assert stack['cann'] == '8.5.1'
    assert stack['vllm_ascend'] == '0.23.0'


@pytest.mark.parametrize('flag', [True, 'true', 'yes', 'True', 1])
def test_allow_unlisted_truthy_spellings(flag):
    assert resolve_stack('0.23.0', {'cann': '8.5.1'}, flag)['listed'] is False


@pytest.mark.parametrize('flag', [False, 'false', 'no', None, 0])
def test_allow_unlisted_falsy_spellings(flag):
    with pytest.raises(StackError, match='does not go with'):
        resolve_stack('0.23.0', {'cann': '8.5.1'}, flag)


def test_allow_unlisted_must_be_boolean():
    assert _error('0.23.0', {}, 'maybe') == ("ascend_stack_allow_unlisted must be a boolean (true or false), "
                                             "got string 'maybe'")


def test_vllm_ascend_override_to_another_row_takes_that_rows_metadata():
    row = release_row('0.18.0')
    overrides = dict((key, row[key]) for key in ('vllm_ascend', 'vllm', 'cann', 'torch', 'torch_npu'))
    stack = resolve_stack('0.23.0', overrides)
    assert stack['listed'] is True
    assert stack['release'] == '0.23.0'
    assert stack['overridden'] == ['vllm_ascend', 'vllm', 'cann', 'torch', 'torch_npu']
    assert stack['python_max'] == '3.11'
    assert stack['chips'] == row['chips']
    assert stack['triton_ascend'] == '3.2.0'
    assert stack['pip_check_expected'][2] == {'package': 'vllm', 'requires': 'torchaudio', 'missing': False, 'arch': None}
    assert stack['pip_check_expected'][-1] == {'package': 'xgrammar', 'requires': 'triton', 'missing': True,
                                               'arch': 'x86_64'}
    assert stack['image']['tag'] == 'v0.18.0'
    assert stack['warnings'] == [
        'ascend_stack_overrides: vllm_ascend=0.18.0 is release 0.18.0 of the stack matrix; '
        'set ascend_stack_release: 0.18.0 instead of overriding release 0.23.0']


def test_override_equal_to_the_row_keeps_the_rows_spelling():
    stack = resolve_stack('0.9.1', {'cann': '8.2.rc1', 'torch': '2.5.1'})
    assert stack['cann'] == '8.2.RC1'
    assert stack['overridden'] == []
    assert stack['listed'] is True


def test_null_and_empty_overrides_are_ignored():
    stack = resolve_stack('0.23.0', {'cann': None, 'torch': '', 'driver': None})
    assert stack['overridden'] == []
    assert stack['cann'] == '9.1.0'
    assert stack == resolve_stack('0.23.0', None)


def test_unknown_override_key():
    assert _error('0.23.0', {'pytorch': '2.9.0'}) == (
        "ascend_stack_overrides: unknown key 'pytorch'; allowed keys: "
        "vllm, vllm_ascend, cann, torch, torch_npu, driver")


def test_unknown_override_keys():
    assert _error('0.23.0', {'pytorch': '2.9.0', 'cann_toolkit': '9.1.0', 'cann': '9.1.0'}) == (
        "ascend_stack_overrides: unknown keys 'cann_toolkit', 'pytorch'; allowed keys: "
        "vllm, vllm_ascend, cann, torch, torch_npu, driver")


def test_overrides_must_be_a_mapping():
    assert _error('0.23.0', ['cann=8.5.1']) == (
        "ascend_stack_overrides must be a mapping such as {cann: '8.5.1'}, got list ['cann=8.5.1']")


def test_override_values_must_be_strings():
    assert _error('0.23.0', {'torch': 2.9}) == (
        "ascend_stack_overrides.torch must be a string such as '2.10.0' (quote version numbers in YAML), "
        "got float 2.9")
    assert _error('0.23.0', {'driver': 25}) == (
        "ascend_stack_overrides.driver must be a string such as '24.1.0' (quote version numbers in YAML), "
        "got integer 25")


# ---------------------------------------------------------------------------------------------
# Driver

def _matrix_with_driver_min(minimum):
    rows = copy.deepcopy(stack_matrix.RELEASES)
    _row_of(rows, '0.23.0')['driver_min'] = minimum
    return rows


def _row_of(rows, release):
    return [row for row in rows if row['release'] == release][0]


def test_driver_below_published_minimum_is_refused():
    message = _error('0.23.0', {'driver': '24.1.0'}, matrix=_matrix_with_driver_min('25.0.rc1'))
    assert message == ('ascend_stack_overrides: driver=24.1.0 is older than driver 25.0.rc1, the minimum '
                       'for vllm_ascend 0.23.0.' + HINT)


def test_driver_rc_is_older_than_the_final_minimum():
    message = _error('0.23.0', {'driver': '25.5.rc1'}, matrix=_matrix_with_driver_min('25.5.0'))
    assert 'driver=25.5.rc1 is older than driver 25.5.0' in message


def test_driver_below_recommended_warns_above_minimum():
    stack = resolve_stack('0.23.0', {'driver': '25.5'}, matrix=_matrix_with_driver_min('25.5.0'))
    assert stack['listed'] is True
    assert stack['warnings'] == [
        'ascend_stack_overrides: driver=25.5 is older than driver 26.0.rc1, recommended for vllm_ascend 0.23.0']


@pytest.mark.parametrize('driver', ['26.0.rc1', '26.1.rc1'])
def test_driver_at_or_above_minimum(driver):
    stack = resolve_stack('0.23.0', {'driver': driver}, matrix=_matrix_with_driver_min('25.5.0'))
    assert stack['listed'] is True
    assert stack['driver'] == driver
    assert stack['driver_min'] == '25.5.0'
    assert stack['overridden'] == ['driver']
    assert stack['warnings'] == []


def test_driver_below_minimum_accepted_when_allowed():
    stack = resolve_stack('0.23.0', {'driver': '24.1.rc3'}, True, matrix=_matrix_with_driver_min('24.1.0'))
    assert stack['listed'] is False
    assert stack['warnings'] == ['ascend_stack_overrides: driver=24.1.rc3 is older than driver 24.1.0, '
                                 'the minimum for vllm_ascend 0.23.0.' + ACCEPTED]


def test_driver_below_recommended_only_warns():
    stack = resolve_stack('0.13.0', {'driver': '24.1.0'})
    assert stack['listed'] is True
    assert stack['driver_min'] is None
    assert stack['driver_recommended'] == '25.5'
    assert stack['warnings'] == ['ascend_stack_overrides: driver=24.1.0 is older than driver 25.5, '
                                 'recommended for vllm_ascend 0.13.0']
    assert resolve_stack('0.13.0', {'driver': '25.5.0'})['warnings'] == []


def test_driver_must_be_a_version():
    assert _error('0.23.0', {'driver': 'latest'}) == (
        "ascend_stack_overrides.driver: cannot read version 'latest': it does not start with a number "
        "(expected forms such as 24.1.rc3, 25.5.0, 7.5.0.1.129, 8.2.RC1, 2.8.0.post2)")


def test_driver_check_levels():
    assert driver_check('0.13.0', '24.1.0') == (
        'below_recommended', 'NPU driver 24.1.0 is older than 25.5, recommended for vllm-ascend 0.13.0')
    assert driver_check('0.13.0', '25.5.rc1')[0] == 'below_recommended'
    assert driver_check('0.13.0', '25.5.0') == ('ok', 'NPU driver 25.5.0 is suitable for vllm-ascend 0.13.0')
    assert driver_check('0.23.0', '25.5.0') == (
        'below_minimum', 'NPU driver 25.5.0 is older than 25.5.1, the minimum for vllm-ascend 0.23.0')
    # 25.5.1 .. 26.0.rc1 (the HDK upstream validates 0.23.0 with) warns.
    assert driver_check('0.23.0', '25.5.1')[0] == 'below_recommended'
    assert driver_check('0.23.0', '26.0.rc1')[0] == 'ok'
    assert driver_check('0.18.0', '23.0.3')[0] == 'ok'
    assert driver_check('0.23.0', None) == ('unknown', 'no NPU driver version to check against vllm-ascend 0.23.0')
    stack = resolve_stack('0.23.0', matrix=_matrix_with_driver_min('25.0.rc1'))
    assert driver_check(stack, '24.1.0') == (
        'below_minimum', 'NPU driver 24.1.0 is older than 25.0.rc1, the minimum for vllm-ascend 0.23.0')


# ---------------------------------------------------------------------------------------------
# Custom matrices

def test_default_release_skips_release_candidates():
    rows = copy.deepcopy(stack_matrix.RELEASES)
    candidate = copy.deepcopy(_row_of(rows, '0.23.0'))
    candidate.update(release='0.24.0rc1', vllm_ascend='0.24.0rc1', status='rc')
    rows.append(candidate)
    assert default_release(rows) == '0.23.0'
    assert resolve_stack(None, matrix=rows)['release'] == '0.23.0'
    assert resolve_stack('0.24.0rc1', matrix=rows)['status'] == 'rc'


def test_shared_values_are_joined():
    rows = copy.deepcopy(stack_matrix.RELEASES)
    # pretend 0.18.0 shares torch 2.10.0 with 0.23.0 and its post release
    _row_of(rows, '0.18.0')['torch'] = _row_of(rows, '0.23.0')['torch']
    message = _error('0.13.0', {'torch': '2.10.0'}, matrix=rows)
    assert '(0.13.0 needs torch 2.8.0; torch 2.10.0 belongs to vllm_ascend 0.18.0, 0.23.0, 0.23.0.post1 or 0.30.0rc2)' in message


# ---------------------------------------------------------------------------------------------
# Chips

@pytest.mark.parametrize('name, family', [
    ('910b', '910b'), ('910B3', '910b'), ('ascend910b3', '910b'), ('Ascend910B4', '910b'), ('A2', '910b'),
    ('910_93', '910_93'), ('ascend910_9392', '910_93'), ('Ascend910_9391', '910_93'), ('A3', '910_93'),
    ('310p', '310p'), ('310P3', '310p'), ('ascend310p1', '310p'),
    ('950dt', '950dt'), ('Ascend950DT', '950dt'),
    ('910', '910'), ('910A', '910'), ('Ascend910ProB', '910'), ('910PremiumA', '910'), ('Ascend910', '910'),
    ('310B4', '310b'), ('ascend310b1', '310b'),
    ('310', None), ('h100', None), ('', None), (None, None),
])
def test_chip_family(name, family):
    assert chip_family(name) == family


def test_chip_support_levels_per_release():
    expected = {
        '0.9.1': {'910b': 'supported', '910_93': 'partial', '310p': 'unsupported', '950dt': 'unsupported'},
        '0.11.0': {'910b': 'supported', '910_93': 'supported', '310p': 'experimental', '950dt': 'unsupported'},
        '0.13.0': {'910b': 'supported', '910_93': 'supported', '310p': 'experimental', '950dt': 'unsupported'},
        '0.18.0': {'910b': 'supported', '910_93': 'supported', '310p': 'experimental', '950dt': 'unsupported'},
        '0.23.0': {'910b': 'supported', '910_93': 'supported', '310p': 'experimental', '950dt': 'unsupported'},
    }
    for release, chips in expected.items():
        for chip, level in chips.items():
            assert chip_support(release, chip)[0] == level, (release, chip)
        assert chip_support(release, '910A')[0] == 'unsupported'
        assert chip_support(release, '310B4')[0] == 'unsupported'


def test_chip_support_messages():
    assert chip_support('0.23.0', 'ascend910b3') == (
        'supported', 'Atlas A2 (Ascend 910B) is supported by vllm-ascend 0.23.0')
    assert chip_support('0.9.1', '910_93') == (
        'partial', 'Atlas A3 (Ascend 910_93) is partially supported in vllm-ascend 0.9.1; '
                   'fully supported in: 0.11.0, 0.13.0, 0.18.0, 0.23.0, 0.23.0.post1')
    assert chip_support('0.23.0', '310P3') == (
        'experimental', 'Atlas 300I Duo (Ascend 310P) is experimental in vllm-ascend 0.23.0; '
                        'no release supports it fully yet')
    # Not listed until its package and image names are known (stack_matrix).
    # The 950 is refused with the reason: no citable driver / firmware package names.
    level, message = chip_support('0.23.0', 'Ascend950PR')
    assert level == 'unsupported' and message.startswith(
        'Ascend 950 (A5: 950PR, 950DT) is not supported by vllm-ascend 0.23.0; upstream builds vllm-ascend images '
        'for it (Dockerfile.a5 from v0.21.0rc1), but its driver and firmware package names are not published')
    assert chip_support('0.23.0', '910A') == (
        'unsupported', 'Ascend 910 (910A, first generation) is not supported by any vllm-ascend release: '
                       'it has no bf16 support, which every vllm-ascend release requires')
    assert chip_support('0.23.0', '310B1') == (
        'unsupported', 'Ascend 310B (Atlas 200I A2 edge modules) is not supported by any vllm-ascend release: '
                       'vllm-ascend builds no operators for this edge SoC')
    assert chip_support('0.23.0', 'gpu') == (
        'unknown', "'gpu' is not a known Ascend chip family; known: 910b, 910_93, 310p, 950dt; "
                   "not supported by any release: 910, 310b")


def test_bare_910_hints_at_a3():
    level, message = chip_support('0.23.0', '910')
    assert level == 'unsupported'
    assert message.endswith('. On Atlas A3 npu-smi names the chip Ascend910: pass its SoC name '
                            '(e.g. ascend910_9392) or the family 910_93')


def test_chip_support_takes_a_resolved_stack():
    stack = resolve_stack('0.9.1')
    assert chip_support(stack, '310p')[0] == 'unsupported'
    with pytest.raises(StackError, match='expected a stack resolved by stack_resolve or a release string, got list'):
        chip_support(['0.9.1'], '910b')


# ---------------------------------------------------------------------------------------------
# Python

@pytest.mark.parametrize('release, version, expected', [
    ('0.9.1', '3.9.18', True),
    ('0.9.1', '3.11.7', True),
    ('0.9.1', '3.12.1', False),
    ('0.9.1', '3.8.10', False),
    ('0.13.0', '3.9.18', False),
    ('0.13.0', '3.10', True),
    ('0.18.0', '3.11.7', True),
    ('0.23.0', '3.12.3', True),
    ('0.23.0', '3.13.0', False),
    ('0.23.0', '4.10.0', False),
])
def test_python_ok(release, version, expected):
    assert python_ok(release, version) is expected


def test_python_version_must_be_readable():
    with pytest.raises(StackError) as info:
        python_ok('0.23.0', 'three')
    assert str(info.value) == "python version: cannot read a Python version from 'three' (expected e.g. 3.11.7)"


# ---------------------------------------------------------------------------------------------
# Package names

def test_package_names_cann_9():
    assert package_names('0.23.0', '910b', 'aarch64') == {
        'toolkit': 'Ascend-cann-toolkit_9.1.0_linux-aarch64.run',
        'ops': 'Ascend-cann-910b-ops_9.1.0_linux-aarch64.run',
        'nnal': 'Ascend-cann-nnal_9.1.0_linux-aarch64.run',
    }
    assert package_names('0.23.0', 'ascend910_9392', 'x86_64')['ops'] == 'Ascend-cann-A3-ops_9.1.0_linux-x86_64.run'


def test_package_names_cann_8():
    assert package_names('0.13.0', '310P3', 'x86_64') == {
        'toolkit': 'Ascend-cann-toolkit_8.5.0_linux-x86_64.run',
        'ops': 'Ascend-cann-310p-ops_8.5.0_linux-x86_64.run',
        'nnal': 'Ascend-cann-nnal_8.5.0_linux-x86_64.run',
    }
    assert package_names('0.9.1', '910_93', 'arm64') == {
        'toolkit': 'Ascend-cann-toolkit_8.2.RC1_linux-aarch64.run',
        'ops': 'Atlas-A3-cann-kernels_8.2.RC1_linux-aarch64.run',
        'nnal': 'Ascend-cann-nnal_8.2.RC1_linux-aarch64.run',
    }


def test_package_names_follow_an_overridden_cann():
    stack = resolve_stack('0.23.0', {'cann': '8.5.1'}, allow_unlisted=True)
    assert package_names(stack, '910b', 'aarch64')['ops'] == 'Ascend-cann-910b-ops_8.5.1_linux-aarch64.run'


def test_package_names_refuse_unknown_chip_and_arch():
    with pytest.raises(StackError) as info:
        package_names('0.23.0', '950dt', 'aarch64')
    assert str(info.value) == "no CANN package naming is known for chip '950dt'; known chips: 910b, 910_93, 310p"
    with pytest.raises(StackError) as info:
        package_names('0.23.0', '910b', 'ppc64le')
    assert str(info.value) == "architecture 'ppc64le' is not one of: x86_64, aarch64"


# ---------------------------------------------------------------------------------------------
# Images and matrix data

def test_image_refs():
    assert image_ref('0.23.0') == 'quay.io/ascend/vllm-ascend:v0.23.0'
    assert image_ref('0.23.0', 'ascend910_9392') == 'quay.io/ascend/vllm-ascend:v0.23.0-a3'
    assert image_ref('0.18.0', '310p', 'openEuler') == 'quay.io/ascend/vllm-ascend:v0.18.0-310p-openeuler'
    assert image_ref('0.11.0', '910b', 'openeuler') == 'quay.io/ascend/vllm-ascend:v0.11.0-openeuler'


def test_image_tags_only_for_chips_of_the_release():
    assert sorted(resolve_stack('0.9.1')['image']['tags']) == ['910b']
    with pytest.raises(StackError, match="no container image is known for chip '310p'; known chips: 910b"):
        image_ref('0.9.1', '310p')
    with pytest.raises(StackError, match="no container image is known for chip '910_93'; known chips: 910b"):
        image_ref('0.9.1', '910_93')
    with pytest.raises(StackError, match="image OS 'centos' is not one of: ubuntu, openeuler"):
        image_ref('0.23.0', '910b', 'centos')


def test_image_follows_overridden_vllm_ascend():
    stack = resolve_stack('0.23.0', {'vllm_ascend': '0.23.1'}, allow_unlisted=True)
    assert stack['image']['ref'] == 'quay.io/ascend/vllm-ascend:v0.23.1'
    assert stack['image']['matches_stack'] is True


def test_matrix_data_is_a_copy():
    data = matrix_data()
    assert data['default_release'] == '0.23.0'
    assert [row['release'] for row in data['releases']] == ['0.9.1', '0.11.0', '0.13.0', '0.18.0', '0.23.0', '0.23.0.post1', '0.30.0rc2']
    assert data['unsupported_chip_families']['910']['reason']
    data['releases'][0]['cann'] = 'changed'
    data['image']['chip_suffixes']['910b'] = '-changed'
    assert stack_matrix.RELEASES[0]['cann'] == '8.2.RC1'
    assert stack_matrix.IMAGE['chip_suffixes']['910b'] == ''


def test_driver_target_is_the_override_else_the_collection_default():
    assert resolve_stack('0.23.0')['driver_target'] == '26.0.rc1'
    assert resolve_stack('0.23.0')['driver'] is None
    assert resolve_stack('0.23.0', {'driver': '26.0.rc1'})['driver_target'] == '26.0.rc1'
