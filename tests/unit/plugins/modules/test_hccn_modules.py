"""ascend.vllm.hccn_config and hccn_check against an hccn_tool stand-in keeping its NICs in a JSON file."""
import json
import os
import sys

import pytest

from ansible_collections.ascend.vllm.plugins.modules import hccn_check, hccn_config

# Getter and setter texts of hccn_tool; pings answer for the addresses listed in "reachable".
FAKE_TOOL = r'''
import json, sys
path = %(state)r
state = json.load(open(path))
args = sys.argv[1:]
if state.get("unsupported"):
    print("The command is not supported on this product.")
    sys.exit(13)
nic = state["nics"][args[1]]
command, rest = args[2], args[3:]
def done():
    json.dump(state, open(path, "w"))
    print("Cmd executed successfully!")
    sys.exit(0)
if rest == ["-g"]:
    if command == "-ip":
        if not nic.get("address"):
            sys.stderr.write("Get ipconf failed, because no ip was preset there!\n")
            sys.exit(13)
        print("ipaddr:%%s\nnetmask:%%s" %% (nic["address"], nic["netmask"]))
    elif command == "-gateway":
        if not nic.get("gateway"):
            sys.stderr.write("Get gateway failed, because no gateway was preset there!\n")
            sys.exit(2)
        print("default gateway:%%s, Iface:eth%%s" %% (nic["gateway"], args[1]))
    elif command == "-netdetect":
        print("netdetect address: %%s" %% (nic.get("netdetect") or "0.0.0.0"))
    elif command == "-link":
        print("link status: UP")
    elif command == "-net_health":
        print("net health status: %%s" %% ("Success" if nic.get("netdetect") else "Init"))
    sys.exit(0)
if command == "-ip":
    nic["address"], nic["netmask"] = rest[2], rest[4]
    done()
if command == "-gateway":
    nic["gateway"] = rest[2]
    done()
if command == "-netdetect":
    nic["netdetect"] = rest[2]
    done()
if command == "-ping":
    ok = rest[2] in state.get("reachable", [])
    print("device %%s PING %%s" %% (args[1], rest[2]))
    print("1 packets transmitted, %%d received, %%s packet loss" %% (1 if ok else 0, "0.00%%" if ok else "100.00%%"))
    sys.exit(0 if ok else 100)
sys.stderr.write("Get unknown option!\n")
sys.exit(3)
'''


@pytest.fixture
def tool(tmp_path):
    state = tmp_path / 'nics.json'
    state.write_text(json.dumps({'nics': {'0': {}, '1': {}}, 'reachable': ['10.20.0.17']}))
    path = tmp_path / 'driver' / 'tools' / 'hccn_tool'
    path.parent.mkdir(parents=True)
    path.write_text('#!%s\n%s' % (sys.executable, FAKE_TOOL % {'state': str(state)}))
    os.chmod(str(path), 0o755)

    class Tool(object):
        install_path = str(tmp_path)

        def nics(self):
            return json.loads(state.read_text())['nics']

        def set(self, **kwargs):
            data = json.loads(state.read_text())
            data.update(kwargs)
            state.write_text(json.dumps(data))
    return Tool()


PLAN = [{'device': 0, 'address': '10.20.0.1', 'netmask': '255.255.0.0', 'gateway': '10.20.255.254',
         'netdetect': '10.20.255.254'},
        {'device': 1, 'address': '10.20.0.2', 'netmask': '255.255.0.0'}]


def test_config_check_mode_diff_then_set_then_nothing(run_module, tool):
    args = {'devices': PLAN, 'install_path': tool.install_path}
    failed, result = run_module(hccn_config, args, check_mode=True, diff=True)
    assert not failed and result['changed']
    assert tool.nics() == {'0': {}, '1': {}}
    assert result['diff']['before'] == ''
    assert result['diff']['after'].splitlines()[:4] == [
        'address_0=10.20.0.1', 'netmask_0=255.255.0.0', 'gateway_0=10.20.255.254', 'netdetect_0=10.20.255.254']

    failed, result = run_module(hccn_config, args)
    assert not failed and result['changed']
    assert [d['changed_keys'] for d in result['devices']] == [['address', 'netmask', 'gateway', 'netdetect'],
                                                              ['address', 'netmask']]
    assert tool.nics()['1'] == {'address': '10.20.0.2', 'netmask': '255.255.0.0'}
    assert result['tool'] == os.path.join(tool.install_path, 'driver', 'tools', 'hccn_tool')

    failed, result = run_module(hccn_config, args)
    assert not failed and not result['changed']
    assert [d['commands'] for d in result['devices']] == [[], []]


