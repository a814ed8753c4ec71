# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Pure helpers of the vllm_service role: serve arguments, systemd quoting, the NUMA binding,
the chip count a configuration needs and the container's devices and mounts.

Nothing here imports Ansible; plugins/filter/vllm_service.py exposes these as filters.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import re
import shlex

from ansible.module_utils.parsing.convert_bool import boolean
from ansible_collections.ascend.vllm.plugins.module_utils.venv_record import normalize


class ServiceError(Exception):
    """Input the role cannot turn into a service definition."""


_OPTION = re.compile(r'^[a-z0-9][a-z0-9-]*$')


def _option_name(name):
    text = str(name).strip()
    if text.startswith('--'):
        text = text[2:]
    text = text.replace('_', '-')
    if not _OPTION.match(text):
        raise ServiceError('%r is not a vllm serve option name' % (name,))
    return text


def merge_args(*layers):
    """Merge option dicts ({option: value}) in order; later layers win.

    ``--max_model_len``, ``max-model-len`` and ``max_model_len`` name the same option. A value
    of None or False removes the option (a flag switched off, a profile default dropped).
    """
    merged = {}
    order = []
    for layer in layers:
        if layer is None:
            continue
        if not isinstance(layer, dict):
            raise ServiceError('serve arguments must be a dict of option: value, got %r' % (layer,))
        for key, value in layer.items():
            name = _option_name(key)
            if name not in merged:
                order.append(name)
            merged[name] = value
    return dict((name, merged[name]) for name in order if merged[name] is not None and merged[name] is not False)


def _value_text(value):
    if isinstance(value, bool):
        raise ServiceError('boolean value in the middle of a list')
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, separators=(',', ':'))
    return str(value)


def serve_argv(args):
    """Merged option dict -> argv list: True is a bare flag, a list repeats the values after
    one option (``--served-model-name a b``), a dict is passed as compact JSON (the
    ``--additional-config`` style)."""
    argv = []
    for name, value in merge_args(args).items():
        argv.append('--' + name)
        if value is True:
            continue
        if isinstance(value, list):
            argv.extend(_value_text(item) for item in value)
        else:
            argv.append(_value_text(value))
    return argv


def _int_option(args, name, default):
    value = args.get(name, default)
    try:
        number = int(str(value))
    except ValueError:
        raise ServiceError('--%s is %r, not a whole number' % (name, value))
    if number < 1:
        raise ServiceError('--%s is %d, it must be at least 1' % (name, number))
    return number


def chips_needed(args):
    """Chips one node's ``vllm serve`` uses: TP x PP x local DP (``--data-parallel-size-local``
    when given, else ``--data-parallel-size``). Returns a dict with the factors and the product."""
    merged = merge_args(args)
    tp = _int_option(merged, 'tensor-parallel-size', 1)
    pp = _int_option(merged, 'pipeline-parallel-size', 1)
    dp = _int_option(merged, 'data-parallel-size', 1)
    local = _int_option(merged, 'data-parallel-size-local', dp)
    return {'tensor_parallel': tp, 'pipeline_parallel': pp, 'data_parallel': dp,
            'data_parallel_local': local, 'chips': tp * pp * local}


def need_text(need, data_parallel_key='data_parallel_local'):
    """``tensor parallel T x data parallel D[ x pipeline parallel P] needs N chips`` of ``chips_needed``."""
    text = 'tensor parallel %s x data parallel %s' % (need['tensor_parallel'], need[data_parallel_key])
    if int(need['pipeline_parallel']) > 1:
        text += ' x pipeline parallel %s' % need['pipeline_parallel']
    return '%s needs %s chips' % (text, need['chips'])


def chip_fit_problem(need, devices, requested, count, mode, host):
    """Why the chips of this node cannot run the service, or '' when they can.

    ``need`` - ``chips_needed``; ``devices`` - the chips the service is given (its
    ASCEND_RT_VISIBLE_DEVICES); ``requested`` - ``vllm_service_devices`` as set (empty: unset);
    ``count`` - the chips of the node; ``mode`` - the multi-node mode (with Ray the cluster's
    chips count, checked apart).
    """
    count = int(count)
    devices = [int(d) for d in devices]
    unknown = [d for d in (int(r) for r in requested or []) if d >= count]
    if unknown or len(set(devices)) != len(devices):
        return 'vllm_service_devices %s must name distinct chips of 0-%d (%d chips on this node)' % (
            ','.join(str(d) for d in devices), count - 1, count)
    chips = int(need['chips'])
    if mode == 'ray' or (chips <= len(devices) and chips <= count):
        return ''
    given = ','.join(str(r) for r in requested or []) or 'unset'
    dp_variable = 'vllm_service_data_parallel_size_local' if mode == 'dp' else 'vllm_service_data_parallel_size'
    return ('%s, but %d are visible on %s (%d chips, vllm_service_devices %s). Lower vllm_service_tensor_parallel_size / %s '
            'or give the service more chips' % (need_text(need), min(len(devices), count), host, count, given, dp_variable))


def ray_chips_problem(need, node_chips):
    """Why the nodes of a Ray service (``node_chips``: the chips of each) cannot hold what the
    service needs (``chips_needed``), or '' when they can."""
    have = sum(int(chips) for chips in node_chips)
    if int(need['chips']) <= have:
        return ''
    return ('%s, the %d nodes of the ray service have %d; lower vllm_service_tensor_parallel_size / '
            'vllm_service_data_parallel_size or add nodes to vllm_workers'
            % (need_text(need, 'data_parallel'), len(node_chips), have))


def npu_problem(npu, profile, profile_chips, family, check_mode=False):
    """Why this node's NPUs cannot serve the profile, or '' when they can: npu-smi failing, no
    NPU listed (no driver running), or a chip family the profile does not support. In check
    mode a node whose driver is not installed yet has no chip name: that alone is no problem."""
    npu = npu or {}
    error = npu.get('npu_smi_error')
    named = npu.get('chip_name') is not None or bool(check_mode)
    count = int(npu.get('chip_count') or 0)
    if npu.get('present') and count > 0 and named and error is None and family in (profile_chips or []):
        return ''
    if error is not None:
        return 'npu-smi fails (%s); repair the driver first (playbooks/npu_driver.yml)' % error
    if named and count > 0:
        return 'profile %s supports %s, this node has %s (%s)' % (profile, ', '.join(profile_chips or []),
                                                                  npu.get('chip_name') or 'NPUs', family or 'unknown family')
    return 'npu-smi does not list the NPUs of this node (no driver running?); run the npu_driver role first'


