# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""What a site must provide before the first change, worked out from the inventory alone.

The site requirements report (``playbooks/requirements.yml``) groups the hosts whose needs are
the same and says, for each group, what its mirrors must hold and what it will run. Every list
comes from the functions the stages use on the nodes, never from a second list:

- the vendor .run files: ``bundle.vendor_files`` (``stack.hdk_packages`` as npu_driver asks,
  ``stack.package_names`` as cann asks), looked for where the artifacts role looks
  (``ascend_artifacts_url`` or ``ascend_artifacts_dir`` with their SHA256SUMS, then the node cache);
- the Python requirements: ``bundle.wheel_downloads`` (``pip_plan.pip_plan``'s steps, the CANN
  Python requirements, Ray in mode ray), one requirements file per step, since the vLLM step and
  the vllm-ascend step resolve different torch versions; the index of each requirement from the
  plan's ``indexes``;
- the container image: ``stack.image_ref`` with the registry mirror, as the container plan names it;
- the OS packages of each stage: the os_prerequisites role's per-family variables;
- the ports: the same list preflight's ``ports`` check reads (``service_ports``);
- the serve options: ``vllm_service.profile_serve``, ``merge_args`` and ``multinode_args``, as the
  role layers them. The node adds what only it knows: the NUMA binding, the visible devices and the
  serving network's interface.

The node is described by the inventory (``ascend_node_chip``, ``ascend_node_arch``,
``ascend_node_python``, ``ascend_node_glibc``, ``ascend_node_os_family``); a value left unset takes
the default of ``NODE_DEFAULTS`` and the report says it assumed it.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

from ansible_collections.ascend.vllm.plugins.module_utils import bundle
from ansible_collections.ascend.vllm.plugins.module_utils import pip_plan as pip_plan_utils
from ansible_collections.ascend.vllm.plugins.module_utils import stack as stack_utils
from ansible_collections.ascend.vllm.plugins.module_utils import vllm_service


class RequirementsError(Exception):
    """An inventory the report cannot be made for (each message names the variable)."""


# The node as the inventory describes it, before any host is reached: an Atlas 800I A2 on
# Kunpeng with openEuler 22.03 (glibc 2.34) and a Python 3.11 for the service.
NODE_DEFAULTS = {
    'ascend_node_chip': '910b',
    'ascend_node_arch': 'aarch64',
    'ascend_node_python': '3.11',
    'ascend_node_glibc': '2.34',
    'ascend_node_os_family': 'RedHat',
}
OS_FAMILIES = ('Debian', 'RedHat')

# The ports each mode or feature opens on a node, and Ray's worker port range: who must reach them.
PORTS = {
    'always': (('vllm_service_port', 'the clients of the API (the head only in a multi-node service)'),),
    'dp': (('vllm_service_multinode_rpc_port', 'the workers of the service (the head listens)'),),
    'ray': (('ray_cluster_port', 'the nodes of the service (the head listens)'),
            ('ray_cluster_node_manager_port', 'the nodes of the service'),
            ('ray_cluster_object_manager_port', 'the nodes of the service'),
            ('ray_cluster_dashboard_port', 'the operators (the head listens)')),
    'monitoring': (('monitoring_npu_exporter_port', 'Prometheus'),
                   ('monitoring_node_exporter_port', 'Prometheus')),
}
RAY_RANGE = ('ray_cluster_min_worker_port', 'ray_cluster_max_worker_port')
STACK_KEYS = ('release', 'vllm', 'vllm_ascend', 'torch', 'torch_npu', 'triton_ascend', 'cann', 'driver_target', 'ray')
# Data parallel across nodes binds more than the rpc port (vLLM 0.23.0): the front end's request and
# response sockets on ports the kernel picks (vllm/v1/engine/utils.py, get_open_port) and the
# data-parallel process group from VLLM_DP_MASTER_PORT, 29500 by default, upwards
# (vllm/config/parallel.py, data_parallel_master_port).
DP_MORE = {'variable': 'VLLM_DP_MASTER_PORT (vLLM)', 'port': '29500 and up, and ports chosen at start',
           'from': 'the nodes of the service: let them reach each other on every TCP port (a trusted zone)'}

_SAFE = re.compile(r'[^A-Za-z0-9._-]')


def _truthy(value):
    return str(value).strip().lower() in ('1', 'true', 'yes', 'on', 'y') if value is not None else False


