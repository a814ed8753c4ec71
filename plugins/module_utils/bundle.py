# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""What an offline bundle holds for chosen releases, chips, architectures and Pythons.

The bundle is built on a host that reaches the site's sources (vendor mirror, package indexes,
model mirror) and carried to a site that reaches none of them. Everything here is derived from
the same functions the roles use on the nodes, so the bundle holds what a converge asks for:

- vendor packages: ``stack.hdk_packages`` (npu_driver) and ``stack.package_names`` (cann) of each
  release's driver target and CANN version;
- wheels: the pip steps of ``pip_plan.pip_plan`` (vllm_service), each downloaded with its own
  dependencies in the order the node installs them (vLLM first, then vllm-ascend with the stack's
  pins; the two resolve different torch versions), plus the CANN Python requirements and Ray;
- container images: ``stack.image_ref`` per release and chip when asked for.

``pip download`` picks wheels for another machine only with ``--platform``, and pip does not
widen a ``manylinux_2_X`` platform to the older glibc levels (pip's compatibility_tags only
expands the legacy manylinux2014/2010 names), so ``pip_platforms`` lists every level the
target's glibc runs (PEP 600: manylinux_X_Y runs on glibc >= X.Y; PEP 599/571/513: the legacy
aliases manylinux2014 = 2_17, manylinux2010 = 2_12, manylinux1 = 2_5, the last two x86 only).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import posixpath
import re

from ansible_collections.ascend.vllm.plugins.module_utils import cann_checks
from ansible_collections.ascend.vllm.plugins.module_utils import pip_plan as pip_plan_utils
from ansible_collections.ascend.vllm.plugins.module_utils import stack as stack_utils


class BundleError(Exception):
    """A request the plan cannot be made for (the caller reports bundle_problems first)."""


# The layout a bundle has; the offline inventory (inventories/offline) names these directories.
LAYOUT = {
    'artifacts': 'artifacts',
    'wheels': 'wheels',
    'models': 'models',
    'images': 'images',
    'collections': 'collections',
}
# Oldest manylinux level per architecture (PEP 599: aarch64 starts at manylinux2014 = 2_17).
_MANYLINUX_FLOOR = {'x86_64': 5, 'aarch64': 17}
_LEGACY = (('manylinux2014', 17), ('manylinux2010', 12), ('manylinux1', 5))
_PYTHON_RE = re.compile(r'^3\.(\d{1,2})$')
_GLIBC_RE = re.compile(r'^2\.(\d{1,2})$')
_NAME_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9._+-]*$')


def pip_platforms(arch, glibc):
    """``--platform`` values for a node of ``arch`` whose glibc is ``glibc`` ("2.28"), newest first."""
    if arch not in _MANYLINUX_FLOOR:
        raise BundleError('architecture %r is not one of: %s' % (arch, ', '.join(sorted(_MANYLINUX_FLOOR))))
    match = _GLIBC_RE.match(str(glibc))
    if not match or int(match.group(1)) < _MANYLINUX_FLOOR[arch]:
        raise BundleError('glibc %r: expected 2.N with N >= %d for %s' % (glibc, _MANYLINUX_FLOOR[arch], arch))
    minor = int(match.group(1))
    platforms = ['manylinux_2_%d_%s' % (level, arch) for level in range(minor, _MANYLINUX_FLOOR[arch] - 1, -1)]
    platforms += ['%s_%s' % (name, arch) for name, level in _LEGACY
                  if level <= minor and level >= _MANYLINUX_FLOOR[arch]]
    return platforms


def _a_type(value):
    """'a string', 'an integer': the YAML kind of a value, never Python's class name."""
    name = stack_utils.type_name(value)
    return ('an ' if name[:1] in 'aeiou' else 'a ') + name


def _list(request, key):
    value = request.get(key)
    if value is None:
        return []
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise BundleError('bundle_%s: expected a list, got %s (%r)' % (key, _a_type(value), value))
    return [str(item) for item in value]