def serving_address_problem(host, interface, address, interfaces, addresses, chosen_interface, chosen_address):
    """Why this node cannot serve a multi-node service from its address, or '' when it can.

    ``interface``/``address`` - vllm_service_multinode_interface/_address as set (empty: unset);
    ``interfaces``/``addresses`` - the node's interfaces and IPv4 addresses; ``chosen_*`` - what
    the role took (the settings, else the default IPv4 route's).
    """
    interfaces, addresses = list(interfaces or []), list(addresses or [])
    if chosen_interface and chosen_interface in interfaces and chosen_address in addresses:
        return ''
    if interface and interface not in interfaces:
        return 'vllm_service_multinode_interface is %s, but %s has no such interface (it has %s)' % (
            interface, host, ', '.join(sorted(interfaces)))
    if address:
        where = ('no interface of %s holds it' % host if not interface
                 else 'interface %s of %s does not hold it' % (interface, host))
        return 'vllm_service_multinode_address is %s, but %s (its IPv4 addresses are %s)' % (
            address, where, ', '.join(addresses) or 'none')
    missing = 'no IPv4 address on interface ' + interface if interface else 'no default IPv4 route'
    return ('%s has %s to take its serving address from; set vllm_service_multinode_address (and '
            'vllm_service_multinode_interface) for it' % (host, missing))


def systemd_exec(argv):
    """argv -> a systemd ExecStart= value: every word double-quoted with backslash escapes,
    ``$`` and ``%`` doubled so systemd expands neither variables nor specifiers."""
    words = []
    for word in argv:
        text = str(word)
        if '\n' in text or '\r' in text:
            raise ServiceError('argument %r contains a line break' % (text,))
        text = text.replace('\\', '\\\\').replace('"', '\\"').replace('$', '$$').replace('%', '%%')
        words.append('"%s"' % text if re.search(r'[^A-Za-z0-9_@%+=:,./-]', text) or not text else text)
    return ' '.join(words)


def systemd_exec_argv(value):
    """A systemd ExecStart= value written by ``systemd_exec`` -> its argv (the inverse): double
    quotes with backslash escapes, ``$$`` and ``%%`` back to one character."""
    words = shlex.split(str(value), posix=True)
    return [word.replace('$$', '$').replace('%%', '%') for word in words]


def _cpulist(cpus):
    """Sorted ints -> compact list ``0-3,8``."""
    ranges = []
    for cpu in sorted(set(cpus)):
        if ranges and cpu == ranges[-1][1] + 1:
            ranges[-1][1] = cpu
        else:
            ranges.append([cpu, cpu])
    return ','.join('%d' % a if a == b else '%d-%d' % (a, b) for a, b in ranges)


def parse_cpulist(text):
    cpus = set()
    for part in str(text or '').split(','):
        part = part.strip()
        if not part:
            continue
        if '-' in part:
            low, high = part.split('-', 1)
            cpus.update(range(int(low), int(high) + 1))
        else:
            cpus.add(int(part))
    return sorted(cpus)


def _cpu_binding_off(additional_config):
    """True when vllm-ascend's additional config turns its own CPU binding off."""
    if not additional_config:
        return False
    config = additional_config
    if isinstance(config, str):
        try:
            config = json.loads(config)
        except ValueError:
            raise ServiceError('--additional-config is not JSON: %r' % (additional_config,))
    return isinstance(config, dict) and config.get('enable_cpu_binding') is False


def binding_layer(stack, arch, numa_bind=True, additional_config=None):
    """Who binds the service's CPUs and memory: ``vllm-ascend``, ``numactl`` (the unit) or ``none``.

    One layer only. From 0.18.0 vllm-ascend binds on ARM by default (vllm_ascend/cpu_binding.py:
    taskset per thread within the allowed CPUs, migratepages, and the NPU IRQs where /proc/irq is
    writable); a numactl wrapper around it would fix the allowed set and memory policy it then
    moves away from. Elsewhere (x86_64, older releases, where it is off or skipped) the unit
    binds with numactl. torch-npu's CPU_AFFINITY_CONF, a third layer that overrides external
    binding, is never set. ``numa_bind`` false (vllm_service_numa_bind) leaves the unit unbound.
    ``additional_config`` (the service's ``--additional-config``) with ``enable_cpu_binding: false``
    turns vllm-ascend's binding off, and numactl takes over.
    """
    if arch in ((stack or {}).get('binds_cpus_on') or []) and not _cpu_binding_off(additional_config):
        return 'vllm-ascend'
    return 'numactl' if numa_bind else 'none'


# HCCL_OP_EXPANSION_MODE=AIV per chip family, as CANN's environment variable reference
# (HCCL_OP_EXPANSION_MODE, CANN 8.5.0 and 9.0.0) gives it: A3 runs AIV within a super node, one
# server or several; A2 runs AlltoAllV (expert parallelism) and the graph-mode AlltoAll /
# AllGather / ReduceScatter in AIV on one server only; the 310P knows AI_CPU and HOST.
_AIV_FAMILIES = {'910_93': 'any', '910b': 'single'}


def hccl_expansion_mode(family, multinode=False):
    """``HCCL_OP_EXPANSION_MODE`` for a service on ``family`` chips: ``AIV`` or None (CANN's default).

    A2 across servers gets None: its AIV mode does not cover cross-server AlltoAllV, and
    vllm-ascend's two-node A2 tutorials (DeepSeek-R1, DeepSeek-V3.1 at v0.23.0) set no expansion
    mode while their A3 commands set AIV.
    """
    scope = _AIV_FAMILIES.get(family)
    if scope == 'any' or (scope == 'single' and not multinode):
        return 'AIV'
    return None


_POST_RE = re.compile(r'^(?P<base>.+?)\.post\d+$')


def profile_release(releases, version):
    """The ``releases`` entry of a model profile for the vllm-ascend ``version`` the stack installs.

    The entry of that version, else - for a post release (``0.23.0.post1``), which fixes bugs
    and keeps its base release's serving options - the entry of its base release, else {}.
    """
    releases = releases or {}
    version = str(version or '')
    if version in releases:
        return releases[version]
    match = _POST_RE.match(version)
    if match and match.group('base') in releases:
        return releases[match.group('base')]
    return {}


