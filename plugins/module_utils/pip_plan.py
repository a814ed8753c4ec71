# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The pip steps that put a resolved stack into a node's virtualenv, per architecture and chip.

Upstream's order (vllm-project/vllm-ascend Dockerfiles at v0.9.1 ... v0.23.0): vLLM first, then
``pip uninstall -y triton`` - vLLM's torch (PyPI's CUDA build) brings the CUDA ``triton`` (on
x86_64; from torch 2.11.0 on aarch64 too), which does not work on Ascend and whose ``triton``
package directory triton-ascend also installs - then vllm-ascend with its pins. On chips a row excludes from triton-ascend (310P at
0.23.0: Dockerfile.310p, "Atlas 300I DUO does not support triton or triton-ascend" in the
installation guide) vllm-ascend still pulls it in, so it is uninstalled afterwards and
``pip check`` then reports it missing, which the row expects.

Indexes: the published torch-npu wheels for x86_64 require ``torch==X+cpu``, which only the
PyTorch CPU index serves; a row's ``pip_indexes`` lists what else only another index publishes
(triton-ascend 3.2.2 for 0.23.0). A configuration that names no index but PyPI cannot install
those: ``problems`` says so before anything is installed.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ascend.vllm.plugins.module_utils import stack as stack_utils
from ansible_collections.ascend.vllm.plugins.module_utils import stack_matrix


class PlanError(Exception):
    """A stack or node the plan cannot be made for."""


ARCHES = ('aarch64', 'x86_64')


def _triton_ascend_here(stack, family):
    return bool(stack.get('triton_ascend')) and family not in (stack.get('triton_ascend_excluded_chips') or [])


def accepted_conflicts(accept, variable='vllm_service_pip_check_accept'):
    """The site's own accepted ``pip check`` conflicts, written as the matrix's ``pip_check_expected``
    (``"package -> requires"``, optionally ``(missing, aarch64|x86_64)``), as ``{package, requires,
    missing, arch}`` dicts."""
    if accept is None:
        return []
    if isinstance(accept, (str, bytes)) or not isinstance(accept, (list, tuple)):
        raise PlanError('%s: expected a list of "package -> requires" strings, got %s' % (variable, type(accept).__name__))
    try:
        return stack_utils.pip_check_expected({'release': variable, 'pip_check_expected': list(accept)})
    except stack_utils.StackError as exc:
        raise PlanError('%s: %s' % (variable, str(exc).split(': ', 1)[1]))


