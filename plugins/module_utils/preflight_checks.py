# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""The rules of the preflight role: its checks, as pure functions of what the role read.

Each layer (``inventory``: variables only, no host contacted; ``host``: facts and read-only
commands) is a list of checks. A check has a name, whether it applies to this host (with the
reason when not), its problems (``{what, variable, fix}``), its warnings and a detail of what
was found. ``evaluate`` turns a layer's checks into results; a check skipped on purpose
(``preflight_skip``) or not applicable never computes its problems, so they may read data that
was not gathered. ``host_plan`` decides what the host layer reads; ``report_hosts``,
``summary`` and ``failure_message`` are what the role reports.

Nothing here imports Ansible; plugins/filter/preflight.py exposes these as filters.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.ascend.vllm.plugins.module_utils import bundle
from ansible_collections.ascend.vllm.plugins.module_utils import multinode_layout
from ansible_collections.ascend.vllm.plugins.module_utils.numbers import as_int
from ansible_collections.ascend.vllm.plugins.module_utils import pip_plan as pip_plan_utils
from ansible_collections.ascend.vllm.plugins.module_utils import boot_loader
from ansible_collections.ascend.vllm.plugins.module_utils import stack as stack_utils
from ansible_collections.ascend.vllm.plugins.module_utils import stack_matrix
from ansible_collections.ascend.vllm.plugins.module_utils import vllm_service

# Check names are part of the interface (preflight_skip, reports, AWX stats): rename one only
# with a changelog entry.
INVENTORY_CHECKS = ['preflight_skip', 'stack', 'service_port', 'parallel_sizes', 'api_key', 'multinode',
                    'install_method', 'artifacts_dir', 'artifacts_url', 'variables', 'service_settings',
                    'hccn_addresses', 'ports']
HOST_CHECKS = ['preflight_skip', 'stack', 'os', 'arch', 'kernel_headers', 'boot_loader', 'disk_space', 'memory', 'python',
               'glibc', 'pip_indexes', 'npu_present', 'npu_count', 'chip_support', 'npu_health', 'npu_processes',
               'driver_version', 'time_sync', 'cann_packages']
ALL_CHECKS = INVENTORY_CHECKS + [name for name in HOST_CHECKS if name not in INVENTORY_CHECKS]
# Skipping these would leave the other checks and the later roles without a valid input: the
# stack is what gets installed (ascend_stack_allow_unlisted accepts an unlisted one) and a wrong
# preflight_skip must never go unnoticed.
UNSKIPPABLE = ['preflight_skip', 'stack']
INSTALL_METHODS = ['venv', 'container']
# The chip families CANN publishes packages for.
PACKAGE_CHIPS = ['910b', '910_93', '310p']
PACKAGE_ARCHES = ['x86_64', 'aarch64']
# The name given to stack.chip_support when the driver reports no SoC name is the family, except:
FAMILY_CHIPS = {'910': '910a'}
# 910, 310B and the first-generation 310 are supported by no release; the stack matrix knows the
# first two and explains why, the 310 gets this reason.
ASCEND_310_REASON = ('Ascend 310 (first generation, PCI device 0xd100) is not supported by any vllm-ascend release: '
                     'it is an inference accelerator without the operators vLLM needs')
FORCED = '; npu_driver_force is true, so the driver is installed anyway'
GIB = 1073741824


class PreflightError(Exception):
    """Input the checks cannot read."""


# The oldest Python on a managed node each ansible-core release runs its modules with: 2.17
# dropped 2.7 and 3.6 on targets (ansible/ansible#81866, noted in its porting guide through
# ansible/ansible#83054), 2.18's changelog: "The minimum supported Python version on targets is
# now Python 3.8"; 2.19 and 2.20 keep 3.8.
ANSIBLE_TARGET_PYTHON_MIN = ((2, 17), (3, 7)), ((2, 18), (3, 8))


def _version_tuple(text, parts):
    found = re.match(r'^\s*(\d+)\.(\d+)(?:\.(\d+))?', _text(text))
    if not found:
        return None
    return tuple(int(x or 0) for x in found.groups())[:parts]


def ansible_python_problem(version_text, ansible_version, interpreter):
    """Why ansible-core cannot run modules on a node whose Python is ``version_text`` (read with
    the raw module after a module failed there); an empty string when that Python is new enough
    and the failure had another cause."""
    core = _version_tuple(ansible_version, 2)
    minimum = None
    for release, python in ANSIBLE_TARGET_PYTHON_MIN:
        if core is not None and core >= release:
            minimum = python
    if minimum is None:
        return ''
    have = _version_tuple(version_text, 3)
    wanted = '%d.%d' % minimum
    if have is None:
        return ('cannot read the version of the Python %s on the node (%s): ansible-core %s runs its modules with '
                'Python %s or newer there; install one from the OS repositories and set ansible_python_interpreter to it'
                % (interpreter, _text(version_text).strip() or 'no output', _text(ansible_version), wanted))
    if have[:2] >= minimum:
        return ''
    return ('the node\'s Python %s is %s; ansible-core %s runs its modules with Python %s or newer on the node '
            '(ansible_python_interpreter). Fix: install a newer Python from the OS repositories (openEuler: python3 '
            'of 22.03 is 3.9; Kylin V10: python3.9 or a later build) and set ansible_python_interpreter to it; '
            'vLLM itself needs the stack row\'s Python (preflight_python)'
            % (interpreter, '.'.join(str(x) for x in have), _text(ansible_version), wanted))


def problem(what, variable, fix):
    return {'what': what, 'variable': variable, 'fix': fix}


class Check(object):
    """One check: ``problems`` and ``warnings`` are called only when the check runs."""

    def __init__(self, name, problems=None, warnings=None, detail='', applies=True, na_reason=''):
        self.name = name
        self.problems = problems or (lambda: [])
        self.warnings = warnings or (lambda: [])
        self.detail = detail
        self.applies = applies
        self.na_reason = na_reason


def _text(value):
    return '' if value is None else str(value)


def _detail(value):
    return value() if callable(value) else _text(value)


def evaluate(checks, skip, layer):
    """The results of a layer: one ``{check, layer, status, problems, warnings, detail}`` per check."""
    results = []
    for check in checks:
        skipped = check.name in skip and check.name not in UNSKIPPABLE
        applies = not skipped and bool(check.applies)
        problems = check.problems() if applies else []
        warnings = check.warnings() if applies else []
        if skipped:
            status, detail = 'skipped', 'skipped on purpose (preflight_skip)'
        elif not applies:
            status, detail = 'not_applicable', _text(check.na_reason)
        else:
            status = 'failed' if problems else 'warning' if warnings else 'passed'
            detail = _detail(check.detail)
        results.append({'check': check.name, 'layer': layer, 'status': status, 'problems': problems,
                        'warnings': warnings, 'detail': detail})
    return results


def _unique(items):
    out = []
    for item in items:
        if item not in out:
            out.append(item)
    return out