def profile_serve(profile, family, release, common_env=None, multinode=False):
    """A model profile's serve arguments, environment and multi-node part for one chip family and
    the vllm-ascend ``release`` the stack installs.

    The layers, later ones winning: the profile's ``args``/``env``, its ``chips.<family>`` entry,
    then its ``releases`` entry (``profile_release``); a null in a later layer's ``env`` removes
    the variable. The environment starts from ``common_env``
    and HCCL_OP_EXPANSION_MODE where CANN supports AIV (``hccl_expansion_mode``). Returns
    ``{args, env, multinode}``; the role adds the user's layers on top.
    """
    if not isinstance(profile, dict):
        raise ServiceError('a model profile must be a dict, got %r' % (profile,))
    chips = profile.get('chips') or {}
    if family not in chips:
        raise ServiceError('the profile does not support chip family %r (it supports %s)'
                           % (family, ', '.join(sorted(chips)) or 'none'))
    chip = chips[family] or {}
    release_entry = profile_release(profile.get('releases'), release) or {}
    env = dict(common_env or {})
    mode = hccl_expansion_mode(family, multinode)
    if mode:
        env['HCCL_OP_EXPANSION_MODE'] = mode
    for layer in (profile, chip, release_entry):
        for name, value in (layer.get('env') or {}).items():
            # A later layer drops a variable with null: a release whose tutorial does not set it.
            if value is None:
                env.pop(name, None)
            else:
                env[name] = value
    return {
        'args': merge_args(profile.get('args') or {}, chip.get('args') or {}, release_entry.get('args') or {}),
        'env': env,
        'multinode': chip.get('multinode') or {},
    }


def multinode_args(args, mode, role, multinode_profile=None, dp=None):
    """The serve arguments of one node of a multi-node service: ``args`` (the single-node ones)
    plus, for ``mode`` dp, the profile's head or worker layer (``multinode_profile.dp``) and the
    data-parallel options of ``dp`` (``{size, local, start, address, rpc_port}``; a headless
    worker opens no HTTP port, so it drops host and port), or for ``mode`` ray the Ray executor.
    """
    if mode == 'ray':
        return merge_args(args, {'distributed-executor-backend': 'ray'})
    if mode != 'dp':
        raise ServiceError('multi-node mode must be dp or ray, got %r' % (mode,))
    if role not in ('head', 'worker'):
        raise ServiceError('a dp node is the head or a worker, got %r' % (role,))
    dp = dp or {}
    common = {
        'data-parallel-size': int(dp.get('size', 0)),
        'data-parallel-size-local': int(dp.get('local', 0)),
        'data-parallel-address': dp.get('address'),
        'data-parallel-rpc-port': int(dp.get('rpc_port', 0)),
    }
    layers = ((multinode_profile or {}).get('dp') or {})
    if role == 'head':
        return merge_args(args, layers.get('head') or {}, common)
    worker = {'headless': True, 'data-parallel-start-rank': int(dp.get('start', 0)), 'host': None, 'port': None}
    return merge_args(args, layers.get('worker') or {}, common, worker)


def numa_binding(plan, devices, online_nodes=None):
    """The CPUs and NUMA nodes of the NUMA-plan entries (``{npus, devices, numa_nodes, cpus}``)
    that hold any of ``devices``, the service's logical device ids (ASCEND_RT_VISIBLE_DEVICES).
    Returns {cpus: cpulist, numa_nodes: [int], entries: n} or None when no entry covers them
    (nothing to bind to).

    Entries are matched by their ``devices`` (logical ids), never by ``npus`` (positions in PCI
    address order): the two orders differ on real servers (A2: logical 0 is bus C1, PCI position 6
    of 0-7), and a match by position binds the service to the CPUs of another NPU. A plan
    without logical ids (npu-smi was not readable) therefore binds nothing rather than guessing.

    ``online_nodes`` (the node ids the kernel reports) drops nodes that do not exist from
    ``numa_nodes``: a PCI device may name a node the running kernel does not have (NUMA turned
    off in the firmware, a VM), and ``numactl --membind`` refuses such a node. The list is then
    empty and only the CPUs are bound.
    """
    wanted = set(int(n) for n in devices)
    cpus = set()
    nodes = set()
    count = 0
    for entry in plan or []:
        if not isinstance(entry, dict):
            raise ServiceError('a NUMA plan entry must be a dict with npus, devices, numa_nodes and cpus, got %r'
                               % (entry,))
        if wanted & set(int(n) for n in entry.get('devices') or []):
            count += 1
            cpus.update(parse_cpulist(entry.get('cpus', '')))
            nodes.update(int(n) for n in entry.get('numa_nodes', []))
    if not count or not cpus:
        return None
    if online_nodes is not None:
        nodes &= set(int(n) for n in online_nodes)
    return {'cpus': _cpulist(cpus), 'numa_nodes': sorted(nodes), 'entries': count}


# systemd.exec(5), EnvironmentFile=: an unquoted value has shell backslash escapes, and leading
# or trailing whitespace is dropped; in a "..." value a backslash keeps a following " \ ` $
# literally; a '...' value is verbatim. podman's --env-file (the container method) reads the rest
# of the line as it is. Values of these characters are read the same by both, unquoted:
_ENV_PLAIN_RE = re.compile(r'^[A-Za-z0-9_@%+=:,./~^*?!#&()\[\]{}<>|;-]*$')
_ENV_NAME_RE = re.compile(r'^[A-Za-z_][A-Za-z0-9_]*$')
_ENV_DQ_ESCAPE = re.compile(r'(["\\`$])')


_LINE_BREAKS = (('\n', 'a newline'), ('\r', 'a carriage return'), ('\x00', 'a NUL byte'))


def _line_break(text):
    """What in ``text`` would end an EnvironmentFile line ('a newline', ...), else None."""
    for char, label in _LINE_BREAKS:
        if char in text:
            return label
    return None


def env_problems(env, variable):
    """What of ``env`` ({name: value}) no EnvironmentFile can carry, as messages naming
    ``variable``: names that are not shell variable names, values with a newline, carriage
    return or NUL (each would end the line and start another variable)."""
    problems = []
    for name in sorted(env or {}, key=str):
        value = (env or {})[name]
        if not _ENV_NAME_RE.match(str(name)):
            problems.append('%s: %r is not an environment variable name (letters, digits, _; not starting with '
                            'a digit)' % (variable, name))
            continue
        label = _line_break('' if value is None else str(value))
        if label:
            problems.append('%s.%s: the value has %s, which an EnvironmentFile cannot carry' % (variable, name, label))
    return problems


# What names become: the instance a systemd unit and file names (vllm-<instance>.service,
# /etc/ascend-vllm/vllm-<instance>.env, /var/cache/vllm-<instance>), the model name a directory
# under vllm_service_model_dir, the repository id a hub path <org>/<name>.
_INSTANCE_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$')
_DIR_NAME_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_.+-]{0,127}$')
_REPO_RE = re.compile(r'^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9][A-Za-z0-9_.-]*$')


