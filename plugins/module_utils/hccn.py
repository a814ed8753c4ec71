# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""hccn_tool: command lines, output parsers, the per-device change plan and the ping matrix.

Pure functions: nothing here imports Ansible. Commands run through ``run(argv) -> (rc, out, err)``
(``command.module_runner`` in the modules, a stand-in in the unit tests).

Output formats of hccn_tool (driver 23.x-25.x):

- ``-ip -g``: ``ipaddr:10.20.0.1`` / ``netmask:255.255.0.0``; without an address it exits
  non-zero with ``Get ipconf failed, because no ip was preset there!``
- ``-gateway -g``: ``default gateway:10.20.255.254, Iface:eth0``; without one it exits non-zero
  with ``Get gateway failed, because no gateway was preset there!``
- ``-netdetect -g``: ``netdetect address: 10.20.255.254`` (``0.0.0.0`` when unset)
- ``-link -g``: ``link status: UP``; ``-net_health -g``: ``net health status: Success``
- ``-ping -g address A [pkt N]``: ``N packets transmitted, M received, L% packet loss``; non-zero
  exit when nothing came back
- ``-tls -g``: ``dev_id:0, tls switch[0](0:disable, 1:enable), tls alarm time threshold[60]days``
  then the certificates (hicann/hccl docs/zh/user_guide/fault_diagnosis/
  tls_info_config_inconsistent_EI0016.md)
- products without RoCE ports (Atlas 300I Duo) print ``The command is not supported on this
  product.`` on stdout and exit non-zero.

The node's clock, read from its time daemon (the NPU links between nodes need the clocks in step):

- ``chronyc -c tracking``: one CSV line of 14 fields (chrony ``client.c`` ``process_cmd_tracking``
  and ``print_report``, 4.x): reference id (hex), source name, stratum, reference time, the system
  time's correction in seconds (positive: the clock is slow of NTP time), last offset, RMS offset,
  frequency, residual frequency, skew, root delay, root dispersion, update interval, leap status
  (``Normal``, ``Insert second``, ``Delete second``, ``Not synchronised``). Without a running chronyd
  it exits non-zero with ``506 Cannot talk to daemon``.
- ``timedatectl timesync-status`` (systemd-timesyncd): ``Server: <address> (<name>)``,
  ``Leap: normal|not synchronized|...`` and ``Offset: +316us``, the NTP offset
  ((T2 - T1) + (T3 - T4)) / 2, positive when the server is ahead (systemd ``timedatectl.c``
  ``print_ntp_status_info``; the example of the timedatectl(1) manual page).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import time

from ansible_collections.ascend.vllm.plugins.module_utils.command import describe_failure, find_executable

NOT_SUPPORTED = 'The command is not supported on this product.'
NO_IP = 'no ip was preset there'
NO_GATEWAY = 'no gateway was preset there'
SETTINGS = ('address', 'netmask', 'gateway', 'netdetect')

_TLS_SWITCH = re.compile(r'tls switch\[(\d)\]')
_TIMESPAN = re.compile(r'([\d.]+)(min|ms|us|\u00b5s|ns|s|h|d)\b')
_TIMESPAN_SECONDS = {'d': 86400.0, 'h': 3600.0, 'min': 60.0, 's': 1.0, 'ms': 1e-3, 'us': 1e-6, '\u00b5s': 1e-6,
                     'ns': 1e-9}
_PING_SUMMARY = re.compile(r'(\d+)\s+packets?\s+transmitted,\s*(\d+)\s+received')


class HccnError(Exception):
    """hccn_tool failed or printed something these parsers do not understand."""


class HccnUnsupported(HccnError):
    """The product has no RoCE NIC (hccn_tool answers that the command is not supported)."""


def _key_values(text, separator=':'):
    values = {}
    for line in (text or '').splitlines():
        key, sep, value = line.partition(separator)
        if sep:
            values[key.strip().lower()] = value.strip()
    return values


def parse_ip(text):
    """``-ip -g`` output -> ``{'address': A, 'netmask': M}``."""
    values = _key_values(text)
    if 'ipaddr' not in values or 'netmask' not in values:
        raise HccnError('cannot read ipaddr/netmask from hccn_tool output: %r' % (text or '').strip()[:200])
    return {'address': values['ipaddr'], 'netmask': values['netmask']}


