# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""pip check output (the line formats of pip's src/pip/_internal/commands/check.py) and the gate."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

from ansible_collections.ascend.vllm.plugins.module_utils import pip_check

ROW_0_23 = [{'package': 'vllm', 'requires': 'torch'}, {'package': 'vllm', 'requires': 'torchvision'},
            {'package': 'vllm', 'requires': 'torchaudio'}]
VLLM_LINES = (
    'vllm 0.23.0 has requirement torch==2.11.0, but you have torch 2.10.0+cpu.\n'
    'vllm 0.23.0 has requirement torchaudio==2.11.0, but you have torchaudio 2.10.0.\n'
    'vllm 0.23.0 has requirement torchvision==0.26.0, but you have torchvision 0.25.0.\n')


def test_parse_every_kind_of_line():
    problems = pip_check.parse(
        'Torch_NPU 2.10.0.post4 has requirement torch==2.10.0+cpu, but you have torch 2.11.0.\n'
        'vllm-ascend 0.23.0 requires triton-ascend==3.2.2, which is not installed.\n'
        'triton 3.6.0 is not supported on this platform\n'
        'something pip invents next year\n')
    assert [(p['kind'], p['package'], p['version'], p['requires']) for p in problems] == [
        ('conflict', 'torch-npu', '2.10.0.post4', 'torch'),
        ('missing', 'vllm-ascend', '0.23.0', 'triton-ascend'),
        ('unsupported', 'triton', '3.6.0', None),
        ('unknown', None, None, None)]
    assert pip_check.parse('No broken requirements found.\n') == []


def test_the_rows_expected_conflicts_pass():
    verdict = pip_check.verdict(VLLM_LINES, 1, ROW_0_23)
    assert verdict == {'ok': True, 'expected': VLLM_LINES.splitlines(), 'unexpected': []}
    assert pip_check.verdict('No broken requirements found.\n', 0, ROW_0_23)['ok'] is True


def test_any_other_problem_fails_naming_the_packages():
    text = VLLM_LINES + 'torch-npu 2.10.0.post4 has requirement torch==2.10.0+cpu, but you have torch 2.11.0.\n'
    verdict = pip_check.verdict(text, 1, ROW_0_23)
    assert verdict['ok'] is False
    assert verdict['unexpected'] == ['torch-npu 2.10.0.post4 has requirement torch==2.10.0+cpu, but you have torch 2.11.0.']
    # An expected pair only covers a version mismatch, never a missing package.
    missing = pip_check.verdict('vllm 0.23.0 requires torch, which is not installed.\n', 1, ROW_0_23)
    assert missing['unexpected'] == ['vllm 0.23.0 requires torch, which is not installed.']
    # Without expectations (a row that lists none) the old strict gate remains.
    assert pip_check.verdict(VLLM_LINES, 1, [])['ok'] is False


def test_a_failed_pip_without_a_problem_line_is_a_failure():
    verdict = pip_check.verdict('', 2, ROW_0_23)
    assert verdict == {'ok': False, 'expected': [], 'unexpected': ['pip check exited with rc 2 and printed no problem']}