def common_checks(skip, stack, stack_error):
    """The checks of both layers: preflight_skip and the software stack."""
    unknown = _unique(name for name in skip if name not in ALL_CHECKS)
    refused = _unique(name for name in skip if name in UNSKIPPABLE)

    def skip_problems():
        found = []
        if unknown:
            found.append(problem('preflight_skip names unknown check(s): ' + ', '.join(unknown), 'preflight_skip',
                                 'use names from: ' + ', '.join(n for n in ALL_CHECKS if n not in UNSKIPPABLE)))
        if refused:
            found.append(problem('check(s) %s cannot be skipped' % ', '.join(refused), 'preflight_skip',
                                 'remove them from preflight_skip; to accept a stack outside the matrix set '
                                 'ascend_stack_allow_unlisted: true'))
        return found

    def stack_problems():
        if not stack_error:
            return []
        return [problem(stack_error, 'ascend_stack_release, ascend_stack_overrides',
                        'pick a release of the stack matrix (ansible-doc -t filter ascend.vllm.stack_matrix) and '
                        'override only versions that go with it')]

    stack = stack if isinstance(stack, dict) and stack else None
    stack_detail = ''
    if stack:
        keys = ('vllm_ascend', 'vllm', 'cann', 'torch', 'torch_npu', 'python_min', 'python_max')
        stack_detail = ('vllm-ascend %s: vLLM %s, CANN %s, torch %s, torch-npu %s, Python %s-%s'
                        % tuple(_text(stack.get(key)) for key in keys))
    return [
        Check('preflight_skip', skip_problems,
              detail=('skipped on purpose: ' + ', '.join(skip)) if skip else 'no check skipped'),
        Check('stack', stack_problems, lambda: list(stack.get('warnings') or []) if stack else [], stack_detail),
    ]


# --- layer 1: inventory and variables --------------------------------------------------------

_WHOLE = re.compile(r'^[0-9]+$')
_URL = re.compile(r'^https?://[^/\s]+')


# The parts of an option's argument spec that judge a value the inventory sets (whether an
# option is required, and its default, are the role's business).
_SPEC_KEYS = ('type', 'elements', 'choices', 'options', 'no_log')
# Variables a check of their own judges (stack, service_port, parallel_sizes, api_key,
# multinode, install_method, artifacts_dir, artifacts_url): the spec check leaves them to it,
# so one mistake is one line of the report.
OWN_CHECK_VARIABLES = frozenset([
    'ascend_stack_release', 'ascend_stack_overrides', 'ascend_stack_allow_unlisted', 'vllm_service_port',
    'vllm_service_tensor_parallel_size', 'vllm_service_data_parallel_size', 'vllm_service_host',
    'vllm_service_require_api_key', 'vllm_service_api_key', 'vllm_service_multinode_mode',
    'vllm_service_install_method', 'ascend_artifacts_dir', 'ascend_artifacts_url'])


def spec_problems(options, values):
    """Each variable the inventory sets against the argument spec of the stage role that reads it.

    ``options``: {variable: (role, its argument spec)}; ``values``: {variable: templated value}.
    A secret's value never shows in a message."""
    from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

    problems = []
    for name in sorted(values):
        if name not in options or name in OWN_CHECK_VARIABLES:
            continue
        role, option = options[name]
        spec = dict((key, value) for key, value in (option or {}).items() if key in _SPEC_KEYS)
        value = values[name]
        if value is None:
            continue
        for error in ArgumentSpecValidator({name: spec}).validate({name: value}).errors:
            text = str(error)
            if spec.get('no_log'):
                text = text.replace(str(value), '********')
            problems.append(problem(text, name, 'set %s as the %s role documents it (ansible-doc -t role ascend.vllm.%s)'
                                    % (name, role, role)))
    return problems


def settings_problems(messages):
    """vllm_service's own settings check (module_utils/vllm_service.settings_problems) as preflight
    problems: the message, the first variable it names and its fix."""
    problems = []
    for message in messages:
        text = message[len('vllm_service: '):] if message.startswith('vllm_service: ') else message
        what, dummy, fix = text.rstrip('.').partition('. Fix: ')
        named = re.search(r'vllm_service_\w+', what)
        variable = named.group(0) if named else 'vllm_service_*'
        problems.append(problem(what, variable, fix or 'correct %s' % variable))
    return problems


def port_collisions(ports, ranges=()):
    """Two roles' ports that are the same number, or a port inside a range another role uses.
    ``ports``: [(variable, port)]; ``ranges``: [(first variable, last variable, first, last)]."""
    problems = []
    seen = {}
    for name, port in ports:
        number = as_int(port)
        if number is None:
            continue
        if number in seen:
            problems.append(problem('%s and %s are both %d' % (seen[number], name, number), '%s, %s' % (seen[number], name),
                                    'give each service its own port (both listen on the node)'))
        else:
            seen[number] = name
    for low_name, high_name, low, high in ranges:
        low, high = as_int(low), as_int(high)
        if low is None or high is None:
            continue
        for number, name in sorted(seen.items()):
            if low <= number <= high:
                problems.append(problem('%s (%d) is inside %s..%s (%d-%d)' % (name, number, low_name, high_name, low, high),
                                        '%s, %s' % (name, low_name),
                                        'move the port or the range so that they do not overlap'))
    return problems


def address_collisions(addresses, host):
    """Explicit NPU NIC addresses (hccn_addresses) that this ``host`` shares with itself or another
    host. ``addresses``: {host: [address per device]}."""
    owners = {}
    for name in sorted(addresses):
        for device, address in enumerate(addresses[name] or []):
            owners.setdefault(str(address).strip(), []).append('%s device %d' % (name, device))
    problems = []
    for address, where in sorted(owners.items()):
        if len(where) > 1 and any(place.startswith(host + ' ') for place in where):
            problems.append(problem('NPU address %s is planned %d times: %s' % (address, len(where), ', '.join(where)),
                                    'hccn_addresses', 'give every NPU of the fleet its own address (host_vars of each '
                                    'node), or plan them from hccn_base_cidr'))
    return problems