def test_config_fails_naming_the_command(run_module, tool):
    tool.set(unsupported=True)
    failed, result = run_module(hccn_config, {'devices': PLAN, 'install_path': tool.install_path})
    assert failed
    assert result['msg'] == ('`%s -i 0 -ip -g` failed with rc=13 (no stderr; stdout: The command is not supported '
                             'on this product.)' % os.path.join(tool.install_path, 'driver', 'tools', 'hccn_tool'))


def test_missing_tool(run_module, tmp_path):
    failed, result = run_module(hccn_config, {'devices': PLAN, 'install_path': str(tmp_path / 'none')})
    assert failed and result['msg'].startswith('hccn_tool not found in PATH nor in %s' % (tmp_path / 'none'))


def test_check_reports_pings_and_does_not_fail(run_module, tool):
    run_module(hccn_config, {'devices': PLAN, 'install_path': tool.install_path})
    peers = [{'node': 'b', 'device': 0, 'address': '10.20.0.17'}, {'node': 'b', 'device': 1, 'address': '10.20.0.18'}]
    conf = os.path.join(tool.install_path, 'hccn.conf')
    with open(conf, 'w') as handle:
        handle.write('address_0=10.20.0.1\nnetmask_0=255.255.0.0\naddress_1=10.20.0.2\n')
    failed, result = run_module(hccn_check, {'devices': PLAN, 'peers': peers, 'node': 'a', 'ping_count': 1,
                                             'install_path': tool.install_path, 'conf_path': conf}, check_mode=True)
    assert not failed and not result['changed'] and not result['ok']
    assert [(d['pings_ok'], d['pings_total'], d['health']) for d in result['devices']] == [(1, 2, 'Success'), (1, 2, 'Init')]
    assert result['failures'] == [
        'a device 0 (10.20.0.1): no reply from b device 1 (10.20.0.18)',
        'a device 1 (10.20.0.2): net health Init; no reply from b device 1 (10.20.0.18)',
    ]
    # A stale address_1 in the file HCCL reads is named; so is a missing file.
    with open(conf, 'w') as handle:
        handle.write('address_0=10.20.0.1\naddress_1=10.20.0.9\n')
    failed, result = run_module(hccn_check, {'devices': PLAN[1:], 'node': 'a', 'install_path': tool.install_path,
                                             'conf_path': conf})
    assert result['failures'] == ["a device 1 (10.20.0.2): /etc/hccn.conf address_1 is 10.20.0.9, the device has "
                                  "10.20.0.2 (the device's value is authoritative: run the hccn role or correct the "
                                  "file); net health Init"]
    failed, result = run_module(hccn_check, {'devices': PLAN[:1], 'node': 'a', 'install_path': tool.install_path,
                                             'conf_path': conf + '.absent'})
    assert result['failures'] == ['a device 0 (10.20.0.1): /etc/hccn.conf is missing (hccn_tool -ip -s writes it; '
                                  'run the hccn role)']


def test_check_ping_count_range(run_module, tool):
    failed, result = run_module(hccn_check, {'devices': PLAN, 'ping_count': 0, 'install_path': tool.install_path})
    assert failed and result['msg'] == 'ping_count must be 1 to 1000 (hccn_tool pkt), got 0'


def test_check_ping_retries_not_negative(run_module, tool):
    failed, result = run_module(hccn_check, {'devices': PLAN, 'ping_retries': -1, 'install_path': tool.install_path})
    assert failed and result['msg'] == 'ping_retries must be 0 or more, got -1'
