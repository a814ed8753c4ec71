# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Which operating-system packages a node needs for the stages it runs, and what its package
manager says about them.

The package names live in the os_prerequisites role's ``vars/<name>.yml`` files, one per OS
family or distribution, picked from the node's facts in the order ``vars_candidates`` gives
(linux-system-roles' set_vars order: distribution and version, distribution and major version,
distribution, OS family). Each file maps a stage to a list of names, or to a dict of lists keyed
by architecture (``all`` for every one). A name may hold ``{kernel}`` (the running kernel,
``ansible_facts.kernel``) or ``{arch}``.

Stages:

- ``driver_build``: what the NPU driver's installer checks before it builds its kernel modules
  with DKMS (its ``drv_dkms_dependent_check``: dkms, gcc, and on Debian/Ubuntu
  ``linux-headers-$(uname -r)``, on RPM systems ``kernel-headers-`` and ``kernel-devel-$(uname
  -r)``; the driver's DKMS build runs make). Without them the installer accepts only modules built
  for exactly the running kernel and otherwise stops with "Drv_dkms_env_check failed".
- ``serving_venv``: vLLM in a virtual environment: a venv-capable Python (Debian splits ``venv``
  into python3-venv) and numactl, which the unit runs when it binds the service to NUMA nodes.
- ``serving_container``: vLLM from the vllm-ascend image: the container engine.

The service's interpreter (``vllm_service_python_package``): where the OS's own python3 is older
than the stack needs (openEuler 22.03: 3.9, Kylin V10: 3.7), a site names the package of its
repositories that provides a suitable one; it is installed with ``serving_venv``.

What is installed is read with ``dpkg-query`` or ``rpm -q`` (no Python bindings of the package
manager are needed, so check mode works on a minimal server); what the repositories offer with
``apt-cache policy`` or ``dnf repoquery``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible.module_utils.parsing.convert_bool import boolean

STAGES = ('driver_build', 'serving_venv', 'serving_container', 'source_build', 'monitoring', 'node_exporter')
# The variables a site overrides, named in every refusal.
PACKAGES_VAR = 'os_prerequisites_packages'
PYTHON_PACKAGE_VAR = 'vllm_service_python_package'
DRIVER_BUILD_VAR = 'os_prerequisites_driver_build'
DPKG_FORMAT = '${Package} ${db:Status-Status}\n'
RPM_FORMAT = '%{NAME}\n'
DNF_FORMAT = '%{name}-%{version}-%{release}.%{arch}\n'


class PrerequisitesError(ValueError):
    pass


def _text(value):
    return u'' if value is None else u'%s' % (value,)


def vars_candidates(facts):
    """The vars file names to try, most specific first, ending with the OS family."""
    facts = facts or {}
    distribution = _text(facts.get('distribution')).replace(' ', '_')
    version = _text(facts.get('distribution_version'))
    major = _text(facts.get('distribution_major_version'))
    family = _text(facts.get('os_family')).replace(' ', '_')
    names = []
    for name in (distribution and version and '%s_%s' % (distribution, version),
                 distribution and major and '%s_%s' % (distribution, major),
                 distribution, family):
        if name and name + '.yml' not in names:
            names.append(name + '.yml')
    return names


def stages_for(driver_build, install_method, extra_stages=()):
    """The stages a node runs: the driver build when the site keeps it on, the serving method."""
    if install_method not in ('venv', 'container'):
        raise PrerequisitesError("vllm_service_install_method must be venv or container, got %r" % (install_method,))
    stages = (['driver_build'] if driver_build else []) + ['serving_' + install_method]
    for stage in extra_stages or ():
        if stage not in stages:
            stages.append(stage)
    return stages


def monitoring_packages(node_exporter_package=''):
    """What the monitoring role's exporters need, as this role's inputs: unzip and dbus (stage
    monitoring) and node_exporter's package - the OS family's (stage node_exporter) unless the
    site names one (``monitoring_node_exporter_package``, then an extra package). The stage run
    of site.yml asks for the same when monitoring is on, so the monitoring role only reads."""
    name = _text(node_exporter_package).strip()
    return {'stages': ['monitoring'] + ([] if name else ['node_exporter']), 'extra': [name] if name else []}


def _names(entry, arch, stage, source):
    if entry is None:
        return []
    if isinstance(entry, dict):
        unknown = sorted(set(entry) - {'all', 'x86_64', 'aarch64'})
        if unknown:
            raise PrerequisitesError('%s: stage %s has keys %s; use all, x86_64 or aarch64'
                                     % (source, stage, ', '.join(unknown)))
        return list(entry.get('all') or []) + list(entry.get(arch) or [])
    if isinstance(entry, (list, tuple)):
        return list(entry)
    raise PrerequisitesError('%s: stage %s must be a list of package names or a dict of them by architecture, got %r'
                             % (source, stage, entry))


def plan(os_packages, facts, stages, overrides=None, extra=(), extra_var='os_prerequisites_extra', python_package=''):
    """What to install on this node.

    ``os_packages``: the stage lists of the vars file picked for the node; ``overrides``: the
    site's ``os_prerequisites_packages`` (a stage there replaces the file's list); ``extra``:
    more names (``extra_var`` names the variable they come from); ``python_package``: the
    service's interpreter package (``vllm_service_python_package``), installed with
    ``serving_venv``. ``os_packages`` is None when
    no vars file matches the node. Returns ``packages`` (unique, in order), ``stage_of`` (name ->
    the stage that asked for it), ``variables`` (name -> the variable to change) and ``problems``
    (refusals, each naming the variable to set).
    """
    facts = facts or {}
    overrides = overrides or {}
    if not isinstance(overrides, dict):
        raise PrerequisitesError('%s must be a dict of stage: [package, ...], got %r' % (PACKAGES_VAR, overrides))
    problems = []
    unknown = sorted(set(stages or ()) - set(STAGES))
    if unknown:
        problems.append('os_prerequisites_stages: unknown stage(s) %s; the stages are %s'
                        % (', '.join(unknown), ', '.join(STAGES)))
    unknown = sorted(set(overrides) - set(STAGES))
    if unknown:
        problems.append('%s: unknown stage(s) %s; the stages are %s' % (PACKAGES_VAR, ', '.join(unknown), ', '.join(STAGES)))
    arch = _text(facts.get('architecture'))
    values = {'kernel': _text(facts.get('kernel')), 'arch': arch}
    packages, stage_of, variables = [], {}, {}
    for stage in stages or ():
        if stage not in STAGES:
            continue
        if stage not in overrides and os_packages is None:
            problems.append('no package names are known for %s %s (OS family %s): set %s.%s to the names of its '
                            'repositories' % (_text(facts.get('distribution')), _text(facts.get('distribution_version')),
                                              _text(facts.get('os_family')), PACKAGES_VAR, stage))
            continue
        if stage in overrides:
            entry, source = overrides[stage], '%s.%s' % (PACKAGES_VAR, stage)
        else:
            entry, source = (os_packages or {}).get(stage), 'the vars file'
        for name in _names(entry, arch, stage, source):
            try:
                name = _text(name).format(**values)
            except (KeyError, IndexError, ValueError) as exc:
                raise PrerequisitesError('%s: package name %r: only {kernel} and {arch} are filled in (%s)'
                                         % (source, name, exc))
            if name and name not in stage_of:
                packages.append(name)
                stage_of[name] = stage
                variables[name] = (DRIVER_BUILD_VAR + ' or %s.%s' % (PACKAGES_VAR, stage) if stage == 'driver_build'
                                   else '%s.%s' % (PACKAGES_VAR, stage))
    python_package = _text(python_package)
    if python_package and 'serving_venv' in (stages or ()) and python_package not in stage_of:
        packages.append(python_package)
        stage_of[python_package] = 'serving_venv'
        variables[python_package] = PYTHON_PACKAGE_VAR
    for name in extra or ():
        name = _text(name)
        if name and name not in stage_of:
            packages.append(name)
            stage_of[name] = 'extra'
            variables[name] = extra_var
    if packages and manager_of(facts.get('pkg_mgr')) is None:
        problems.append('the package manager %s of %s %s is not one this role drives (apt, dnf): install %s '
                        'yourself and set os_prerequisites_stages: []'
                        % (_text(facts.get('pkg_mgr')) or 'unknown', _text(facts.get('distribution')),
                           _text(facts.get('distribution_version')), ', '.join(packages)))
    manager = manager_of(facts.get('pkg_mgr'))
    return {'packages': packages, 'stage_of': stage_of, 'variables': variables, 'problems': problems,
            'manager': manager, 'family': _text(facts.get('os_family')),
            'query_argv': query_argv(manager, packages) if manager and packages else [],
            'availability_command': availability_argv(manager, []) if manager else []}


def manager_of(pkg_mgr):
    """apt or dnf from ``ansible_facts.pkg_mgr``; None for a package manager this role does not drive."""
    return {'apt': 'apt', 'dnf': 'dnf', 'dnf5': 'dnf'}.get(_text(pkg_mgr))


def query_argv(manager, names):
    """The read-only command that lists which of ``names`` are installed."""
    if manager == 'apt':
        return ['dpkg-query', '-W', '-f', DPKG_FORMAT] + list(names)
    if manager == 'dnf':
        return ['rpm', '-q', '--qf', RPM_FORMAT] + list(names)
    raise PrerequisitesError('no package query for package manager %r (apt and dnf are known)' % (manager,))


def missing(manager, names, stdout, rc, stderr=''):
    """The names the query of ``query_argv`` did not report installed.

    dpkg-query exits 1 when a name is unknown to dpkg and prints ``<name> installed`` for an
    installed one (``not-installed`` / ``config-files`` for a removed one). ``rpm -q`` prints
    ``package <spec> is not installed`` for each argument it does not find (and exits with their
    count); a spec may be a name or name-version-release.arch (``kernel-devel-<uname -r>``), which
    rpm matches but prints as the installed package's name, so only that sentence counts.
    """
    if manager == 'apt':
        if rc not in (0, 1):
            raise PrerequisitesError('dpkg-query exited with %s' % (rc,))
        installed = set()
        for line in _text(stdout).splitlines():
            words = line.split()
            if len(words) == 2 and words[1] == 'installed':
                installed.add(words[0].split(':')[0])
        return [name for name in names if name not in installed]
    absent = set()
    for line in _text(stdout).splitlines():
        found = _RPM_ABSENT.match(line.strip())
        if found:
            absent.add(found.group(1))
    if rc != 0 and not absent:
        raise PrerequisitesError('rpm -q exited with %s: %s' % (rc, _text(stderr).strip()))
    return [name for name in names if name in absent]


_RPM_ABSENT = re.compile(r'^package (\S+) is not installed$')


def availability_argv(manager, names):
    """The read-only command that asks the repositories which of ``names`` they offer."""
    if manager == 'apt':
        return ['apt-cache', 'policy'] + list(names)
    if manager == 'dnf':
        return ['dnf', '-q', 'repoquery', '--qf', DNF_FORMAT] + list(names)
    raise PrerequisitesError('no repository query for package manager %r (apt and dnf are known)' % (manager,))


_POLICY_HEAD = re.compile(r'^(\S+):$')
_CANDIDATE = re.compile(r'^\s+Candidate:\s*(\S.*)$')


def unavailable(manager, names, stdout):
    """The names the repositories do not offer.

    ``apt-cache policy`` prints a ``<name>:`` block with ``Candidate: (none)`` for a name it knows
    but cannot install and nothing for a name no repository has. ``dnf repoquery`` prints each
    package it found as name-version-release.arch: a spec is offered when a line is the spec or
    extends it (a name, or name-version-release without the architecture).
    """
    offered = set()
    if manager == 'apt':
        current = None
        for line in _text(stdout).splitlines():
            head = _POLICY_HEAD.match(line)
            if head:
                current = head.group(1).split(':')[0]
                continue
            candidate = _CANDIDATE.match(line)
            if candidate and current and candidate.group(1).strip() != '(none)':
                offered.add(current)
        return [name for name in names if name not in offered]
    found = [line.strip() for line in _text(stdout).splitlines() if line.strip()]
    return [name for name in names if not any(_extends(line, name) for line in found)]


def _extends(line, spec):
    """Whether a repoquery line (name-version-release.arch) is the package ``spec`` names: the
    spec itself, the spec followed by -<version> (a name), or by .<arch> (no architecture given)."""
    if line == spec:
        return True
    rest = line[len(spec):] if line.startswith(spec) else ''
    return bool(re.match(r'^(-[0-9]|\.[A-Za-z0-9_]+$)', rest))


def unavailable_message(names, plan_result, family):
    """The refusal for packages the node's repositories do not offer: each name, its stage and
    the variable that changes it."""
    stage_of, variables = plan_result.get('stage_of') or {}, plan_result.get('variables') or {}
    parts = ['%s (%s; set %s)' % (name, stage_of.get(name, '?'), variables.get(name, PACKAGES_VAR)) for name in names]
    return ('The package repositories of this %s node do not offer: %s. Add them to a repository the node '
            'uses (an air-gapped site: its own mirror), or name the packages that provide them there with the '
            'variable shown. Nothing was installed.' % (family, '; '.join(parts)))


def missing_of(plan_result, query):
    """The planned packages the registered result of ``plan_result['query_argv']`` did not report installed."""
    query = query or {}
    return missing(plan_result['manager'], plan_result['packages'], query.get('stdout'), query.get('rc', 0),
                   query.get('stderr'))


def unavailable_problem(plan_result, names, availability):
    """The refusal for those of ``names`` the registered result of ``plan_result['availability_command']``
    says no repository offers; an empty string when every one is offered."""
    availability = availability or {}
    if availability.get('rc', 0) != 0:
        return ('%s failed (rc=%s): %s' % (' '.join(plan_result['availability_command'][:3]), availability.get('rc'),
                                           _text(availability.get('stderr')).strip()))
    gone = unavailable(plan_result['manager'], names, availability.get('stdout'))
    return unavailable_message(gone, plan_result, plan_result.get('family') or 'unknown') if gone else ''


def covered(wanted, done):
    """Whether an earlier run of the role in this play run already made sure of ``wanted``.

    ``wanted`` and every entry of ``done`` are ``{'stages': [...], 'packages': {...}, 'extra': [...],
    'python': ..., 'kernel': ...}`` (the role's inputs and the running kernel, which names
    driver_build's headers; ``done`` holds those of the runs that ended with nothing missing). An
    entry covers ``wanted`` when it had the same package names per stage (``os_prerequisites_packages``)
    and kernel, the same interpreter package (when ``wanted`` has one), and at least its stages and
    extra packages: the stage roles then only read what the
    os_prerequisites stage installed."""
    def _set(value, name):
        if value is None:
            return frozenset()
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, set, frozenset)):
            raise PrerequisitesError('%s must be a list, got %r' % (name, value))
        return frozenset(_text(item) for item in value)

    stages = _set(wanted.get('stages'), 'stages')
    extra = _set(wanted.get('extra'), 'extra')
    packages = wanted.get('packages') or {}
    for entry in done or ():
        if ((entry.get('packages') or {}) == packages and entry.get('kernel') == wanted.get('kernel')
                and (not wanted.get('python') or entry.get('python') == wanted.get('python'))
                and stages <= _set(entry.get('stages'), 'stages')
                and extra <= _set(entry.get('extra'), 'extra')):
            return True
    return False