def parse_gateway(text):
    """``-gateway -g`` output -> the gateway address."""
    match = re.search(r'default gateway:\s*([0-9.]+)', text or '')
    if not match:
        raise HccnError('cannot read the gateway from hccn_tool output: %r' % (text or '').strip()[:200])
    return match.group(1)


def parse_netdetect(text):
    """``-netdetect -g`` output -> the detect address, None for ``0.0.0.0`` (unset)."""
    match = re.search(r'netdetect address:\s*([0-9.]+)', text or '')
    if not match:
        raise HccnError('cannot read the netdetect address from hccn_tool output: %r'
                        % (text or '').strip()[:200])
    return None if match.group(1) == '0.0.0.0' else match.group(1)


def parse_link(text):
    """``-link -g`` output -> ``UP`` / ``DOWN``."""
    match = re.search(r'link status:\s*(\S+)', text or '')
    if not match:
        raise HccnError('cannot read the link status from hccn_tool output: %r' % (text or '').strip()[:200])
    return match.group(1).upper()


def parse_net_health(text):
    """``-net_health -g`` output -> the state (``Success``, ``Init``, ``Socket fail`` ...)."""
    match = re.search(r'net health status:\s*(.+)', text or '')
    if not match:
        raise HccnError('cannot read the net health from hccn_tool output: %r' % (text or '').strip()[:200])
    return match.group(1).strip()


def parse_ping(text):
    """``-ping -g`` output -> ``{'transmitted': N, 'received': M}`` (None when no summary line)."""
    match = _PING_SUMMARY.search(text or '')
    if not match:
        return None
    return {'transmitted': int(match.group(1)), 'received': int(match.group(2))}


def parse_tls(text):
    """``-tls -g`` output -> the TLS switch of the device's links, 0 (disabled) or 1 (enabled)."""
    match = _TLS_SWITCH.search(text or '')
    if not match:
        raise HccnError('cannot read the tls switch from hccn_tool output: %r' % (text or '').strip()[:200])
    return int(match.group(1))


def read_tls(run, tool, device):
    """The device's TLS switch, None when this hccn_tool cannot tell (an older driver without -tls)."""
    try:
        return parse_tls(_get(run, tool, device, '-tls'))
    except HccnUnsupported:
        raise
    except HccnError:
        return None


def parse_chrony_tracking(text):
    """``chronyc -c tracking`` -> ``{'daemon': 'chrony', 'source', 'synchronised', 'offset'}``, the offset in
    seconds the system clock is ahead (+) or behind (-) of the time its source gives."""
    lines = [line for line in (text or '').splitlines() if line.strip()]
    fields = lines[-1].split(',') if lines else []
    try:
        if len(fields) != 14:
            raise ValueError(len(fields))
        correction = float(fields[4])
    except ValueError:
        raise HccnError('cannot read chronyc -c tracking output: %r' % (text or '').strip()[:200])
    # 7F7F0101 (127.127.1.1): chronyd serves its own clock (its 'local' directive), no external source.
    source = 'its own clock (local)' if fields[0] == '7F7F0101' else fields[1] or fields[0]
    return {'daemon': 'chrony', 'source': source, 'synchronised': fields[13] != 'Not synchronised',
            'offset': -correction}


def _timespan(text):
    """systemd's time span (``+1min 4.5s``, ``-316us``) -> seconds."""
    text = text.strip()
    parts = _TIMESPAN.findall(text)
    if not parts:
        raise ValueError(text)
    seconds = sum(float(number) * _TIMESPAN_SECONDS[unit] for number, unit in parts)
    return -seconds if text.startswith('-') else seconds


def parse_timesync_status(text):
    """``timedatectl timesync-status`` -> ``{'daemon': 'timesyncd', 'source', 'synchronised', 'offset'}``
    (offset as parse_chrony_tracking gives it: the clock ahead of the server is positive)."""
    values = _key_values(text)
    if 'offset' not in values:
        # "Packet count: 0": the server has not answered yet.
        return {'daemon': 'timesyncd', 'source': values.get('server'), 'synchronised': False, 'offset': None}
    try:
        offset = _timespan(values['offset'])
    except ValueError:
        raise HccnError('cannot read timedatectl timesync-status output: %r' % (text or '').strip()[:200])
    return {'daemon': 'timesyncd', 'source': values.get('server'),
            'synchronised': values.get('leap') != 'not synchronized', 'offset': -offset}