def name_problems(instance, model_name=None, repo=None):
    """Refusals for names that would not stay what they name: an instance that is no unit name
    (systemd cannot load vllm-a;b.service), a model name that leaves the model directory
    (``../../opt/x``) or nests (``a/b``), a repository id that is not ``<org>/<name>``. Empty
    model name and repository mean the profile's, which are checked by the unit tests."""
    problems = []
    text = '' if instance is None else str(instance)
    if not _INSTANCE_RE.match(text):
        problems.append('vllm_service_instance %r is not a unit name part: 1-64 letters, digits, "_", "." or "-", '
                        'starting with a letter or digit (it names vllm-<instance>.service and its files)' % text)
    text = '' if model_name is None else str(model_name)
    if text and (not _DIR_NAME_RE.match(text) or '..' in text):
        problems.append('vllm_service_model_name %r is not one directory name: letters, digits, "_", ".", "+" or "-", '
                        'no "/" and no ".." (it names the directory under vllm_service_model_dir)' % text)
    text = '' if repo is None else str(repo)
    if text and (not _REPO_RE.match(text) or '..' in text):
        problems.append('vllm_service_model_repo %r is not a repository id <org>/<name> (letters, digits, "_", "." '
                        'or "-" on each side, no "..")' % text)
    return problems


def api_key_problems(key, variable='vllm_service_api_key'):
    """What keeps ``key`` from reaching the server as it is and matching what clients send,
    naming ``variable`` (never the key): a newline, carriage return or NUL byte (the key file
    is an EnvironmentFile line), whitespace at either end (HTTP clients strip it)."""
    text = '' if key is None else str(key)
    label = _line_break(text)
    if label:
        return ['%s: the key has %s, which an EnvironmentFile cannot carry' % (variable, label)]
    if text != text.strip():
        return ['%s: the key begins or ends with whitespace, which HTTP clients strip from the '
                'Authorization header' % variable]
    return []


_EVERY_ADDRESS = ('0.0.0.0', '::', '')


def open_api_warnings(host, port=8000, key_set=False):
    """Warnings for an API server without a key that listens on every address (the role's
    defaults); none with a key or on a chosen address."""
    listen = '' if host is None else str(host)
    if key_set or listen not in _EVERY_ADDRESS:
        return []
    return ['no vllm_service_api_key is set and vllm_service_host is %s: the OpenAI API answers anyone who reaches '
            'port %s (/health, /metrics and /version answer without a key in any case); set vllm_service_api_key '
            'from Ansible Vault, or bind vllm_service_host to an address only trusted clients reach'
            % (listen or 'empty', port)]


def env_line(name, value, reader='systemd'):
    """One ``NAME=value`` line that ``reader`` (``systemd`` or ``podman``) reads back as ``value``.

    Plain values are written as they are (both readers agree on them); others are double-quoted
    with ``" \\ ` $`` escaped for systemd, and written verbatim for podman's --env-file, which
    does no unquoting. Raises ServiceError for what no file can carry (env_problems).
    """
    if reader not in ('systemd', 'podman'):
        raise ServiceError('unknown environment file reader %r (systemd or podman)' % (reader,))
    problems = env_problems({name: value}, 'environment')
    if problems:
        raise ServiceError(problems[0])
    text = '' if value is None else str(value)
    if reader == 'podman' or _ENV_PLAIN_RE.match(text):
        return '%s=%s' % (name, text)
    return '%s="%s"' % (name, _ENV_DQ_ESCAPE.sub(r'\\\1', text))


def env_lines(env, reader='systemd'):
    """``env_line`` of every variable, sorted by name."""
    return [env_line(name, (env or {})[name], reader) for name in sorted(env or {}, key=str)]


def _unquote_double(text):
    out = []
    index = 0
    while index < len(text):
        char = text[index]
        if char == '\\' and index + 1 < len(text) and text[index + 1] in '"\\`$':
            out.append(text[index + 1])
            index += 2
            continue
        out.append(char)
        index += 1
    return ''.join(out)


def parse_env_file(text):
    """KEY=value lines of a systemd EnvironmentFile -> dict (comments skipped).

    A "..." value loses its quotes and the backslashes before " \\ ` $ (systemd.exec); a '...'
    value its quotes only; an unquoted value its surrounding whitespace.
    """
    env = {}
    for raw in (text or '').splitlines():
        line = raw.strip()
        if not line or line.startswith('#') or line.startswith(';') or '=' not in line:
            continue
        key, value = line.split('=', 1)
        key = key.strip()
        if key.startswith('export '):
            key = key[len('export '):].strip()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = _unquote_double(value[1:-1])
        elif len(value) >= 2 and value[0] == value[-1] == "'":
            value = value[1:-1]
        env[key] = value
    return env


# Driver pieces a container needs from the host, relative to the install path
# when not absolute; all read-only.
# The host files vllm-ascend's docker run mounts (docs/source/installation.md at v0.23.0, the
# multi-node variant): hccn_tool is what HCCL and the multi-node checks call inside the container.
HOST_MOUNTS = ['/usr/local/dcmi', '{p}/driver/tools/hccn_tool', '/usr/local/bin/npu-smi', '{p}/driver/lib64',
               '{p}/driver/version.info', '/etc/ascend_install.info']
CONTROL_DEVICES = ['/dev/davinci_manager', '/dev/devmm_svm', '/dev/hisi_hdc']


# `systemctl is-active` states of a unit whose process runs, or is about to run, what systemd loaded
# before this run's change: a change restarts them. `start` on a unit waiting for its automatic
# restart (activating, auto-restart) only waits for that restart.
_RUNNING_STATES = ('active', 'activating', 'reloading', 'deactivating')


def unit_action(changed, active_state):
    """What the role does to the unit: ``{action, reset_failed}``.

    ``action`` - ``restarted`` when a file the unit reads changed and the unit runs (or is about to
    run the old files), ``started`` when something changed or it does not run, else ``none``.
    ``reset_failed`` - the unit failed (a crash loop that hit its start limit, say): its failed state
    and start counter are cleared first, so the fixing run starts it.
    """
    state = (active_state or '').strip()
    if changed and state in _RUNNING_STATES:
        action = 'restarted'
    elif changed or state != 'active':
        action = 'started'
    else:
        action = 'none'
    return {'action': action, 'reset_failed': state == 'failed'}


_REQUIREMENT_NAME = re.compile(r'^\s*([A-Za-z0-9][A-Za-z0-9._-]*)')


