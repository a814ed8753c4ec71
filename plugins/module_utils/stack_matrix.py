# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""The vllm-ascend stack matrix, as data.

One row per vllm-ascend release this collection knows how to install. A row is the set of
versions upstream tests together (its versioning policy); ``ascend_stack_release`` picks one and
``plugins/module_utils/stack.py`` resolves and validates it. Adding a release means adding a row
here and nothing else: the resolver, the filters and preflight read everything from this file.
Rows are written oldest first, and each row after the first lists only what differs from the row
before it (``release``, ``status``, ``vllm``, ``vllm_ascend`` and ``notes`` always); ``RELEASES``
holds every row whole.

Field meanings:

``release``            the vllm-ascend version that names the row (``ascend_stack_release``)
``status``             ``final``, ``post`` (a post release of a final, as upstream's versioning policy
                       names v0.23.0.post1) or ``rc``; the default release is the newest ``final``,
                       ``post`` and ``rc`` rows are chosen explicitly
``vllm``/``vllm_ascend`` pip versions
``python_min``/``python_max``  inclusive ``major.minor`` range of the service interpreter
``cann``               one version shared by the CANN toolkit, the chip ops (kernels) and NNAL
``torch``/``torch_npu`` pip versions; ``torch_npu_source`` says where the wheel comes from
                       (a key of ``TORCH_NPU_SOURCES``)
``triton_ascend``      pinned triton-ascend version, or None when the release pins none;
                       ``triton_ascend_excluded_chips`` lists chip families that must not get it
