"""The kernel_tuning checks before any change: every refusal and its message."""
import pytest

from ansible_collections.ascend.vllm.plugins.filter.kernel_tuning import FilterModule
from ansible_collections.ascend.vllm.plugins.module_utils.tuning_checks import (
    apply_reasons,
    failure_message,
    kernel_refusals,
    request_problems,
)

FILTERS = FilterModule().filters()
THP = '/sys/kernel/mm/transparent_hugepage/enabled'
NODES = [{'id': 0, 'memory_mb': 4096, 'hugepages': {'2048kB': {'total': 16}, '1048576kB': {'total': 0}}},
         {'id': 1, 'memory_mb': 4096, 'hugepages': {'2048kB': {'total': 0}}}]
STATE = {'sysctl': {'vm.swappiness': '60'}, 'kernel': '6.1.0-28-amd64', 'governor_state': 'rw',
         'governors_available': ['performance', 'powersave'], 'memlock_grantable': True, 'memlock_hard_now': 'unlimited',
         'thp_state': 'rw'}


@pytest.mark.parametrize('wanted, skip, problems', [
    ({'thp': 'never'}, [], []),
    ({'thp': 'sometimes'}, [], ['kernel_tuning_thp must be never, madvise, always or empty, got sometimes']),
    ({}, ['cpu_governer'], ['kernel_tuning_skip names unknown settings cpu_governer (known: cpu_governor, thp, '
                            'irqbalance, memlock, hugepages or another sysctl name)']),
    # A sysctl name may be skipped although the request does not list it.
    ({}, ['kernel.sched_migration_cost_ns'], []),
    ({'memlock_user': 'vllm', 'memlock_limit': 'lots'}, [],
     ['kernel_tuning_memlock_limit must be unlimited or a number of KiB, got lots']),
    ({'memlock_user': 'vllm', 'memlock_limit': 'lots'}, ['memlock'], []),
    ({'memlock_user': '', 'memlock_limit': 'lots'}, [], []),
])
def test_request_problems(wanted, skip, problems):
    assert request_problems(wanted, skip, NODES) == problems


@pytest.mark.parametrize('pools, problems', [
    ([{'size': '2M', 'count': 16, 'node': 0}, {'size': '2M', 'count': 8}], []),
    ([{'size': '4M', 'count': 1}], ['hugepages 4M host-wide: each entry needs size 2M or 1G and a count of 0 or more, '
                                    'got {"size": "4M", "count": 1}']),
    ([{'size': '2M', 'count': -1, 'node': 0}],
     ['hugepages 2M node 0: each entry needs size 2M or 1G and a count of 0 or more, got {"size": "2M", "count": -1, "node": 0}']),
    ([{'size': '2M'}], ['hugepages 2M host-wide: each entry needs size 2M or 1G and a count of 0 or more, got {"size": "2M"}']),
    ([{'count': 1}], ['hugepages ? host-wide: each entry needs size 2M or 1G and a count of 0 or more, got {"count": 1}']),
    ([{'size': '2M', 'count': 1, 'node': 0}, {'size': '2M', 'count': 2, 'node': 0}], ['hugepages 2M node 0: listed twice']),
    ([{'size': '2M', 'count': 1, 'node': 3}], ['hugepages 2M node 3: no NUMA node 3 (nodes: 0, 1)']),
    # Node 1 offers no 1G pages: host-wide and node 1 are refused, node 0 is not.
    ([{'size': '1G', 'count': 1}], ['hugepages 1G host-wide: this kernel has no 1048576kB huge pages']),
    ([{'size': '1G', 'count': 1, 'node': 0}], []),
    ([{'size': '2M', 'count': '3000', 'node': '0'}],
     ['hugepages 2M node 0: requested 3000 pages (6000 MiB), more than the 4096 MiB of memory of the node; allocated now: '
      '16 pages. Lower the count']),
    ([{'size': '2M', 'count': 5000}],
     ['hugepages 2M host-wide: requested 5000 pages (10000 MiB), more than the 8192 MiB of memory of the host; allocated '
      'now: 16 pages. Lower the count']),
])
def test_hugepage_pool_problems(pools, problems):
    assert request_problems({'hugepages': pools}, [], NODES) == problems
    assert request_problems({'hugepages': pools}, ['hugepages'], NODES) == []


