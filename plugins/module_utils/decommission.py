# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""What the decommission role removes from a node (pure functions).

The node is read, not the inventory: the inventory may have changed since the node was
converged (another instance name, another virtualenv), and what must go is what runs. A unit
belongs to this collection when it reads its own environment file in the collection's
configuration directory (``/etc/ascend-vllm/<unit name without .service>.env``:
``EnvironmentFile=`` of a venv unit or a Ray unit, ``--env-file`` of a container unit); reading
CANN's ``cann.env`` there, which a site's own units may do, is not enough. Any other unit of the
same names is left alone and reported. Each unit of ours names what it runs: the virtualenv
(``<venv>/bin/vllm serve`` or ``<venv>/bin/ray start``) and, for vLLM, the model directory (the
argument after ``serve``; for the container method the host side of the ``--volume`` that holds
it). A virtualenv goes only when it is one (its ``pyvenv.cfg`` exists), a model only when this
collection provisioned it (its ``.sha256-verified.json`` or ``.ascend-vllm-download.json``).

Nothing here imports Ansible or reads a file: the role passes the units' text.
plugins/filter/decommission.py exposes ``request_problems`` and ``plan``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import posixpath
from collections import OrderedDict

from ansible_collections.ascend.vllm.plugins.module_utils.stage_record import RECORDS_DIR
from ansible_collections.ascend.vllm.plugins.module_utils.vllm_service import systemd_exec_argv

# Unit file names the vllm_service and ray_cluster roles write (vllm-<instance>.service).
UNIT_PATTERNS = ['vllm-*.service', 'ray-head.service', 'ray-worker.service']


# Files the vllm_service role leaves in a model directory it provisioned (model_manifest's record,
# the hub download's record): a directory without either is not removed.
MODEL_MARKERS = ('.sha256-verified.json', '.ascend-vllm-download.json')


def unit_settings(text):
    """``{environment_files, exec_start, cache_dirs}`` of a unit file's text: the files of every
    ``EnvironmentFile=`` (its optional ``-`` dropped), the argv of the last ``ExecStart=`` and the
    ``CacheDirectory=`` names."""
    files = []
    exec_start = []
    cache_dirs = []
    for line in (text or '').splitlines():
        line = line.strip()
        if line.startswith('CacheDirectory='):
            cache_dirs += line.split('=', 1)[1].split()
        elif line.startswith('EnvironmentFile='):
            value = line.split('=', 1)[1].strip()
            if value.startswith('-'):
                value = value[1:]
            if value:
                files.append(value)
        elif line.startswith('ExecStart='):
            value = line.split('=', 1)[1].strip()
            exec_start = systemd_exec_argv(value) if value else []
    return {'environment_files': files, 'exec_start': exec_start, 'cache_dirs': cache_dirs}


def _under(path, directory):
    directory = directory.rstrip('/') + '/'
    return posixpath.normpath(path).startswith(directory)


def _env_file_args(argv):
    files = []
    for index, word in enumerate(argv):
        if word == '--env-file' and index + 1 < len(argv):
            files.append(argv[index + 1])
        elif word.startswith('--env-file='):
            files.append(word.split('=', 1)[1])
    return files


def _volumes(argv):
    """``[(host, container)]`` of podman's ``--volume``/``-v`` arguments."""
    found = []
    for index, word in enumerate(argv):
        value = None
        if word.startswith('--volume='):
            value = word.split('=', 1)[1]
        elif word in ('--volume', '-v') and index + 1 < len(argv):
            value = argv[index + 1]
        if value:
            parts = value.split(':')
            if len(parts) >= 2:
                found.append((parts[0], parts[1]))
    return found


# podman/docker run options that take no value (the others the collection writes take one).
_RUN_FLAGS = ('--rm', '--init', '--privileged', '--read-only', '--detach', '-d', '--interactive', '-i', '--tty', '-t',
              '--replace', '-it')