def pip_plan(stack, arch, family, index_url=None, extra_index_urls=None, wheelhouse=False, accept=None):
    """The pip steps of ``stack`` on a node of ``arch`` with chips of ``family``.

    Returns ``first`` and ``second`` (requirement lists, installed in that order), ``remove_after_first``
    and ``remove_after_second`` (distributions to uninstall when present), ``reinstall_after_second``
    (written anew, without dependencies, when the second removal took something), ``expected`` (the pip
    check conflicts to accept: the row's own, where triton-ascend is removed its absence, and the site's
    own ``accept``),
    ``indexes`` (``{index, label, requirements}`` the install needs beyond PyPI) and ``problems``
    (``{what, variable, fix}`` when the configured indexes cannot serve them).
    """
    if arch not in ARCHES:
        raise PlanError('architecture %r: Ascend packages exist for %s only' % (arch, ', '.join(ARCHES)))
    for key in ('vllm', 'vllm_ascend', 'torch', 'torch_npu'):
        if not stack.get(key):
            raise PlanError('the stack has no %s version' % key)
    gets_triton = _triton_ascend_here(stack, family)
    second = ['vllm-ascend==%s' % stack['vllm_ascend'], 'torch==%s' % stack['torch'],
              'torch-npu==%s' % stack['torch_npu']]
    if gets_triton:
        second.append('triton-ascend==%s' % stack['triton_ascend'])
    expected = [dict(entry) for entry in list(stack.get('pip_check_expected') or []) + accepted_conflicts(accept)
                if entry.get('arch') in (None, arch)]
    # x86_64: vllm-ascend's xgrammar (>=0.1.30) brings the CUDA triton back over triton-ascend's
    # files; out again, and triton-ascend written anew (upstream's v0.23.0 Dockerfile:
    # pip uninstall -y triton triton-ascend && pip install triton-ascend==3.2.2).
    remove_after_second = ['triton'] if arch == 'x86_64' else []
    reinstall_after_second = ['triton-ascend==%s' % stack['triton_ascend']] if gets_triton and remove_after_second else []
    if stack.get('triton_ascend') and not gets_triton:
        remove_after_second = ['triton-ascend', 'triton']
        expected.append({'package': 'vllm-ascend', 'requires': 'triton-ascend', 'missing': True, 'arch': None})

    needs = {}
    for index, requirements in sorted((stack.get('pip_indexes') or {}).items()):
        needs.setdefault(index, []).extend(requirements)
    if arch == 'x86_64':
        needs.setdefault('pytorch-cpu', []).append('torch==%s+cpu' % stack['torch'])
    indexes = [{'index': index, 'label': stack_matrix.PIP_INDEXES.get(index, index), 'requirements': reqs}
               for index, reqs in sorted(needs.items())]
    problems = []
    if indexes and not wheelhouse and not index_url and not list(extra_index_urls or []):
        problems.append({
            'what': 'vllm-ascend %s on %s needs %s, which PyPI does not publish: %s' % (
                stack['vllm_ascend'], arch,
                ', '.join(req for entry in indexes for req in entry['requirements']),
                '; '.join('%s from %s' % (', '.join(entry['requirements']), entry['label']) for entry in indexes)),
            'variable': 'vllm_service_pip_extra_index_urls',
            'fix': 'add those indexes (or your mirrors of them) to vllm_service_pip_extra_index_urls, point '
                   'vllm_service_pip_index_url at a mirror that holds them, or install from a wheelhouse '
                   '(vllm_service_pip_wheelhouse)'})
    wheel_chips = stack.get('wheel_chips')
    # A chip the release does not support at all is preflight's chip_support refusal, not this one.
    if wheel_chips is not None and family not in wheel_chips and family in (stack.get('chips') or {}):
        labels = [stack_matrix.CHIP_FAMILIES.get(chip, {}).get('label', chip) for chip in wheel_chips]
        image = ((stack.get('image') or {}).get('tags') or {}).get(family)
        problems.append({
            'what': 'the vllm-ascend %s wheel on the package indexes is built for %s and cannot serve the %s NPUs of '
                    'this node (from 0.13.0 its NPU worker stops with "Current device type ... does not match the '
                    "installed version's device type\")" % (
                        stack['vllm_ascend'], ', '.join(labels),
                        stack_matrix.CHIP_FAMILIES.get(family, {}).get('label', family or 'unknown')),
            'variable': 'vllm_service_install_method',
            'fix': 'set vllm_service_install_method: container for this node (%s), or run the venv method on %s '
                   'nodes only' % (
                       'upstream\'s image %s:%s' % (stack['image']['repository'], image['ubuntu']) if image
                       else 'no image of this release serves the chip either: choose a release that publishes one '
                            'with ascend_stack_release',
                       ', '.join(labels))})
    return {
        'first': ['vllm==%s' % stack['vllm']],
        'remove_after_first': ['triton'],
        'second': second,
        'remove_after_second': remove_after_second,
        'reinstall_after_second': reinstall_after_second,
        'expected': expected,
        'indexes': indexes,
        'problems': problems,
    }


def source_builds(report):
    """Names of the packages pip's installation report (``pip install --dry-run --report -``) would
    build on the node: every item whose ``download_info.url`` is not a wheel - a source
    distribution, a directory or a VCS checkout (pip's "Installation Report" format, version 1:
    ``install`` is a list of ``{download_info: {url, ...}, metadata: {name, version}, ...}``).
    Building them takes a C and C++ tool chain (vllm-ascend's installation guide at v0.23.0: gcc, g++,
    cmake and libnuma-dev / numactl-devel before pip installs it)."""
    install = (report or {}).get('install') if isinstance(report, dict) else None
    if not isinstance(install, list):
        raise ValueError('the pip installation report has no "install" list: %r' % (report,))
    builds = []
    for item in install:
        url = ((item or {}).get('download_info') or {}).get('url') or ''
        name = ((item or {}).get('metadata') or {}).get('name') or url
        if not url.split('?', 1)[0].split('#', 1)[0].endswith('.whl') and name not in builds:
            builds.append(name)
    return builds