@pytest.mark.parametrize('wanted, state, refused', [
    ({}, {'sysctl': {'kernel.sched_migration_cost_ns': 'absent', 'vm.x': 'ro', 'vm.swappiness': '60'}, 'kernel': '6.1.0'},
     [{'name': 'kernel.sched_migration_cost_ns', 'why': 'no /proc/sys/kernel/sched_migration_cost_ns on kernel 6.1.0 (Linux '
                                                        '5.13 moved it to debugfs (/sys/kernel/debug/sched/migration_cost_ns), '
                                                        'it is no sysctl on this kernel)'},
      {'name': 'vm.x', 'why': '/proc/sys/vm/x is read-only here'}]),
    ({'cpu_governor': 'performance'}, {'governor_state': 'absent'},
     [{'name': 'cpu_governor', 'why': 'no cpufreq in /sys/devices/system/cpu/cpu*/cpufreq (no frequency scaling driver: '
                                      'the firmware controls the clocks, or a VM)'}]),
    ({'cpu_governor': 'performance'}, {'governor_state': 'ro'},
     [{'name': 'cpu_governor', 'why': 'scaling_governor is read-only here'}]),
    ({'cpu_governor': 'ondemand'}, STATE,
     [{'name': 'cpu_governor', 'why': 'governor ondemand is not offered (available: performance, powersave)'}]),
    ({'memlock_user': 'vllm', 'memlock_limit': 'unlimited'}, dict(STATE, memlock_grantable=False, memlock_hard_now='64'),
     [{'name': 'memlock', 'why': 'a session cannot get the memlock limit unlimited here: the hard limit is 64 (KiB) and '
                                 'raising it needs CAP_SYS_RESOURCE, which root lacks on this host'}]),
    # A bad limit is a request problem, not a refusal.
    ({'memlock_user': 'vllm', 'memlock_limit': 'lots'}, dict(STATE, memlock_grantable=False), []),
    ({'thp': 'never'}, {'thp_state': 'absent'}, [{'name': 'thp', 'why': 'no %s (kernel without transparent huge pages)' % THP}]),
    ({'thp': 'never'}, {'thp_state': 'ro'}, [{'name': 'thp', 'why': '%s is read-only here' % THP}]),
    ({'thp': 'never', 'cpu_governor': 'performance', 'memlock_user': 'vllm', 'memlock_limit': 'unlimited'}, STATE, []),
])
def test_kernel_refusals(wanted, state, refused):
    assert kernel_refusals(wanted, [], state, THP) == refused


def test_skipped_settings_are_never_refused():
    state = {'governor_state': 'absent', 'thp_state': 'absent', 'memlock_grantable': False}
    wanted = {'cpu_governor': 'performance', 'thp': 'never', 'memlock_user': 'vllm', 'memlock_limit': 'unlimited'}
    assert kernel_refusals(wanted, ['cpu_governor', 'thp', 'memlock'], state, THP) == []


def test_failure_message_names_the_refusals_the_skip_list_and_the_problems():
    refused = [{'name': 'thp', 'why': 'x is read-only here'}]
    assert failure_message('node-1', ['kernel_tuning_thp must be never, madvise, always or empty, got s'], refused,
                           ['vm.swappiness']) == (
        'kernel_tuning on node-1: the kernel refuses thp - thp: x is read-only here. Remove it from the request or list it'
        ' in kernel_tuning_skip (kernel_tuning_skip: ["vm.swappiness", "thp"]). kernel_tuning_thp must be never, madvise,'
        ' always or empty, got s. Nothing was changed.')
    two = refused + [{'name': 'cpu_governor', 'why': 'y'}]
    assert 'Remove them from the request or list them in kernel_tuning_skip (kernel_tuning_skip: ["thp", "cpu_governor"])' \
        in failure_message('n', [], two, ['thp'])
    assert failure_message('n', ['a', 'b'], [], []) == 'kernel_tuning on n: a; b. Nothing was changed.'


def test_check_filter():
    result = FILTERS['kernel_tuning_check']({'thp': 'sometimes'}, STATE, [], NODES, THP, 'node-1')
    assert result == {'problems': ['kernel_tuning_thp must be never, madvise, always or empty, got sometimes'], 'refused': [],
                      'message': 'kernel_tuning on node-1: kernel_tuning_thp must be never, madvise, always or empty, got '
                                 'sometimes. Nothing was changed.'}


# The node as the role leaves it: every reason below is one difference from this.
SYSCTL_FILE = '/etc/sysctl.d/90-ascend-kernel-tuning.conf'
UNIT_FILE = '/etc/systemd/system/ascend-kernel-tuning.service'
LIMITS_FILE = '/etc/security/limits.d/90-ascend-kernel-tuning.conf'
PLAN = {'sysctl': {'vm.swappiness': '10', 'net.ipv4.tcp_rmem': '4096 131072 6291456'}, 'sysctl_unset': ['kernel.numa_balancing'],
        'sysctl_file': SYSCTL_FILE, 'governor': 'performance', 'thp': 'never', 'unit_file': UNIT_FILE,
        'unit_text': '[Unit]\n', 'unit_absent': False, 'irqbalance': True, 'memlock': True, 'limits_file': LIMITS_FILE,
        'limits_text': 'vllm soft memlock unlimited\n', 'limits_absent': False, 'hugepages': False}


def own(text):
    return {'exists': True, 'text': text, 'mode': '0644', 'uid': 0, 'gid': 0}