def _run_image(argv):
    """The image of ``<engine> run [options] IMAGE [command]`` (argv starts at the engine), else ''."""
    index = 2
    while index < len(argv):
        word = argv[index]
        if not word.startswith('-'):
            return word
        index += 1 if (word in _RUN_FLAGS or '=' in word) else 2
    return ''


def _program(argv, name):
    """Index of the absolute ``.../bin/<name>`` in argv (after numactl, sh -c ...), else -1."""
    for index, word in enumerate(argv):
        if word.startswith('/') and word.endswith('/bin/' + name):
            return index
    return -1


def _in_order(items):
    """Each item once, first occurrence first."""
    return list(OrderedDict.fromkeys(items))


def read_unit(path, text, etc_dir):
    """One unit file -> what it is and what it runs. Keys: ``name``, ``path``, ``stem`` (the name
    without ``.service``), ``kind`` (vllm, ray), ``owned`` (it reads ``<etc_dir>/<stem>.env``),
    ``files`` (the unit's files in ``etc_dir``), ``venv``, ``model``, ``container`` ('' when none), ``engine`` and
    ``image`` (of a container unit, else ''),
    ``cache_dirs`` (``/var/cache/<CacheDirectory=>``)."""
    name = posixpath.basename(path)
    stem = name[:-len('.service')] if name.endswith('.service') else name
    settings = unit_settings(text)
    argv = settings['exec_start']
    kind = 'ray' if name.startswith('ray-') else 'vllm'
    # A container unit's files: its --env-file and the API key file it mounts (--volume).
    read = settings['environment_files'] + _env_file_args(argv) + [mount[0] for mount in _volumes(argv)]
    files = [posixpath.normpath(f) for f in read if _under(f, etc_dir)]
    own_env = posixpath.join(posixpath.normpath(etc_dir), stem + '.env')
    unit = {'name': name, 'path': path, 'stem': stem, 'kind': kind, 'owned': own_env in files,
            'files': sorted(set(files)), 'venv': '', 'model': '', 'container': '', 'image': '', 'engine': '',
            'cache_dirs': ['/var/cache/' + d.strip('/') for d in settings['cache_dirs'] if d.strip('/')]}
    program = _program(argv, 'ray' if kind == 'ray' else 'vllm')
    # The container method's podman, also behind a numactl binding.
    engine = [i for i, word in enumerate(argv) if posixpath.basename(word) in ('podman', 'docker')
              and 'run' in argv[i + 1:i + 2]]
    if program >= 0:
        unit['venv'] = posixpath.dirname(posixpath.dirname(argv[program]))
        rest = argv[program + 1:]
        if kind == 'vllm' and len(rest) >= 2 and rest[0] == 'serve':
            unit['model'] = rest[1]
    elif engine:
        argv = argv[engine[0]:]
        unit['engine'] = argv[0]
        unit['image'] = _run_image(argv)
        if '--name' in argv and argv.index('--name') + 1 < len(argv):
            unit['container'] = argv[argv.index('--name') + 1]
        if 'serve' in argv and argv.index('serve') + 1 < len(argv):
            inside = argv[argv.index('serve') + 1]
            for host, container in _volumes(argv):
                if inside == container or _under(inside, container):
                    unit['model'] = posixpath.normpath(host + '/' + posixpath.relpath(inside, container))
                    break
    return unit


def _deep_enough(path):
    """An absolute path at least two levels below / (never /, /usr, /opt ...)."""
    normal = posixpath.normpath(str(path)) if path else ''
    return normal.startswith('/') and normal.count('/') >= 2


# The stage records (module_utils/stage_record.py) of what a decommission removes: the service's
# virtualenvs' always (their units go), CANN's with CANN; with the driver as well, the directory that
# holds them. A record left for a stage that is gone would not vouch for it (its fingerprints fail),
# but the node would not be bare; the records of what stays still save its next run the work.