def port_groups(mode, monitoring):
    """The keys of ``PORTS`` a node with multi-node ``mode`` opens."""
    return ['always'] + ([mode] if mode in PORTS else []) + (['monitoring'] if _truthy(monitoring) else [])


def service_ports(value, mode, monitoring):
    """``[[variable, port], ...]`` and ``[[low variable, high variable, low, high], ...]`` a node
    opens; ``value(name)`` is the host's value of a variable (its role default when unset)."""
    groups = port_groups(mode, monitoring)
    ports = [[name, value(name)] for group in groups for name, _who in PORTS[group] if value(name) is not None]
    ranges = [list(RAY_RANGE) + [value(RAY_RANGE[0]), value(RAY_RANGE[1])]] if mode == 'ray' else []
    return ports, ranges


def firewall_plan(role, mode, ports, peers):
    """What a node's firewall lets in: ``ports`` (``[[variable, port], ...]`` of ``service_ports``)
    that clients reach - the API port where the node answers (the head or a single node) and the
    exporters - from anywhere, and every port from ``peers``, the addresses of the service's other
    nodes (the data-parallel rpc port, Ray's ports and the ports vLLM picks at start, ``DP_MORE``).
    Returns ``{ports: [{port, proto, variable}], peers: [address]}``."""
    clients = ['monitoring_npu_exporter_port', 'monitoring_node_exporter_port']
    if role in ('head', 'single'):
        clients.insert(0, 'vllm_service_port')
    opened = [{'port': int(port), 'proto': 'tcp', 'variable': name} for name, port in ports
              if name in clients and str(port).isdigit()]
    return {'ports': opened, 'peers': sorted(set(peers)) if mode in ('dp', 'ray') else []}


def _node(value):
    node, assumed = {}, []
    for name, default in sorted(NODE_DEFAULTS.items()):
        got = value(name)
        if isinstance(got, float):
            raise RequirementsError('%s: %r is a number, not a string (YAML reads 3.10 as 3.1): quote it' % (name, got))
        if got is None or str(got).strip() == '':
            got = default
            assumed.append(name)
        node[name[len('ascend_node_'):]] = str(got)
    if node['chip'] not in stack_utils.PACKAGE_CHIPS:
        raise RequirementsError('ascend_node_chip: %r is not a chip family of %s'
                                % (node['chip'], ', '.join(stack_utils.PACKAGE_CHIPS)))
    if node['arch'] not in pip_plan_utils.ARCHES:
        raise RequirementsError('ascend_node_arch: %r is not one of %s' % (node['arch'], ', '.join(pip_plan_utils.ARCHES)))
    if not re.match(r'^3\.\d{1,2}$', node['python']):
        raise RequirementsError('ascend_node_python: %r is not a Python version 3.N (quote it: "3.10")' % node['python'])
    if node['os_family'] not in OS_FAMILIES:
        raise RequirementsError('ascend_node_os_family: %r is not one of %s' % (node['os_family'], ', '.join(OS_FAMILIES)))
    try:
        bundle.pip_platforms(node['arch'], node['glibc'])
    except bundle.BundleError as exc:
        raise RequirementsError('ascend_node_glibc: %s' % exc)
    node['assumed'] = assumed
    return node


def _stack(value):
    release = value('ascend_stack_release') or None
    try:
        return stack_utils.resolve_stack(release, value('ascend_stack_overrides') or {},
                                         _truthy(value('ascend_stack_allow_unlisted')))
    except stack_utils.StackError as exc:
        raise RequirementsError('ascend_stack_release: %s' % exc)


def _project(requirement):
    return re.split(r'[<>=!~;\[ ]', requirement, 1)[0].strip().lower().replace('_', '-')


def _index_of(plan):
    """{project: text} for what only another index than PyPI serves: the index, and the exact
    build where it differs from the pin (x86_64's torch==X+cpu of the PyTorch CPU index)."""
    where = {}
    for entry in plan['indexes']:
        for requirement in entry['requirements']:
            where[_project(requirement)] = (requirement, entry['label'])
    return where


