"""The kernel_tuning read-back report, one row kind at a time."""
import pytest

from ansible_collections.ascend.vllm.plugins.filter.kernel_tuning import FilterModule
from ansible_collections.ascend.vllm.plugins.module_utils.tuning_report import report_rows, table_lines

FILTERS = FilterModule().filters()

STATE = {
    'sysctl_values': {'vm.swappiness': '10', 'kernel.numa_balancing': '1', 'net.ipv4.ip_local_port_range': '1024 65000'},
    'governors': ['performance'], 'governor_state': 'ok',
    'thp': 'never', 'thp_state': 'ok',
    'irqbalance': {'LoadState': 'loaded', 'ActiveState': 'inactive', 'UnitFileState': 'disabled'},
    'memlock': 'unlimited',
    'hugepages': [{'id': 0, 'hugepages': {'2048kB': {'total': 512}}},
                  {'id': 1, 'hugepages': {'2048kB': {'total': 512}, '1048576kB': {'total': 0}}}],
}


def row(setting, wanted, actual, ok):
    return {'setting': setting, 'wanted': wanted, 'actual': actual, 'ok': ok}


def skipped(setting, wanted):
    return dict(row(setting, wanted, 'skipped', True), skipped=True)


@pytest.mark.parametrize('sysctl, rows', [
    ({'vm.swappiness': 10}, [row('vm.swappiness', '10', '10', True)]),
    ({'kernel.numa_balancing': 0}, [row('kernel.numa_balancing', '0', '1', False)]),
    # Whitespace of a multi-value sysctl is compared as the kernel prints it.
    ({'net.ipv4.ip_local_port_range': '1024\t 65000 '}, [row('net.ipv4.ip_local_port_range', '1024\t 65000 ', '1024 65000', True)]),
    ({'vm.unknown_knob': 1}, [row('vm.unknown_knob', '1', 'absent', False)]),
    # Null or empty: not managed, no row.
    ({'vm.swappiness': None, 'kernel.numa_balancing': ''}, []),
])
def test_sysctl_rows(sysctl, rows):
    assert report_rows({'sysctl': sysctl}, STATE) == rows


def test_skipped_settings_show_as_skipped_and_pass():
    wanted = {'sysctl': {'vm.swappiness': 60}, 'cpu_governor': 'powersave', 'thp': 'always', 'irqbalance': True,
              'memlock_user': 'vllm', 'memlock_limit': 'unlimited', 'hugepages': [{'size': '2M', 'count': 9}]}
    skip = ['vm.swappiness', 'cpu_governor', 'thp', 'irqbalance', 'memlock', 'hugepages']
    assert report_rows(wanted, STATE, skip) == [
        skipped('vm.swappiness', '60'), skipped('cpu_governor', 'powersave'),
        skipped('thp', 'always'), skipped('irqbalance', 'stopped, disabled'),
        skipped('memlock vllm', 'unlimited'), skipped('hugepages 2M host-wide', '9')]


@pytest.mark.parametrize('state, expected', [
    ({'governors': ['performance']}, row('cpu_governor', 'performance', 'performance', True)),
    ({'governors': ['performance', 'schedutil']}, row('cpu_governor', 'performance', 'performance,schedutil', False)),
    # No cpufreq on the node: the state read says why.
    ({'governors': [], 'governor_state': 'no cpufreq'}, row('cpu_governor', 'performance', 'no cpufreq', False)),
])
def test_governor_row(state, expected):
    assert report_rows({'cpu_governor': 'performance'}, state) == [expected]


def test_thp_row_names_the_state_when_unreadable():
    assert report_rows({'thp': 'never'}, {'thp': '', 'thp_state': 'no THP'}) == [row('thp', 'never', 'no THP', False)]
    assert report_rows({'thp': ''}, STATE) == []


