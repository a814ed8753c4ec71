"""hccn_tool parsers (published output formats), the per-device change plan, configure and verify."""
import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import hccn

TOOL = '/usr/local/Ascend/driver/tools/hccn_tool'
NOT_SUPPORTED = 'The command is not supported on this product.\n'


# hicann/hccl docs/zh/user_guide/fault_diagnosis/tls_info_config_inconsistent_EI0016.md, device 0.
TLS_OUTPUT = '''dev_id:0, tls switch[0](0:disable, 1:enable), tls alarm time threshold[60]days
dev_id:0, [pub cert] info:
         issuer[/C=CN/ST=GD/O=HUAWEI/OU=2012/CN=2_1thCA]
         start_time[Wed Feb 19 03:19:21 2020 GMT]
         end_time[Sat Feb 16 03:19:21 2030 GMT]
'''


class FakeNics(object):
    """hccn_tool of one node as a run(argv) stand-in: getters print the tool's formats, setters
    answer "Cmd executed successfully!", missing settings fail like the tool (rc 13, stderr)."""

    def __init__(self, devices=2, reachable=(), unsupported=False, health=None, tls=None):
        self.nics = dict((d, {'address': None, 'netmask': None, 'gateway': None, 'netdetect': None,
                              'link': 'UP'}) for d in range(devices))
        self.reachable = set(reachable)
        self.unsupported = unsupported
        self.health = health
        # None: an hccn_tool without -tls (it answers "Get unknown option!")
        self.tls = tls
        self.calls = []

    def __call__(self, argv):
        self.calls.append(argv[1:])
        assert argv[0] == TOOL and argv[1] == '-i'
        if self.unsupported:
            return 13, NOT_SUPPORTED, ''
        nic = self.nics[int(argv[2])]
        command, rest = argv[3], argv[4:]
        if command == '-ip' and rest == ['-g']:
            if not nic['address']:
                return 13, '', 'Get ipconf failed, because no ip was preset there!\n'
            return 0, 'ipaddr:%s\nnetmask:%s\n' % (nic['address'], nic['netmask']), ''
        if command == '-gateway' and rest == ['-g']:
            if not nic['gateway']:
                return 2, '', 'Get gateway failed, because no gateway was preset there!\n'
            return 0, 'default gateway:%s, Iface:eth%s\n' % (nic['gateway'], argv[2]), ''
        if command == '-netdetect' and rest == ['-g']:
            return 0, 'netdetect address: %s\n' % (nic['netdetect'] or '0.0.0.0'), ''
        if command == '-link':
            return 0, 'link status: %s\n' % nic['link'], ''
        if command == '-tls' and rest == ['-g'] and self.tls is not None:
            return 0, TLS_OUTPUT.replace('dev_id:0', 'dev_id:%s' % argv[2]).replace('switch[0]', 'switch[%d]' % self.tls), ''
        if command == '-net_health':
            return 0, 'net health status: %s\n' % (self.health or ('Success' if nic['netdetect'] else 'Init')), ''
        if command == '-ping':
            target, count = rest[2], int(rest[4])
            got = count if target in self.reachable else 0
            lines = ['device %s PING %s' % (argv[2], target)]
            lines += ['recv seq=%d,time=0.061000ms' % s if got else 'recv time out seq=%d' % s for s in range(count)]
            lines.append('%d packets transmitted, %d received, %.2f%% packet loss' % (count, got, 100.0 * (count - got) / count))
            return (0 if got else 100), '\n'.join(lines) + '\n', ''
        if command == '-ip' and rest[0] == '-s':
            nic['address'], nic['netmask'] = rest[2], rest[4]
        elif command == '-gateway' and rest[0] == '-s':
            nic['gateway'] = rest[2]
        elif command == '-netdetect' and rest[0] == '-s':
            nic['netdetect'] = rest[2]
        else:
            return 3, '', 'Get unknown option!\n'
        return 0, 'Cmd executed successfully!\n', ''


def wanted(device, address, gateway='10.20.255.254', netdetect='10.20.255.254'):
    return {'device': device, 'address': address, 'netmask': '255.255.0.0', 'gateway': gateway, 'netdetect': netdetect}


