"""Draft a row of plugins/module_utils/stack_matrix.py for a vllm-ascend release from what it
publishes: the wheel's metadata (Requires-Python, the torch / torch-npu / triton-ascend pins), its
build info (the chip it is built for) and manylinux tag (the glibc it needs), the manylinux tags of
the pinned torch-npu and torch, and the release's Dockerfiles (CANN, vLLM, Ray, the chips an image
is built for).

    python scripts/draft_stack_row.py 0.30.0rc2 --source DIR [--wheel FILE] [--status rc]

DIR holds the release's files: an unpacked sdist (vllm_ascend-<v>.tar.gz) or a checkout of the
tag. Without --wheel the cp311 aarch64 wheel is downloaded with pip (the machine's configuration,
no dependencies). The row is printed as Python, ready to review and paste; what the published
files do not say (support levels, pip check conflicts, driver advice, notes) is marked TODO.
"""
import argparse
import glob
import json
import os
import pprint
import re
import subprocess
import sys
import tempfile
import zipfile

ARCH = 'aarch64'
LEVELS = [17, 24, 27, 28, 31, 34, 35, 39]
# Dockerfile suffix -> chip family of the stack matrix.
IMAGE_CHIPS = {'': '910b', '.a3': '910_93', '.310p': '310p', '.a5': '950dt'}
BUILD_CHIPS = {'A2': '910b', 'A3': '910_93', '_310P': '310p', 'A5': '950dt'}
LEGACY = {'manylinux2014': 17, 'manylinux2010': 12, 'manylinux1': 5}


def glibc_of(filename):
    """The oldest glibc (2.N) a wheel's manylinux tags run on, or None."""
    levels = [int(n) for n in re.findall(r'manylinux_2_(\d+)_', filename)]
    levels += [LEGACY[name] for name in re.findall(r'(manylinux2014|manylinux2010|manylinux1)_', filename)]
    return '2.%d' % min(levels) if levels else None


def pip_pick(requirement, dest):
    """The wheel pip takes for ``requirement`` (oldest manylinux level first), downloaded to ``dest``
    when ``dest`` is given, else only reported: its file name."""
    platforms = ['--platform', 'manylinux2014_%s' % ARCH]
    for level in LEVELS:
        platforms += ['--platform', 'manylinux_2_%d_%s' % (level, ARCH)]
    common = ['--no-deps', '--only-binary=:all:', '--python-version', '3.11', '--implementation', 'cp'] + platforms
    if dest:
        subprocess.run([sys.executable, '-m', 'pip', 'download', '-q', '-d', dest] + common + [requirement], check=True)
        return glob.glob(os.path.join(dest, '*.whl'))[0]
    with tempfile.TemporaryDirectory() as work:
        report = os.path.join(work, 'report.json')
        subprocess.run([sys.executable, '-m', 'pip', 'install', '-q', '--dry-run', '--ignore-installed', '--target',
                        os.path.join(work, 't'), '--report', report] + common + [requirement], check=True)
        with open(report) as handle:
            return json.load(handle)['install'][0]['download_info']['url'].rsplit('/', 1)[1]


def wheel_facts(path, source=None):
    """Requires-Python, the pins and the build's chip of a vllm-ascend wheel; without a wheel
    (PyPI publishes some releases as an sdist only) the pins of the sdist's PKG-INFO in ``source``."""
    if path is None:
        with open(os.path.join(source, 'PKG-INFO')) as handle:
            meta, build = handle.read(), ''
    else:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            meta = archive.read([n for n in names if n.endswith('.dist-info/METADATA')][0]).decode()
            build = archive.read('vllm_ascend/_build_info.py').decode() if 'vllm_ascend/_build_info.py' in names else ''
    python = re.search(r'^Requires-Python:\s*>=\s*(\d+\.\d+)', meta, re.M)
    pins = dict((name.lower().replace('_', '-'), version) for name, version in
                re.findall(r'^Requires-Dist:\s*([A-Za-z0-9_.-]+)\s*==\s*([^\s;,]+)', meta, re.M))
    device = re.search(r"__device_type__\s*=\s*'([^']+)'", build)
    soc = re.search(r"__soc_version__\s*=\s*'([^']+)'", build)
    chip = BUILD_CHIPS.get(device.group(1)) if device else ('910b' if soc and '910B' in soc.group(1).upper() else None)
    return {'python_min': python.group(1) if python else None, 'pins': pins, 'wheel_chip': chip,
            'glibc': glibc_of(os.path.basename(path)) if path else None}


