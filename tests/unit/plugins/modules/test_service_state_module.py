"""ascend.vllm.service_state as a module: files read as stat reads them, digests compared on the node and
never returned, the unit's properties from a systemctl stand-in on PATH, backups listed."""
import hashlib
import os
import stat

import pytest

from ansible_collections.ascend.vllm.plugins.modules import service_state

KEY = 'sk-not-a-real-key\n'


@pytest.fixture
def systemctl(tmp_path, monkeypatch):
    directory = tmp_path / 'bin'
    directory.mkdir()
    tool = directory / 'systemctl'
    # As systemctl show prints the properties asked for; the arguments are recorded.
    tool.write_text('#!/bin/sh\necho "$@" > %s/args\n'
                    'printf "ActiveState=active\\nUnitFileState=enabled\\nNeedDaemonReload=no\\n"\n' % tmp_path)
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv('PATH', '%s:%s' % (directory, os.environ.get('PATH', os.defpath)))
    return tmp_path


def sha256(text):
    return hashlib.sha256(text.encode()).hexdigest()


def test_reads_the_files_the_unit_and_the_backups(run_module, systemctl, tmp_path):
    env, key, unit = tmp_path / 'vllm-main.env', tmp_path / 'vllm-main.key', tmp_path / 'vllm-main.service'
    env.write_text('A=1\n')
    env.chmod(0o640)
    key.write_text(KEY)
    key.chmod(0o600)
    for name in ('vllm-main.service.123.2026-12-06@01:02:03~', 'vllm-main.key.previous'):
        (tmp_path / name).write_text('')
    (tmp_path / 'vllm-main.env.9.x~').mkdir()  # a directory is never a backup
    failed, result = run_module(service_state, {
        'files': [str(env), str(key), str(unit)],
        'digests': {str(env): sha256('A=1\n'), str(key): sha256(KEY), str(unit): sha256('')},
        'read': [str(env)],
        'unit': 'vllm-main.service',
        'backups': [str(unit) + '.*~', str(env) + '.*~', str(key) + '.previous'],
    }, check_mode=True)
    assert not failed and result['changed'] is False
    owner = __import__('pwd').getpwuid(os.getuid()).pw_name
    group = __import__('grp').getgrgid(os.getgid()).gr_name
    assert result['files'] == [
        {'path': str(env), 'exists': True, 'mode': '0640', 'owner': owner, 'group': group, 'same': True, 'text': 'A=1\n'},
        {'path': str(key), 'exists': True, 'mode': '0600', 'owner': owner, 'group': group, 'same': True},
        {'path': str(unit), 'exists': False, 'mode': '', 'owner': '', 'group': '', 'same': False},
    ]
    assert result['unit'] == {'ActiveState': 'active', 'UnitFileState': 'enabled', 'NeedDaemonReload': 'no'}
    assert (systemctl / 'args').read_text() == 'show vllm-main.service --property=ActiveState,UnitFileState,NeedDaemonReload\n'
    assert result['backups'] == [str(tmp_path / 'vllm-main.key.previous'),
                                 str(tmp_path / 'vllm-main.service.123.2026-12-06@01:02:03~')]


def test_no_digest_comes_back_and_the_wanted_ones_are_hidden(run_module, systemctl, tmp_path):
    # The key file's digest would print with -v: only whether it matches is returned.
    key = tmp_path / 'vllm-main.key'
    key.write_text(KEY)
    failed, result = run_module(service_state, {'files': [str(key)], 'digests': {str(key): sha256('other\n')}})
    assert not failed and result['files'][0]['same'] is False
    assert sha256(KEY) not in repr(result) and sha256('other\n') not in repr(result)
    # digests is a no_log option: the invocation the result carries shows no value of it.
    assert result['invocation']['module_args']['digests'] == {str(key): 'VALUE_SPECIFIED_IN_NO_LOG_PARAMETER'}


def test_a_file_to_compare_or_read_must_be_one_of_the_files(run_module, tmp_path):
    failed, result = run_module(service_state, {'files': [], 'read': [str(tmp_path / 'x')]})
    assert failed
    assert result['msg'] == 'ascend.vllm.service_state: %s named in digests or read but not in files' % (tmp_path / 'x')


def test_a_failing_systemctl_names_the_command(run_module, systemctl):
    (systemctl / 'bin' / 'systemctl').write_text('#!/bin/sh\necho "Failed to connect to bus" >&2\nexit 1\n')
    failed, result = run_module(service_state, {'unit': 'vllm-main.service'})
    assert failed and result['rc'] == 1
    assert result['msg'].endswith('show vllm-main.service --property=ActiveState,UnitFileState,NeedDaemonReload` '
                                  'failed with rc=1: Failed to connect to bus')