def _releases(request):
    """The releases asked for; none means the stack matrix's default, as on the nodes."""
    return _list(request, 'releases') or [stack_utils.default_release()]


def _stacks(request):
    stacks = []
    for release in _releases(request):
        stacks.append(stack_utils.resolve_stack(release, request.get('overrides'), request.get('allow_unlisted', False)))
    return stacks


def problems(request):
    """Every reason the bundle cannot be built as asked, each naming the variable and the fix."""
    found = []

    def add(variable, what, fix):
        found.append('%s: %s. Fix: %s' % (variable, what, fix))

    directory = request.get('dir')
    if not isinstance(directory, str) or not directory.startswith('/') or posixpath.normpath(directory) == '/':
        add('bundle_dir', 'must be an absolute directory other than / (got %r)' % (directory,),
            'set it to where the bundle is written, e.g. -e bundle_dir=/srv/ascend-bundle')
    # YAML reads an unquoted 3.10 or 2.30 as a number, 3.1 or 2.3: refuse it rather than guess.
    pythons = request.get('pythons') if isinstance(request.get('pythons'), list) else []
    numeric = False
    for variable, values in (('bundle_pythons', pythons), ('bundle_glibc', [request.get('glibc')])):
        numbers = [value for value in values if isinstance(value, float)]
        if numbers:
            numeric = True
            add(variable, 'version %s is a number, not a string (YAML reads 3.10 as 3.1)' % ', '.join(repr(n) for n in numbers),
                'quote the versions, e.g. ["3.10", "3.11"] and "2.28"')
    if numeric:
        return found
    try:
        releases = _releases(request)
        chips = _list(request, 'chips')
        arches = _list(request, 'architectures')
        pythons = _list(request, 'pythons')
        images = _list(request, 'images')
        for key in ('pip_extra_index_urls', 'pip_trusted_hosts', 'pip_extra_packages', 'extra_files'):
            _list(request, key)
    except BundleError as exc:
        return found + [str(exc)]
    for key in ('model_url', 'model_dir', 'container_os', 'pip_index_url', 'artifacts_url', 'artifacts_dir'):
        if request.get(key) is not None and not isinstance(request.get(key), str):
            add('bundle_%s' % key, 'expected a string, got %s (%r)' % (_a_type(request[key]), request[key]),
                'set it to a string (or an empty one)')
    stacks = []
    for release in releases:
        try:
            stacks.append(stack_utils.resolve_stack(release, request.get('overrides'),
                                                    request.get('allow_unlisted', False)))
        except stack_utils.StackError as exc:
            add('bundle_releases', str(exc), 'choose from %s' % ', '.join(stack_utils.known_releases()))
    bad_chips = [chip for chip in chips if chip not in stack_utils.PACKAGE_CHIPS]
    if not chips or bad_chips:
        add('bundle_chips', 'unknown or empty: %s' % (', '.join(bad_chips) or 'nothing listed'),
            'list chip families of %s' % ', '.join(stack_utils.PACKAGE_CHIPS))
    bad_arches = [arch for arch in arches if arch not in pip_plan_utils.ARCHES]
    if not arches or bad_arches:
        add('bundle_architectures', 'unknown or empty: %s' % (', '.join(bad_arches) or 'nothing listed'),
            'list architectures of %s' % ', '.join(pip_plan_utils.ARCHES))
    wheels = request.get('wheels', True)
    if wheels:
        bad_pythons = [python for python in pythons if not _PYTHON_RE.match(python)]
        if not pythons or bad_pythons:
            add('bundle_pythons', 'not Python versions of the form 3.N: %s' % (', '.join(bad_pythons) or 'nothing listed'),
                'list the nodes\' Python versions, e.g. ["3.11"]')
        for stack in stacks:
            outside = [python for python in pythons if _PYTHON_RE.match(python) and not stack_utils.python_ok(stack, python)]
            if outside:
                add('bundle_pythons', 'Python %s is outside %s-%s, the range of release %s'
                    % (', '.join(outside), stack['python_min'], stack['python_max'], stack['release']),
                    'drop it, or build the bundle for a release that supports it')
        for arch in [arch for arch in arches if arch in pip_plan_utils.ARCHES]:
            try:
                pip_platforms(arch, request.get('glibc'))
            except BundleError as exc:
                add('bundle_glibc', str(exc), 'set the oldest glibc of the nodes, e.g. "2.28" (Kylin V10)')
                break
        if not request.get('pip_index_url') and not _list(request, 'pip_extra_index_urls'):
            needed = sorted(set('%s from %s' % (', '.join(entry['requirements']), entry['label'])
                                for stack in stacks for arch in arches if arch in pip_plan_utils.ARCHES
                                for entry in pip_plan_utils.pip_plan(stack, arch, chips[0] if chips else None)['indexes']))
            if needed:
                add('bundle_pip_extra_index_urls', 'the wheels include what PyPI does not publish: %s' % '; '.join(needed),
                    'name those indexes or your mirrors of them (bundle_pip_extra_index_urls), or one mirror that holds '
                    'everything (bundle_pip_index_url)')
    if request.get('vendor', True) and not request.get('artifacts_url') and not request.get('artifacts_dir'):
        add('bundle_artifacts_url', 'no source of the vendor packages is set',
            'set bundle_artifacts_url (an HTTP mirror with SHA256SUMS) or bundle_artifacts_dir (a directory with '
            'SHA256SUMS), or bundle_vendor: false')
    if request.get('model_url') and request.get('model_dir'):
        add('bundle_model_url', 'both bundle_model_url and bundle_model_dir are set', 'keep one of them')
    name = request.get('model_name')
    if (request.get('model_url') or request.get('model_dir')) and not (isinstance(name, str) and _NAME_RE.match(name)):
        add('bundle_model_name', 'must be one directory name (got %r)' % (name,),
            'set it to the model\'s directory name, e.g. DeepSeek-R1-Distill-Qwen-7B')
    oses = stack_utils.stack_matrix.IMAGE['os_suffixes']
    if request.get('container_images') and (request.get('container_os') or 'ubuntu') not in oses:
        add('bundle_container_os', 'unknown image OS %r' % (request.get('container_os'),),
            'choose one of %s' % ', '.join(oses))
    blank = [image for image in images if not image.strip()]
    if blank:
        add('bundle_images', 'holds an empty image reference', 'remove it')
    if request.get('collection') and not request.get('collection_src_ok'):
        add('bundle_collection', '%s has no galaxy.yml (an installed copy, not a checkout)' % request.get('collection_src'),
            'set bundle_collection_src to a checkout of the collection, or bundle_collection: false and carry the '
            'artifact the site installs from')
    if not found:
        # What only planning finds (a driver override whose firmware is unknown, an image a chip does not have
        # at a release): reported like the rest, never raised.
        try:
            _parts(request)
        except (BundleError, stack_utils.StackError) as exc:
            add('bundle_releases', 'cannot be bundled as asked: %s' % exc,
                'change the releases, chips or stack overrides it names')
    return found