def test_parsers_read_the_published_formats():
    assert hccn.parse_ip('ipaddr:10.20.0.1\nnetmask:255.255.0.0\n') == {'address': '10.20.0.1', 'netmask': '255.255.0.0'}
    assert hccn.parse_gateway('default gateway:10.20.255.254, Iface:eth0\n') == '10.20.255.254'
    assert hccn.parse_netdetect('netdetect address: 10.20.255.254\n') == '10.20.255.254'
    assert hccn.parse_netdetect('netdetect address: 0.0.0.0\n') is None
    assert hccn.parse_link('link status: UP\n') == 'UP'
    assert hccn.parse_link('link status: DOWN\n') == 'DOWN'
    assert hccn.parse_net_health('net health status: Socket fail\n') == 'Socket fail'
    assert hccn.parse_ping('device 0 PING 10.20.0.17\nrecv seq=0,time=0.061000ms\n'
                           '1 packets transmitted, 1 received, 0.00% packet loss\n') == {'transmitted': 1, 'received': 1}
    assert hccn.parse_ping('device 0 PING 10.20.0.17\nrecv time out seq=0\n'
                           '1 packets transmitted, 0 received, 100.00% packet loss\n') == {'transmitted': 1, 'received': 0}
    assert hccn.parse_ping('') is None


@pytest.mark.parametrize('parser', [hccn.parse_ip, hccn.parse_gateway, hccn.parse_netdetect, hccn.parse_link,
                                    hccn.parse_net_health])
def test_parsers_quote_what_they_cannot_read(parser):
    with pytest.raises(hccn.HccnError, match="hccn_tool output: 'garbage'"):
        parser('garbage\n')


def test_plan_commands_sets_only_what_differs():
    current = {'address': '10.20.0.1', 'netmask': '255.255.0.0', 'gateway': '10.20.255.254', 'netdetect': None}
    assert hccn.plan_commands(current, wanted(0, '10.20.0.1')) == (
        [['-netdetect', '-s', 'address', '10.20.255.254']], ['netdetect'])
    assert hccn.plan_commands(dict(current, netdetect='10.20.255.254'), wanted(0, '10.20.0.1')) == ([], [])
    # a new address in the same segment keeps the gateway
    assert hccn.plan_commands(dict(current, netdetect='10.20.255.254'), wanted(0, '10.20.0.2')) == (
        [['-ip', '-s', 'address', '10.20.0.2', 'netmask', '255.255.0.0']], ['address'])
    # unset gateway/netdetect in the request leave the device's alone
    assert hccn.plan_commands(current, wanted(0, '10.20.0.1', gateway=None, netdetect=None)) == ([], [])


def test_plan_commands_sets_the_gateway_again_when_the_segment_changes():
    current = {'address': '10.30.0.1', 'netmask': '255.255.255.0', 'gateway': '10.30.0.254', 'netdetect': None}
    item = {'address': '10.30.1.1', 'netmask': '255.255.255.0', 'gateway': '10.30.0.254', 'netdetect': None}
    # the tool drops a gateway outside the new segment: setting it again is part of the plan
    # (and fails there, naming the command: the request itself is wrong)
    commands, keys = hccn.plan_commands(current, item)
    assert keys == ['address', 'gateway']


def test_configure_sets_reads_back_and_is_idempotent():
    nics = FakeNics()
    devices = [wanted(0, '10.20.0.1'), wanted(1, '10.20.0.2')]
    first = hccn.configure(nics, TOOL, devices)
    assert [r['changed'] for r in first] == [True, True]
    assert first[0]['changed_keys'] == ['address', 'netmask', 'gateway', 'netdetect']
    assert first[0]['commands'][0] == TOOL + ' -i 0 -ip -s address 10.20.0.1 netmask 255.255.0.0'
    assert first[1]['before'] == {'address': None, 'netmask': None, 'gateway': None, 'netdetect': None}
    assert first[1]['after'] == {'address': '10.20.0.2', 'netmask': '255.255.0.0',
                                 'gateway': '10.20.255.254', 'netdetect': '10.20.255.254'}
    nics.calls = []
    second = hccn.configure(nics, TOOL, devices)
    assert [r['changed'] for r in second] == [False, False]
    assert all(call[2] in ('-ip', '-gateway', '-netdetect') and call[3] == '-g' for call in nics.calls)


def test_configure_check_mode_changes_nothing():
    nics = FakeNics()
    result = hccn.configure(nics, TOOL, [wanted(0, '10.20.0.1')], check_mode=True)
    assert result[0]['changed'] and result[0]['after']['address'] == '10.20.0.1'
    assert nics.nics[0]['address'] is None
    assert not [c for c in nics.calls if '-s' in c]


