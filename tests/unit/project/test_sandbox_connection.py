"""The sandbox's pipelined podman connection (tests/sandbox/connection_plugins/sandbox_podman.py)."""
import importlib.util
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
    conn.set_options(var_options={'inventory_hostname': 'ascend-sandbox-1'})
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