def python_steps(stack, node, value, mode):
    """The pip steps of a venv node: ``[{step, requirements, indexes, file, download}]``. The download
    command fills the site's mirror from upstream: it names no index (pip takes the one the
    connected host's configuration gives); what only another index serves is in ``indexes``."""
    request = {
        'pip_index_url': '',
        'pip_extra_index_urls': [],
        'pip_trusted_hosts': [],
        'pip_extra_packages': list(value('vllm_service_pip_extra_packages') or []),
        'ray': mode == 'ray',
        'glibc': node['glibc'],
    }
    plan = pip_plan_utils.pip_plan(stack, node['arch'], node['chip'], wheelhouse=True)
    where = _index_of(plan)
    steps = []

    def index_note(req):
        exact, label = where[_project(req)]
        return ('from %s' % label) if exact == req else 'as %s from %s' % (exact, label)

    for entry in bundle.wheel_downloads(request, [stack], [node['chip']], [node['arch']], [node['python']], 'DIR'):
        name = 'requirements-%s-%s-cp%s-%s.txt' % (stack['release'], node['arch'], node['python'].replace('.', ''),
                                                   entry['step'])
        argv = ['pip'] + entry['argv'][:entry['argv'].index('--dest')] + ['--dest', 'DIR']
        argv += entry['argv'][entry['argv'].index('--dest') + 2:len(entry['argv']) - len(entry['requirements'])]
        argv += ['-r', name]
        steps.append({
            'step': entry['step'],
            'requirements': entry['requirements'],
            'indexes': dict((req, index_note(req)) for req in entry['requirements'] if _project(req) in where),
            'file': name,
            'download': argv,
        })
    return steps


def _redacted(name, text):
    return '<redacted>' if re.search(r'KEY|TOKEN|PASSWORD|SECRET', name, re.I) else str(text)


def serve(host, stack, node, value, profiles, layout, common_env=None):
    """The serve options and environment the profile and the inventory give ``host``, and what
    only the node decides."""
    profile_name = value('vllm_service_model_profile')
    profile = profiles.get(profile_name)
    if profile is None:
        raise RequirementsError('vllm_service_model_profile: %r is not a profile of %s'
                                % (profile_name, ', '.join(sorted(profiles))))
    mode = value('vllm_service_multinode_mode') or 'none'
    try:
        layers = vllm_service.profile_serve(profile, node['chip'], stack['vllm_ascend'], common_env,
                                            mode != 'none')
    except vllm_service.ServiceError as exc:
        raise RequirementsError('vllm_service_model_profile: %s on %s' % (exc, host))
    sizes = {}
    for option, name in (('tensor-parallel-size', 'vllm_service_tensor_parallel_size'),
                         ('data-parallel-size', 'vllm_service_data_parallel_size')):
        if value(name) is not None:
            sizes[option] = value(name)
    served = value('vllm_service_served_model_name') or profile.get('served_model_name')
    args = vllm_service.merge_args(layers['args'], sizes, value('vllm_service_extra_args') or {},
                                   {'served-model-name': served, 'host': value('vllm_service_host'),
                                    'port': value('vllm_service_port')})
    env = dict(layers['env'])
    env.update(value('vllm_service_env') or {})
    node_decides = ['ASCEND_RT_VISIBLE_DEVICES (the chips the service takes)',
                    'the NUMA binding (vllm-ascend\'s own on aarch64 from 0.18.0, else numactl)']
    if mode == 'dp':
        role = 'head' if host in layout['head'] else 'worker'
        args = vllm_service.multinode_args(args, 'dp', role, layers['multinode'], layout['dp'][host])
        node_decides.append('HCCL_IF_IP, HCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME, TP_SOCKET_IFNAME (the serving '
                            'network: vllm_service_multinode_address / _interface, else the default route)')
    elif mode == 'ray':
        args = vllm_service.multinode_args(args, 'ray', 'head' if host in layout['head'] else 'worker')
        node_decides.append('RAY_ADDRESS (the Ray cluster the ray_cluster role forms)')
    model_dir = value('vllm_service_model_dir') or '/var/lib/vllm/models'
    model_path = (value('vllm_service_model_path') if value('vllm_service_model_source') == 'local'
                  and value('vllm_service_model_path') else
                  '%s/%s' % (model_dir, value('vllm_service_model_name') or profile.get('model_name')))
    argv = ['vllm', 'serve', model_path] + vllm_service.serve_argv(args)
    return {
        'profile': profile_name,
        'argv': argv,
        'env': dict((name, _redacted(name, env[name])) for name in sorted(env)),
        'node_decides': node_decides,
        'model': {
            'name': value('vllm_service_model_name') or profile.get('model_name'),
            'repo': value('vllm_service_model_repo') or profile.get('repo'),
            'source': value('vllm_service_model_source') or profile.get('source') or 'huggingface',
            'url': value('vllm_service_model_url') or '',
            'size_gb': profile.get('size_gb'),
            'path': model_path,
        },
    }