def test_configure_names_the_failing_command():
    nics = FakeNics()

    def refusing(argv):
        if '-s' in argv and '-ip' in argv:
            return 7, '', 'The ip address configured is conflicted!\n'
        return nics(argv)
    with pytest.raises(hccn.HccnError) as err:
        hccn.configure(refusing, TOOL, [wanted(0, '10.20.0.1')])
    assert str(err.value) == ('`%s -i 0 -ip -s address 10.20.0.1 netmask 255.255.0.0` failed with rc=7: '
                              'The ip address configured is conflicted!' % TOOL)


def test_unsupported_product_is_its_own_error():
    with pytest.raises(hccn.HccnUnsupported, match='The command is not supported on this product.'):
        hccn.configure(FakeNics(unsupported=True), TOOL, [wanted(0, '10.20.0.1')])


def test_verify_pings_every_peer_and_names_failures():
    nics = FakeNics(reachable={'10.20.0.17'})
    hccn.configure(nics, TOOL, [wanted(0, '10.20.0.1'), wanted(1, '10.20.0.2')])
    peers = [{'node': 'n2', 'device': 0, 'address': '10.20.0.17'}, {'node': 'n2', 'device': 1, 'address': '10.20.0.18'}]
    rows = hccn.verify(nics, TOOL, [wanted(0, '10.20.0.1'), wanted(1, '10.20.0.3')], peers, ping_count=2)
    assert [(r['pings_ok'], r['pings_total']) for r in rows] == [(1, 2), (1, 2)]
    assert rows[0]['link'] == 'UP' and rows[0]['health'] == 'Success' and rows[0]['problems'] == []
    assert rows[1]['problems'] == ['address 10.20.0.2, planned 10.20.0.3']
    assert hccn.failures('n1', rows) == [
        'n1 device 0 (10.20.0.1): no reply from n2 device 1 (10.20.0.18)',
        'n1 device 1 (10.20.0.2): address 10.20.0.2, planned 10.20.0.3; no reply from n2 device 1 (10.20.0.18)',
    ]
    assert ['-i', '0', '-ping', '-g', 'address', '10.20.0.17', 'pkt', '2'] in nics.calls


def test_verify_without_address_or_detect_address():
    nics = FakeNics()
    rows = hccn.verify(nics, TOOL, [{'device': 0, 'address': '10.20.0.1'}], [{'node': 'n2', 'device': 0, 'address': '10.20.0.17'}])
    assert rows[0]['health'] == 'Init'
    assert rows[0]['problems'] == ['address unset, planned 10.20.0.1', 'net health Init']
    assert rows[0]['unreachable'] == [{'node': 'n2', 'device': 0, 'address': '10.20.0.17'}]
    assert not [c for c in nics.calls if '-ping' in c]


def test_table_is_aligned():
    rows = {'n1': [{'device': 0, 'address': '10.20.0.1', 'link': 'UP', 'health': 'Success', 'pings_ok': 8, 'pings_total': 8}],
            'n10': [{'device': 7, 'address': None, 'link': 'DOWN', 'health': 'Init', 'pings_ok': 0, 'pings_total': 8}]}
    assert hccn.table(rows) == [
        'node  device  address    link  health   tls  pings',
        'n1    0       10.20.0.1  UP    Success  -    8/8',
        'n10   7       -          DOWN  Init     -    0/8',
    ]
    rows['n1'][0]['tls'] = 1
    assert hccn.table(rows)[1] == 'n1    0       10.20.0.1  UP    Success  on   8/8'


def test_parse_tls_reads_the_published_switch():
    assert hccn.parse_tls(TLS_OUTPUT) == 0
    assert hccn.parse_tls(TLS_OUTPUT.replace('switch[0]', 'switch[1]')) == 1
    with pytest.raises(hccn.HccnError, match='cannot read the tls switch'):
        hccn.parse_tls('dev_id:0, [pub cert] info:')


def test_verify_reads_the_tls_switch_when_the_tool_can():
    plan = [wanted(0, '10.20.0.1')]
    for tls, read in ((None, None), (0, 0), (1, 1)):
        nics = FakeNics(tls=tls)
        hccn.configure(nics, TOOL, plan)
        row = hccn.verify(nics, TOOL, plan, [])[0]
        assert row['tls'] == read
        assert ['-i', '0', '-tls', '-g'] in nics.calls


def _rows(*states):
    return [{'device': device, 'tls': state} for device, state in enumerate(states)]