def inventory_checks(v):
    """The inventory layer's checks. ``v``: the host's variables as the role reads them - see
    plugins/filter/preflight_inventory_results.yml."""
    port = v.get('vllm_service_port')
    tp_set, dp_set = v.get('vllm_service_tensor_parallel_size'), v.get('vllm_service_data_parallel_size')
    tp = _text(1 if tp_set is None else tp_set)
    dp = _text(1 if dp_set is None else dp_set)
    listen = _text(v.get('vllm_service_host', '0.0.0.0'))
    key_set = bool(v.get('api_key_set'))
    mode = _text(v.get('vllm_service_multinode_mode') or 'none')
    head = list(v.get('head') or [])
    workers = list(v.get('workers') or [])
    method = v.get('vllm_service_install_method')
    artifacts_dir = _text(v.get('ascend_artifacts_dir'))
    artifacts_url = _text(v.get('ascend_artifacts_url'))
    # What ascend.vllm.inventory_variables read on the controller (empty when it did not run).
    variables = dict(v.get('variables') or {})

    sizes = vllm_service.size_problems(port, tp_set, dp_set)

    def port_problems():
        return [problem(f['what'], f['variable'], f['fix']) for f in sizes if f['variable'] == 'vllm_service_port']

    def size_problems():
        return [problem(f['what'], f['variable'], f['fix']) for f in sizes if f['variable'] != 'vllm_service_port']

    def key_problems():
        if key_set or not v.get('vllm_service_require_api_key'):
            return []
        return [problem('vllm_service_require_api_key is true but vllm_service_api_key is empty', 'vllm_service_api_key',
                        vllm_service.API_KEY_FIX)]

    def layout_problems():
        return multinode_layout.layout_problems(mode, v.get('inventory_hostname'), head, workers,
                                                list(v.get('ascend_nodes') or []), dict(v.get('peer_modes') or {}))

    declared_chip = _text(v.get('ascend_node_chip'))

    def method_problems():
        if method in INSTALL_METHODS or method is None:
            # A node the inventory says is of another chip than the wheels on the indexes serve
            # (the site requirements report's description): the venv method's own refusal, offline.
            stack = v.get('stack') if isinstance(v.get('stack'), dict) else None
            if (method or 'venv') != 'venv' or not declared_chip or not stack:
                return []
            found = pip_plan_utils.pip_plan(stack, _text(v.get('ascend_node_arch')) or 'aarch64', declared_chip,
                                            wheelhouse=True)['problems']
            return [problem('%s (ascend_node_chip is %s)' % (f['what'], declared_chip), f['variable'], f['fix'])
                    for f in found if f['variable'] == 'vllm_service_install_method']
        return [problem('vllm_service_install_method is %s, not one of %s' % (_text(method), ', '.join(INSTALL_METHODS)),
                        'vllm_service_install_method',
                        'use venv (pip into a virtualenv) or container (the upstream vllm-ascend image)')]

    def dir_problems():
        if v.get('artifacts_dir_exists'):
            return []
        return [problem('ascend_artifacts_dir %s is not a directory on the controller' % artifacts_dir,
                        'ascend_artifacts_dir',
                        'create it and put the vendor .run packages there, or leave it empty to use ascend_artifacts_url'
                        ' or packages pre-staged in ascend_artifacts_cache_dir')]

    def url_problems():
        if _URL.match(artifacts_url):
            return []
        return [problem('ascend_artifacts_url %s is not an http:// or https:// URL' % artifacts_url,
                        'ascend_artifacts_url',
                        'point it at the HTTP(S) directory that holds the packages and their SHA256SUMS'
                        ' (https://mirror.example.com/ascend/)')]

    return common_checks(list(v.get('preflight_skip') or []), v.get('stack'), _text(v.get('stack_error'))) + [
        Check('service_port', port_problems, detail='port ' + _text(port), applies=port is not None,
              na_reason="vllm_service_port is not set (the service role's default applies)"),
        Check('parallel_sizes', size_problems, detail='tensor parallel %s, data parallel %s' % (tp, dp),
              applies=tp_set is not None or dp_set is not None,
              na_reason="neither size is set (the service role's defaults apply)"),
        Check('api_key', key_problems,
              lambda: vllm_service.open_api_warnings(listen, 8000 if port is None else port, key_set),
              'an API key is set' if key_set else 'no API key, listening on ' + (listen or 'every address')),
        Check('multinode', layout_problems,
              detail='single node' if mode == 'none'
              else 'mode %s, head %s, workers %s' % (mode, ', '.join(head), ', '.join(workers))),
        Check('install_method', method_problems, detail=_text(method or 'venv'),
              applies=method is not None or len(declared_chip) > 0,
              na_reason='vllm_service_install_method is not set (venv)'),
        Check('artifacts_dir', dir_problems, detail=artifacts_dir, applies=len(artifacts_dir) > 0,
              na_reason='ascend_artifacts_dir is not set'),
        Check('artifacts_url', url_problems, detail=artifacts_url, applies=len(artifacts_url) > 0,
              na_reason='ascend_artifacts_url is not set'),
        Check('variables', lambda: list(variables.get('problems') or []),
              detail=lambda: '%d variable(s) checked against the roles\' argument specs%s' % (
                  variables.get('checked', 0),
                  '; decided on the hosts: %s' % ', '.join(variables['deferred']) if variables.get('deferred') else ''),
              applies=bool(variables), na_reason='the variables were not read (ascend.vllm.inventory_variables)'),
        Check('service_settings', lambda: settings_problems(variables.get('settings_problems') or []),
              detail=lambda: 'profile %s' % _text(variables.get('profile')), applies=bool(variables),
              na_reason='the variables were not read (ascend.vllm.inventory_variables)'),
        Check('hccn_addresses', lambda: address_collisions(variables.get('hccn_addresses') or {}, v.get('inventory_hostname')),
              detail=lambda: 'explicit NPU addresses on %d host(s)' % len(variables.get('hccn_addresses') or {}),
              applies=bool(variables.get('hccn_addresses')), na_reason='no host sets hccn_addresses'),
        Check('ports', lambda: port_collisions(variables.get('ports') or [], variables.get('port_ranges') or []),
              detail=lambda: ', '.join('%s %s' % (name, port) for name, port in variables.get('ports') or []),
              applies=bool(variables), na_reason='the variables were not read (ascend.vllm.inventory_variables)'),
    ]


def inventory_results(v):
    return evaluate(inventory_checks(v), list(v.get('preflight_skip') or []), 'inventory')


# --- layer 2: the hosts ----------------------------------------------------------------------

def _unique_list(items):
    return _unique(list(items))