def _find(name):
    return find_executable(name, os.environ.get('PATH', ''), ('/usr/bin', '/usr/sbin', '/bin', '/sbin'))


def read_clock(run, find=_find, wait=0, sleep=time.sleep, step=5):
    """The clock's state from chronyd, else systemd-timesyncd; ``{'daemon': None}`` when neither runs.
    Read-only: ``chronyc -c tracking``, ``timedatectl timesync-status``. A daemon that runs but has
    not synchronised yet (right after a reboot) is asked again every ``step`` seconds for up to
    ``wait`` seconds."""
    clock = _read_clock(run, find)
    waited = 0
    while clock['daemon'] and not clock['synchronised'] and waited < wait:
        sleep(step)
        waited += step
        clock = _read_clock(run, find)
    return clock


def _read_clock(run, find):
    chronyc = find('chronyc')
    if chronyc:
        rc, out, _err = run([chronyc, '-c', 'tracking'])
        if rc == 0:
            return parse_chrony_tracking(out)
    timedatectl = find('timedatectl')
    if timedatectl:
        # Asked only of a running timesyncd: D-Bus activation would start a stopped one.
        rc, out, _err = run(['systemctl', 'is-active', 'systemd-timesyncd.service'])
        if rc == 0:
            rc, out, _err = run([timedatectl, 'timesync-status'])
            if rc == 0:
                return parse_timesync_status(out)
    return {'daemon': None, 'source': None, 'synchronised': None, 'offset': None}


def tool_argv(tool, device, *args):
    return [tool, '-i', str(device)] + [str(a) for a in args]


def _unsupported(out, err):
    return NOT_SUPPORTED in (out or '') or NOT_SUPPORTED in (err or '')


def _get(run, tool, device, command, absent=None):
    """Run a getter; return its stdout, or None when it reports ``absent`` (nothing set)."""
    argv = tool_argv(tool, device, command, '-g')
    rc, out, err = run(argv)
    if rc == 0:
        return out
    if _unsupported(out, err):
        raise HccnUnsupported(describe_failure(argv, rc, out, err))
    if absent and (absent in (err or '') or absent in (out or '')):
        return None
    raise HccnError(describe_failure(argv, rc, out, err))


def read_settings(run, tool, device):
    """Address, netmask, gateway and netdetect address of one device (None where unset)."""
    ip_text = _get(run, tool, device, '-ip', absent=NO_IP)
    current = {'address': None, 'netmask': None}
    if ip_text is not None:
        current.update(parse_ip(ip_text))
    gateway_text = _get(run, tool, device, '-gateway', absent=NO_GATEWAY)
    current['gateway'] = parse_gateway(gateway_text) if gateway_text is not None else None
    current['netdetect'] = parse_netdetect(_get(run, tool, device, '-netdetect'))
    return current


def plan_commands(current, wanted):
    """The setter argument lists that take ``current`` to ``wanted`` (one device), in order.

    The address and netmask are set together (the tool takes both); the gateway after them
    (the tool refuses a gateway outside the address's segment and drops one that falls outside
    when the address changes); gateway and netdetect only when wanted (hccn_tool cannot clear
    them). Returns ``(commands, changed_keys)``.
    """
    commands = []
    changed = []
    ip_changes = [key for key in ('address', 'netmask') if current.get(key) != wanted.get(key)]
    if ip_changes:
        commands.append(['-ip', '-s', 'address', wanted['address'], 'netmask', wanted['netmask']])
        changed.extend(ip_changes)
    gateway_kept = current.get('gateway')
    if ip_changes and gateway_kept and not same_segment(wanted['address'], gateway_kept, wanted['netmask']):
        gateway_kept = None
    if wanted.get('gateway') and wanted['gateway'] != gateway_kept:
        commands.append(['-gateway', '-s', 'gateway', wanted['gateway']])
        changed.append('gateway')
    if wanted.get('netdetect') and wanted['netdetect'] != current.get('netdetect'):
        commands.append(['-netdetect', '-s', 'address', wanted['netdetect']])
        changed.append('netdetect')
    return commands, changed


def same_segment(a, b, mask):
    def number(text):
        parts = [int(p) for p in text.split('.')]
        return (parts[0] << 24) | (parts[1] << 16) | (parts[2] << 8) | parts[3]
    m = number(mask)
    return number(a) & m == number(b) & m