def test_tls_mismatch_names_each_state_and_the_fix():
    assert hccn.tls_mismatch({'n1': _rows(0, 0), 'n2': _rows(0, None)}) == ''
    assert hccn.tls_mismatch({'n1': _rows(1, 1, 1, 1), 'n2': _rows(1, 1, 1, 1)}) == ''
    assert hccn.tls_mismatch({'n1': _rows(0, 0, 0, 0, 0, 0, 0, 0), 'n2': _rows(0, 0, 0, 1, 0, 0, 0, 0)}) == (
        'the TLS switch of the NPU links differs between the nodes (enabled on n2 device 3, disabled on n1 device 0-7; '
        'n2 device 0-2, 4-7): HCCL cannot link them (EI0006, EI0016); make it equal on every device of every node '
        '(hccn_tool -i <id> -tls -g to read, hccn_tool -i <id> -tls -s enable 0|1 to set)')


def test_verify_pings_again_a_peer_that_did_not_answer():
    nics = FakeNics(reachable=set())
    plan = [wanted(0, '10.20.0.1')]
    hccn.configure(nics, TOOL, plan)
    peer = [{'node': 'n2', 'device': 0, 'address': '10.20.0.17'}]
    answers = []

    def late(argv):
        # the peer answers from the second ping on
        if '-ping' in argv:
            answers.append(argv)
            nics.reachable = {'10.20.0.17'} if len(answers) > 1 else set()
        return nics(argv)
    assert hccn.verify(late, TOOL, plan, peer, ping_count=1)[0]['pings_ok'] == 0
    answers[:] = []
    assert hccn.verify(late, TOOL, plan, peer, ping_count=1, retries=1)[0]['pings_ok'] == 1
    assert len(answers) == 2
    nics.reachable = set()
    answers[:] = []
    assert hccn.verify(nics, TOOL, plan, peer, ping_count=1, retries=2)[0]['unreachable'] == peer
    assert len([c for c in nics.calls if '-ping' in c]) >= 3


def _executable(path):
    path.write_text('#!/bin/sh\n')
    path.chmod(0o755)
    return str(path)


def test_locate_tool_prefers_the_given_path(tmp_path):
    tool = _executable(tmp_path / 'hccn_tool')
    assert hccn.locate_tool(tool, '/nonexistent', '') == (tool, None)


def test_locate_tool_refuses_a_given_path_that_is_not_executable(tmp_path):
    (tmp_path / 'hccn_tool').write_text('')
    path = str(tmp_path / 'hccn_tool')
    assert hccn.locate_tool(path, '/nonexistent', '') == (
        None, 'hccn_tool not found or not executable at %s' % path)


def test_locate_tool_searches_path_then_the_driver_tools(tmp_path):
    tools = tmp_path / 'Ascend' / 'driver' / 'tools'
    tools.mkdir(parents=True)
    in_driver = _executable(tools / 'hccn_tool')
    assert hccn.locate_tool('', str(tmp_path / 'Ascend'), str(tmp_path / 'empty')) == (in_driver, None)
    bindir = tmp_path / 'bin'
    bindir.mkdir()
    on_path = _executable(bindir / 'hccn_tool')
    assert hccn.locate_tool('', str(tmp_path / 'Ascend'), str(bindir)) == (on_path, None)


def test_locate_tool_names_the_driver_directory_when_missing(tmp_path):
    assert hccn.locate_tool('', str(tmp_path), '') == (
        None, 'hccn_tool not found in PATH nor in %s: install the NPU driver first' % (tmp_path / 'driver' / 'tools'))


def test_hccn_conf_that_disagrees_with_the_device_is_a_problem():
    # vllm-project/vllm-ascend PR 16847: a stale address_N in /etc/hccn.conf, the device's value authoritative.
    nics = FakeNics()
    hccn.configure(nics, TOOL, [wanted(0, '10.20.0.1'), wanted(1, '10.20.0.2')])
    conf = hccn.parse_conf('address_0=10.20.0.1\nnetmask_0=255.255.0.0\naddress_1=10.20.0.9\n')
    rows = hccn.verify(nics, TOOL, [wanted(0, '10.20.0.1'), wanted(1, '10.20.0.2')], [], conf=conf)
    assert rows[0]['problems'] == []
    assert rows[1]['problems'] == ["/etc/hccn.conf address_1 is 10.20.0.9, the device has 10.20.0.2 (the device's "
                                   "value is authoritative: run the hccn role or correct the file)"]
    missing = hccn.verify(nics, TOOL, [wanted(0, '10.20.0.1')], [], conf=None)
    assert missing[0]['problems'] == ['/etc/hccn.conf is missing (hccn_tool -ip -s writes it; run the hccn role)']
    # Not asked (the library's default): not judged.
    assert hccn.verify(nics, TOOL, [wanted(1, '10.20.0.2')], [])[0]['problems'] == []