def requirement_names(requirements):
    """The distribution names of pip requirement strings (``torch==2.10.0``, ``numpy<2.0.0``,
    ``fastapi[standard]>=0.115``), in order, each once; a string without one is an error."""
    names = []
    for text in requirements or []:
        match = _REQUIREMENT_NAME.match(str(text))
        if not match:
            raise ServiceError('%r is not a pip requirement' % (text,))
        if match.group(1) not in names:
            names.append(match.group(1))
    return names


def package_problems(installed, wanted, venv):
    """The stack's packages (``wanted``: name -> version) that ``pip list`` (``installed``: name ->
    version, any spelling) does not have at that release: sentences. A local label (+cpu, +git...)
    on one side only is the same release."""
    have = dict((normalize(name), str(version)) for name, version in (installed or {}).items())
    problems = []
    for name, version in (wanted or {}).items():
        found = have.get(normalize(name), '')
        if found.partition('+')[0] != str(version).partition('+')[0]:
            problems.append('%s %s in %s, wanted %s' % (name, found or 'not installed', venv, version))
    return problems


def unit_state_problems(unit, properties, enabled, where=''):
    """A unit that is not active, or not enabled when it should be (``systemctl show`` as a dict):
    sentences, each ending with ``where`` (which node, for a data-parallel worker)."""
    properties = properties or {}
    problems = []
    if properties.get('ActiveState', '') != 'active':
        problems.append('%s is %s%s' % (unit, properties.get('ActiveState', '?'), where))
    if enabled and properties.get('UnitFileState', '') != 'enabled':
        problems.append('%s is %s, not enabled%s' % (unit, properties.get('UnitFileState', '?'), where))
    return problems


def requirement_problems(installed, requirements, where, what):
    """Requirements of ``requirements`` that the virtualenv does not satisfy: sentences.

    ``installed`` - name -> version as ``pip list`` prints them (any spelling); ``where`` - the
    virtualenv, ``what`` - whose requirements they are, both for the messages. Runs on the
    controller: the specifiers are read with ``packaging`` (a requirement of ansible-core).
    """
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    have = dict((canonicalize_name(str(name)), str(version)) for name, version in (installed or {}).items())
    problems = []
    for text in requirements or []:
        requirement = Requirement(str(text))
        version = have.get(canonicalize_name(requirement.name))
        if version is None:
            problems.append('%s is not installed in %s (%s)' % (requirement.name, where, what))
        elif not requirement.specifier.contains(version, prereleases=True):
            problems.append('%s %s in %s does not satisfy %s (%s)' % (requirement.name, version, where, text, what))
    return problems


# The hardening the role writes into a venv unit (templates/vllm.service.j2), as `systemctl show`
# prints it once loaded; the user comes from the role's variables.
UNIT_HARDENING = {'NoNewPrivileges': 'yes', 'ProtectSystem': 'strict', 'ProtectHome': 'yes', 'PrivateTmp': 'yes',
                  'DevicePolicy': 'closed', 'CapabilityBoundingSet': ''}


def unit_drift(unit, properties, user):
    """What of the loaded venv ``unit`` differs from what the role writes: a list of sentences.

    ``properties`` - ``systemctl show`` of the unit as a dict; ``user`` - the service user
    (``User=``); the hardening is UNIT_HARDENING. ``NeedDaemonReload=yes`` means the file on
    disk was changed after systemd loaded it: what runs is not what the file says.
    """
    props = properties or {}
    wanted = dict(UNIT_HARDENING, User=user)
    problems = []
    if props.get('NeedDaemonReload') == 'yes':
        problems.append('%s was changed on disk since systemd loaded it (%s; NeedDaemonReload=yes)'
                        % (unit, props.get('FragmentPath') or 'its unit file'))
    for name in sorted(wanted):
        want = '' if wanted[name] is None else str(wanted[name])
        have = props.get(name)
        if have is None:
            continue
        if have.strip() != want:
            problems.append('%s runs with %s=%s, the role writes %s=%s' % (unit, name, have.strip(), name, want))
    return problems


_DIGEST_LINE = re.compile(r'^#\s*([a-z_]+_sha256)=(\S*)\s*$')
# What a digest line of the environment file records (templates/vllm.env.j2): a change there
# means the service runs on something that changed since it was (re)started.
DIGEST_MEANING = {'cann_env_sha256': 'the CANN environment changed since',
                  'model_sha256': 'the model changed since',
                  'packages_sha256': "the virtualenv's packages changed since"}


def env_file_digests(text):
    """The ``# <name>_sha256=<hex>`` lines of the service's environment file, as a dict."""
    found = {}
    for line in (text or '').splitlines():
        match = _DIGEST_LINE.match(line.strip())
        if match:
            found[match.group(1)] = match.group(2)
    return found


def _differing(want, have):
    """Names added, removed and changed between two dicts, as phrases."""
    phrases = []
    for label, names in (('added', sorted(set(have) - set(want))),
                         ('missing', sorted(set(want) - set(have))),
                         ('changed', sorted(n for n in set(want) & set(have) if want[n] != have[n]))):
        if names:
            phrases.append('%s %s' % (', '.join(names), label))
    return phrases


def _unit_settings(text):
    """``[Section] Key`` -> the list of its values, in order (a key may repeat)."""
    settings = {}
    section = ''
    for raw in (text or '').splitlines():
        line = raw.strip()
        if not line or line[0] in '#;':
            continue
        if line.startswith('[') and line.endswith(']'):
            section = line
            continue
        key, value = line.split('=', 1) if '=' in line else (line, '')
        settings.setdefault('%s %s' % (section, key.strip()), []).append(value.strip())
    return settings


def _content_drift(kind, want, have):
    if kind == 'env':
        phrases = _differing(parse_env_file(want), parse_env_file(have))
        want_digests, have_digests = env_file_digests(want), env_file_digests(have)
        for name in sorted(want_digests):
            if have_digests.get(name) != want_digests[name]:
                phrases.append('%s (%s)' % (DIGEST_MEANING.get(name, name + ' differs'), name))
    elif kind == 'unit':
        phrases = _differing(_unit_settings(want), _unit_settings(have))
    else:
        phrases = []
    return phrases or ['other lines differ']