def dp_layout(hosts, values, profiles):
    """Each dp node's ``{size, local, start, address, rpc_port}`` in the order the role ranks them
    (the head, then the workers in inventory order), from the inventory only."""
    head = [host for host in hosts if values[host]('__role') == 'head']
    workers = [host for host in hosts if values[host]('__role') == 'worker']
    cluster = [host for host in head + workers if (values[host]('vllm_service_multinode_mode') or 'none') == 'dp']
    layout = {'head': head, 'dp': {}}
    if not cluster:
        return layout
    head_value = values[cluster[0]]
    profile = profiles.get(head_value('vllm_service_model_profile')) or {}
    size = head_value('vllm_service_data_parallel_size') or (profile.get('args') or {}).get('data-parallel-size') or 1
    address = head_value('vllm_service_multinode_address') or head_value('ansible_host') or cluster[0]
    start = 0
    for host in cluster:
        value = values[host]
        role = 'head' if host in head else 'worker'
        chip = ((profile.get('chips') or {}).get(value('ascend_node_chip') or NODE_DEFAULTS['ascend_node_chip'])
                or {})
        profile_local = (((chip.get('multinode') or {}).get('dp') or {}).get(role) or {}).get('data-parallel-size-local')
        local = value('vllm_service_data_parallel_size_local')
        if local is None:
            local = profile_local if profile_local is not None else int(size) // len(cluster)
        layout['dp'][host] = {'size': int(size), 'local': int(local), 'start': start, 'address': address,
                              'rpc_port': int(value('vllm_service_multinode_rpc_port') or 0)}
        start += int(local)
    return layout


