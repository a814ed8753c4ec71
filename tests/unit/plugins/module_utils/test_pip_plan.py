# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""The pip steps of a stack per architecture and chip, and the indexes they need."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.pip_plan import PlanError, pip_plan, source_builds
from ansible_collections.ascend.vllm.plugins.module_utils.stack import resolve_stack


def test_upstream_order_on_an_a2_kunpeng_node():
    plan = pip_plan(resolve_stack('0.23.0'), 'aarch64', '910b', wheelhouse=True)
    assert plan['first'] == ['vllm==0.23.0']
    # vLLM's torch 2.11.0 requires the CUDA triton on aarch64 too: out before vllm-ascend.
    assert plan['remove_after_first'] == ['triton']
    assert plan['second'] == ['vllm-ascend==0.23.0', 'torch==2.10.0', 'torch-npu==2.10.0.post4', 'triton-ascend==3.2.2']
    assert plan['remove_after_second'] == [] and plan['reinstall_after_second'] == []
    # x86_64-only expectations (xgrammar's CUDA triton) are left out on aarch64.
    assert [(e['package'], e['requires']) for e in plan['expected']] == [
        ('vllm', 'torch'), ('vllm', 'torchvision'), ('vllm', 'torchaudio'), ('humming-kernels', 'triton')]
    assert plan['indexes'] == [{'index': 'ascend-mirror', 'requirements': ['triton-ascend==3.2.2'],
                                'label': "Huawei's Ascend pip mirror (the extra index vllm-ascend's installation "
                                         "guide names for triton-ascend)"}]
    assert plan['problems'] == []


def test_x86_64_needs_the_pytorch_cpu_index():
    plan = pip_plan(resolve_stack('0.18.0'), 'x86_64', '910b')
    assert [(i['index'], i['requirements']) for i in plan['indexes']] == [('pytorch-cpu', ['torch==2.9.0+cpu'])]
    assert plan['problems'] == [{
        'what': 'vllm-ascend 0.18.0 on x86_64 needs torch==2.9.0+cpu, which PyPI does not publish: torch==2.9.0+cpu '
                "from the PyTorch CPU wheel index (the extra index vllm-ascend's installation guide names for x86_64: "
                "torch-npu's x86_64 wheels require torch's +cpu build)",
        'variable': 'vllm_service_pip_extra_index_urls',
        'fix': 'add those indexes (or your mirrors of them) to vllm_service_pip_extra_index_urls, point '
               'vllm_service_pip_index_url at a mirror that holds them, or install from a wheelhouse '
               '(vllm_service_pip_wheelhouse)'}]
    # Any configured index (a site's mirror) or a wheelhouse is taken as serving them.
    assert pip_plan(resolve_stack('0.18.0'), 'x86_64', '910b', extra_index_urls=['https://mirror.example/cpu'])['problems'] == []
    assert pip_plan(resolve_stack('0.18.0'), 'x86_64', '910b', index_url='https://mirror.example/simple')['problems'] == []
    # aarch64 takes torch-npu's plain torch from PyPI: 0.18.0 needs nothing else.
    assert pip_plan(resolve_stack('0.18.0'), 'aarch64', '910b')['problems'] == []


def test_310p_on_0_23_0_removes_triton_ascend_after_vllm_ascend():
    plan = pip_plan(resolve_stack('0.23.0'), 'aarch64', '310p')
    assert 'triton-ascend==3.2.2' not in plan['second']
    assert plan['remove_after_second'] == ['triton-ascend', 'triton']
    assert plan['expected'][-1] == {'package': 'vllm-ascend', 'requires': 'triton-ascend', 'missing': True, 'arch': None}
    assert plan['reinstall_after_second'] == []
    # vllm-ascend still pulls it in before it is removed: the mirror is needed on 310P too.
    assert plan['problems'][0]['what'].startswith('vllm-ascend 0.23.0 on aarch64 needs triton-ascend==3.2.2,')


