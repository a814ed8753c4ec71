# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""``pip check`` output, and which of its conflicts a stack row expects.

A vllm-ascend venv never passes a plain ``pip check``: upstream installs vLLM first and
vllm-ascend after it, and vllm-ascend pins an older torch than vLLM's own wheel (vllm 0.23.0
requires torch==2.11.0, vllm-ascend 0.23.0 torch==2.10.0; upstream tells users to ignore
vLLM's complaint, vllm-project/vllm-ascend issues #3266 and #5710), and the CUDA triton some of
vLLM's dependencies want is uninstalled on purpose. The gate therefore accepts exactly the
conflicts a row declares (per architecture, see module_utils/pip_plan.py) and fails on every
other line, naming the packages.

The line formats are pip's own (src/pip/_internal/commands/check.py):
``<name> <version> has requirement <req>, but you have <dist> <version>.``,
``<name> <version> requires <req>, which is not installed.`` and, from pip 24.2,
``<name> <version> is not supported on this platform``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

_CONFLICT = re.compile(r'^(?P<name>\S+) (?P<version>\S+) has requirement (?P<requirement>.+), '
                       r'but you have (?P<dist>\S+) (?P<installed>\S+?)\.?$')
_MISSING = re.compile(r'^(?P<name>\S+) (?P<version>\S+) requires (?P<requirement>.+), which is not installed\.?$')
_UNSUPPORTED = re.compile(r'^(?P<name>\S+) (?P<version>\S+) is not supported on this platform\.?$')
_REQ_NAME = re.compile(r'^\s*([A-Za-z0-9][A-Za-z0-9._-]*)')
_CLEAN = 'No broken requirements found.'


def canonical(name):
    """PEP 503 normalized project name (torch_npu, Torch.NPU -> torch-npu)."""
    return re.sub(r'[-_.]+', '-', str(name)).lower()


def parse(stdout):
    """``pip check`` stdout -> list of problems, each a dict with ``kind`` (``conflict``,
    ``missing``, ``unsupported`` or ``unknown``), ``package`` (canonical name of the package
    whose requirement is broken), ``version``, ``requires`` (canonical name of the required
    project, None for ``unsupported``/``unknown``) and ``line`` (as pip printed it)."""
    problems = []
    for raw in (stdout or '').splitlines():
        line = raw.strip()
        if not line or line == _CLEAN:
            continue
        for kind, pattern in (('conflict', _CONFLICT), ('missing', _MISSING), ('unsupported', _UNSUPPORTED)):
            match = pattern.match(line)
            if match:
                break
        if not match:
            problems.append({'kind': 'unknown', 'package': None, 'version': None, 'requires': None, 'line': line})
            continue
        groups = match.groupdict()
        requires = None
        if kind == 'conflict':
            requires = canonical(groups['dist'])
        elif kind == 'missing':
            name = _REQ_NAME.match(groups['requirement'])
            requires = canonical(name.group(1)) if name else None
        problems.append({'kind': kind, 'package': canonical(groups['name']), 'version': groups['version'],
                         'requires': requires, 'line': line})
    return problems


def verdict(stdout, rc, expected):
    """Split ``pip check``'s problems into the ones a stack row expects and the rest.

    ``expected``: list of ``{package, requires}`` (names in any spelling): a *conflict* of
    ``package`` on ``requires`` (a version mismatch) is expected; with ``missing: true`` the
    entry accepts ``requires`` being absent instead (triton-ascend removed on 310P).
    Returns ``{ok, expected, unexpected}`` with the pip lines of each; ``ok`` is false when any
    unexpected problem is left, or when pip failed (rc != 0) without printing a problem it
    recognises (its output is then the problem).
    """
    allowed = set(('missing' if e.get('missing') else 'conflict', canonical(e['package']), canonical(e['requires']))
                  for e in expected or [])
    problems = parse(stdout)
    accepted = [p['line'] for p in problems if (p['kind'], p['package'], p['requires']) in allowed]
    rest = [p['line'] for p in problems if p['line'] not in accepted]
    if int(rc) != 0 and not problems:
        rest.append('pip check exited with rc %s and printed no problem' % rc)
    return {'ok': not rest, 'expected': accepted, 'unexpected': rest}