def host_requirements(host, value, profiles, os_packages, layout, common_env=None):
    """Everything ``host`` needs, and the key of the group it shares with hosts that need the same."""
    node = _node(value)
    stack = _stack(value)
    method = value('vllm_service_install_method') or 'venv'
    mode = value('vllm_service_multinode_mode') or 'none'
    hdk = stack_utils.hdk_packages(stack['driver_target'], node['chip'], node['arch'])
    cann = stack_utils.package_names(stack, node['chip'], node['arch'])
    vendor = [{'file': hdk['driver'], 'stage': 'npu_driver', 'what': 'NPU driver %s' % stack['driver_target']},
              {'file': hdk['firmware'], 'stage': 'npu_driver', 'what': 'NPU firmware %s' % hdk.get('firmware_version')},
              {'file': cann['toolkit'], 'stage': 'cann', 'what': 'CANN %s toolkit' % stack['cann']},
              {'file': cann['ops'], 'stage': 'cann', 'what': 'CANN %s operators for the chip' % stack['cann']},
              {'file': cann['nnal'], 'stage': 'cann', 'what': 'CANN %s NNAL (ATB)' % stack['cann']}]
    # The service's relocatable CPython travels from the same source (vllm_service_python_archive).
    if method != 'container' and value('vllm_service_python_archive'):
        vendor.append({'file': value('vllm_service_python_archive'), 'stage': 'vllm_service',
                       'what': 'the service\'s interpreter (a relocatable CPython, unpacked to %s)'
                               % (value('vllm_service_python_prefix') or '/opt/ascend-vllm/python')})
    url = value('ascend_artifacts_url') or ''
    directory = value('ascend_artifacts_dir') or ''
    source = {
        'url': url, 'dir': directory,
        'sums': (url.rstrip('/') + '/SHA256SUMS') if url else (directory.rstrip('/') + '/SHA256SUMS' if directory else ''),
        'node_cache': value('ascend_artifacts_cache_dir') or '',
    }
    images, steps, refusals = [], [], []
    if method == 'container':
        registry = (value('vllm_service_container_registry') or '').rstrip('/')
        ref = value('vllm_service_container_image') or stack_utils.image_ref(
            stack, node['chip'], value('vllm_service_container_os') or 'ubuntu')
        if registry and not value('vllm_service_container_image'):
            ref = '%s/%s' % (registry, ref.split('/', 1)[1] if '/' in ref else ref)
        images.append(ref)
    else:
        steps = python_steps(stack, node, value, mode)
        # What the venv method's own check refuses on such a node (a wheel built for another chip,
        # indexes that cannot serve the plan): the same words, before any host is reached.
        refusals = ['%s (%s). Fix: %s' % (problem['what'], problem['variable'], problem['fix'])
                    for problem in pip_plan_utils.pip_plan(
                        stack, node['arch'], node['chip'], value('vllm_service_pip_index_url') or '',
                        list(value('vllm_service_pip_extra_index_urls') or []),
                        bool(value('vllm_service_pip_wheelhouse')))['problems']]
    stages = {'driver_build': 'to build the driver\'s kernel module (a driver install or upgrade)'}
    if method == 'container':
        stages['serving_container'] = 'to run the service\'s container'
    else:
        stages['serving_venv'] = 'for the service\'s virtualenv'
        stages['source_build'] = 'only when pip would build a package from source'
    if _truthy(value('monitoring_enabled')):
        stages['monitoring'] = 'monitoring_enabled'
    packages = dict((stage, {'why': why, 'packages': list((os_packages.get(node['os_family']) or {}).get(stage) or [])})
                    for stage, why in sorted(stages.items()))
    if 'serving_venv' in packages and value('vllm_service_python_package'):
        packages['serving_venv']['packages'].append(value('vllm_service_python_package'))
    ports, ranges = service_ports(value, mode, value('monitoring_enabled'))
    who = dict((name, text) for group in PORTS.values() for name, text in group)
    group_key = json.dumps([stack['release'], node, method, mode, source, value('vllm_service_pip_index_url'),
                            list(value('vllm_service_pip_extra_index_urls') or []), images,
                            value('vllm_service_python_archive'), value('vllm_service_python_package')], sort_keys=True)
    return group_key, {
        'node': node,
        'stack': dict((key, stack.get(key)) for key in STACK_KEYS),
        'install_method': method,
        'multinode_mode': mode,
        'vendor_files': vendor,
        'vendor_source': source,
        'python': steps,
        'images': images,
        'os_packages': packages,
        'ports': [{'variable': name, 'port': port, 'from': who.get(name, '')} for name, port in ports]
        + [{'variable': '%s-%s' % (low, high), 'port': '%s-%s' % (low_port, high_port), 'from': 'the nodes of the service'}
           for low, high, low_port, high_port in ranges]
        + ([DP_MORE] if mode == 'dp' else []),
        'refusals': refusals,
    }, serve(host, stack, node, value, profiles, layout, common_env)


def report(hosts, values, profiles, os_packages, common_env=None):
    """The site requirements of ``hosts`` (inventory order); ``values[host](name)`` reads a host's
    variable (its literal role default when unset; ``__role`` is head, worker or single);
    ``profiles`` are vllm_service's model profiles, ``os_packages`` os_prerequisites' packages per
    OS family and stage, ``common_env`` vllm_service's environment of every profile.
    Returns ``{groups: [...], hosts: {host: serve}, problems: [...]}``."""
    problems = []
    layout = dp_layout(hosts, values, profiles)
    groups, order, per_host = {}, [], {}
    for host in hosts:
        try:
            key, needs, serving = host_requirements(host, values[host], profiles, os_packages, layout, common_env)
        except (RequirementsError, stack_utils.StackError, bundle.BundleError, pip_plan_utils.PlanError,
                vllm_service.ServiceError) as exc:
            problems.append('%s: %s' % (host, exc))
            continue
        problems.extend('%s: %s' % (host, refusal) for refusal in needs['refusals'])
        if key not in groups:
            groups[key] = dict(needs, hosts=[])
            order.append(key)
        groups[key]['hosts'].append(host)
        per_host[host] = serving
    return {'groups': [groups[key] for key in order], 'hosts': per_host, 'problems': problems}


def _cell(text):
    return str(text).replace('|', '\\|').replace('\n', ' ')


def _argv_text(argv):
    return ' '.join(("'%s'" % part.replace("'", "'\\''")) if re.search(r'[^A-Za-z0-9_./:=,+@%-]', str(part))
                    else str(part) for part in argv)