def host_plan(v):
    """What the host layer works from and what it reads, from the node's facts and variables.

    ``v``: see plugins/filter/preflight_host_plan.yml. The reads that follow (kernel headers,
    the Python, the clock, SHA256SUMS, the node cache) are chosen from this plan.
    """
    stack = v.get('stack') if isinstance(v.get('stack'), dict) else None
    facts_error = _text(v.get('node_facts_error'))
    raw_npu = v.get('npu') or {}
    npu_ok = not facts_error and raw_npu.get('npu_smi_error') is None
    npu = raw_npu if npu_ok else {}
    functions = list(raw_npu.get('pci_functions') or []) if not facts_error else []
    unknown_ids = _unique_list(f.get('device') for f in functions if f.get('family') is None)
    families = _unique_list(f.get('family') for f in functions if f.get('family'))
    family = families[0] if len(families) == 1 and not unknown_ids else ''
    installed = _text(npu.get('driver_version') or '')
    running = len(_text(npu.get('npu_smi_version') or '')) > 0
    overrides = v.get('ascend_stack_overrides') or {}
    wanted = v.get('npu_driver_version')
    target = _text(wanted or ((stack or {}).get('driver_target') or ''))
    if v.get('npu_driver_version_defined'):
        target_variable = 'npu_driver_version'
    elif overrides.get('driver'):
        target_variable = 'ascend_stack_overrides.driver'
    else:
        target_variable = 'npu_driver_version (default %s)' % _text((stack or {}).get('driver_target') or '')
    planned = not installed or (len(target) > 0 and stack_utils.compare_versions(target, installed) != 0)
    arch = _text(v.get('architecture'))
    known = stack is not None and family in PACKAGE_CHIPS and arch in PACKAGE_ARCHES
    artifacts_dir = _text(v.get('ascend_artifacts_dir'))
    artifacts_url = _text(v.get('ascend_artifacts_url'))
    mode = _text(v.get('vllm_service_multinode_mode') or 'none')
    method = _text(v.get('vllm_service_install_method') or 'venv')
    source = 'dir' if artifacts_dir else 'url' if artifacts_url else 'node'
    cmdline_pages = boot_loader.cmdline_pages(v.get('kernel_tuning_hugepages') or [], v.get('kernel_tuning_skip') or [])
    read_clock = mode in ('dp', 'ray')
    # The driver's files (and the firmware's, unless the node already runs that firmware or the
    # role leaves firmware alone) when npu_driver will install or upgrade: fetched at stage 4, so a
    # missing one is refused here, before any change.
    hdk_names = []
    if known and planned and target:
        hdk = stack_utils.hdk_packages(target, family, arch, v.get('npu_driver_firmware_version') or None)
        hdk_names = [hdk['driver']] if hdk['driver'] else []
        manage_firmware = v.get('npu_driver_manage_firmware') in (None, True)
        if manage_firmware and hdk['firmware'] and _text(npu.get('firmware_version')) != hdk['firmware_version']:
            hdk_names.append(hdk['firmware'])
    # The reads of the node each check needs, unless preflight_skip leaves the check out: the
    # host layer includes them only when there is one (the Python read is planned by read_python).
    skip = set(v.get('preflight_skip') or [])
    wanted = [('kernel_headers', 'kernel_headers', planned),
              ('boot_loader', 'boot_loader', len(cmdline_pages) > 0),
              ('clock', 'time_sync', read_clock),
              ('sums', 'cann_packages', known and source == 'url'),
              ('cached', 'cann_packages', known and source == 'node')]
    reads = [read for read, check, needed in wanted if needed and check not in skip]
    wheelhouse = re.sub(r'/+$', '', _text(v.get('vllm_service_pip_wheelhouse')))
    python_archive = _text(v.get('vllm_service_python_archive')) if method == 'venv' else ''
    return {
        'mode': mode,
        'method': method,
        'stack_ok': stack is not None,
        'npu_ok': npu_ok,
        'npu': npu,
        'present': bool(npu.get('present')),
        'unknown_ids': unknown_ids,
        'families': families,
        'family': family,
        'pci_chip': FAMILY_CHIPS.get(family, family),
        'driver_installed': installed,
        'driver_running': running,
        'driver_target': target,
        'driver_target_variable': target_variable,
        'driver_planned': planned,
        'upgrade_planned': bool(installed) and planned,
        'packages_known': known,
        'package_names': (list(stack_utils.package_names(stack, family, arch).values()) if known else []) + hdk_names,
        'hdk_names': hdk_names,
        'arch': arch,
        'cann_source': source,
        'cann_dir': re.sub(r'/+$', '', artifacts_dir),
        'cann_sums_url': '%s/%s' % (re.sub(r'/+$', '', artifacts_url), v.get('ascend_artifacts_sums_file') or 'SHA256SUMS'),
        'read_python': method == 'venv' and stack is not None,
        # The relocatable CPython the service's interpreter is unpacked from (vllm_service_python_archive),
        # looked for in the same source as the vendor packages, and the Python version its name gives.
        'python_archive': python_archive,
        'python_archive_version': archive_version(python_archive),
        # The wheelhouse on the controller (vllm_service syncs it to the node): pip is asked there
        # whether it holds every step of the install, for this node's architecture and Python.
        'wheelhouse': wheelhouse if (method == 'venv' and known and wheelhouse and 'pip_indexes' not in skip) else '',
        'wheelhouse_steps': [{'step': entry['step'], 'requirements': entry['requirements']}
                             for entry in bundle.wheel_downloads(
                                 {'glibc': '2.17', 'pip_extra_packages': list(v.get('vllm_service_pip_extra_packages') or []),
                                  'ray': mode == 'ray'}, [stack], [family], [arch], ['3'], '')]
        if (method == 'venv' and known and wheelhouse and 'pip_indexes' not in skip) else [],
        # kernel_tuning's 1G pages of the whole host go on the kernel command line: read the boot loader.
        'cmdline_pages': cmdline_pages,
        'read_clock': read_clock,
        'reads': reads,
    }


def archive_version(name):
    """The Python version (``3.11``) a python-build-standalone style archive name gives
    (``cpython-3.11.14+20251120-aarch64-unknown-linux-gnu-install_only.tar.gz``), else ''."""
    match = re.match(r'^c?python-?(3\.[0-9]+)\.[0-9]+', _text(name))
    return match.group(1) if match else ''


def _python_read(python_read):
    """``(major.minor, glibc)`` of the Python read (``3.11.2`` / ``glibc 2.36``), empty when unread."""
    lines = _text((python_read or {}).get('stdout')).strip().splitlines() or ['']
    version = '.'.join(lines[0].split('.')[:2]) if re.match(r'^3\.\d+\.', lines[0]) else ''
    words = lines[1].split() if len(lines) > 1 else []
    return version, (words[1] if len(words) == 2 and words[0] == 'glibc' else '')


def wheelhouse_runs(plan, python_read, machine, python):
    """The ``pip install --dry-run`` argument lists (after ``python -m pip``) that ask the controller's
    pip whether the wheelhouse holds each install step for this node: its architecture, Python and
    glibc, wheels only, nothing installed (``--target`` is never written in a dry run). ``machine``
    and ``python`` ("3.11") are the controller's: pip judges the markers of dependencies by its own
    interpreter (pypa/pip#11664), so a run is ``exact`` only where they are the node's."""
    version, glibc = _python_read(python_read)
    # The interpreter of an archive not unpacked yet: the version its name gives.
    version = version or plan.get('python_archive_version') or ''
    if not plan.get('wheelhouse') or not version or not glibc:
        return []
    try:
        platforms = bundle.pip_platforms(plan['arch'], glibc)
    except bundle.BundleError:
        return []  # the glibc check names it
    runs = []
    for entry in plan.get('wheelhouse_steps') or []:
        argv = ['install', '--dry-run', '--quiet', '--disable-pip-version-check', '--ignore-installed',
                '--target', '/nonexistent/ascend-vllm-preflight', '--only-binary=:all:', '--implementation', 'cp',
                '--python-version', version]
        for platform in platforms:
            argv += ['--platform', platform]
        runs.append({'step': entry['step'], 'requirements': entry['requirements'],
                     'exact': machine == plan['arch'] and python == version,
                     'argv': argv + ['--no-index', '--find-links', plan['wheelhouse']] + entry['requirements']})
    return runs


_MISSING = re.compile(r'No matching distribution found for (\S+)')


def wheelhouse_findings(results, wheelhouse):
    """``(problems, warnings)`` of the dry runs (a command loop over ``wheelhouse_runs``): what pip did not
    find in the wheelhouse, named; where the controller's interpreter is not the node's, a warning."""
    problems, warnings = [], []
    for result in results or []:
        if result.get('skipped') or result.get('rc', 0) == 0:
            continue
        item = result.get('item') or {}
        stderr = _text(result.get('stderr') or result.get('msg'))
        missing = sorted(set(_MISSING.findall(stderr)))
        what = ('the wheelhouse %s lacks %s, which the %s step of the install needs (pip: "No matching distribution '
                'found")' % (wheelhouse, ', '.join(missing), item.get('step'))) if missing else (
            'pip cannot resolve the %s step (%s) from the wheelhouse %s: %s'
            % (item.get('step'), ' '.join(item.get('requirements') or []), wheelhouse,
               ' '.join(line.strip() for line in stderr.strip().splitlines()[-2:]) or 'rc %s' % result.get('rc')))
        fix = ('put wheels of %s for this node\'s architecture, Python and glibc into it (the site requirements report, '
               'playbooks/requirements.yml, prints the pip download command that fetches them)'
               % (', '.join(missing) or 'those requirements'))
        if item.get('exact', True):
            problems.append(problem(what, 'vllm_service_pip_wheelhouse', fix))
        else:
            warnings.append('%s; asked of the controller\'s pip, which judges conditional dependencies by its own '
                            'architecture and Python: %s' % (what, fix))
    return problems, warnings