# chronyc(1)'s example of "tracking" (chrony doc/chronyc.adoc at 4.3) as -c prints it: the fields in
# print_report's order, the system time as the signed correction (0.000006523 s slow: +).
CHRONY_TRACKING = ('CB00710F,foo.example.net,3,1485510557.000000000,0.000006523,-0.000006747,0.000035822,'
                   '-3.225,-0.000,0.129,0.013639022,0.001100737,64.2,Normal\n')
# A published `timedatectl timesync-status` of Debian's timesyncd (the layout of systemd's
# src/timedate/timedatectl.c print_ntp_status_info: Offset is ((T2 - T1) + (T3 - T4)) / 2).
TIMESYNC_STATUS = '''       Server: 80.249.145.122 (0.debian.pool.ntp.org)
Poll interval: 8min 32s (min: 32s; max 34min 8s)
         Leap: normal
      Version: 4
      Stratum: 2
    Reference: 596DFB18
    Precision: 1us (-23)
Root distance: 38.803ms (max: 5s)
       Offset: -5.086ms
        Delay: 273.384ms
       Jitter: 10month 2w 1d 13h 28min 23.169258s
 Packet count: 17
    Frequency: -0.870ppm
'''


def test_parse_chrony_tracking_reads_source_state_and_offset():
    clock = hccn.parse_chrony_tracking(CHRONY_TRACKING)
    # slow of NTP time: the clock is behind its source
    assert clock == {'daemon': 'chrony', 'source': 'foo.example.net', 'synchronised': True, 'offset': -0.000006523}
    unsynchronised = CHRONY_TRACKING.replace('Normal', 'Not synchronised').replace(',foo.example.net,', ',,')
    assert hccn.parse_chrony_tracking(unsynchronised)['synchronised'] is False
    assert hccn.parse_chrony_tracking(unsynchronised)['source'] == 'CB00710F'
    with pytest.raises(hccn.HccnError, match='cannot read chronyc -c tracking output'):
        hccn.parse_chrony_tracking('506 Cannot talk to daemon')
    # a chronyd that serves its own clock (local stratum 8): reference id 127.127.1.1, no name
    local = '7F7F0101,,8,1796680000.000000000,-0.000000000,0.000000000,0.000000000,0.000,0.000,0.000,0.000000000,' \
        '0.000000000,0.0,Normal\n'
    assert hccn.parse_chrony_tracking(local)['source'] == 'its own clock (local)'


def test_parse_timesync_status_reads_the_offset_with_its_unit():
    clock = hccn.parse_timesync_status(TIMESYNC_STATUS)
    # the server 5.086 ms behind: the clock is ahead
    assert clock == {'daemon': 'timesyncd', 'source': '80.249.145.122 (0.debian.pool.ntp.org)', 'synchronised': True,
                     'offset': pytest.approx(0.005086)}
    assert hccn.parse_timesync_status(TIMESYNC_STATUS.replace('-5.086ms', '+1min 4.5s'))['offset'] == pytest.approx(-64.5)
    assert hccn.parse_timesync_status(TIMESYNC_STATUS.replace('-5.086ms', '+316us'))['offset'] == pytest.approx(-0.000316)
    waiting = 'Server: 80.249.145.122 (0.debian.pool.ntp.org)\nPoll interval: 0 (min: 32s; max 34min 8s)\nPacket count: 0\n'
    assert hccn.parse_timesync_status(waiting)['synchronised'] is False
    with pytest.raises(hccn.HccnError, match='cannot read timedatectl timesync-status output'):
        hccn.parse_timesync_status(TIMESYNC_STATUS.replace('-5.086ms', 'soon'))