def _unique(items):
    seen = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


def vendor_files(stacks, chips, arches, extra=None):
    """``{name: [what needs it, ...]}`` of the vendor packages, in the order npu_driver and cann ask."""
    files = {}
    for stack in stacks:
        for chip in chips:
            for arch in arches:
                where = '%s %s %s' % (stack['release'], chip, arch)
                hdk = stack_utils.hdk_packages(stack['driver_target'], chip, arch)
                cann = stack_utils.package_names(stack, chip, arch)
                for name in (hdk['driver'], hdk['firmware'], cann['toolkit'], cann['ops'], cann['nnal']):
                    if not name:
                        raise BundleError('no package name is known for the driver %s of %s'
                                          % (stack['driver_target'], where))
                    files.setdefault(name, []).append(where)
    for name in extra or []:
        files.setdefault(name, []).append('bundle_extra_files')
    return files


def _index_args(request):
    args = []
    if request.get('pip_index_url'):
        args += ['--index-url', request['pip_index_url']]
    args += ['--extra-index-url=%s' % url for url in _list(request, 'pip_extra_index_urls')]
    args += ['--trusted-host=%s' % host for host in _list(request, 'pip_trusted_hosts')]
    return args


def wheel_downloads(request, stacks, chips, arches, pythons, dest):
    """The ``pip download`` argument lists (after ``python -m pip``), one per release, step,
    architecture and Python, each into ``<dest>/<arch>``."""
    downloads = []
    extra = _list(request, 'pip_extra_packages')
    for stack in stacks:
        steps = {}
        for arch in arches:
            first, second = [], []
            for chip in chips:
                plan = pip_plan_utils.pip_plan(stack, arch, chip, wheelhouse=True)
                first += plan['first']
                second += plan['second'] + plan['reinstall_after_second']
            second += cann_checks.python_requirements(stack['cann']) + extra
            steps[arch] = [('vllm', _unique(first)), ('vllm-ascend', _unique(second))]
            if request.get('ray') and stack.get('ray'):
                steps[arch].append(('ray', ['ray==%s' % stack['ray']]))
        for arch in arches:
            platforms = pip_platforms(arch, request.get('glibc'))
            for python in pythons:
                for step, requirements in steps[arch]:
                    argv = ['download', '--disable-pip-version-check', '--dest', '%s/%s' % (dest, arch),
                            '--only-binary=:all:', '--implementation', 'cp', '--python-version', python]
                    # --isolated: no PIP_* variable or user configuration adds an index, a find-links
                    # directory or a constraint (the caller also points PIP_CONFIG_FILE at /dev/null).
                    argv += ['--isolated'] if request.get('pip_isolated') else []
                    for platform in platforms:
                        argv += ['--platform', platform]
                    downloads.append({
                        'release': stack['release'], 'arch': arch, 'python': python, 'step': step,
                        'requirements': requirements,
                        'argv': argv + _index_args(request) + requirements,
                    })
    return downloads