def _os_version(facts):
    name = _text(facts.get('distribution'))
    release = _text(facts.get('distribution_release'))
    # EulerOS reports 2.0 and the service pack as release (SP8): compare it as 2.8.
    if name == 'EulerOS' and re.match(r'^SP[0-9]+$', release):
        return '2.' + release[2:]
    return _text(facts.get('distribution_version'))


def _loose_at_least(version, minimum):
    from ansible.module_utils.compat.version import LooseVersion
    return LooseVersion(version) >= LooseVersion(minimum)


def os_supported(name, version, supported):
    """Whether ``name version`` is one of ``preflight_supported_os``: an entry's ``versions``
    (the version itself or a minor of it), or its ``min_version`` within ``major``."""
    for entry in supported or []:
        if _text(entry.get('distribution')).lower() != name.lower():
            continue
        for listed in entry.get('versions') or []:
            if version == _text(listed) or version.startswith(_text(listed) + '.'):
                return True
        if entry.get('min_version') is not None \
                and (entry.get('major') is None or version.split('.')[0] == _text(entry.get('major'))) \
                and _loose_at_least(version, _text(entry.get('min_version'))):
            return True
    return False


def _os_list(supported):
    return ', '.join('%s %s' % (entry.get('distribution'),
                                '/'.join(_text(x) for x in entry['versions']) if entry.get('versions') is not None
                                else _text(entry.get('min_version')) + '+')
                     for entry in supported or [])


def disk_space(needs, df_lines, df_stderr):
    """``{problems, detail}`` of the free space: ``needs`` - ``{label, path, variable, gb}`` in the
    order df printed them (one ``df -Pk`` line per path); paths on one file system add up."""
    lines = list(df_lines or [])
    rows = []
    for index, need in enumerate(needs):
        fields = lines[index].split() if len(lines) == len(needs) else []
        rows.append(dict(need, gb=as_int(need.get('gb')),
                         mount=' '.join(fields[5:]) if len(fields) >= 6 else '',
                         avail=as_int(fields[3]) * 1024 if len(fields) >= 6 else 0))
    problems, details = [], []
    # Grouped by mount point in sorted order (the report's order since the first release).
    for mount in sorted(set(row['mount'] for row in rows)):
        group = [row for row in rows if row['mount'] == mount]
        need = sum(row['gb'] for row in group)
        free = round(float(group[0]['avail']) / GIB, 1)
        details.append('%s: %s GiB free, %s GiB needed' % (mount or '?', free, need))
        if mount == '' or group[0]['avail'] < need * GIB:
            if mount == '':
                paths = ', '.join(row['path'] for row in group)
                what = 'cannot read the free space of %s: %s' % (paths, _text(df_stderr).strip() or 'no df output')
            else:
                what = '%s has %s GiB free, %s GiB are needed: %s' % (
                    mount, free, need, ', '.join('%s GiB for %s %s' % (row['gb'], row['label'], row['path'])
                                                 for row in group))
            problems.append(problem(what, ', '.join(row['variable'] for row in group),
                                    'free space on %s or move those directories to a larger file system; lower the '
                                    'thresholds only if less is really enough' % (mount or 'the file system')))
    return {'problems': problems, 'detail': '; '.join(details)}


def model_disk_needs(needs, model, present):
    """``needs`` with the model directory's need raised to the profile's model plus the margin when
    the model stage will download it and it is not on the node yet (``model``: inventory_variables'
    ``model``; ``present``: its directory exists)."""
    size = as_int((model or {}).get('size_gb'))
    if not (model or {}).get('downloads') or size <= 0 or present:
        return list(needs)
    want = size + as_int(model.get('margin_gb'))
    raised = []
    for need in needs:
        if need.get('variable') == 'preflight_min_free_gb_models' and as_int(need.get('gb')) < want:
            need = dict(need, gb=want, label='the model (%s GB, plus vllm_service_model_free_margin_gb) in'
                        % size, variable='vllm_service_model_profile, vllm_service_model_free_margin_gb')
        raised.append(need)
    return raised


_MODEL_PRESENT = 'model directory present'


def _chip_support(plan, stack):
    family = plan['family']
    if family == '310':
        return 'unsupported', ASCEND_310_REASON
    if not family:
        return 'unknown', ''
    return stack_utils.chip_support(stack, plan['npu'].get('soc_version') or plan['pci_chip'])


def _chip_list(chips):
    return ', '.join('NPU %s chip %s (%s)' % (chip.get('npu_id'), chip.get('chip_id'), chip.get('health'))
                     for chip in chips)