def test_read_clock_asks_chrony_then_a_running_timesyncd():
    calls = []

    def run_with(answers):
        def run(argv):
            calls.append(argv)
            return answers.get(tuple(argv), (1, '', 'not here'))
        return run

    def found(*names):
        return lambda name: '/usr/bin/' + name if name in names else None

    chrony = run_with({('/usr/bin/chronyc', '-c', 'tracking'): (0, CHRONY_TRACKING, '')})
    assert hccn.read_clock(chrony, found('chronyc', 'timedatectl'))['daemon'] == 'chrony'
    timesyncd = run_with({('systemctl', 'is-active', 'systemd-timesyncd.service'): (0, 'active\n', ''),
                          ('/usr/bin/timedatectl', 'timesync-status'): (0, TIMESYNC_STATUS, '')})
    # chronyc installed without its daemon ("506 Cannot talk to daemon"): timesyncd answers
    assert hccn.read_clock(timesyncd, found('chronyc', 'timedatectl'))['daemon'] == 'timesyncd'
    del calls[:]
    # timesyncd stopped: its status is not asked (D-Bus activation would start it)
    assert hccn.read_clock(run_with({}), found('timedatectl')) == {'daemon': None, 'source': None,
                                                                   'synchronised': None, 'offset': None}
    assert calls == [['systemctl', 'is-active', 'systemd-timesyncd.service']]


def _clock(offset, synchronised=True, daemon='chrony'):
    return {'daemon': daemon, 'source': 'ntp1', 'synchronised': synchronised, 'offset': offset}


def test_clock_skew_names_the_spread_and_the_unsynchronised():
    assert hccn.clock_skew({'n1': _clock(0.0), 'n2': _clock(-0.4)}, 1000) == []
    assert hccn.clock_skew({'n1': _clock(0.0), 'n2': {'daemon': None}}, 1000) == []
    assert hccn.clock_skew({'n1': _clock(0.0)}, 1000) == []
    assert hccn.clock_skew({'n1': _clock(0.3), 'n2': _clock(-2.2), 'n3': _clock(0.0)}, 1000) == [
        'the clocks of the nodes differ by 2.500 s, more than hccn_clock_skew_max_ms (1000 ms): n1 +0.300 s (chrony, '
        'ntp1), n2 -2.200 s (chrony, ntp1), n3 +0.000 s (chrony, ntp1) (each against its time source); HCCL '
        'connections between the nodes can time out (EI0006): point every node at the same NTP servers and let them '
        'settle']
    assert hccn.clock_skew({'n1': _clock(0.0), 'n2': _clock(0.0, False, 'timesyncd')}, 1000) == [
        'the clock of n2 is not synchronised by its time daemon (timesyncd on n2): HCCL connections between the nodes '
        "can time out (EI0006); make every node's chronyd or timesyncd reach the site's NTP servers"]


def test_fleet_problems_joins_tls_and_clocks_and_the_table_shows_clocks():
    reports = {'n1': {'devices': _rows(0), 'clock': _clock(0.0)},
               'n2': {'devices': _rows(1), 'clock': _clock(1.5)}}
    problems = hccn.fleet_problems(reports, 1000)
    assert [p.split(' (')[0] for p in problems] == ['the TLS switch of the NPU links differs between the nodes',
                                                    'the clocks of the nodes differ by 1.500 s, more than '
                                                    'hccn_clock_skew_max_ms']
    assert hccn.fleet_problems(reports, 2000) == problems[:1]
    rows = {'n1': {'devices': [{'device': 0, 'address': '10.20.0.1', 'link': 'UP', 'health': 'Success',
                                'pings_ok': 1, 'pings_total': 1}], 'clock': _clock(-0.0012)},
            'n2': {'devices': [], 'clock': {'daemon': None}}}
    assert hccn.table(rows)[-2:] == ['clock of n1: chrony, -0.001 s against ntp1',
                                     'clock of n2: no chronyd or timesyncd running (not compared)']
    rows['n1']['clock']['offset'] = -0.0000004
    assert hccn.table(rows)[-2] == 'clock of n1: chrony, +0.000 s against ntp1'


def test_read_clock_waits_a_bounded_time_for_a_daemon_to_synchronise():
    answers = [CHRONY_TRACKING.replace('Normal', 'Not synchronised')] * 2 + [CHRONY_TRACKING]
    slept = []

    def run(argv):
        return 0, answers.pop(0) if len(answers) > 1 else answers[0], ''
    clock = hccn.read_clock(run, lambda name: '/usr/bin/' + name, wait=60, sleep=slept.append)
    assert clock['synchronised'] and slept == [5, 5]
    # never synchronised: asked until the wait is spent, then reported as it is
    answers[:] = [CHRONY_TRACKING.replace('Normal', 'Not synchronised')]
    del slept[:]
    assert not hccn.read_clock(run, lambda name: '/usr/bin/' + name, wait=12, sleep=slept.append)['synchronised']
    assert slept == [5, 5, 5]
    # no wait asked: one read
    del slept[:]
    assert not hccn.read_clock(run, lambda name: '/usr/bin/' + name, sleep=slept.append)['synchronised']
    assert slept == []
