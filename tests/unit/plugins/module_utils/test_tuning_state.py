"""The parsers of ascend.vllm.tuning_state (module_utils/tuning_state.py): what kernel_tuning reads."""
import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import tuning_state as ts


@pytest.mark.parametrize('exists, writable, expected', [
    (False, False, 'absent'), (False, True, 'absent'), (True, False, 'ro'), (True, True, 'rw')])
def test_file_state(exists, writable, expected):
    assert ts.file_state(exists, writable) == expected


def test_sysctl_names_map_dots_to_directories():
    assert ts.sysctl_path('/proc/', 'net.core.somaxconn') == '/proc/sys/net/core/somaxconn'


@pytest.mark.parametrize('text, expected', [
    ('60\n', '60'), ('4096\t87380\t6291456\n', '4096 87380 6291456'), ('', ''), (None, '')])
def test_sysctl_values_read_as_sysctl_prints_them(text, expected):
    assert ts.sysctl_value(text) == expected


@pytest.mark.parametrize('line, expected', [
    ('always [madvise] never\n', ('madvise', ['always', 'madvise', 'never'])),
    ('[always] madvise never', ('always', ['always', 'madvise', 'never'])),
    ('', ('', [])),
    (None, ('', [])),
])
def test_thp_policy_is_the_bracketed_one(line, expected):
    assert ts.thp_policy(line) == expected


def test_governors_in_use_each_once_sorted():
    assert ts.governors_in_use(['performance\n', 'powersave\n', 'performance\n', '']) == ['performance', 'powersave']


def test_systemctl_properties():
    out = 'LoadState=not-found\nActiveState=inactive\nUnitFileState=\n'
    assert ts.systemctl_properties(out) == {'LoadState': 'not-found', 'ActiveState': 'inactive', 'UnitFileState': ''}


def test_limits_memlock_takes_the_users_memlock_lines_only():
    text = ('# ascend.vllm\nvllm soft memlock unlimited\nvllm hard memlock unlimited\n'
            'other soft memlock 64\nvllm soft nofile 1024\nvllm hard memlock\n')
    assert ts.limits_memlock(text, 'vllm') == ['unlimited', 'unlimited']


@pytest.mark.parametrize('pam, file_values, expected', [
    (['unlimited', 'unlimited'], None, 'unlimited'),
    (['64', 'unlimited'], None, '64/unlimited'),
    (None, ['unlimited', 'unlimited'], 'unlimited (limits file; no user vllm yet)'),
    (None, [], 'not set'),
    (None, None, 'not set'),
])
def test_memlock_summary(pam, file_values, expected):
    assert ts.memlock_summary('vllm', pam_values=pam, file_values=file_values) == expected


def test_sysctl_file_values_read_as_ansible_posix_sysctl_writes_them():
    text = '# managed\n; old comment\n\nvm.swappiness=10\nnet.ipv4.tcp_rmem = 4096\t131072  6291456\nno equals sign\n'
    assert ts.sysctl_file_values(text) == {'vm.swappiness': '10', 'net.ipv4.tcp_rmem': '4096 131072 6291456'}
    assert ts.sysctl_file_values(None) == {}