def marker_notes(arches, pythons, machine, python):
    """Warnings for targets unlike the Python that downloads: pip judges the markers of dependencies
    (``platform_machine``, ``python_version``) by the interpreter it runs on, not by ``--platform`` or
    ``--python-version`` (pypa/pip#11664), so a conditional dependency of another target can be left out
    or taken in. ``machine`` and ``python`` ("3.11") are the downloading interpreter's."""
    machine = stack_utils.ARCH_ALIASES.get(str(machine).lower(), str(machine))
    others = [arch for arch in arches if arch != machine]
    versions = [version for version in pythons if version != python]
    if not others and not versions:
        return []
    return ['bundle_python (%s, Python %s) differs from the targets %s: pip evaluates the environment markers of '
            'dependencies against the Python that downloads, so a dependency conditional on the architecture or the '
            'Python version can be missing from the wheelhouse. For a complete one, build the bundle on a %s host '
            'with Python %s (bundle_python), one target at a time'
            % (machine, python, ', '.join(others + ['Python %s' % version for version in versions]),
               ' or '.join(others or [machine]), ' or '.join(versions or [python]))]


_NO_MATCH = re.compile(r'No matching distribution found for (\S+)')


def pip_failures(results):
    """One sentence per failed ``pip download`` of a command loop (``item`` is the plan's wheel entry, ``rc``,
    ``stderr``). A requirement without a wheel for the target is named with what to do: pip builds such a
    package from source on a node, which an offline bundle of wheels cannot carry."""
    sentences = []
    for result in results or []:
        if result.get('skipped') or result.get('rc', 0) == 0:
            continue
        item = result.get('item') or {}
        where = '%s %s cp%s %s' % (item.get('release'), item.get('arch'), str(item.get('python', '')).replace('.', ''),
                                   item.get('step'))
        stderr = result.get('stderr') or result.get('msg') or ''
        missing = _NO_MATCH.findall(stderr)
        if missing:
            sentences.append('%s: no wheel of %s for this architecture, Python and glibc on the indexes named (pip: "No '
                             'matching distribution found"). A package published only as a source distribution is '
                             'built on the node, which a bundle of wheels cannot carry: bundle the stack\'s image '
                             '(bundle_container_images) for it, or put a wheel of it in an index named in '
                             'bundle_pip_index_url / bundle_pip_extra_index_urls' % (where, ', '.join(sorted(set(missing)))))
        else:
            tail = ' '.join(line.strip() for line in stderr.strip().splitlines()[-3:])
            sentences.append('%s: pip download failed with rc %s: %s' % (where, result.get('rc'), tail or 'no output'))
    return sentences