def service_file_drift(files):
    """What of the service's files on the node differs from what the role writes: sentences.

    ``files`` - one dict per file: ``path``; ``kind`` (``unit``, ``env`` or ``key``); ``want``
    (``None`` when the role writes no such file, else ``{text, mode, owner, group}``); ``have``
    (``{exists, text, mode, owner, group}``; for the key, ``same`` - whether it holds the
    configured key - instead of ``text``, so that no key reaches this function; any file may give
    ``same`` - its digest against that of what the role writes - instead of ``text``). Differences
    are named, never shown: an environment value or a key may be a secret.
    """
    problems = []
    for entry in files or []:
        path, kind = entry['path'], entry['kind']
        want, have = entry.get('want'), entry.get('have') or {}
        if want is None:
            if have.get('exists'):
                problems.append('%s exists, but the role writes none (no %s configured)'
                                % (path, 'API key' if kind == 'key' else kind))
            continue
        if not have.get('exists'):
            problems.append('%s is missing' % path)
            continue
        details = []
        if kind == 'key':
            if not have.get('same'):
                details.append('it does not hold vllm_service_api_key')
        elif 'same' in have:
            if not have['same']:
                details.append('its content differs')
        elif (want.get('text') or '') != (have.get('text') or ''):
            details.extend(_content_drift(kind, want.get('text'), have.get('text')))
        for attribute in ('mode', 'owner', 'group'):
            if want.get(attribute) is not None and str(have.get(attribute)) != str(want[attribute]):
                details.append('%s %s, the role writes %s' % (attribute, have.get(attribute), want[attribute]))
        if details:
            problems.append('%s differs from what the role writes: %s' % (path, '; '.join(details)))
    return problems


def write_reasons(files, unit, enabled=True, repaired=False):
    """Why the serve step writes the service's files and (re)starts it: sentences, empty when the
    node is as the role leaves it.

    ``files`` as service_file_drift takes them (the digests compared, as ``same``); ``unit`` - the
    unit's ``ActiveState``, ``UnitFileState`` and ``NeedDaemonReload`` (systemctl show);
    ``enabled`` - vllm_service_enabled; ``repaired`` - the install step restored files of the
    virtualenv, which the running service may have loaded broken.
    """
    reasons = service_file_drift(files)
    unit = unit or {}
    active = unit.get('ActiveState') or 'unknown'
    if active != 'active':
        reasons.append('the unit is %s' % active)
    state = unit.get('UnitFileState') or 'unknown'
    if bool(enabled) != (state in ('enabled', 'enabled-runtime')):
        reasons.append('the unit is %s, vllm_service_enabled is %s' % (state, str(bool(enabled)).lower()))
    if unit.get('NeedDaemonReload') == 'yes':
        reasons.append('systemd has not loaded the unit file as it is')
    if repaired:
        reasons.append('files of the virtualenv were repaired')
    return reasons


def rollback_plan(files, active_before, role='single', enabled=True):
    """What a failed health gate after this run's change puts back: ``{possible, reason, restore,
    remove, discard}``.

    ``files`` - one ``{path, result, backup, existed}`` per file the run wrote: ``result`` is the
    registered result of the task (a template or copy with ``backup: true`` reports
    ``backup_file`` when it replaced the content of an existing file; ``backup`` names where a task
    that removed the file moved it); ``existed`` - the file was there before the run. A changed
    file with a backup is restored from it (``restore``: ``[backup, path]`` pairs); a changed file
    that did not exist before is removed (``remove``); a file that existed and changed without a
    backup changed its owner or mode only, and is left as it is. ``discard`` are the backups to
    delete once the gate passed, or when nothing is rolled back.

    Rolled back only when there is a serving service to return to: the unit was ``active`` before
    the run, and it is a single-node service (the nodes of a multi-node service would have to go
    back together). ``reason`` says why not, else None.
    """
    restore, remove = [], []
    for entry in files or []:
        result = entry.get('result') or {}
        if not result.get('changed') or result.get('skipped'):
            continue
        backup = result.get('backup_file') or entry.get('backup')
        if backup:
            restore.append([backup, entry['path']])
        elif not entry.get('existed'):
            remove.append(entry['path'])
    state = (active_before or '').strip() or 'unknown'
    if not (restore or remove):
        reason = 'this run changed the content of none of the files the unit reads'
    elif not enabled:
        reason = 'vllm_service_rollback is false'
    elif role != 'single':
        reason = 'a multi-node service is not rolled back (its nodes would have to go back together)'
    elif state != 'active':
        reason = 'the unit was %s before this run, so there is no serving configuration to return to' % state
    else:
        reason = None
    return {'possible': reason is None, 'reason': reason, 'restore': restore, 'remove': remove,
            'discard': [pair[0] for pair in restore]}


_BARE_HOST = re.compile(r'^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?$')


def hub_problems(source, offline=False, modelscope_domain=''):
    """What the hub CLIs cannot do as configured: sentences. The ModelScope SDK builds its address
    as ``'https://' + MODELSCOPE_DOMAIN`` (modelscope/hub/utils/utils.py, MODELSCOPE_URL_SCHEME)
    and reads no offline variable: ``modelscope download`` has no offline mode."""
    problems = []
    if source != 'modelscope':
        return problems
    if offline:
        problems.append('vllm_service_model_offline is true, but modelscope download has no offline mode (the ModelScope '
                        'SDK reads no offline variable and would download); stage the model on the node and use '
                        'vllm_service_model_source: local, or set vllm_service_model_offline: false')
    if modelscope_domain and not _BARE_HOST.match(str(modelscope_domain)):
        problems.append('vllm_service_modelscope_domain is %s, but the ModelScope SDK puts https:// in front of it: give '
                        'a host name with an optional port (modelscope.example.internal:8443), no scheme or path'
                        % modelscope_domain)
    return problems


def download_problems(parallel, timeout, poll):
    """Sentences for download settings the role cannot use: files at once, the time a download
    may take and the seconds between two polls must be whole numbers of at least 1."""
    problems = []
    for name, value in (('vllm_service_download_parallel', parallel), ('vllm_service_download_timeout', timeout),
                        ('vllm_service_download_poll', poll)):
        if isinstance(value, bool) or not str(value).strip().isdigit() or int(str(value).strip()) < 1:
            problems.append('%s is %s; it must be a whole number of at least 1' % (name, value))
    return problems