AS_ASKED = {'sysctl_values': {'vm.swappiness': '10', 'net.ipv4.tcp_rmem': '4096 131072 6291456'},
            'governors': ['performance'], 'thp': 'never',
            'irqbalance': {'LoadState': 'loaded', 'ActiveState': 'inactive', 'UnitFileState': 'disabled'},
            'unit': {'LoadState': 'loaded', 'ActiveState': 'inactive', 'UnitFileState': 'enabled'},
            'files': {SYSCTL_FILE: own('vm.swappiness=10\nnet.ipv4.tcp_rmem=4096\t131072\t6291456\n'),
                      UNIT_FILE: own('[Unit]\n'), LIMITS_FILE: own('vllm soft memlock unlimited\n')}}
ABSENT = {'exists': False, 'text': None, 'mode': None, 'uid': None, 'gid': None}


def files(**changed):
    paths = {'sysctl': SYSCTL_FILE, 'unit': UNIT_FILE, 'limits': LIMITS_FILE}
    result = dict(AS_ASKED['files'])
    result.update((paths[name], read) for name, read in changed.items())
    return result


@pytest.mark.parametrize('plan, state, reasons', [
    ({}, {}, []),
    # The sysctl file holds each key once the role wrote it; whitespace as sysctl prints it.
    ({'sysctl': {'vm.swappiness': 1}}, {},
     ['sysctl vm.swappiness: running 10, wanted 1', 'sysctl vm.swappiness: %s has 10, wanted 1' % SYSCTL_FILE]),
    ({}, {'sysctl_values': {'vm.swappiness': '10', 'net.ipv4.tcp_rmem': '4096 131072 6291456'}}, []),
    ({}, {'files': files(sysctl=own('vm.swappiness=10\n'))},
     ['sysctl net.ipv4.tcp_rmem: %s has None, wanted 4096 131072 6291456' % SYSCTL_FILE]),
    ({}, {'files': files(sysctl=own('vm.swappiness=10\nnet.ipv4.tcp_rmem=4096 131072 6291456\nkernel.numa_balancing=0\n'))},
     ['sysctl kernel.numa_balancing: still in %s' % SYSCTL_FILE]),
    # The unit: its text, mode and owner, enabled, and the values it applies in force.
    ({}, {'files': files(unit=own('[Unit]\n# edited\n'))}, ['%s: content differs' % UNIT_FILE]),
    ({}, {'files': files(unit=dict(own('[Unit]\n'), mode='0666'))}, ['%s: mode or owner differs' % UNIT_FILE]),
    ({}, {'files': files(unit=ABSENT), 'unit': {'LoadState': 'not-found', 'UnitFileState': ''}},
     ['%s: missing' % UNIT_FILE, '%s: not enabled' % UNIT_FILE]),
    ({}, {'governors': ['performance', 'powersave'], 'thp': 'madvise'},
     ['cpu_governor: performance, powersave, wanted performance', 'thp: madvise, wanted never']),
    ({'governor': '', 'thp': '', 'unit_absent': True}, {}, ['%s: no longer wanted' % UNIT_FILE]),
    ({'governor': '', 'thp': '', 'unit_absent': True}, {'files': files(unit=ABSENT)}, []),
    # Skipped (neither wanted nor to remove): left alone.
    ({'governor': '', 'thp': ''}, {'governors': ['powersave']}, []),
    # irqbalance: stopped and not enabled; a node without it has nothing to do.
    ({}, {'irqbalance': {'LoadState': 'loaded', 'ActiveState': 'active', 'UnitFileState': 'enabled'}},
     ['irqbalance: active, enabled']),
    ({}, {'irqbalance': {'LoadState': 'loaded', 'ActiveState': 'inactive', 'UnitFileState': 'enabled'}},
     ['irqbalance: inactive, enabled']),
    ({}, {'irqbalance': {'LoadState': 'not-found', 'ActiveState': 'inactive', 'UnitFileState': ''}}, []),
    ({'irqbalance': False}, {'irqbalance': {'LoadState': 'loaded', 'ActiveState': 'active', 'UnitFileState': 'enabled'}},
     []),
    # The limits file.
    ({'limits_text': 'vllm soft memlock 1024\n'}, {}, ['%s: content differs' % LIMITS_FILE]),
    ({}, {'files': files(limits=dict(own('vllm soft memlock unlimited\n'), uid=1000))},
     ['%s: mode or owner differs' % LIMITS_FILE]),
    ({'memlock': False, 'limits_absent': True}, {}, ['%s: no longer wanted' % LIMITS_FILE]),
    ({'memlock': False, 'limits_absent': True}, {'files': files(limits=ABSENT)}, []),
    # Managed pools always go to ascend.vllm.hugepages, which compares them itself.
    ({'hugepages': True}, {}, ['huge page pools (ascend.vllm.hugepages compares them)']),
])
def test_apply_reasons(plan, state, reasons):
    assert apply_reasons(dict(PLAN, **plan), dict(AS_ASKED, **state)) == reasons
    assert FILTERS['kernel_tuning_apply_reasons'](dict(PLAN, **plan), dict(AS_ASKED, **state)) == reasons


def test_apply_reasons_wants_mappings():
    with pytest.raises(Exception, match='kernel_tuning_apply_reasons expects the plan and the state read as mappings'):
        FILTERS['kernel_tuning_apply_reasons']([], {})