def source_facts(source):
    """CANN, vLLM, Ray, the image's Python and the image chips from the release's Dockerfiles."""
    facts = {'image_chips': [], 'cann': None, 'vllm': None, 'ray': None, 'python_max': None, 'omp_num_threads': None}
    for suffix, chip in IMAGE_CHIPS.items():
        path = os.path.join(source, 'Dockerfile' + suffix)
        if not os.path.exists(path):
            continue
        facts['image_chips'].append(chip)
        with open(path) as handle:
            text = handle.read()
        if suffix:
            continue
        cann = re.search(r'^ARG CANN_VERSION="?([0-9][0-9A-Za-z.]*)', text, re.M)
        vllm = re.search(r'^ARG VLLM_TAG="?v?([0-9][0-9A-Za-z.]*)', text, re.M)
        ray = re.search(r"ray>=[0-9.]+,<=([0-9.]+)", text)
        python = re.search(r'-py(3\.\d+)\s*$', re.search(r'^FROM .*$', text, re.M).group(0)) if 'FROM' in text else None
        omp = re.search(r'OMP_NUM_THREADS=(\d+)', text)
        facts.update(cann=cann.group(1) if cann else None, vllm=vllm.group(1) if vllm else None,
                     ray=ray.group(1) if ray else None, python_max=python.group(1) if python else None,
                     omp_num_threads=omp.group(1) if omp else None)
    return facts


def draft(version, wheel, source, status='rc', pick=pip_pick):
    """The row as a dict; ``pick`` gives the wheel file name pip takes for a requirement."""
    facts = wheel_facts(wheel, source)
    image = source_facts(source)
    pins = facts['pins']
    glibc = {'vllm-ascend': facts['glibc']}
    for name, key in (('torch-npu', 'torch-npu'), ('torch', 'torch')):
        if pins.get(key):
            glibc[name] = glibc_of(pick('%s==%s' % (name, pins[key]), None))
    todo = 'TODO: not in the published files'
    return {
        'release': version,
        'status': status,
        'vllm': image['vllm'],
        'vllm_ascend': version,
        'python_min': facts['python_min'],
        'python_max': image['python_max'],
        'cann': image['cann'],
        'torch': pins.get('torch'),
        'torch_npu': pins.get('torch-npu'),
        'torch_npu_source': 'pypi',
        'triton_ascend': pins.get('triton-ascend'),
        'triton_ascend_excluded_chips': todo,
        'pip_check_expected': todo,
        'pip_indexes': todo,
        'image_chips': image['image_chips'],
        'wheel_chips': ([facts['wheel_chip']] if facts['wheel_chip'] else None) if wheel
        else 'TODO: PyPI publishes no wheel of this release (its sdist only)',
        'binds_cpus_on': todo,
        'ray': image['ray'],
        'glibc': dict((name, floor) for name, floor in glibc.items() if floor),
        'chips': dict((chip, 'TODO: support level') for chip in image['image_chips']),
        'driver_min': todo,
        'driver_recommended': todo,
        'notes': '',
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('version')
    parser.add_argument('--source', required=True, help='the release files (unpacked sdist or a checkout of the tag)')
    parser.add_argument('--wheel', help='a cp311 wheel of the release (default: downloaded with pip)')
    parser.add_argument('--status', default='rc', choices=['final', 'post', 'rc'])
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        wheel = args.wheel
        if not wheel:
            try:
                wheel = pip_pick('vllm-ascend==%s' % args.version, work)
            except subprocess.CalledProcessError:
                wheel = None  # an sdist-only release: its PKG-INFO in --source
        row = draft(args.version, wheel, args.source, args.status)
    print(pprint.pformat(row, indent=4, width=110, sort_dicts=False))


if __name__ == '__main__':
    main()