def hub_download(source, repo, path, revision='', offline=False, cli='', endpoint='', token_set=False, token_file=''):
    """The hub CLI's download: ``{argv, env}`` for ``huggingface`` (``hf download``) or ``modelscope``
    (``modelscope download``). ``endpoint`` is HF_ENDPOINT or MODELSCOPE_DOMAIN; offline
    (HF_HUB_OFFLINE) uses the Hugging Face CLI's cache only. The token is never in either: with ``token_set`` a shell reads it from
    ``token_file`` (0600) into HF_TOKEN / MODELSCOPE_API_TOKEN and runs the CLI, because a value
    given as a task's environment is part of the command line the connection runs (-vvv prints it).
    """
    if source not in ('huggingface', 'modelscope'):
        raise ServiceError('%r is not a hub (huggingface or modelscope)' % (source,))
    hf = source == 'huggingface'
    if hf:
        argv = [cli, 'download', repo, '--local-dir', path]
    else:
        argv = [cli, 'download', '--model', repo, '--local_dir', path]
    if revision:
        argv += ['--revision', revision]
    env = {}
    if endpoint:
        env['HF_ENDPOINT' if hf else 'MODELSCOPE_DOMAIN'] = endpoint
    # hub_problems refuses offline for ModelScope, whose SDK has no such mode.
    if offline and hf:
        env['HF_HUB_OFFLINE'] = '1'
    if token_set:
        if not token_file:
            raise ServiceError('a token is set but no file to read it from was given')
        variable = 'HF_TOKEN' if hf else 'MODELSCOPE_API_TOKEN'
        argv = ['/bin/sh', '-c', '%s="$(cat "$0")" && export %s && exec "$@"' % (variable, variable), token_file] + argv
    return {'argv': [str(word) for word in argv], 'env': env}


# Where the API key file is mounted in the service's container.
CONTAINER_KEY_PATH = '/run/secrets/vllm-api-key'
# CANN's environment scripts in the vllm-ascend images (the CANN image's layout). The entry point of
# the 910B and A3 images sources them (Ascend/cann-container-image's Dockerfiles); the 310P images
# have their own (vllm-ascend Dockerfile.310p: it only execs the command), and a non-interactive
# shell reads no ~/.bashrc. So the command sources them itself; twice is harmless.
CONTAINER_ENV_SCRIPTS = ('/usr/local/Ascend/ascend-toolkit/set_env.sh', '/usr/local/Ascend/nnal/atb/set_env.sh')


def container_env_script():
    """The shell words that source the CANN scripts an image has (CONTAINER_ENV_SCRIPTS) before the
    command: upstream's A2/A3 images do it in their entry point, the 310P images do not."""
    return 'for f in %s; do if [ -f "$f" ]; then . "$f"; fi; done; ' % ' '.join(CONTAINER_ENV_SCRIPTS)


def container_argv(container, engine, shm_size, env_file, key_file=None):
    """The engine's command line for the service's container (``container``: ``{name, image, env,
    devices, volumes}`` of ``container_plan`` and the image). The environment comes from a file
    (``--env-file``). The API key (``key_file``, only when a key is configured) does not: podman
    keeps every ``--env``/``--env-file`` value in the container's configuration, which
    ``podman inspect`` prints. The file is mounted read-only instead, and the shell that starts vLLM
    in the container exports it just before, so the key is in no argv and no inspect output. That
    shell sources CANN's environment scripts the image has first (CONTAINER_ENV_SCRIPTS); the
    serve arguments follow the returned list."""
    argv = ['/usr/bin/' + str(engine), 'run', '--rm', '--name', container['name'], '--network', 'host',
            '--shm-size', str(shm_size), '--env-file', env_file]
    argv += ['--env=%s=%s' % (name, value) for name, value in (container.get('env') or {}).items()]
    argv += ['--device=' + device for device in container.get('devices') or []]
    argv += ['--volume=' + volume for volume in container.get('volumes') or []]
    script = container_env_script()
    if key_file:
        argv.append('--volume=%s:%s:ro' % (key_file, CONTAINER_KEY_PATH))
        script += 'VLLM_API_KEY="$(cat %s)" && export VLLM_API_KEY && ' % CONTAINER_KEY_PATH
    return argv + [container['image'], '/bin/bash', '-c', script + 'exec vllm "$@"', 'vllm']


def container_plan(chips, visible, install_path='/usr/local/Ascend', model_dir=None, extra_mounts=None):
    """Devices and bind mounts of a vllm-ascend container from npu_facts' ``chips``.

    ``visible`` are the logical device ids the service uses (what ASCEND_RT_VISIBLE_DEVICES
    counts): the chip whose ``device_id`` (logic id) it is, or - when npu_facts read no logic
    ids - the chip at that position of npu-smi's list. The device node is ``/dev/davinci<N>``
    with N the chip's physical id ("ls /dev/davinci* gives the physical ID of the device",
    Huawei's DCMI API reference, device_phy_id), its logic id where npu-smi prints no physical
    id (A2 boards; the two are equal on a host that sees all its chips), else its position.
    Inside the container the chips are numbered again from 0, so its ASCEND_RT_VISIBLE_DEVICES
    is 0..n-1.
    """
    chips = list(chips or [])
    by_logic = dict((int(c['device_id']), c) for c in chips if c.get('device_id') is not None)
    if len(by_logic) != len(chips):
        by_logic = None
    devices = []
    for logical in visible:
        index = int(logical)
        chip = by_logic.get(index) if by_logic is not None else (chips[index] if 0 <= index < len(chips) else None)
        if chip is None:
            raise ServiceError('device %d is not one of the %d chips npu-smi lists' % (index, len(chips)))
        node = chip.get('phy_id')
        if node is None:
            node = chip.get('device_id')
        devices.append('/dev/davinci%d' % (index if node is None else int(node)))
    if len(set(devices)) != len(devices):
        raise ServiceError('the devices %s are listed more than once' % ', '.join(str(v) for v in visible))
    path = (install_path or '/usr/local/Ascend').rstrip('/')
    mounts = ['%s:%s:ro' % (m.format(p=path), m.format(p=path)) for m in HOST_MOUNTS]
    if model_dir:
        mounts.append('%s:%s:ro' % (model_dir, model_dir))
    for mount in extra_mounts or []:
        mounts.append(mount)
    return {
        'devices': devices + CONTROL_DEVICES,
        'volumes': mounts,
        'env': {'ASCEND_RT_VISIBLE_DEVICES': ','.join(str(i) for i in range(len(devices)))},
    }


def _jinja_int(value):
    """``value | int`` as Jinja computes it: a number, or 0 when it is none."""
    try:
        return int(value)
    except (TypeError, ValueError):
        try:
            return int(float(value))
        except (TypeError, ValueError):
            return 0


# The source that reads each variable, for the "is empty" refusal.
_SOURCE_SETTING = {'controller': 'vllm_service_model_controller_dir', 'http': 'vllm_service_model_url'}


_WHOLE_RE = re.compile(r'^[0-9]+$')
# What to do about a required key that is not set, as the example inventory does it (one text for
# the offline preflight and the role).
API_KEY_FIX = ('set vllm_service_api_key from Ansible Vault (ansible-vault encrypt_string --name '
               'vault_vllm_service_api_key, and vllm_service_api_key set to that variable as inventories/example '
               'does) or set vllm_service_require_api_key: false')