def configure(run, tool, devices, check_mode=False):
    """Read every device, set what differs (unless ``check_mode``); one result per device.

    ``devices``: ``[{'device': N, 'address': A, 'netmask': M, 'gateway': G|None,
    'netdetect': D|None}]``. Each result: device, changed, changed_keys, commands (as typed),
    before and after (the settings read back after the change; the planned ones in check mode).
    """
    results = []
    for item in devices:
        device = item['device']
        wanted = dict((key, item.get(key)) for key in SETTINGS)
        before = read_settings(run, tool, device)
        commands, changed_keys = plan_commands(before, wanted)
        typed = [' '.join(tool_argv(tool, device, *args)) for args in commands]
        if commands and not check_mode:
            for args in commands:
                argv = tool_argv(tool, device, *args)
                rc, out, err = run(argv)
                if rc != 0:
                    if _unsupported(out, err):
                        raise HccnUnsupported(describe_failure(argv, rc, out, err))
                    raise HccnError(describe_failure(argv, rc, out, err))
            after = read_settings(run, tool, device)
            missed = [key for key in SETTINGS if wanted.get(key) and after.get(key) != wanted[key]]
            if missed:
                raise HccnError('device %s: after %s the tool reads back %s' % (
                    device, '; '.join(typed),
                    ', '.join('%s=%s (wanted %s)' % (k, after.get(k), wanted[k]) for k in missed)))
        else:
            after = dict(before)
            for key in changed_keys:
                after[key] = wanted[key]
        results.append({'device': device, 'changed': bool(commands), 'changed_keys': changed_keys,
                        'commands': typed, 'before': before, 'after': after})
    return results


def parse_conf(text):
    """The ``key=value`` lines of /etc/hccn.conf (which hccn_tool writes with every setting)."""
    return dict((key.strip(), value.strip()) for key, sep, value in
                (line.strip().partition('=') for line in (text or '').splitlines()) if sep and key.strip())


def conf_drift(conf, device, address):
    """What /etc/hccn.conf says of ``device`` against the address the device has, or None.

    ``conf``: parse_conf of the file, None when there is none. HCCL takes the device addresses
    from the file; a stale ``address_N`` leaves that NPU unreachable with nothing in the error
    output pointing at it (vllm-project/vllm-ascend PR 16847: the device's own value is
    authoritative), and a missing file fails multi-node HCCL ("'device ip' is not set correctly",
    issue 7711)."""
    if address is None:
        return None
    if conf is None:
        return '/etc/hccn.conf is missing (hccn_tool -ip -s writes it; run the hccn role)'
    recorded = conf.get('address_%s' % device)
    if recorded != address:
        return ('/etc/hccn.conf address_%s is %s, the device has %s (the device\'s value is authoritative: run '
                'the hccn role or correct the file)' % (device, recorded or 'unset', address))
    return None


def check_device(run, tool, device, expected, peers, ping_count=3, retries=0, conf=None):
    """Settings, link, net health and pings of one device.

    ``expected``: the planned ``address``/``netmask``/``gateway``/``netdetect`` (missing or None:
    not judged); ``peers``: ``[{'node', 'device', 'address'}]``, each pinged again up to
    ``retries`` times while no reply comes back (the first packets to a peer can be lost while
    its address is resolved on the fabric); ``conf``: /etc/hccn.conf as parse_conf reads it
    (``False``: not judged, None: the file is missing). Returns a dict with device,
    address, netmask, gateway, netdetect, link, health, tls (the TLS switch, None when unread),
    pings_ok, pings_total, unreachable (the
    peers that did not answer) and problems (text naming what else is wrong).
    """
    expected = expected or {}
    row = {'device': device, 'link': None, 'health': None, 'pings_ok': 0, 'pings_total': 0,
           'unreachable': [], 'problems': []}
    row.update(read_settings(run, tool, device))
    row['link'] = parse_link(_get(run, tool, device, '-link'))
    row['health'] = parse_net_health(_get(run, tool, device, '-net_health'))
    row['tls'] = read_tls(run, tool, device)
    for key in SETTINGS:
        if expected.get(key) and row[key] != expected[key]:
            row['problems'].append('%s %s, planned %s' % (key, row[key] or 'unset', expected[key]))
    drift = conf_drift(conf, device, row['address']) if conf is not False else None
    if drift:
        row['problems'].append(drift)
    if row['link'] != 'UP':
        row['problems'].append('link %s' % row['link'])
    if row['health'] != 'Success':
        row['problems'].append('net health %s' % row['health'])
    for peer in peers:
        row['pings_total'] += 1
        reply = None
        # the tool refuses to ping from a device without an address or link: no need to ask it
        attempts = 1 + retries if row['address'] is not None and row['link'] == 'UP' else 0
        for _attempt in range(attempts):
            argv = tool_argv(tool, device, '-ping', '-g', 'address', peer['address'], 'pkt', ping_count)
            rc, out, err = run(argv)
            if rc != 0 and _unsupported(out, err):
                raise HccnUnsupported(describe_failure(argv, rc, out, err))
            reply = parse_ping(out)
            if reply and reply['received'] > 0:
                break
        if reply and reply['received'] > 0:
            row['pings_ok'] += 1
        else:
            row['unreachable'].append(dict(peer))
    return row