def markdown(data, generated=''):
    """The report as Markdown: per group, then per host."""
    lines = ['# Site requirements', '']
    if generated:
        lines += ['Generated %s from the inventory alone; no host was contacted.' % generated, '']
    for problem in data['problems']:
        lines.append('- **Refused:** %s' % problem)
    if data['problems']:
        lines.append('')
    for number, group in enumerate(data['groups'], 1):
        node, stack = group['node'], group['stack']
        lines += ['## Group %d: %s' % (number, ', '.join(group['hosts'])), '',
                  '%s on %s, Python %s, glibc %s, %s family; release %s (vLLM %s, vllm-ascend %s, CANN %s, driver %s); '
                  'install method %s, multi-node mode %s.'
                  % (node['chip'], node['arch'], node['python'], node['glibc'], node['os_family'], stack['release'],
                     stack['vllm'], stack['vllm_ascend'], stack['cann'], stack['driver_target'],
                     group['install_method'], group['multinode_mode']), '']
        if node['assumed']:
            lines += ['Assumed (not set in the inventory): %s.' % ', '.join(
                '%s=%s' % (name, NODE_DEFAULTS[name]) for name in node['assumed']), '']
        source = group['vendor_source']
        lines += ['### Vendor packages', '',
                  'From %s, each listed in %s; a node keeps what it fetched in %s.'
                  % (source['url'] or source['dir'] or 'no source set (ascend_artifacts_url or ascend_artifacts_dir)',
                     source['sums'] or 'SHA256SUMS', source['node_cache'] or 'its cache'), '',
                  '| File | Stage | What |', '|---|---|---|']
        lines += ['| %s | %s | %s |' % (_cell(item['file']), item['stage'], _cell(item['what'])) for item in group['vendor_files']]
        lines.append('')
        if group['python']:
            lines += ['### Python packages', '',
                      'The service\'s virtualenv installs these steps in order. Each step resolves on its own (vLLM\'s '
                      'step and vllm-ascend\'s pin different torch versions), so a mirror fetches each file with its '
                      'own command; pip adds the dependencies. Run them on a host that reaches PyPI, adding '
                      '`--extra-index-url` for the indexes named in brackets, and upload DIR to your mirror.', '']
            for step in group['python']:
                named = ', '.join('%s%s' % (req, ' (%s)' % step['indexes'][req] if req in step['indexes'] else '')
                                  for req in step['requirements'])
                lines += ['- `%s` (%s step): %s' % (step['file'], step['step'], named),
                          '', '  ```', '  %s' % _argv_text(step['download']), '  ```', '']
        if group['images']:
            lines += ['### Container images', ''] + ['- `%s`' % ref for ref in group['images']] + ['']
        lines += ['### OS packages (%s family)' % node['os_family'], '']
        for stage, entry in sorted(group['os_packages'].items()):
            names = ', '.join(entry['packages']).replace('{kernel}', '<running kernel>')
            lines.append('- %s, %s: %s' % (stage, entry['why'], names or 'set by the site'))
        lines += ['', '### Ports', '', '| Port | Variable | Opened to |', '|---|---|---|']
        lines += ['| %s | %s | %s |' % (item['port'], item['variable'], _cell(item['from'])) for item in group['ports']]
        lines.append('')
    lines += ['## What each host runs', '']
    for host, serving in sorted(data['hosts'].items()):
        model = serving['model']
        lines += ['### %s' % host, '',
                  'Profile %s: %s (%s GB) from %s%s, in %s.' % (
                      serving['profile'], model['repo'], model['size_gb'] if model['size_gb'] is not None else '?',
                      model['source'], ' ' + model['url'] if model['url'] else '', model['path']), '',
                  '```', _argv_text(serving['argv']), '```', '',
                  'Environment: ' + ', '.join('`%s=%s`' % (name, value) for name, value in serving['env'].items()), '',
                  'Chosen on the node: ' + '; '.join(serving['node_decides']) + '.', '']
    return '\n'.join(lines).rstrip('\n') + '\n'


def files(data, generated=''):
    """The report's files: requirements.json, requirements.md and one pip requirements file per
    release, architecture, Python and step."""
    out = [{'name': 'requirements.json', 'content': json.dumps(data, indent=2, sort_keys=True) + '\n'},
           {'name': 'requirements.md', 'content': markdown(data, generated)}]
    seen = set()
    for group in data['groups']:
        for step in group['python']:
            if step['file'] not in seen:
                seen.add(step['file'])
                out.append({'name': _SAFE.sub('_', step['file']),
                            'content': ''.join(requirement + '\n' for requirement in step['requirements'])})
    return out