def size_problems(port, tensor_parallel_size=None, data_parallel_size=None):
    """The port and the parallel sizes as numbers vLLM can take: ``[{what, variable, fix}]``. One
    implementation for the offline preflight and the role's own settings check. None for a size
    means unset (1)."""
    found = []
    text = '' if port is None else str(port).strip()
    if not (_WHOLE_RE.match(text) and 1 <= int(text) <= 65535):
        found.append({'what': 'vllm_service_port is %s, not a TCP port between 1 and 65535' % text,
                      'variable': 'vllm_service_port',
                      'fix': 'set vllm_service_port to a free port in 1-65535 (vLLM listens on 8000 by default)'})
    for value, name, fix in (
            (tensor_parallel_size, 'vllm_service_tensor_parallel_size',
             'set it to the number of NPUs one model replica spans (1, 2, 4, 8 or 16)'),
            (data_parallel_size, 'vllm_service_data_parallel_size',
             'set it to the number of model replicas (1 without data parallelism)')):
        text = '1' if value is None else str(value).strip()
        if not (_WHOLE_RE.match(text) and int(text) >= 1):
            found.append({'what': '%s is %s, not a whole number of at least 1' % (name, text), 'variable': name,
                          'fix': fix})
    return found


def settings_problems(settings):
    """The refusals of the vllm_service role's settings alone - no node, no stack - as whole
    messages in the order the role checks them: names, restart settings, the model profile,
    the API key and environment, the model source, the download and hub settings.

    ``settings`` holds the role's variables without their ``vllm_service_`` prefix: instance,
    model_name, model_repo, restart_sec, start_limit_burst, start_limit_interval, model_profile,
    profiles (the profile names), profile_repo (the chosen profile's repository; ignored when
    the profile is unknown), require_api_key, api_key, env, model_source, model_controller_dir,
    model_url, download_parallel, download_timeout, download_poll, model_offline,
    modelscope_domain, port, tensor_parallel_size, data_parallel_size. An absent key counts as
    unset (the port: not checked)."""
    get = settings.get
    problems = []
    names = name_problems(get('instance'), get('model_name'), get('model_repo'))
    if names:
        problems.append('vllm_service: %s.' % '; '.join(names))
    restart_sec, burst, interval = get('restart_sec'), get('start_limit_burst'), get('start_limit_interval')
    if _jinja_int(restart_sec) < 0 or _jinja_int(burst) < 1 or _jinja_int(interval) < 0:
        problems.append('vllm_service: vllm_service_restart_sec (%s) and vllm_service_start_limit_interval (%s, 0 turns '
                        'the limit off) must be 0 or more seconds, vllm_service_start_limit_burst (%s) 1 or more '
                        'starts.' % (restart_sec, interval, burst))
    profiles = list(get('profiles') or [])
    profile_known = get('model_profile') in profiles
    if not profile_known:
        problems.append('vllm_service: vllm_service_model_profile %s is not one of %s.'
                        % (get('model_profile'), ', '.join(str(name) for name in profiles)))
    key = get('api_key')
    key_text = '' if key in (None, '', False) else str(key).strip()
    # ``| bool`` as the role computed it: Ansible's own conversion.
    if boolean(get('require_api_key'), strict=False) and not key_text:
        problems.append('vllm_service: vllm_service_require_api_key is true but vllm_service_api_key is empty; %s.'
                        % API_KEY_FIX)
    written = env_problems(get('env') or {}, 'vllm_service_env') + api_key_problems(key or '')
    if written:
        problems.append('vllm_service: %s. Fix: remove those characters (a key is one line of printable characters; '
                        'quotes, backslashes and $ are fine).' % '; '.join(written))
    source = get('model_source')
    missing = ''
    if source in _SOURCE_SETTING and not get(_SOURCE_SETTING[source][len('vllm_service_'):]):
        missing = _SOURCE_SETTING[source]
    repo_missing = (source in ('huggingface', 'modelscope') and profile_known
                    and not (get('model_repo') or get('profile_repo') or ''))
    if missing or repo_missing:
        problems.append('vllm_service: vllm_service_model_source is %s but %s is empty.'
                        % (source, missing or 'vllm_service_model_repo'))
    downloads = download_problems(get('download_parallel'), get('download_timeout'), get('download_poll'))
    if downloads:
        problems.append('vllm_service: %s.' % '; '.join(downloads))
    hub = hub_problems(source, get('model_offline'), get('modelscope_domain') or '')
    if hub:
        problems.append('vllm_service: %s.' % '; '.join(hub))
    if 'port' in settings:
        for found in size_problems(get('port'), get('tensor_parallel_size'), get('data_parallel_size')):
            problems.append('vllm_service: %s. Fix: %s.' % (found['what'], found['fix']))
    return problems


# What the role's validation reads of npu_facts' and numa_facts' results. A chip's temperature,
# power, HBM use or health moves between two reads of the same node and decides nothing there, so
# it is left out: two reads of an unchanged node give the same digest.
_NPU_DECISIVE = ('present', 'chip_name', 'chip_family', 'chip_count', 'npu_smi_error')
_CHIP_DECISIVE = ('device_id', 'phy_id')
_NUMA_NODE_DECISIVE = ('id', 'cpulist')


def validation_digest(settings, stack=None, npu=None, numa=None, context=None):
    """A SHA-256 of everything the vllm_service validation decides from.

    ``settings`` maps the role's variables to their values, ``stack`` is the resolved stack row,
    ``npu`` and ``numa`` the node's facts (only their decisive fields count, see above) and
    ``context`` anything else the validation reads (the NUMA plan, the architecture, check mode,
    the digests of the files the caller read).
    Only the digest leaves this function, never the values (the settings hold the API key).
    """
    npu = npu or {}
    numa = numa or {}
    view = {
        'settings': settings or {},
        'stack': stack,
        'npu': dict((key, npu.get(key)) for key in _NPU_DECISIVE),
        'chips': [dict((key, (chip or {}).get(key)) for key in _CHIP_DECISIVE) for chip in npu.get('chips') or []],
        'numa_groups': numa.get('groups'),
        'numa_nodes': [dict((key, (node or {}).get(key)) for key in _NUMA_NODE_DECISIVE)
                       for node in numa.get('nodes') or []],
        'context': context or {},
    }
    text = json.dumps(view, sort_keys=True, default=str, separators=(',', ':'))
    return hashlib.sha256(text.encode('utf-8')).hexdigest()