def verify(run, tool, devices, peers, ping_count=3, retries=0, conf=False):
    """``check_device`` for every planned device of ``devices`` against all ``peers``, in order.

    One command at a time: ``AnsibleModule.run_command`` is not made for concurrent callers
    (outputs were lost when devices were checked from several threads).
    """
    return [check_device(run, tool, item['device'], item, peers, ping_count, retries, conf) for item in devices]


def failures(node, rows):
    """One line per failing device, naming the node, the device and each unreachable peer."""
    lines = []
    for row in rows:
        what = list(row['problems'])
        if row['unreachable']:
            what.append('no reply from %s' % ', '.join(
                '%s device %s (%s)' % (p['node'], p['device'], p['address']) for p in row['unreachable']))
        if what:
            lines.append('%s device %s (%s): %s' % (node, row['device'], row['address'] or 'no address',
                                                    '; '.join(what)))
    return lines


def _ranges(numbers):
    """``[0, 1, 2, 5]`` -> ``'0-2, 5'``."""
    parts = []
    for number in sorted(numbers):
        if parts and number == parts[-1][1] + 1:
            parts[-1][1] = number
        else:
            parts.append([number, number])
    return ', '.join(str(a) if a == b else '%d-%d' % (a, b) for a, b in parts)


def tls_mismatch(rows_by_node):
    """One line when the devices of the service's nodes do not all have the same TLS switch, else ''.

    HCCL cannot link a device with TLS enabled to one with it disabled: the links time out
    (EI0006), and from Ascend HDK 25.2.0 the communicator's rank table check refuses the mix
    (EI0016, hicann/hccl docs/zh/user_guide/fault_diagnosis/tls_info_config_inconsistent_EI0016.md).
    Devices whose switch could not be read are left out.
    """
    by_state = {}
    for node in sorted(rows_by_node):
        for row in rows_by_node[node] or []:
            if row.get('tls') is not None:
                by_state.setdefault(int(row['tls']), {}).setdefault(node, []).append(row['device'])
    if len(by_state) < 2:
        return ''
    parts = []
    for state, name in ((1, 'enabled'), (0, 'disabled')):
        nodes = by_state.get(state, {})
        places = ['%s device %s' % (node, _ranges(devices)) for node, devices in sorted(nodes.items())]
        parts.append('%s on %s' % (name, '; '.join(places)))
    return ('the TLS switch of the NPU links differs between the nodes (%s): HCCL cannot link them (EI0006, EI0016); '
            "make it equal on every device of every node (hccn_tool -i <id> -tls -g to read, "
            'hccn_tool -i <id> -tls -s enable 0|1 to set)' % ', '.join(parts))


