"""The sandbox's pipelined podman connection (tests/sandbox/connection_plugins/sandbox_podman.py)."""
import importlib.util
import sys
from pathlib import Path

import pytest
from ansible.playbook.play_context import PlayContext
from ansible.plugins.loader import connection_loader

REPO = Path(__file__).resolve().parents[3]
PLUGINS = REPO / 'tests/sandbox/connection_plugins'


@pytest.fixture()
def connection():
    connection_loader.add_directory(str(PLUGINS))
    play_context = PlayContext()
    play_context.remote_addr = 'ascend-sandbox-1'
    conn = connection_loader.get('sandbox_podman', play_context, None)
    assert conn is not None, 'ansible does not find sandbox_podman in ' + str(PLUGINS)
    calls = []

    def podman(cmd, cmd_args=None, in_data=None, use_container_id=True):
        calls.append((list(cmd) if not isinstance(cmd, str) else [cmd], cmd_args, in_data))
        return 0, b'/var/lib/containers/storage/overlay/x/merged\n' if cmd == 'mount' else b'', b''

    conn._podman = podman
    # The podman exec path; the nsenter path has its own cases below.
    conn.set_options(var_options={'inventory_hostname': 'ascend-sandbox-1', 'ansible_sandbox_exec': 'podman'})
    return conn, calls


def test_modules_are_piped_into_one_exec_with_stdin(connection):
    conn, calls = connection
    assert conn.is_pipelining_enabled()
    conn.exec_command('/bin/sh -c \'/usr/bin/python3 && sleep 0\'', in_data=b'module payload')
    # One podman call, with -i so the module reaches python3's stdin; no mount.
    assert calls == [(['exec', '-i'], ['/bin/sh', '-c', '/usr/bin/python3 && sleep 0'], b'module payload')]


def test_a_command_without_input_gets_no_stdin(connection):
    conn, calls = connection
    conn.exec_command('echo ~', in_data=None)
    assert calls == [(['exec'], ['echo', '~'], None)]


def test_file_transfers_mount_the_container_once(connection, tmp_path, monkeypatch):
    conn, calls = connection
    monkeypatch.setattr('os.listdir', lambda path: ['etc'])
    source = tmp_path / 'src'
    source.write_text('x')
    written = []
    monkeypatch.setattr('shutil.copyfile', lambda src, dst: written.append(dst))
    monkeypatch.setattr('os.chmod', lambda *args: None)
    conn.put_file(str(source), '/tmp/a')
    conn.put_file(str(source), '/tmp/b')
    assert [c[0] for c in calls] == [['mount']]
    assert written and written[0].endswith(b'/merged/tmp/a')