def stage_records(records, cann=False):
    """The records, among those found, of the stages a decommission removes (the driver's stays)."""
    going = ('vllm_venv-', 'cann.json') if cann else ('vllm_venv-',)
    return sorted(path for path in records
                  if path.endswith('.json') and posixpath.basename(path).startswith(going))


def plan(units, settings):
    """What goes, in the order it goes.

    ``units``: ``[{path, content}]`` (unit files whose names match UNIT_PATTERNS, content as text);
    ``settings``: ``etc_dir``, ``model`` (remove the models the units serve), ``cann`` (remove
    CANN's environment file ``cann_env_file`` and login script ``cann_profile_script`` too,
    which the cann role writes), ``cann_env_file``, ``cann_profile_script``, ``paths`` (the
    collection's own directories: virtualenvs, wheelhouse, package cache), ``listing`` (the entries
    of ``etc_dir`` and of the units' directory whose names start like a unit's: backups of the
    files the roles replaced, the key of the previous run, drop-in directories), ``present`` (which
    of the candidate paths exist on the node), ``driver`` (the NPU driver goes too), ``records_dir``
    (where ascend.vllm.stage_record keeps its records) and ``records`` (the records found there).

    Returns ``units`` (names to stop and disable, vLLM before Ray: vLLM runs on Ray), ``containers``
    (``[{engine, container}]``: the containers those units run, removed before the images), ``images``
    (``[{engine, image}]``: the images the container units ran, but one a unit that stays runs), ``files``
    (the units' files and what they left beside them: removed last, so that a run that failed
    earlier still finds its units), ``dirs`` (virtualenvs, cache directories, the own
    directories, models), ``models``, ``foreign`` (units of a matching name that are not this
    collection's, left alone), ``kept_models``, ``lines`` (one sentence per thing that goes), ``stays``
    (one per served model or foreign unit that stays) and
    ``candidates`` (every path the plan looks at, for the role to stat first).
    """
    etc_dir = posixpath.normpath(settings.get('etc_dir') or '/etc/ascend-vllm')
    present = set(settings.get('present') or [])
    read = [read_unit(u['path'], u.get('content') or '', etc_dir) for u in units or []]
    ours = sorted([u for u in read if u['owned']], key=lambda u: (u['kind'] != 'vllm', u['name']))
    foreign = sorted(u['path'] for u in read if not u['owned'])
    # CANN's environment file is read by the units but written by the cann role: it goes with CANN.
    cann_env = settings.get('cann_env_file') or ''
    files = []
    for unit in ours:
        beside = [posixpath.join(etc_dir, unit['stem'] + '.'), unit['path'] + '.']
        files += [unit['path']] + [f for f in unit['files'] if f != cann_env]
        files += sorted(f for f in settings.get('listing') or [] if any(f.startswith(b) for b in beside))
    if settings.get('cann'):
        files += [f for f in (cann_env, settings.get('cann_profile_script')) if f]
    # Every stage goes with CANN and the driver: the records' directory goes, with the one above it
    # (the collection's state directory); else the records of what goes.
    records_dir = posixpath.normpath(settings.get('records_dir') or RECORDS_DIR)
    state_dirs = [posixpath.dirname(records_dir)] if settings.get('cann') and settings.get('driver') else []
    if not state_dirs:
        files += stage_records(settings.get('records') or [], cann=settings.get('cann'))
    venvs = sorted(set(u['venv'] for u in ours if u['venv']))
    served = sorted(set(u['model'] for u in ours if u['model']))
    models = served if settings.get('model') else []
    caches = sorted(set(d for u in ours for d in u['cache_dirs']))
    markers = [v + '/pyvenv.cfg' for v in venvs] + [m + '/' + name for m in models for name in MODEL_MARKERS]
    candidates = _in_order(files + venvs + caches + list(settings.get('paths') or []) + models + state_dirs + markers)
    files = [f for f in _in_order(files) if f in present]
    # A virtualenv only when it is one, a model only when this collection provisioned it.
    venvs = [v for v in venvs if v + '/pyvenv.cfg' in present]
    models = [m for m in models if any(m + '/' + name in present for name in MODEL_MARKERS)]
    dirs = [d for d in _in_order(venvs + caches + list(settings.get('paths') or []) + models + state_dirs)
            if d in present and _deep_enough(d)]
    # A directory inside another that goes, goes with it.
    dirs = [d for d in dirs if not any(d != other and _under(d, other) for other in dirs)]
    lines = ['unit %s (%s): stopped, disabled and removed' % (u['name'], u['path']) for u in ours]
    lines += ['directory %s%s' % (d, ' (model)' if d in models else ' (virtualenv)' if d in venvs else '')
              for d in dirs]
    lines += ['file %s' % f for f in files if not any(f == u['path'] for u in ours)]
    kept = [m for m in served if m not in models]
    stays = ['stays (decommission_model is false, or it holds no record of this collection): model %s' % m
             for m in kept]
    stays += ["stays (not the collection's unit): unit %s" % f for f in foreign]
    # The serving images the container units ran, unless a unit that stays runs one of them too.
    kept_images = set(u['image'] for u in read if not u['owned'] and u['image'])
    images = [{'engine': engine, 'image': image} for engine, image in
              _in_order((u['engine'], u['image']) for u in ours if u['image'] and u['image'] not in kept_images)]
    lines += ['image %s (%s)' % (i['image'], posixpath.basename(i['engine'])) for i in images]
    # The container each unit runs (`run --rm --name`): stopping the unit can end its `run` before
    # the engine removed the container, which then holds the image.
    containers = [{'engine': engine, 'container': name} for engine, name in
                  _in_order((u['engine'], u['container']) for u in ours if u['image'] and u['container'])]
    return {'units': [u['name'] for u in ours], 'files': files, 'dirs': dirs, 'models': models, 'images': images,
            'containers': containers,
            'foreign': foreign, 'lines': lines, 'kept_models': kept, 'stays': stays, 'candidates': candidates}