def test_bad_input():
    with pytest.raises(PlanError, match="architecture 'ppc64le': Ascend packages exist for aarch64, x86_64 only"):
        pip_plan(resolve_stack('0.23.0'), 'ppc64le', '910b')
    with pytest.raises(PlanError, match='the stack has no torch_npu version'):
        pip_plan(dict(resolve_stack('0.23.0'), torch_npu=''), 'aarch64', '910b')


def test_x86_64_removes_the_triton_xgrammar_brings_back_and_rewrites_triton_ascend():
    plan = pip_plan(resolve_stack('0.23.0'), 'x86_64', '910b', wheelhouse=True)
    assert plan['remove_after_first'] == ['triton']
    assert plan['remove_after_second'] == ['triton']
    assert plan['reinstall_after_second'] == ['triton-ascend==3.2.2']
    assert {'package': 'xgrammar', 'requires': 'triton', 'missing': True, 'arch': 'x86_64'} in plan['expected']
    # Without triton-ascend (0.11.0 pins none) nothing is rewritten.
    assert pip_plan(resolve_stack('0.11.0'), 'x86_64', '910b', wheelhouse=True)['reinstall_after_second'] == []


def test_a_malformed_expectation_is_refused():
    from ansible_collections.ascend.vllm.plugins.module_utils.stack import StackError, pip_check_expected
    with pytest.raises(StackError, match=r"pip_check_expected entry 'vllm -> torch \(sometimes\)' is not"):
        pip_check_expected({'release': 'x', 'pip_check_expected': ['vllm -> torch (sometimes)']})


def test_the_post_release_takes_vllm_ascend_itself_from_the_ascend_mirror():
    # PyPI publishes vllm-ascend 0.23.0.post1 as an sdist only; its wheel is on the Ascend mirror.
    plan = pip_plan(resolve_stack('0.23.0.post1'), 'aarch64', '910b')
    assert plan['second'][0] == 'vllm-ascend==0.23.0.post1'
    assert [entry['requirements'] for entry in plan['indexes']] == [['vllm-ascend==0.23.0.post1', 'triton-ascend==3.2.2']]
    assert [p['what'] for p in plan['problems']] == [
        'vllm-ascend 0.23.0.post1 on aarch64 needs vllm-ascend==0.23.0.post1, triton-ascend==3.2.2, which PyPI does '
        "not publish: vllm-ascend==0.23.0.post1, triton-ascend==3.2.2 from Huawei's Ascend pip mirror (the extra "
        "index vllm-ascend's installation guide names for triton-ascend)"]
    assert pip_plan(resolve_stack('0.23.0.post1'), 'aarch64', '910b', extra_index_urls=['https://mirror.example/ascend'])['problems'] == []


@pytest.mark.parametrize('release', ['0.9.1', '0.11.0', '0.13.0', '0.18.0', '0.23.0', '0.23.0.post1'])
@pytest.mark.parametrize('family, label, image', [
    ('910_93', 'Atlas A3 (Ascend 910_93)', 'v{v}-a3'),
    ('310p', 'Atlas 300I Duo (Ascend 310P)', 'v{v}-310p'),
])
def test_the_published_wheel_is_refused_where_it_does_not_serve_the_chip(release, family, label, image):
    # Every published wheel is an A2 build (vllm_ascend/_build_info.py); from 0.13.0 its worker
    # refuses another chip (vllm_ascend/utils.py check_ascend_device_type).
    stack = resolve_stack(release)
    plan = pip_plan(stack, 'aarch64', family, wheelhouse=True)
    if family not in stack['chips']:
        # 0.9.1 does not support the 300I Duo at all: preflight's chip_support says so, once.
        assert (release, family, plan['problems']) == ('0.9.1', '310p', [])
        return
    tags = stack['image']['tags']
    where = ("upstream's image quay.io/ascend/vllm-ascend:" + image.format(v=stack['vllm_ascend']) if family in tags
             else 'no image of this release serves the chip either: choose a release that publishes one with '
                  'ascend_stack_release')
    assert plan['problems'] == [{
        'what': 'the vllm-ascend %s wheel on the package indexes is built for Atlas A2 (Ascend 910B) and cannot serve '
                'the %s NPUs of this node (from 0.13.0 its NPU worker stops with "Current device type ... does not '
                'match the installed version\'s device type")' % (stack['vllm_ascend'], label),
        'variable': 'vllm_service_install_method',
        'fix': 'set vllm_service_install_method: container for this node (%s), or run the venv method on Atlas A2 '
               '(Ascend 910B) nodes only' % where}]
    assert pip_plan(stack, 'aarch64', '910b', wheelhouse=True)['problems'] == []