``pip_check_expected`` the ``pip check`` conflicts this row always has, as ``"package -> requires"``
                       (a version mismatch of ``package``'s requirement on ``requires``), with
                       ``(missing)`` for a requirement removed on purpose and an architecture in
                       the parentheses when only it has the conflict: vLLM's wheel pins a newer
                       torch (and torchvision / torchaudio, xformers on x86_64, opencv) than
                       vllm-ascend, and upstream installs vllm-ascend last and ignores the
                       complaint (vllm-project/vllm-ascend issues #3266, #5710); the CUDA triton
                       that xgrammar (x86_64) and humming-kernels want is uninstalled, as
                       upstream's images do. Any other conflict fails.
``wheel_chips``        chip families the published vllm-ascend wheel serves, None for every family of
                       ``chips``; on the others the venv method is refused (use the image). Every
                       wheel PyPI publishes is an A2 build: ``vllm_ascend/_build_info.py`` in the
                       cp311 aarch64 wheels of 0.13.0, 0.18.0 and 0.23.0 says ``__device_type__ =
                       'A2'`` (0.11.0: ``__soc_version__ = 'ASCEND910B1'``; 0.9.1's
                       ``libvllm_ascend_kernels.so`` is compiled for ascend910b1), and upstream's
                       release workflow (``.github/workflows/schedule_release_code_and_wheel.yml``
                       at v0.18.0 and v0.23.0) uploads only that build. From v0.13.0 the NPU worker
                       compares the chip it finds with the build (``vllm_ascend/utils.py``
                       ``check_ascend_device_type``, called from ``vllm_ascend/worker/worker.py``) and
                       stops with "Current device type ... does not match the installed version's
                       device type" (vllm-project/vllm-ascend issues #11160, #9799, #6206)
``image_chips``        chip families upstream publishes an image of this release for (a
                       Dockerfile per family at the tag); the others have none
``ray``                the Ray that multi-node serving with Ray's executor installs: what upstream's
                       images of the release install (``ray>=2.47.1,<=2.48.0`` in the Dockerfiles of
                       v0.11.0 ... v0.23.0, ``ray>=2.47.1`` at v0.9.1), the newest it admits
``binds_cpus_on``      architectures where vllm-ascend binds its own threads, memory and NPU IRQs
                       by default (vllm_ascend/cpu_binding.py: on by default and ARM-only from
                       v0.15.0rc1, off by default before); the service then adds no binding
                       of its own
``pip_indexes``        index (a key of ``PIP_INDEXES``) -> the row's requirements that only it
                       publishes (PyPI does not); x86_64's PyTorch CPU index is added for every row
                       by ``module_utils/pip_plan.py``

The torch, torch-npu, triton-ascend and Python values follow the ``Requires-Dist`` /
``Requires-Python`` that PyPI publishes for each vllm-ascend wheel (where the release notes or a
docs table differ, the published metadata wins: it is what pip installs); a committed copy of that
metadata is in ``tests/unit/fixtures/metadata`` and a unit test holds every row to it.
``chips``              chip family -> support level (a key of ``SUPPORT_LEVELS``); a family not
                       listed is not supported by that release
``driver_min``         hard minimum NPU driver, None unless upstream publishes one
``driver_recommended`` driver upstream recommends; preflight warns below it but does not fail,
                       because upstream states it as advice, and enforcing it would force a driver
                       upgrade (and a reboot) that the release does not require
``glibc``              package -> the oldest glibc (``2.N``) its published wheels of the row run on
                       (their manylinux tags, PEP 600; ``tests/unit/fixtures/metadata/wheel-tags.txt``),
                       the same on aarch64 and x86_64; ``torch`` is PyPI's aarch64 wheel (x86_64 takes
                       the PyTorch CPU index's build). On an older glibc pip finds no wheel: it builds
                       vllm-ascend from source (a C++ build against CANN that upstream documents
                       only with gcc > 8) and finds nothing at all for torch-npu, which publishes no
                       sdist; preflight's ``glibc`` check refuses the venv method there. vLLM is left
                       out: the stack builds it from its sdist with VLLM_TARGET_DEVICE=empty
                       anyway where no wheel fits (no compiler needed)
``notes``              free text for reports
"""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

import copy

SUPPORT_LEVELS = {
    'supported': 'supported',
    'partial': 'partially supported',
    'experimental': 'experimental',
}

# Chip families as named in CANN package names and by this collection. ``aliases`` are the
# spellings that npu-smi, SoC names and Atlas product names use for the same family (matched
# after lower-casing and dropping a leading "ascend"); ``prefixes`` catch the numbered variants
# (910B1..910B4, 310P1/310P3, 910_9391/910_9392 ...).
CHIP_FAMILIES = {
    '910b': {
        'label': 'Atlas A2 (Ascend 910B)',
        'aliases': ['910b', 'a2'],
        'prefixes': ['910b'],
    },
    '910_93': {
        'label': 'Atlas A3 (Ascend 910_93)',
        'aliases': ['910_93', 'a3', '91093'],
        'prefixes': ['910_9'],
    },
    '310p': {
        'label': 'Atlas 300I Duo (Ascend 310P)',
        'aliases': ['310p'],
        'prefixes': ['310p'],
    },
    # The Ascend 950 ("A5"): npu-smi names its chips Ascend950PR and Ascend950DT (gpustack/gpustack
    # issue 6148; vllm-ascend setup.py get_chip_type builds SOC_VERSION ascend950dt_9582 from them),
    # PCI device 0xd806 (Huawei's driver sources, ascend_bug_report.sh PCIE_BDF_950). No release row
    # lists it: see 'unlisted'.
    '950dt': {
        'label': 'Ascend 950 (A5: 950PR, 950DT)',
        'aliases': ['950dt', '950', 'a5'],
        'prefixes': ['950dt', '950pr'],
        'unlisted': ('upstream builds vllm-ascend images for it (Dockerfile.a5 from v0.21.0rc1), but its driver '
                     'and firmware package names are not published where this collection can take them from, so '
                     'no release installs it here; serve it with an image on a node prepared by the vendor'),
    },
}

# Families that no vllm-ascend release supports, with the reason preflight reports.
UNSUPPORTED_CHIP_FAMILIES = {
    '910': {
        'label': 'Ascend 910 (910A, first generation)',
        'aliases': ['910', '910a'],
        'prefixes': ['910a', '910pro', '910premium'],
        'reason': 'it has no bf16 support, which every vllm-ascend release requires',
    },
    '310b': {
        'label': 'Ascend 310B (Atlas 200I A2 edge modules)',
        'aliases': ['310b'],
        'prefixes': ['310b'],
        'reason': 'vllm-ascend builds no operators for this edge SoC',
    },
}

# Package indexes beyond PyPI that a row may need (named, not located: sites use their own
# mirrors of them, given in vllm_service_pip_index_url / vllm_service_pip_extra_index_urls).
PIP_INDEXES = {
    'ascend-mirror': "Huawei's Ascend pip mirror (the extra index vllm-ascend's installation guide names "
                     "for triton-ascend)",
    'pytorch-cpu': "the PyTorch CPU wheel index (the extra index vllm-ascend's installation guide names for "
                   "x86_64: torch-npu's x86_64 wheels require torch's +cpu build)",
}

TORCH_NPU_SOURCES = {
    'pypi': 'published on PyPI',
    'huawei-mirror': 'published only on the Huawei pip mirror, not on PyPI',
    'manual-wheel': 'not published on any index: download the wheel and install it from a file',
}

# Container images built by upstream for each release. The tag is ``v<vllm_ascend>`` followed by
# the chip suffix and then the OS suffix, e.g. v0.23.0, v0.23.0-a3, v0.23.0-310p-openeuler.
# A chip family without an entry in ``chip_suffixes`` has no published image.
IMAGE = {
    'repository': 'quay.io/ascend/vllm-ascend',
    'tag_prefix': 'v',
    'chip_suffixes': {
        '910b': '',
        '910_93': '-a3',
        '310p': '-310p',
    },
    'os_suffixes': {
        'ubuntu': '',
        'openeuler': '-openeuler',
    },
}

_ROWS = [
    {
        'release': '0.9.1',
        'status': 'final',
        'vllm': '0.9.1',
        'vllm_ascend': '0.9.1',
        'python_min': '3.9',
        'python_max': '3.11',
        'cann': '8.2.RC1',
        'torch': '2.5.1',
        'torch_npu': '2.5.1.post1',
        'torch_npu_source': 'pypi',
        'triton_ascend': None,
        'triton_ascend_excluded_chips': [],
        # vllm 0.9.1 pins torch 2.7.0, torchvision 0.22.0, torchaudio 2.7.0; vllm-ascend moves
        # torch to 2.5.1 and torchvision below 0.21, and leaves torchaudio (pinned to torch 2.7.0).
        # ... the newest opencv (5.x, for vLLM's >=4.11.0) wants numpy>=2 and vllm-ascend moves
        # numpy below 2 (vllm-project/vllm-ascend PR #3713); xformers pins vLLM's torch on x86_64.
        'pip_check_expected': ['vllm -> torch', 'vllm -> torchvision', 'torchaudio -> torch',
                               'opencv-python-headless -> numpy', 'xformers -> torch (x86_64)',
                               'xgrammar -> triton (missing, x86_64)'],
        'pip_indexes': {},
        # v0.9.1 has Dockerfile and Dockerfile.openEuler only (CANN 8.2.rc1-910b): no A3 image.
        'image_chips': ['910b'],
        'wheel_chips': ['910b'],
        'binds_cpus_on': [],
        'ray': '2.48.0',
        'glibc': {'vllm-ascend': '2.17', 'torch-npu': '2.17', 'torch': '2.17'},
        'chips': {'910b': 'supported', '910_93': 'partial'},
        'driver_min': None,
        'driver_recommended': None,
        'notes': 'VLLM_USE_V1=1 must be set for the V1 engine.',
    },
    {
        'release': '0.11.0',
        'status': 'final',
        'vllm': '0.11.0',
        'vllm_ascend': '0.11.0',
        'cann': '8.3.RC2',
        'torch': '2.7.1',
        # The published vllm-ascend 0.11.0 requires torch-npu==2.7.1 (on PyPI), not the
        # 2.7.1.post1 of the release notes.
        'torch_npu': '2.7.1',
        # vllm 0.11.0 pins torch 2.8.0 / torchvision 0.23.0 / torchaudio 2.8.0; vllm-ascend pins
        # torch 2.7.1 and an unpinned torchvision (re-resolved to 0.22.1), not torchaudio.
        'pip_check_expected': ['vllm -> torch', 'vllm -> torchvision', 'torchaudio -> torch',
                               'xformers -> torch (x86_64)', 'xgrammar -> triton (missing, x86_64)'],
        'image_chips': ['910b', '910_93', '310p'],
        'glibc': {'vllm-ascend': '2.24', 'torch-npu': '2.28', 'torch': '2.28'},
        'chips': {'910b': 'supported', '910_93': 'supported', '310p': 'experimental'},
        'notes': '',
    },
    {
        'release': '0.13.0',
        'status': 'final',
        'vllm': '0.13.0',
        'vllm_ascend': '0.13.0',
        'python_min': '3.10',
        'cann': '8.5.0',
        'torch': '2.8.0',
        'torch_npu': '2.8.0.post2',
        'triton_ascend': '3.2.0',
        # vllm 0.13.0 pins torch 2.9.0 / torchvision 0.24.0 / torchaudio 2.9.0; vllm-ascend torch 2.8.0.
        'pip_check_expected': ['vllm -> torch', 'vllm -> torchvision', 'torchaudio -> torch',
                               'xgrammar -> triton (missing, x86_64)'],
        'driver_recommended': '25.5',
        'notes': 'Upstream recommends NPU driver 25.5.',
    },
    {
        'release': '0.18.0',
        'status': 'final',
        'vllm': '0.18.0',
        'vllm_ascend': '0.18.0',
        'cann': '8.5.1',
        'torch': '2.9.0',
        # The published vllm-ascend 0.18.0 requires torch-npu==2.9.0 and triton-ascend==3.2.0
        # (both on PyPI) and numpy<2.0.0; the release table's 2.9.0.post1+git4c901a4 does not
        # resolve against it.
        'torch_npu': '2.9.0',
        # vllm 0.18.0 pins torch 2.10.0 / torchvision 0.25.0 / torchaudio 2.10.0; vllm-ascend
        # pins all three to the 2.9.0 set.
        # ... and vLLM wants opencv >=4.13.0, vllm-ascend <=4.11.0.86 (vllm-project/vllm-ascend #8286).
        'pip_check_expected': ['vllm -> torch', 'vllm -> torchvision', 'vllm -> torchaudio',
                               'vllm -> opencv-python-headless', 'xgrammar -> triton (missing, x86_64)'],
        'binds_cpus_on': ['aarch64'],
        # Every README from v0.11.0 to v0.23.0 lists "Atlas 300I Duo (Experimental)" (and the FAQ
        # "[Experimental] Atlas 300I Inference series"), v0.18.0 included.
        # (chips: as the row before)
        'driver_recommended': None,
        'notes': 'vllm-ascend binds CPUs itself on ARM from this release: stop irqbalance.',
    },
    {
        'release': '0.23.0',
        'status': 'final',
        'vllm': '0.23.0',
        'vllm_ascend': '0.23.0',
        'python_max': '3.12',
        'cann': '9.1.0',
        'torch': '2.10.0',
        'torch_npu': '2.10.0.post4',
        'triton_ascend': '3.2.2',
        'triton_ascend_excluded_chips': ['310p'],
        # vllm 0.23.0 pins torch 2.11.0 / torchvision 0.26.0 / torchaudio 2.11.0; vllm-ascend
        # pins all three to the 2.10.0 set.
        # ... and vLLM's humming-kernels wants the CUDA triton on every architecture.
        'pip_check_expected': ['vllm -> torch', 'vllm -> torchvision', 'vllm -> torchaudio',
                               'humming-kernels -> triton (missing)', 'xgrammar -> triton (missing, x86_64)'],
        # triton-ascend 3.2.2 is not on PyPI (3.2.0 is the newest there).
        'pip_indexes': {'ascend-mirror': ['triton-ascend==3.2.2']},
        'glibc': {'vllm-ascend': '2.34', 'torch-npu': '2.28', 'torch': '2.28'},
        # Upstream builds 0.23.0 for the Ascend 950 too (CANN 9.1.0-950 base image, -a5 image tag in
        # the release workflow, -950dt in later docs), but no citable HDK driver / firmware file
        # names exist for it, so it is not listed: preflight names the chip (PCI 0xd806) and refuses
        # it with that reason (CHIP_FAMILIES['950dt']['unlisted']) instead of installing 910b packages.
        # (chips: as the row before)
        # Release notes of v0.23.0 (user_guide/release_notes.md, v0.21.0rc1): the FULL_AND_PIECEWISE
        # graph mode "Requires HDK 25.5.1+ / CANN 8.5.0+"; older stacks fail graph capture with "alloc
        # sq cq fail" (vllm-project/vllm-ascend PR #10555, v0.24.0rc1, turns that signature into
        # "Please upgrade Ascend HDK to 25.5.1 or later"). Every profile but the 310P one captures
        # graphs, so it is a minimum: preflight refuses an older driver.
        'driver_min': '25.5.1',
        # The HDK upstream validates this release with: release_hdk_version "26.0.RC1" beside
        # release_vllm_ascend_version 0.23.0 and release_cann_version 9.1.0 in vllm-ascend's
        # mkdocs.yml (as published in the v0.30.0rc2 sdist); CANN 9.1.0's release notes
        # (hiascend.com CANNCommunityEdition 9.1.0 release-notes.md) match it to HDK 26.0.RC1 and
        # list 25.5.X as compatible, so 25.5.1 .. 26.0.rc1 warns and below 25.5.1 is refused.
        'driver_recommended': '26.0.rc1',
        'notes': 'triton-ascend is not installed on 310P; graph mode needs HDK 25.5.1 or newer.',
    },
    {
        # v0.23.0.post1 (upstream's "v0.23.0 post release", 2026-09-21): vLLM 0.23.0 and the pins of
        # 0.23.0 (its PKG-INFO: the same torch, torch-npu, torchvision, torchaudio, triton-ascend,
        # transformers; memfabric_hybrid / memcache_hybrid now ==1.2.0, outside this stack's
        # packages), bug fixes in the 310P and v1 model runners. PyPI publishes only its sdist;
        # the wheel is on Huawei's Ascend pip mirror, and its installation guide says of that route
        # "Currently, this installation method supports only A2. For A3, Atlas 300I DUO, Atlas
        # 200I Pro, or 950DT, use a pre-built image ... or source installation." Opt-in (status
        # post); 0.23.0 stays the default. On A3 / 310P the venv method is refused rather than built
        # from the sdist: with the mirror configured pip prefers its A2 wheel over PyPI's sdist.
        'release': '0.23.0.post1',
        'status': 'post',
        'vllm': '0.23.0',
        'vllm_ascend': '0.23.0.post1',
        'pip_indexes': {'ascend-mirror': ['vllm-ascend==0.23.0.post1', 'triton-ascend==3.2.2']},
        # Dockerfile, Dockerfile.a3 and Dockerfile.310p (and openEuler variants) in its sdist.
        # (image_chips: as the row before)
        # Its wheel is on the Ascend pip mirror, whose file names are not read here.
        'glibc': {'torch-npu': '2.28', 'torch': '2.28'},
        'notes': 'Opt-in post release of 0.23.0; its wheel (Ascend pip mirror) serves A2 only, A3 and 310P take '
                 'the container method.',
    },
    {
        # v0.30.0rc2, the newest release candidate (PyPI publishes its sdist only; drafted with
        # scripts/draft_stack_row.py from that sdist). Its PKG-INFO pins torch 2.10.0, torch-npu
        # 2.10.0.post4, torchvision 0.25.0, torchaudio 2.10.0 and triton-ascend 3.2.2 and asks
        # Python >= 3.10; its Dockerfile, Dockerfile.a3, Dockerfile.310p and Dockerfile.a5 build
        # vLLM v0.30.0 on CANN 9.2.0 (base image tag 9.2.0_20260930220649) with
        # ray>=2.47.1,<=2.48.0 and Python 3.12; docs/source/community/versioning_policy.md gives
        # Python ">= 3.10, < 3.13" and CANN 9.2.0 for the v0.30.0rc1 line. Its installation guide
        # says the pip route (Ascend pip mirror) "currently supports only A2 builds". vLLM 0.30.0
        # pins torch 2.13.0, torchvision 0.28.0, torchaudio 2.11.0 and humming-kernels 0.1.12
        # (which wants the CUDA triton): the same pip check conflicts as 0.23.0. Opt-in (status rc);
        # the Ascend 950 image (Dockerfile.a5) is listed, the chip itself is not supported here.
        'release': '0.30.0rc2',
        'status': 'rc',
        'vllm': '0.30.0',
        'vllm_ascend': '0.30.0rc2',
        'cann': '9.2.0',
        'pip_indexes': {'ascend-mirror': ['vllm-ascend==0.30.0rc2', 'triton-ascend==3.2.2']},
        'image_chips': ['910b', '910_93', '310p', '950dt'],
        'chips': {
            '910b': 'experimental',
            '910_93': 'experimental',
            '310p': 'experimental',
        },
        # No HDK is named for CANN 9.2.0; the newest upstream names (mkdocs.yml release_hdk_version).
        # (driver_recommended: as the row before)
        'notes': 'Opt-in release candidate (CANN 9.2.0, vLLM 0.30.0); its wheel (Ascend pip mirror) serves A2 '
                 'only, A3 and 310P take the container method.',
    },
]

# Fields every row names itself rather than take from the row before.
_OWN = ('release', 'status', 'vllm', 'vllm_ascend', 'notes')


def _inherit(rows):
    """Whole rows from rows that list what differs from the row before."""
    whole = []
    for row in rows:
        missing = [key for key in _OWN if key not in row]
        if missing:
            raise ValueError('stack row %s does not name %s' % (row.get('release'), ', '.join(missing)))
        merged = copy.deepcopy(whole[-1]) if whole else {}
        merged.update(copy.deepcopy(row))
        whole.append(merged)
    return whole


RELEASES = _inherit(_ROWS)

# The newest release with status "final"; kept in step with RELEASES by a unit test.
DEFAULT_RELEASE = '0.23.0'

# The NPU driver (Ascend HDK) installed when neither npu_driver_version nor
# ascend_stack_overrides.driver names one: the HDK upstream validates the default release with
# (26.0.RC1, see the 0.23.0 row; its firmware is 9.0.0.0.205), at least every row's
# driver_recommended. One place, read by preflight and npu_driver alike.
DEFAULT_DRIVER = '26.0.rc1'