@pytest.mark.parametrize('irq, actual, ok', [
    ({'LoadState': 'loaded', 'ActiveState': 'inactive', 'UnitFileState': 'disabled'}, 'inactive, disabled', True),
    ({'LoadState': 'loaded', 'ActiveState': 'failed', 'UnitFileState': 'masked'}, 'failed, masked', True),
    ({'LoadState': 'loaded', 'ActiveState': 'active', 'UnitFileState': 'disabled'}, 'active, disabled', False),
    ({'LoadState': 'loaded', 'ActiveState': 'inactive', 'UnitFileState': 'enabled'}, 'inactive, enabled', False),
    ({'LoadState': 'not-found'}, 'not installed', True),
    ({}, 'not installed', True),
])
def test_irqbalance_row(irq, actual, ok):
    assert report_rows({'irqbalance': True}, {'irqbalance': irq}) == [row('irqbalance', 'stopped, disabled', actual, ok)]
    assert report_rows({'irqbalance': False}, {'irqbalance': irq}) == []


@pytest.mark.parametrize('memlock, ok', [
    ('unlimited', True), ('unlimited (limits file; no user vllm yet)', True), ('65536', False), ('not set', False)])
def test_memlock_row(memlock, ok):
    rows = report_rows({'memlock_user': 'vllm', 'memlock_limit': 'unlimited'}, {'memlock': memlock})
    assert rows == [row('memlock vllm', 'unlimited', memlock, ok)]


@pytest.mark.parametrize('pool, results, actual, ok', [
    ({'size': '2M', 'count': 1024}, [], '1024', True),                      # host-wide: every node's pool
    ({'size': '2M', 'count': 512, 'node': 1}, [], '512', True),
    ({'size': '2M', 'count': 600, 'node': 0}, [], '512', False),
    ({'size': '1G', 'count': 4, 'node': None}, [], '0', False),
    # 1G pages on the kernel command line: ok until the next boot, the rest shown as pending.
    ({'size': '1G', 'count': 4}, [{'item': {'size': '1G', 'count': 4}, 'reboot_required': True}], '0 (rest at the next boot)', True),
])
def test_hugepage_rows(pool, results, actual, ok):
    label = 'hugepages %s %s' % (pool['size'], 'node %s' % pool['node'] if pool.get('node') is not None else 'host-wide')
    assert report_rows({'hugepages': [pool]}, STATE, [], results) == [row(label, str(pool['count']), actual, ok)]


def test_rows_come_in_the_report_order():
    wanted = {'hugepages': [{'size': '2M', 'count': 1024}], 'memlock_user': 'vllm', 'memlock_limit': 'unlimited',
              'irqbalance': True, 'thp': 'never', 'cpu_governor': 'performance', 'sysctl': {'vm.swappiness': 10}}
    assert [r['setting'] for r in report_rows(wanted, STATE)] == [
        'vm.swappiness', 'cpu_governor', 'thp', 'irqbalance', 'memlock vllm', 'hugepages 2M host-wide']


def test_table_marks_a_mismatch_and_what_check_mode_would_change():
    rows = [row('vm.swappiness', '10', '10', True), row('kernel.numa_balancing', '0', '1', False)]
    assert table_lines(rows) == [
        'setting                wanted  actual',
        'vm.swappiness          10      10',
        'kernel.numa_balancing  0       1   <- MISMATCH']
    assert table_lines(rows, check_mode=True)[2].endswith('1   <- would change')
    assert table_lines([]) == ['setting  wanted  actual']


def test_filters_wrap_the_functions():
    assert FILTERS['kernel_tuning_report']({'thp': 'never'}, STATE) == [row('thp', 'never', 'never', True)]
    assert FILTERS['kernel_tuning_table']([row('thp', 'never', 'never', True)], False) == [
        'setting  wanted  actual', 'thp      never   never']


def test_a_pool_the_checks_would_refuse_is_a_mismatch_row_not_a_crash():
    # The verify entry point reports without validate.yml: a bad pool shows (as Jinja's | int read it), it does not stop verify.
    rows = report_rows({'hugepages': [{'size': '2M', 'count': 'many', 'node': 'x'}, {'size': '4M', 'count': 1}]}, STATE)
    assert rows == [row('hugepages 2M node x', 'many', '512', False), row('hugepages 4M host-wide', '1', '0', False)]