def host_checks(plan, v):
    """The host layer's checks from ``host_plan``'s ``plan`` and what the role read (``v``: see
    plugins/filter/preflight_host_results.yml)."""
    stack = v.get('stack') if plan['stack_ok'] else None
    npu = plan['npu']
    facts = v.get('facts') or {}
    arch = _text(facts.get('architecture'))
    os_name, os_version = _text(facts.get('distribution')), _os_version(facts)
    supported_os = v.get('preflight_supported_os') or []
    supported_arches = list(v.get('preflight_supported_architectures') or [])
    kernel = _text(facts.get('kernel'))
    looked = list(v.get('headers_looked') or [])
    found_headers = list(v.get('headers_found') or [])
    memory_gib = round(float(as_int(facts.get('memtotal_mb'))) / 1024, 1)
    min_memory = v.get('preflight_min_memory_gb')
    python = _text(v.get('preflight_python'))
    python_read = v.get('python_read') or {}
    # The read prints the interpreter's version, then the C library it runs on (platform.libc_ver()).
    python_lines = _text(python_read.get('stdout')).strip().splitlines() or ['']
    python_version = python_lines[0].strip()
    glibc_words = python_lines[1].split() if len(python_lines) > 1 else []
    glibc = glibc_words[1] if len(glibc_words) == 2 and glibc_words[0] == 'glibc' else ''
    python_range = '%s-%s' % (stack['python_min'], stack['python_max']) if stack else ''
    method, mode = plan['method'], plan['mode']
    force = bool(v.get('npu_driver_force'))
    installed, running, target = plan['driver_installed'], plan['driver_running'], plan['driver_target']
    target_variable = plan['driver_target_variable']
    family = plan['family']
    expected = v.get('ascend_expected_npu_count') or ''
    checked_driver = target or installed
    sick = [chip for chip in npu.get('chips') or [] if chip.get('health') != 'OK']
    procs = list(npu.get('processes') or [])
    ntp_show = v.get('ntp_show') or {}
    ntp_status = v.get('ntp_status') or {}
    names = plan['package_names']
    hdk_names = list(plan.get('hdk_names') or [])
    source, cann_dir, sums_url = plan['cann_source'], plan['cann_dir'], plan['cann_sums_url']
    sums = v.get('sums') or {}
    cann_version = _text(stack['cann']) if stack else ''

    def os_problems():
        if os_supported(os_name, os_version, supported_os):
            return []
        return [problem('%s %s is not a supported operating system' % (os_name, os_version),
                        'ansible_facts.distribution, ansible_facts.distribution_version',
                        'install one of: %s; if your NPU driver release supports this one, add it to '
                        'preflight_supported_os' % _os_list(supported_os))]

    def arch_problems():
        if arch in supported_arches:
            return []
        return [problem('architecture %s is not one of %s' % (arch, ', '.join(supported_arches)),
                        'ansible_facts.architecture',
                        'run on a Kunpeng (aarch64) or x86_64 server; Ascend packages exist for no other architecture')]

    # os_prerequisites installs the headers (from the node's repositories) before the driver when
    # the driver build is on; it refuses by name when the repositories do not offer them.
    driver_build = bool(v.get('driver_build', True))

    def header_problems():
        if found_headers or driver_build:
            return []
        return [problem('no headers for the running kernel %s (looked for %s); the NPU driver builds its kernel modules '
                        'against them' % (kernel, ', '.join(looked)), 'ansible_facts.kernel',
                        'set os_prerequisites_driver_build: true to install them from the node\'s repositories, install '
                        'the headers of the running kernel (kernel-devel-%s or linux-headers-%s) yourself, or boot the '
                        'kernel whose headers are installed' % (kernel, kernel))]

    header_detail = (found_headers[0] if found_headers
                     else 'not installed yet: os_prerequisites installs them before the driver' if driver_build else '')

    boot_plan = v.get('boot_plan') or {}
    cmdline_pages = plan.get('cmdline_pages') or []

    def boot_problems():
        if not boot_plan.get('problem'):
            return []
        return [problem(boot_plan['problem'], 'kernel_tuning_hugepages', boot_plan.get('fix') or '')]

    boot_detail = ' && '.join(' '.join(command) for command in boot_plan.get('commands') or [])

    disk = {}

    def disk_result():
        if not disk:
            lines = list((v.get('df') or {}).get('stdout_lines') or [])
            present = _MODEL_PRESENT in lines
            needs = model_disk_needs(v.get('disk_needs') or [], v.get('model') or {}, present)
            disk.update(disk_space(needs, [line for line in lines if line != _MODEL_PRESENT],
                                   (v.get('df') or {}).get('stderr')))
        return disk

    def memory_problems():
        if as_int(facts.get('memtotal_mb')) >= as_int(min_memory) * 1024:
            return []
        return [problem('the host has %s GiB of memory, less than the %s GiB required' % (memory_gib, _text(min_memory)),
                        'ansible_facts.memtotal_mb, preflight_min_memory_gb',
                        'add memory, or lower preflight_min_memory_gb when the model is small enough')]

    # The service's interpreter comes by one of three routes: a relocatable CPython from the
    # artifact source (vllm_service_python_archive), an OS package os_prerequisites installs
    # (vllm_service_python_package, before the virtualenv), or an interpreter already on the node
    # (the OS's python3, or the site's own at vllm_service_python).
    archive, package = plan.get('python_archive') or '', _text(v.get('vllm_service_python_package'))
    routes = ('set vllm_service_python_archive to a relocatable CPython %s in the artifact source (python-build-standalone '
              'install_only layout), vllm_service_python_package to the OS package of your repositories that provides '
              'one (and vllm_service_python to its path), or vllm_service_python to a Python %s the site installed; or '
              'use vllm_service_install_method: container' % (python_range, python_range))
    python_runs = python_read.get('rc', 1) == 0 and re.match(r'^[0-9]+\.[0-9]+', python_version) is not None

    def sums_listed():
        """The file names the mirror's SHA256SUMS lists (sha256sum format, text or binary mode)."""
        return [re.sub(r'^\S+\s+\*?', '', line.strip()) for line in _text(sums.get('content')).splitlines()
                if line.strip()]

    def archive_problems():
        wanted = plan.get('python_archive_version') or ''
        if wanted and not stack_utils.python_ok(stack, wanted):
            return [problem('%s holds Python %s, outside %s required by vllm-ascend %s'
                            % (archive, wanted, python_range, stack['vllm_ascend']), 'vllm_service_python_archive',
                            'name a CPython in %s' % python_range)]
        if not plan['packages_known'] or 'cann_packages' in v.get('preflight_skip', []):
            return []
        where = {'dir': ('ascend_artifacts_dir %s on the controller' % cann_dir, v.get('dir_present')),
                 'url': (sums_url, sums_listed() if as_int(sums.get('status')) == 200 else None),
                 'node': ('%s on the node' % _text(v.get('ascend_artifacts_cache_dir')), v.get('cached'))}
        label, present = where[source]
        if present is None or archive in present:
            return []
        return [problem('%s (vllm_service_python_archive) is not in %s' % (archive, label),
                        'vllm_service_python_archive',
                        'put it there with its line in SHA256SUMS, or take another of the routes: %s' % routes)]

    def python_problems():
        if archive:
            return archive_problems()
        if not python_runs:
            if package:
                return []
            reason = (_text(python_read.get('stderr')).strip() or _text(python_read.get('msg'))
                      or 'exit status %s' % _text(python_read.get('rc', '')))
            return [problem('cannot run %s: %s' % (python, reason), 'vllm_service_python',
                            'no route supplies the service\'s interpreter: %s' % routes)]
        if stack_utils.python_ok(stack, python_version):
            return []
        return [problem('%s is Python %s, outside %s required by vllm-ascend %s'
                        % (python, python_version, python_range, stack['vllm_ascend']), 'vllm_service_python', routes)]

    if archive:
        python_detail = '%s from %s (Python %s)' % (
            python, archive, plan.get('python_archive_version') or 'read when unpacked')
    elif package and not python_runs:
        python_detail = '%s from the OS package %s (os_prerequisites installs it)' % (python, package)
    else:
        python_detail = '%s %s' % (python, python_version)

    def floors_above(floors):
        """The packages of ``floors`` whose wheels need a newer glibc than the node's (torch counts on
        aarch64 only: x86_64 takes the PyTorch CPU index's build)."""
        have = _version_tuple(glibc, 2)
        return [(name, floor) for name, floor in sorted((floors or {}).items())
                if not (name == 'torch' and arch != 'aarch64') and have is not None
                and (_version_tuple(floor, 2) or (0, 0)) > have]

    def glibc_problems():
        newer = ['%s %s (manylinux_%s)' % (name, floor, floor.replace('.', '_'))
                 for name, floor in floors_above((stack or {}).get('glibc'))]
        if not newer:
            return []
        releases = [row['release'] for row in stack_matrix.RELEASES
                    if row['status'] == 'final' and not floors_above(row.get('glibc'))]
        names = [pair[0] for pair in floors_above((stack or {}).get('glibc'))]
        outcome = (['pip would build vllm-ascend from source (a C++ build against CANN that upstream documents only '
                    'with gcc > 8)'] if 'vllm-ascend' in names else [])
        missing = [name for name in names if name != 'vllm-ascend']
        outcome += ['pip finds no %s at all (no source distribution is published)' % ' or '.join(missing)] if missing else []
        return [problem('the node runs glibc %s; the wheels of vllm-ascend %s for %s need a newer one: %s. %s'
                        % (glibc, stack['vllm_ascend'], arch, ', '.join(newer), '; '.join(outcome)),
                        'vllm_service_install_method',
                        'use vllm_service_install_method: container on this node, or %s, or an OS with a newer glibc'
                        % ('a release whose wheels run here (ascend_stack_release: %s)' % ', '.join(releases)
                           if releases else 'no release of the matrix has wheels for this glibc'))]

    pip = {}

    def pip_result():
        if not pip:
            pip.update(pip_plan_utils.pip_plan(stack, arch, family, v.get('vllm_service_pip_index_url') or '',
                                               list(v.get('vllm_service_pip_extra_index_urls') or []),
                                               len(_text(v.get('vllm_service_pip_wheelhouse'))) > 0))
        return pip

    wheelhouse = {}

    def wheelhouse_result():
        if not wheelhouse:
            # A Python or C library the python or glibc check refuses fails every dry run: said once, there.
            runs = [] if python_problems() or glibc_problems() else v.get('wheelhouse_runs')
            found = wheelhouse_findings(runs, plan.get('wheelhouse') or '')
            wheelhouse.update(problems=found[0], warnings=found[1])
        return wheelhouse

    def pip_detail():
        requirements = [r for index in pip_result().get('indexes') or [] for r in index.get('requirements') or []]
        return ', '.join(requirements) or 'PyPI serves every package'

    def present_problems():
        if not plan['npu_ok']:
            return [problem('reading the NPUs failed: %s' % (_text(v.get('node_facts_error'))
                                                             or _text((v.get('npu') or {}).get('npu_smi_error'))),
                            'ascend.vllm.npu_facts',
                            'run npu-smi info on the host and repair what it reports (driver, device nodes, install info)')]
        if plan['present']:
            return []
        return [problem('no Ascend NPU found: no npu-smi and no Huawei NPU PCI function under %s/bus/pci/devices'
                        % _text(v.get('preflight_sysfs_root')), 'ansible_facts.ascend_npu.present',
                        'run this on an Atlas NPU server; check that the cards are seated and listed by lspci -d 19e5:')]

    def count_problems():
        if as_int(npu.get('npu_count')) == as_int(expected):
            return []
        return [problem('found %s NPU(s), ascend_expected_npu_count is %s' % (npu.get('npu_count'), expected),
                        'ansible_facts.ascend_npu.npu_count, ascend_expected_npu_count',
                        'look for a missing or failed card (npu-smi info, lspci -d 19e5:), or correct '
                        'ascend_expected_npu_count')]

    support = []

    def chip_support():
        if not support:
            support.extend(_chip_support(plan, stack))
        return support

    def chip_problems():
        found = []
        variable = 'ansible_facts.ascend_npu.pci_functions[].device'
        if plan['unknown_ids']:
            found.append(problem('Huawei PCI device id(s) %s are no known Ascend NPU (the known ones are 310, 310B, '
                                 '310P, 910, 910B and 910_93 functions)' % ', '.join(plan['unknown_ids']), variable,
                                 'check the server model; this collection installs Atlas A2/A3 and 300I Duo servers'))
        if len(plan['families']) > 1:
            found.append(problem('more than one chip family on one host: ' + ', '.join(plan['families']), variable,
                                 'one driver and CANN serve one chip family: serve each family from its own host'))
        if family and chip_support()[0] in ('unsupported', 'unknown'):
            found.append(problem(chip_support()[1], 'ascend_stack_release',
                                 'choose a release that supports this chip, or run the service on other servers'))
        return found

    def chip_warnings():
        return [chip_support()[1]] if family and chip_support()[0] in ('partial', 'experimental') else []

    health_findings = [] if not running or not sick else [
        problem('unhealthy NPU chip(s): ' + _chip_list(sick), 'ansible_facts.ascend_npu.chips[].health',
                'read npu-smi info -t health -i <NPU> and clear the alarm (or replace the card) before installing')]

    def health_warnings():
        found = [f['what'] + FORCED for f in health_findings] if force else []
        if not running:
            found.append('NPU driver %s is installed but npu-smi cannot read the NPUs (a reboot may be pending); their '
                         'health is unknown' % installed)
        return found

    process_findings = [] if not procs else [
        problem('%d process(es) use the NPUs and the upgrade from driver %s to %s needs them stopped: %s'
                % (len(procs), installed, target,
                   ', '.join('PID %s (%s)%s on NPU %s' % (p.get('pid'), p.get('name') or '',
                                                          ' of %s' % p['unit'] if p.get('unit') else '', p.get('npu_id'))
                             for p in procs)),
                'ansible_facts.ascend_npu.processes, ' + target_variable,
                'stop the services using the NPUs (e.g. systemctl stop the vLLM service) in a maintenance window, or '
                'keep driver %s (%s)' % (installed, target_variable))]

    advice = []

    def driver_advice():
        if not advice:
            advice.extend(stack_utils.driver_check(stack, checked_driver))
        return advice

    def driver_problems():
        if driver_advice()[0] != 'below_minimum':
            return []
        return [problem(driver_advice()[1], 'ansible_facts.ascend_npu.driver_version' if not target else target_variable,
                        'install a newer NPU driver (npu_driver_version) or choose an older release')]

    def clock_problems():
        shown = _text(ntp_show.get('stdout')).strip()
        if shown == 'yes' or re.search('(NTP|System clock) synchronized: yes', _text(ntp_status.get('stdout'))):
            return []
        return [problem('the clock is not synchronised (timedatectl: NTPSynchronized=%s); nodes of a multi-node service '
                        '(%s) need agreeing clocks' % (shown or _text(ntp_show.get('stderr')).strip() or 'unknown', mode),
                        'vllm_service_multinode_mode',
                        'synchronise the clock with chrony or systemd-timesyncd against the site NTP servers '
                        '(timedatectl set-ntp true)')]

    def hdk_split(missing):
        """(CANN files, driver and firmware files) of the missing ones, and how to name the second."""
        return ([name for name in missing if name not in hdk_names], [name for name in missing if name in hdk_names],
                'driver %s package(s)' % plan['driver_target'])

    def package_problems():
        found = []
        if source == 'dir':
            present = list(v.get('dir_present') or [])
            cann_missing, hdk_missing, hdk_what = hdk_split([name for name in names if name not in present])
            if cann_missing:
                found.append(problem('CANN %s package(s) missing from ascend_artifacts_dir %s on the controller: %s'
                                     % (cann_version, cann_dir, ', '.join(cann_missing)), 'ascend_artifacts_dir',
                                     'download them from the Ascend support site into that directory, or choose the '
                                     'release whose packages you have'))
            if hdk_missing:
                found.append(problem('%s missing from ascend_artifacts_dir %s on the controller: %s'
                                     % (hdk_what, cann_dir, ', '.join(hdk_missing)), 'ascend_artifacts_dir',
                                     'download them from the Ascend support site into that directory with their '
                                     'SHA256SUMS, or set npu_driver_version to the driver you have'))
        elif source == 'url':
            if as_int(sums.get('status')) != 200:
                found.append(problem('cannot read %s: %s' % (sums_url, sums.get('msg') or 'no answer'),
                                     'ascend_artifacts_url',
                                     'make the mirror reachable from the node (ascend_artifacts_proxy_env for a proxy) '
                                     'and publish a SHA256SUMS file next to the packages'))
            else:
                listed = sums_listed()
                cann_missing, hdk_missing, hdk_what = hdk_split([name for name in names if name not in listed])
                if cann_missing:
                    found.append(problem('CANN %s package(s) not listed in %s: %s'
                                         % (cann_version, sums_url, ', '.join(cann_missing)), 'ascend_artifacts_url',
                                         'upload them to the mirror and add them to its SHA256SUMS, or choose the '
                                         'release whose packages you have'))
                if hdk_missing:
                    found.append(problem('%s not listed in %s: %s' % (hdk_what, sums_url, ', '.join(hdk_missing)),
                                         'ascend_artifacts_url', 'upload them to the mirror and add them to its '
                                         'SHA256SUMS, or set npu_driver_version to the driver you have'))
        else:
            cached = list(v.get('cached') or [])
            cann_missing, hdk_missing, hdk_what = hdk_split([name for name in names if name not in cached])
            for what, missing in (('CANN %s package(s)' % cann_version, cann_missing), (hdk_what, hdk_missing)):
                if missing:
                    found.append(problem('%s not pre-staged in %s on the node: %s'
                                         % (what, _text(v.get('ascend_artifacts_cache_dir')), ', '.join(missing)),
                                         'ascend_artifacts_cache_dir',
                                         'copy them there, or set ascend_artifacts_dir (controller directory) or '
                                         'ascend_artifacts_url (HTTP mirror)'))
        return found

    stack_ok = plan['stack_ok']
    return common_checks(list(v.get('preflight_skip') or []), stack, _text(v.get('stack_error'))) + [
        Check('os', os_problems, detail='%s %s' % (os_name, os_version)),
        Check('arch', arch_problems, detail=arch),
        Check('kernel_headers', header_problems, detail=header_detail,
              applies=plan['driver_planned'],
              na_reason='no driver install or upgrade is planned (driver %s installed)' % installed),
        Check('boot_loader', boot_problems, detail=boot_detail, applies=len(cmdline_pages) > 0,
              na_reason='kernel_tuning_hugepages has no 1G pool of the whole host'),
        Check('disk_space', lambda: disk_result()['problems'], detail=lambda: disk_result()['detail']),
        Check('memory', memory_problems, detail='%s GiB' % memory_gib),
        Check('python', python_problems, detail=python_detail,
              applies=method == 'venv' and stack_ok,
              na_reason=('vllm_service_install_method is ' + method) if method != 'venv' else 'the stack did not resolve'),
        Check('glibc', glibc_problems, detail='glibc %s' % glibc,
              applies=method == 'venv' and stack_ok and arch in PACKAGE_ARCHES and len(glibc) > 0,
              na_reason=('vllm_service_install_method is ' + method) if method != 'venv'
              else 'the stack did not resolve' if not stack_ok else 'the C library was not read'),
        Check('pip_indexes', lambda: list(pip_result().get('problems') or []) + wheelhouse_result()['problems'],
              lambda: wheelhouse_result()['warnings'], detail=pip_detail,
              applies=method == 'venv' and stack_ok and arch in PACKAGE_ARCHES,
              na_reason=('vllm_service_install_method is ' + method) if method != 'venv'
              else 'the stack did not resolve' if not stack_ok else 'no Ascend packages for this architecture'),
        Check('npu_present', present_problems,
              detail='%s NPU(s), %s chip(s)' % (npu.get('npu_count', 0), npu.get('chip_count', 0))),
        Check('npu_count', count_problems, detail='%s NPU(s)' % npu.get('npu_count', 0),
              applies=len(_text(expected)) > 0 and plan['present'],
              na_reason='ascend_expected_npu_count is not set' if plan['present'] else 'no NPU found'),
        Check('chip_support', chip_problems, chip_warnings, detail=lambda: chip_support()[1] if family else '',
              applies=plan['present'] and stack_ok,
              na_reason='no NPU found' if not plan['present'] else 'the stack did not resolve'),
        Check('npu_health', lambda: [] if force else health_findings, health_warnings,
              '%s chip(s) healthy' % npu.get('chip_count', 0),
              applies=bool(installed) or running, na_reason='no NPU driver installed'),
        Check('npu_processes', lambda: [] if force else process_findings,
              lambda: [f['what'] + FORCED for f in process_findings] if force else [], 'no process uses the NPUs',
              applies=plan['upgrade_planned'] and running, na_reason='no driver upgrade is planned on a running driver'),
        Check('driver_version', driver_problems,
              lambda: [driver_advice()[1]] if driver_advice()[0] == 'below_recommended' else [],
              lambda: driver_advice()[1], applies=stack_ok and len(checked_driver) > 0,
              na_reason='no NPU driver installed and none requested' if stack_ok else 'the stack did not resolve'),
        Check('time_sync', clock_problems, detail='clock synchronised', applies=mode in ('dp', 'ray'),
              na_reason='single node (vllm_service_multinode_mode is %s)' % mode),
        Check('cann_packages', package_problems, detail='%s (%s)' % (', '.join(names), source),
              applies=plan['packages_known'],
              na_reason='the stack did not resolve' if not stack_ok
              else 'no CANN packages are published for chip family %s on %s' % (family or 'unknown', arch)),
    ]