def clock_skew(clocks_by_node, max_skew_ms):
    """Lines naming nodes whose time daemon is not synchronised, and the nodes' clocks when they
    differ by more than ``max_skew_ms``; [] when they agree or fewer than two nodes were read.

    Each clock is what read_clock returns. The spread of the offsets against each node's time
    source stands for the spread of the clocks (the sources are taken to agree: a site points
    every node at the same NTP servers). Nodes without chronyd or timesyncd are left out.
    HCCL's connections between nodes time out when clocks are out of step (EI0006;
    vllm-project/vllm-ascend issue 5461).
    """
    read = dict((node, clock) for node, clock in sorted(clocks_by_node.items()) if clock and clock.get('daemon'))
    if len(read) < 2:
        return []
    lines = []
    unsynchronised = sorted(node for node, clock in read.items() if not clock.get('synchronised'))
    if unsynchronised:
        lines.append('the clock of %s is not synchronised by its time daemon (%s): HCCL connections between the '
                     "nodes can time out (EI0006); make every node's chronyd or timesyncd reach the site's NTP "
                     'servers' % (', '.join(unsynchronised),
                                  ', '.join('%s on %s' % (read[node]['daemon'], node) for node in unsynchronised)))
    offsets = dict((node, clock['offset']) for node, clock in read.items()
                   if clock.get('synchronised') and clock.get('offset') is not None)
    if len(offsets) >= 2:
        spread = max(offsets.values()) - min(offsets.values())
        if spread * 1000.0 > max_skew_ms:
            lines.append('the clocks of the nodes differ by %.3f s, more than hccn_clock_skew_max_ms (%g ms): %s '
                         '(each against its time source); HCCL connections between the nodes can time out (EI0006): '
                         'point every node at the same NTP servers and let them settle'
                         % (spread, max_skew_ms, ', '.join('%s %s s (%s, %s)' % (
                             node, _seconds(offsets[node]), read[node]['daemon'], read[node].get('source') or '?')
                             for node in sorted(offsets))))
    return lines


def fleet_problems(reports, max_skew_ms):
    """What keeps the nodes' NPUs from linking to each other, across nodes: TLS switches that
    differ and clocks out of step. ``reports``: per node, ``{'devices': [...], 'clock': {...}}``
    as hccn_check returns them. -> [str]"""
    reports = reports or {}
    tls = tls_mismatch(dict((node, (report or {}).get('devices') or []) for node, report in reports.items()))
    clocks = dict((node, (report or {}).get('clock')) for node, report in reports.items())
    return ([tls] if tls else []) + clock_skew(clocks, max_skew_ms)


def table(reports):
    """A fixed-width text table: node, device, address, link, health, TLS, pings ok/total; then a
    line per node with its clock. ``reports``: per node, hccn_check's ``devices`` and ``clock``
    (a plain list of devices is taken as the devices)."""
    header = ('node', 'device', 'address', 'link', 'health', 'tls', 'pings')
    lines = []
    clocks = []
    for node in sorted(reports):
        report = reports[node]
        if isinstance(report, list):
            report = {'devices': report}
        report = report or {}
        for row in report.get('devices') or []:
            tls = row.get('tls')
            lines.append((node, str(row['device']), row['address'] or '-', row['link'] or '-',
                          row['health'] or '-', '-' if tls is None else ('on' if tls else 'off'),
                          '%d/%d' % (row['pings_ok'], row['pings_total'])))
        clock = report.get('clock')
        if clock:
            clocks.append('clock of %s: %s' % (node, _clock_text(clock)))
    widths = [max([len(header[i])] + [len(line[i]) for line in lines]) for i in range(len(header))]
    fmt = '  '.join('%%-%ds' % w for w in widths)
    return [(fmt % header).rstrip()] + [(fmt % line).rstrip() for line in lines] + clocks


def _clock_text(clock):
    if not clock.get('daemon'):
        return 'no chronyd or timesyncd running (not compared)'
    if not clock.get('synchronised'):
        return '%s, not synchronised' % clock['daemon']
    return '%s, %s s against %s' % (clock['daemon'], _seconds(clock.get('offset') or 0.0), clock.get('source') or '?')


def _seconds(value):
    """'+0.300', '-2.200'; a value that rounds to zero is '+0.000', never '-0.000'."""
    return '%+.3f' % (round(value, 3) or 0.0)


def locate_tool(tool_path, install_path, search_path):
    """Where hccn_tool is: ``tool_path`` when given, else PATH, else <install_path>/driver/tools
    (where the driver installs it). Returns (path, None) or (None, message)."""
    if tool_path:
        if not os.access(tool_path, os.X_OK):
            return None, 'hccn_tool not found or not executable at %s' % tool_path
        return tool_path, None
    tools = os.path.join(install_path, 'driver', 'tools')
    found = find_executable('hccn_tool', search_path, [tools])
    if not found:
        return None, 'hccn_tool not found in PATH nor in %s: install the NPU driver first' % tools
    return found, None