def image_file(ref):
    """File name of a saved image: the reference with every character outside [A-Za-z0-9._-] as '_'."""
    return re.sub(r'[^A-Za-z0-9._-]', '_', ref.strip()) + '.tar'


def plan(request):
    """What the bundle holds and where it comes from; call ``problems`` first."""
    found = problems(request)
    if found:
        raise BundleError('; '.join(found))
    return _parts(request)


def _parts(request):
    directory = posixpath.normpath(request['dir'])
    stacks = _stacks(request)
    chips = _list(request, 'chips')
    arches = _list(request, 'architectures')
    pythons = _list(request, 'pythons')
    result = {
        'dir': directory,
        'layout': dict((key, '%s/%s' % (directory, value)) for key, value in LAYOUT.items()),
        'releases': [stack['release'] for stack in stacks],
        'stacks': [dict((key, stack[key]) for key in ('release', 'vllm', 'vllm_ascend', 'torch', 'torch_npu', 'cann',
                                                      'driver_target', 'ray')) for stack in stacks],
        'vendor': {}, 'wheels': [], 'model': None, 'images': [],
    }
    if request.get('vendor', True):
        result['vendor'] = vendor_files(stacks, chips, arches, _list(request, 'extra_files'))
    if request.get('wheels', True):
        result['wheels'] = wheel_downloads(request, stacks, chips, arches, pythons, result['layout']['wheels'])
    if request.get('model_url') or request.get('model_dir'):
        result['model'] = {
            'source': 'http' if request.get('model_url') else 'dir',
            'location': (request.get('model_url') or request.get('model_dir')).rstrip('/'),
            'name': request['model_name'],
            'dest': '%s/%s' % (result['layout']['models'], request['model_name']),
        }
    refs = _list(request, 'images')
    if request.get('container_images'):
        for stack in stacks:
            refs += [stack_utils.image_ref(stack, chip, request.get('container_os') or 'ubuntu') for chip in chips]
    result['images'] = [{'ref': ref, 'file': '%s/%s' % (result['layout']['images'], image_file(ref))}
                        for ref in _unique(refs)]
    # bundle.json: what the bundle is for, readable at the site without this collection.
    result['description'] = {
        'releases': result['stacks'], 'chips': chips, 'architectures': arches, 'pythons': pythons,
        'glibc': str(request.get('glibc')), 'vendor': sorted(result['vendor']),
        'wheel_steps': [entry['requirements'] for entry in result['wheels']],
        'model': result['model']['name'] if result['model'] else None,
        'images': [image['ref'] for image in result['images']],
        'layout': sorted(LAYOUT),
    }
    return result


def vendor_sums(names, sums):
    """SHA256SUMS text of the bundled vendor packages (sorted), from the source's checksums."""
    missing = [name for name in names if name not in sums]
    if missing:
        raise BundleError('no SHA256 is known for %s' % ', '.join(sorted(missing)))
    return ''.join('%s  %s\n' % (sums[name], name) for name in sorted(names))
