"""ascend.vllm.tuning_state as a module, on a built sysfs and /proc tree; systemctl and runuser
are stand-ins on PATH that answer as the real ones print."""
import os
import stat

import pytest

from ansible_collections.ascend.vllm.plugins.modules import tuning_state


def write_tool(directory, name, script):
    path = directory / name
    path.write_text('#!/bin/sh\n' + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.fixture
def tools(tmp_path, monkeypatch):
    directory = tmp_path / 'bin'
    directory.mkdir()
    write_tool(directory, 'systemctl', 'printf "LoadState=loaded\\nActiveState=active\\nUnitFileState=enabled\\n"\n')
    write_tool(directory, 'runuser', 'printf "unlimited\\nunlimited\\n"\n')
    monkeypatch.setenv('PATH', '%s:%s' % (directory, os.environ.get('PATH', os.defpath)))
    return directory


@pytest.fixture
def node(sysfs):
    for cpu, governor in ((0, 'performance'), (1, 'powersave')):
        sysfs.write('devices/system/cpu/cpu%d/cpufreq/scaling_governor' % cpu, governor + '\n')
    sysfs.write('devices/system/cpu/cpu0/cpufreq/scaling_available_governors', 'performance powersave\n')
    sysfs.write('kernel/mm/transparent_hugepage/enabled', 'always [madvise] never\n')
    sysfs.node(0, '0-1', 4194304, {2048: (16, 16), 1048576: (0, 0)})
    proc = os.path.join(sysfs.base, 'proc', 'sys')
    for name, value in (('vm/swappiness', '60\n'), ('net/ipv4/tcp_rmem', '4096\t131072\t6291456\n')):
        os.makedirs(os.path.dirname(os.path.join(proc, name)), exist_ok=True)
        with open(os.path.join(proc, name), 'w') as handle:
            handle.write(value)
    return sysfs


def args(node, **extra):
    base = {'sysfs_root': node.root, 'thp_file': os.path.join(node.root, 'kernel/mm/transparent_hugepage/enabled'),
            'sysctl': ['vm.swappiness', 'net.ipv4.tcp_rmem', 'kernel.no_such_key']}
    base.update(extra)
    return base


def test_reads_every_value_in_one_pass(run_module, node, tools, tmp_path):
    limits = tmp_path / 'limits.conf'
    limits.write_text('ascend-no-such-user soft memlock unlimited\nascend-no-such-user hard memlock unlimited\n')
    failed, result = run_module(tuning_state, args(node, memlock_user='ascend-no-such-user', hugepages=True,
                                                   limits_file=str(limits)), check_mode=True)
    assert not failed and result['changed'] is False
    state = result['state']
    assert state['sysctl'] == {'vm.swappiness': 'rw', 'net.ipv4.tcp_rmem': 'rw', 'kernel.no_such_key': 'absent'}
    assert state['sysctl_values'] == {'vm.swappiness': '60', 'net.ipv4.tcp_rmem': '4096 131072 6291456'}
    assert (state['governor_state'], state['governors'], state['governors_available']) == (
        'rw', ['performance', 'powersave'], ['performance', 'powersave'])
    assert (state['thp_state'], state['thp'], state['thp_available']) == ('rw', 'madvise', ['always', 'madvise', 'never'])
    assert state['irqbalance'] == {'LoadState': 'loaded', 'ActiveState': 'active', 'UnitFileState': 'enabled'}
    assert state['memlock'] == 'unlimited (limits file; no user ascend-no-such-user yet)'
    assert state['kernel'] == os.uname()[2]
    assert state['hugepages'] == [{'id': 0, 'cpus': [0, 1], 'cpulist': '0-1', 'memory_mb': 4096,
                                   'hugepages': {'2048kB': {'total': 16, 'free': 16},
                                                 '1048576kB': {'total': 0, 'free': 0}}}]


def test_an_existing_users_limits_come_from_a_pam_session(run_module, node, tools):
    failed, result = run_module(tuning_state, args(node, memlock_user='root'))
    assert not failed
    assert result['state']['memlock'] == 'unlimited'
    assert result['state']['hugepages'] == []


def test_without_a_user_nothing_is_probed(run_module, node, tools):
    write_tool(tools, 'runuser', 'exit 9\n')
    failed, result = run_module(tuning_state, args(node))
    assert not failed
    assert (result['state']['memlock'], result['state']['memlock_grantable'], result['state']['memlock_hard_now']) == (
        'not set', True, '?')


def test_a_node_without_cpufreq_or_thp(run_module, sysfs, tools):
    failed, result = run_module(tuning_state, {'sysfs_root': sysfs.root, 'thp_file': os.path.join(sysfs.root, 'none')})
    assert not failed
    state = result['state']
    assert (state['governor_state'], state['governors'], state['thp_state'], state['thp']) == ('absent', [], 'absent', '')


def test_a_failing_systemctl_names_the_command_rc_and_stderr(run_module, node, tools):
    write_tool(tools, 'systemctl', 'echo "System has not been booted with systemd" >&2; exit 1\n')
    failed, result = run_module(tuning_state, args(node))
    assert failed
    assert result['msg'] == ('`systemctl show irqbalance.service --property=LoadState,ActiveState,UnitFileState` '
                             'failed with rc=1: System has not been booted with systemd')


def test_a_failing_pam_read_names_the_command(run_module, node, tools):
    write_tool(tools, 'runuser', 'echo "runuser: user root does not exist" >&2; exit 1\n')
    failed, result = run_module(tuning_state, args(node, memlock_user='root'))
    assert failed
    assert result['msg'] == ("`runuser -u root -- /bin/sh -c ulimit -S -l; ulimit -H -l` failed with rc=1: "
                             "runuser: user root does not exist")


def test_reads_the_roles_files_and_unit(run_module, node, tools, tmp_path):
    present = tmp_path / 'sysctl.conf'
    present.write_text('vm.swappiness=10\n')
    present.chmod(0o640)
    absent = tmp_path / 'unit.service'
    failed, result = run_module(tuning_state, args(node, files=[str(present), str(absent)],
                                                   unit='ascend-kernel-tuning.service'))
    assert not failed
    info = os.stat(str(present))
    assert result['state']['files'] == {
        str(present): {'exists': True, 'text': 'vm.swappiness=10\n', 'mode': '0640', 'uid': info.st_uid, 'gid': info.st_gid},
        str(absent): {'exists': False, 'text': None, 'mode': None, 'uid': None, 'gid': None}}
    assert result['state']['unit'] == {'LoadState': 'loaded', 'ActiveState': 'active', 'UnitFileState': 'enabled'}


def test_without_files_or_a_unit_none_is_read(run_module, node, tools):
    failed, result = run_module(tuning_state, args(node))
    assert not failed
    assert (result['state']['files'], result['state']['unit']) == ({}, {})


def test_a_file_is_read_with_its_own_line_endings(run_module, node, tools, tmp_path):
    edited = tmp_path / 'limits.conf'
    edited.write_bytes(b'vllm soft memlock unlimited\r\n')
    failed, result = run_module(tuning_state, args(node, files=[str(edited)]))
    assert not failed
    assert result['state']['files'][str(edited)]['text'] == 'vllm soft memlock unlimited\r\n'