def test_the_plugin_loads_as_a_module():
    spec = importlib.util.spec_from_file_location('sandbox_podman', PLUGINS / 'sandbox_podman.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.Connection.has_pipelining is True


def plugin_module():
    spec = importlib.util.spec_from_file_location('sandbox_podman_module', PLUGINS / 'sandbox_podman.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CONTAINER_ID = '6858ba3b0c222c48ded7be50e4ca5064d8a8f7133bb8016fa81664c759f59499'
INSPECTED = ('%s 4242 ["TERM=xterm","container=podman","PATH=/usr/sbin:/usr/bin","HOSTNAME=ascend-sandbox-1",'
             '"container_uuid=6858ba3b0c222c48"]\n' % CONTAINER_ID).encode()


MOUNTINFO = (
    '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n'
    '32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct\n'
    '40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n'
    '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate\n'
    '50 23 0:40 / /proc rw - proc proc rw\n')
LIMITS = ('Limit                     Soft Limit           Hard Limit           Units     \n'
          'Max processes             4096                 4096                 processes \n'
          'Max open files            1024                 20000                files     \n'
          'Max locked memory         unlimited            unlimited            bytes     \n')


def fake_proc(root, pid, nspid, container_id):
    (root / str(pid)).mkdir(parents=True)
    (root / 'self').mkdir(exist_ok=True)
    (root / 'self' / 'mountinfo').write_text(MOUNTINFO)
    (root / str(pid) / 'status').write_text('Name:\tsystemd\nNSpid:\t%s\n' % nspid)
    (root / str(pid) / 'cgroup').write_text(
        '13:perf_event:/\n'
        '9:name=systemd:/libpod_parent/libpod-%s/init.scope\n'
        '4:cpu,cpuacct:/libpod_parent/libpod-%s\n'
        '0::/libpod_parent/libpod-%s/init.scope\n' % (container_id, container_id, container_id))
    (root / str(pid) / 'limits').write_text(LIMITS)


def test_the_nodes_cgroups_are_found_by_their_mounts(tmp_path):
    fake_proc(tmp_path, 4242, '4242 1', CONTAINER_ID)
    cgroup = 'libpod_parent/libpod-' + CONTAINER_ID
    # perf_event is not mounted: left out. Below init.scope the container's own cgroup comes first.
    assert plugin_module().cgroup_files(4242, proc=str(tmp_path)) == [
        ['/sys/fs/cgroup/systemd/%s/cgroup.procs' % cgroup, '/sys/fs/cgroup/systemd/%s/init.scope/cgroup.procs' % cgroup],
        ['/sys/fs/cgroup/cpu,cpuacct/%s/cgroup.procs' % cgroup],
        ['/sys/fs/cgroup/unified/%s/cgroup.procs' % cgroup, '/sys/fs/cgroup/unified/%s/init.scope/cgroup.procs' % cgroup],
    ]


def test_the_nodes_limits_are_read_from_its_init(tmp_path):
    fake_proc(tmp_path, 4242, '4242 1', CONTAINER_ID)
    assert plugin_module().process_limits(4242, proc=str(tmp_path)) == {
        'RLIMIT_NPROC': [4096, 4096], 'RLIMIT_NOFILE': [1024, 20000]}


def test_the_child_joins_the_first_cgroup_that_takes_it_and_the_limits(tmp_path, monkeypatch):
    module = plugin_module()
    refused, taken = tmp_path / 'refused' / 'cgroup.procs', tmp_path / 'taken' / 'cgroup.procs'
    taken.parent.mkdir()
    limits = []
    monkeypatch.setattr(module.resource, 'setrlimit', lambda name, values: limits.append((name, values)))
    module.join_node({'cgroups': [[str(refused), str(taken)]], 'limits': {'RLIMIT_NOFILE': [1024, -1]}})()
    assert taken.read_text() == str(module.os.getpid())
    assert limits == [(module.resource.RLIMIT_NOFILE, (1024, module.resource.RLIM_INFINITY))]


def test_inspect_gives_id_pid_and_the_environment_podman_exec_uses():
    target = plugin_module().parse_inspect(INSPECTED)
    assert target == {'id': CONTAINER_ID, 'pid': 4242,
                      'env': {'TERM': 'xterm', 'container': 'podman', 'PATH': '/usr/sbin:/usr/bin',
                              'HOSTNAME': 'ascend-sandbox-1', 'HOME': '/root'}}


@pytest.mark.parametrize('nspid, container_id, expected', [
    ('4242 1', CONTAINER_ID, True),
    # The PID is now a service of the same node (a restart): not its init.
    ('4242 87', CONTAINER_ID, False),
    # The PID is now another container's init.
    ('4242 1', 'f' * 64, False),
])
def test_a_pid_counts_only_while_it_is_the_init_of_that_container(tmp_path, nspid, container_id, expected):
    module = plugin_module()
    fake_proc(tmp_path, 4242, nspid, container_id)
    assert module.alive({'id': CONTAINER_ID, 'pid': 4242, 'env': {}}, proc=str(tmp_path)) is expected


def test_a_gone_pid_is_not_alive(tmp_path):
    assert plugin_module().alive({'id': CONTAINER_ID, 'pid': 4242, 'env': {}}, proc=str(tmp_path)) is False


@pytest.fixture()
def entering(connection, monkeypatch, tmp_path):
    """The connection as root with nsenter: podman only answers inspect; /proc is faked."""
    conn, calls = connection
    conn.set_options(var_options={'inventory_hostname': 'ascend-sandbox-1', 'ansible_sandbox_exec': 'nsenter'})
    module = sys.modules[type(conn).__module__]
    proc = tmp_path / 'proc'
    fake_proc(proc, 4242, '4242 1', CONTAINER_ID)
    real_alive = module.alive
    monkeypatch.setattr(module, 'alive', lambda target, proc=str(proc): real_alive(target, proc))
    real_cgroups, real_limits = module.cgroup_files, module.process_limits
    monkeypatch.setattr(module, 'cgroup_files', lambda pid, proc=str(proc): real_cgroups(pid, proc))
    monkeypatch.setattr(module, 'process_limits', lambda pid, proc=str(proc): real_limits(pid, proc))
    monkeypatch.setattr(module.os, 'geteuid', lambda: 0)
    monkeypatch.setattr(module.shutil, 'which', lambda name: '/usr/bin/' + name)
    monkeypatch.setattr(module.C, 'DEFAULT_LOCAL_TMP', str(tmp_path))

    def podman(cmd, cmd_args=None, in_data=None, use_container_id=True):
        calls.append((list(cmd), cmd_args, in_data))
        return (0, INSPECTED, b'') if cmd[:2] == ['container', 'inspect'] else (0, b'', b'')

    conn._podman = podman
    entered = []
    answers = []

    class Process:
        def __init__(self, command, **kwargs):
            assert callable(kwargs['preexec_fn'])
            entered.append((command, kwargs['env']))
            self.returncode, self.out, self.err = answers.pop(0) if answers else (0, b'out', b'')

        def communicate(self, input=None):  # pylint: disable=redefined-builtin
            entered[-1] += (input,)
            return self.out, self.err

    monkeypatch.setattr(module.subprocess, 'Popen', Process)
    return conn, calls, entered, answers, proc


def test_a_module_enters_the_node_with_nsenter_and_no_podman_exec(entering):
    conn, calls, entered, _answers, _proc = entering
    rc, out, _err = conn.exec_command('/bin/sh -c \'/usr/bin/python3 && sleep 0\'', in_data=b'module payload')
    assert (rc, out) == (0, b'out')
    command, env, stdin = entered[0]
    assert command == [b'/usr/bin/nsenter', b'--target', b'4242', b'--all', b'--root', b'--wd', b'--',
                       b'/bin/sh', b'-c', b'/usr/bin/python3 && sleep 0']
    assert env['PATH'] == '/usr/sbin:/usr/bin' and env['HOME'] == '/root' and stdin == b'module payload'
    assert [c[0][:2] for c in calls] == [['container', 'inspect']]


def test_the_node_is_inspected_once_per_run_not_per_task(entering):
    conn, calls, entered, _answers, _proc = entering
    conn.exec_command('true')
    # A later task's worker: a new connection object, the same run's temporary directory.
    conn._target = None
    conn.exec_command('true')
    assert len(entered) == 2
    assert [c[0][:2] for c in calls] == [['container', 'inspect']]


def test_a_node_restarted_under_the_cached_pid_is_inspected_again(entering):
    conn, calls, entered, answers, proc = entering
    conn.exec_command('true')
    # The restarted node's init is another PID; the old one is gone.
    (proc / '4242' / 'status').unlink()
    fake_proc(proc, 5151, '5151 1', CONTAINER_ID)
    conn._target = None
    restarted = INSPECTED.replace(b' 4242 ', b' 5151 ')
    conn._podman = lambda cmd, cmd_args=None, in_data=None, use_container_id=True: (
        calls.append((list(cmd), cmd_args, in_data)) or (0, restarted, b''))
    conn.exec_command('true')
    assert entered[-1][0][2] == b'5151'
    assert len([c for c in calls if c[0][:2] == ['container', 'inspect']]) == 2
    assert not answers


def test_nsenter_that_cannot_enter_reads_the_node_again_and_retries_once(entering):
    conn, calls, entered, answers, _proc = entering
    answers.extend([(1, b'', b'nsenter: cannot open /proc/4242/ns/ipc: No such file or directory\n'), (0, b'ok', b'')])
    rc, out, _err = conn.exec_command('true')
    assert (rc, out) == (0, b'ok')
    assert len(entered) == 2
    assert len([c for c in calls if c[0][:2] == ['container', 'inspect']]) == 2


def test_a_failing_command_is_not_retried(entering):
    conn, _calls, entered, answers, _proc = entering
    answers.append((1, b'', b'false: it failed\n'))
    assert conn.exec_command('false')[0] == 1
    assert len(entered) == 1


@pytest.mark.parametrize('case', ['not root', 'exec_via podman', 'remote user'])
def test_podman_exec_without_nsenter(entering, monkeypatch, case):
    conn, calls, entered, _answers, _proc = entering
    module = sys.modules[type(conn).__module__]
    if case == 'not root':
        monkeypatch.setattr(module.os, 'geteuid', lambda: 1000)
    elif case == 'exec_via podman':
        conn.set_options(var_options={'inventory_hostname': 'ascend-sandbox-1', 'ansible_sandbox_exec': 'podman'})
    else:
        conn.user = 'operator'
    conn.exec_command('true')
    assert not entered
    assert calls[-1][0][0] == 'exec'


def test_files_move_through_the_nodes_own_view(entering, tmp_path, monkeypatch):
    conn, calls, _entered, _answers, _proc = entering
    written = []
    monkeypatch.setattr('shutil.copyfile', lambda src, dst: written.append(dst))
    source = tmp_path / 'src'
    source.write_text('x')
    conn.put_file(str(source), '/tmp/a')
    assert written == [b'/proc/4242/root/tmp/a']
    assert 'mount' not in [c[0] if isinstance(c[0], str) else c[0][0] for c in calls]