def run_inputs(get, kernel):
    """The os_prerequisites role's inputs of a run, and whether it must run (the lookup
    ascend.vllm.os_prerequisites_inputs, asked by the role and by the stage roles before they
    include it).

    ``get(name, default)`` returns the caller's value of a variable, or ``default``; ``kernel`` is
    the running kernel of the facts ('' when not read). Returns ``wanted`` - ``{stages, packages,
    extra, python, kernel}`` as the role records them after a run with nothing missing - and ``needed``:
    ``os_prerequisites_refresh``, an input that cannot be known here, or inputs no earlier run of
    this play run covers (``covered``). A caller outside the role may leave ``os_prerequisites_extra``
    unset only for stages without ``monitoring``: the role's default is then ``[]``."""
    stages = get('os_prerequisites_stages', None)
    extra = get('os_prerequisites_extra', None)
    if extra is None and stages is not None and 'monitoring' not in stages:
        extra = []
    python = _text(get(PYTHON_PACKAGE_VAR, '')) if 'serving_venv' in (stages or ()) else ''
    wanted = {'stages': stages, 'packages': get('os_prerequisites_packages', None) or {}, 'extra': extra,
              'python': python, 'kernel': kernel or ''}
    refresh = boolean(get('os_prerequisites_refresh', False), strict=False)
    unknown = stages is None or extra is None
    needed = refresh or unknown or not covered(wanted, get('__os_prerequisites_done', None) or [])
    return {'wanted': wanted, 'needed': needed}