def request_problems(request):
    """Every reason the decommission cannot start, in a fixed order (empty: it can).

    ``request``: ``confirm`` (decommission_confirm as a bool), ``check_mode``, ``cann`` and ``driver``
    (decommission_cann, decommission_driver), ``drain_file`` (an absolute path, '' for none) and
    ``drain_exists``, ``paths`` (decommission_paths).
    """
    problems = []
    if not request.get('confirm') and not request.get('check_mode'):
        problems.append('decommission_confirm is not true: this play stops the vLLM service of the node and '
                        'removes what the collection installed. Run it with --check to see what would go, then '
                        'with -e decommission_confirm=true')
    if request.get('driver') and not request.get('cann'):
        problems.append('decommission_driver needs decommission_cann: the vendor removes the NPU driver and firmware '
                        'after every other Ascend package (set decommission_cann: true too)')
    drain = request.get('drain_file') or ''
    if drain and not request.get('drain_exists'):
        problems.append('decommission_drain_tasks: no such file on the controller: %s' % drain)
    for path in request.get('paths') or []:
        if not _deep_enough(path):
            problems.append('decommission_paths: %s is not a directory this collection owns: give absolute paths '
                            'at least two levels deep (such as /opt/ascend-vllm)' % (path or "''"))
    return problems


def report_lines(planned, packages):
    """What went: the plan's sentences, then one per package ``ascend_package`` uninstalled (or
    would, in check mode) - ``packages`` are its results, of every kind asked for."""
    lines = list(planned.get('lines') or [])
    for result in packages or []:
        if not result.get('changed'):
            continue
        lines.append('package %s %s (%s)' % (result.get('kind'),
                                             result.get('previous_version') or 'of an unfinished install',
                                             result.get('uninstaller') or 'its package'))
    return lines