def host_results(plan, v):
    return evaluate(host_checks(plan, v), list(v.get('preflight_skip') or []), 'host')


# --- the report --------------------------------------------------------------------------------

STACK_REPORT_KEYS = ['release', 'vllm_ascend', 'vllm', 'cann', 'torch', 'torch_npu', 'python_min', 'python_max', 'driver',
                     'listed', 'overridden']


def report_hosts(hosts, layer, layers, stacks):
    """The report's ``hosts``: ``hosts`` - the play's hosts in order, ``layers`` and ``stacks`` -
    each host's results by layer and its stack, in the same order; a host without results of
    ``layer`` dropped out before its checks (``not_checked``)."""
    report = {}
    for host, host_layers, stack in zip(hosts, layers, stacks):
        host_layers = host_layers or {}
        checks = [result for results in host_layers.values() for result in results]
        status = ('not_checked' if layer not in host_layers
                  else 'failed' if any(c.get('status') == 'failed' for c in checks) else 'passed')
        report[host] = {
            'status': status,
            'warnings': len([c for c in checks if c.get('status') == 'warning']),
            'stack': dict((k, v) for k, v in stack.items() if k in STACK_REPORT_KEYS)
            if isinstance(stack, dict) and stack else None,
            'layers': host_layers,
        }
    return report


def summary(results, layer):
    """The lines a layer prints: the counts, then each warning."""
    statuses = [r['status'] for r in results]
    counts = [statuses.count(s) for s in ('passed', 'warning', 'failed', 'skipped', 'not_applicable')]
    return (['%s checks: %d passed, %d with a warning, %d failed, %d skipped, %d not applicable' % tuple([layer] + counts)]
            + ['warning: ' + w for r in results if r['status'] == 'warning' for w in r['warnings']])


def failure_message(results, host, layer, report_path=''):
    """Every problem of a host in one message; empty when no check failed."""
    lines = ['- %s: %s (%s). Fix: %s.' % (r['check'], re.sub(r'\.$', '', p['what']), p['variable'], p['fix'])
             for r in results if r['status'] == 'failed' for p in r['problems']]
    if not any(r['status'] == 'failed' for r in results):
        return ''
    return '\n'.join(['Preflight found %d problem(s) on %s (%s checks); nothing was changed.' % (len(lines), host, layer)]
                     + lines + ['Skip a check on purpose by adding its name to preflight_skip.']
                     + (['Report: %s/preflight.md' % report_path] if report_path else []))