def test_a_site_accepts_its_own_conflicts_per_architecture():
    accept = ['torch -> triton (missing, x86_64)', 'mylib -> numpy']
    x86 = pip_plan(resolve_stack('0.23.0'), 'x86_64', '910b', wheelhouse=True, accept=accept)
    assert x86['expected'][-2:] == [
        {'package': 'torch', 'requires': 'triton', 'missing': True, 'arch': 'x86_64'},
        {'package': 'mylib', 'requires': 'numpy', 'missing': False, 'arch': None}]
    arm = pip_plan(resolve_stack('0.23.0'), 'aarch64', '910b', wheelhouse=True, accept=accept)
    assert [(e['package'], e['requires']) for e in arm['expected']][-1] == ('mylib', 'numpy')
    assert ('torch', 'triton') not in [(e['package'], e['requires']) for e in arm['expected']]
    # Without it, only the row's own.
    assert len(pip_plan(resolve_stack('0.23.0'), 'x86_64', '910b', wheelhouse=True)['expected']) == len(x86['expected']) - 2


@pytest.mark.parametrize('accept, message', [
    ('torch -> triton', 'vllm_service_pip_check_accept: expected a list of "package -> requires" strings, got str'),
    (['torch triton'], 'vllm_service_pip_check_accept: pip_check_expected entry \'torch triton\' is not '
                       '"package -> requires" with optional (missing, aarch64|x86_64)'),
    (['torch -> triton (absent)'], "vllm_service_pip_check_accept: pip_check_expected entry 'torch -> triton (absent)'"),
])
def test_accepted_conflicts_refuse_what_they_cannot_read(accept, message):
    with pytest.raises(PlanError) as exc:
        pip_plan(resolve_stack('0.23.0'), 'x86_64', '910b', wheelhouse=True, accept=accept)
    assert str(exc.value).startswith(message)


# pip's installation report, version 1 (pip docs, "Installation Report"): one item per package
# to install, its download_info.url where pip found it.
def report_item(name, url):
    return {'download_info': {'url': url, 'archive_info': {'hashes': {'sha256': '0' * 64}}},
            'is_direct': False, 'requested': True, 'metadata': {'name': name, 'version': '0.23.0'}}


def test_source_builds_are_the_items_that_are_not_wheels():
    report = {'version': '1', 'install': [
        report_item('vllm', 'file:///var/cache/wheels/vllm-0.23.0-cp38-abi3-manylinux1_x86_64.whl'),
        report_item('vllm-ascend', 'https://mirror.test/simple/vllm-ascend/vllm_ascend-0.23.0.tar.gz#sha256=00'),
        report_item('torch-npu', 'https://mirror.test/torch_npu-2.10.0.post4-cp311-cp311-manylinux_2_28_aarch64.whl?x=1'),
        {'download_info': {'url': 'git+https://example.test/repo.git', 'vcs_info': {'vcs': 'git'}},
         'metadata': {'name': 'from-git', 'version': '1'}},
    ]}
    assert source_builds(report) == ['vllm-ascend', 'from-git']


def test_nothing_to_install_builds_nothing():
    assert source_builds({'version': '1', 'install': []}) == []


def test_a_report_without_an_install_list_is_refused():
    with pytest.raises(ValueError, match='no "install" list'):
        source_builds({'version': '1'})
