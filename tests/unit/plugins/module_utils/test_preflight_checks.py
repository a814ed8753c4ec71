"""The preflight role's rules (module_utils/preflight_checks.py): every check's refusal, its
warnings and what it reports when it does not apply. The Molecule scenario runs a few of these
end to end on a node; the sentences here are the ones it asserts."""
import copy

import pytest

from ansible_collections.ascend.vllm.plugins.filter import preflight as preflight_filters
from ansible_collections.ascend.vllm.plugins.module_utils import preflight_checks as pc
from ansible_collections.ascend.vllm.plugins.module_utils import stack as stack_utils

STACK = stack_utils.resolve_stack('0.23.0')
PACKAGES = list(stack_utils.package_names(STACK, '910b', 'x86_64').values())
CHIPS = [{'npu_id': n, 'chip_id': 0, 'health': 'OK'} for n in range(8)]
NPU = {'present': True, 'npu_count': 8, 'chip_count': 8, 'chips': CHIPS, 'processes': [], 'npu_smi_error': None,
       'driver_version': '26.0.rc1', 'npu_smi_version': '26.0.rc1', 'soc_version': 'Ascend910B3',
       'pci_functions': [{'bus_id': '0000:c1:00.0', 'device': '0xd802', 'family': '910b'}]}
PLAN_INPUT = {'stack': STACK, 'node_facts_error': '', 'npu': NPU, 'architecture': 'x86_64',
              'npu_driver_version': None, 'npu_driver_version_defined': False, 'ascend_stack_overrides': {},
              'vllm_service_multinode_mode': 'none', 'vllm_service_install_method': 'venv',
              'ascend_artifacts_dir': '', 'ascend_artifacts_url': 'http://mirror.test/ascend/',
              'ascend_artifacts_sums_file': 'SHA256SUMS'}
GIB_K = 1024 * 1024
READ = {
    'preflight_skip': [], 'stack': STACK, 'stack_error': '', 'node_facts_error': '', 'npu': NPU,
    'facts': {'architecture': 'x86_64', 'distribution': 'Debian', 'distribution_version': '12',
              'distribution_release': 'bookworm', 'kernel': '6.1.0-28-amd64', 'memtotal_mb': 65536},
    'preflight_supported_os': [{'distribution': 'openEuler', 'versions': ['22.03', '24.03']},
                               {'distribution': 'CentOS', 'major': '7', 'min_version': '7.6'},
                               {'distribution': 'EulerOS', 'major': '2', 'min_version': '2.8'},
                               {'distribution': 'Debian', 'versions': ['12']}],
    'preflight_supported_architectures': ['x86_64', 'aarch64'],
    'headers_looked': ['/lib/modules/6.1.0-28-amd64/build'], 'headers_found': ['/lib/modules/6.1.0-28-amd64/build'],
    'disk_needs': [{'label': 'ascend_install_path', 'path': '/usr/local/Ascend', 'variable': 'preflight_min_free_gb_install',
                    'gb': '20'},
                   {'label': 'preflight_model_dir', 'path': '/var/lib/vllm/models',
                    'variable': 'preflight_min_free_gb_models', 'gb': 50},
                   {'label': 'preflight_tmp_dir', 'path': '/tmp', 'variable': 'preflight_min_free_gb_tmp', 'gb': 10}],
    'df': {'stdout_lines': ['/dev/vda 1 1 %d 1%% /' % (200 * GIB_K), '/dev/vda 1 1 %d 1%% /' % (200 * GIB_K),
                            'tmpfs 1 1 %d 1%% /tmp' % (20 * GIB_K)], 'stderr': ''},
    'preflight_min_memory_gb': 32, 'preflight_python': 'python3',
    'python_read': {'rc': 0, 'stdout': '3.11.2\nglibc 2.36\n', 'stderr': ''},
    'vllm_service_pip_index_url': '', 'vllm_service_pip_extra_index_urls': [],
    'vllm_service_pip_wheelhouse': '/srv/wheels', 'preflight_sysfs_root': '/sys', 'ascend_expected_npu_count': None,
    'npu_driver_force': False, 'ntp_show': {}, 'ntp_status': {},
    'sums': {'status': 200, 'content': ''.join('%s  %s\n' % ('0' * 64, name) for name in PACKAGES)},
    'cached': [], 'dir_present': [], 'ascend_artifacts_cache_dir': '/var/cache/ascend-vllm/packages',
}


def run_host(plan_changes=None, read_changes=None):
    plan_input = dict(copy.deepcopy(PLAN_INPUT), **(plan_changes or {}))
    read = dict(copy.deepcopy(READ), **(read_changes or {}))
    if 'npu' in (plan_changes or {}):
        read['npu'] = plan_input['npu']
    plan = pc.host_plan(plan_input)
    return dict((r['check'], r) for r in pc.host_results(plan, read))


def whats(result):
    return [p['what'] for p in result['problems']]


def test_a_healthy_host_passes_every_check():
    results = run_host()
    assert list(results) == pc.HOST_CHECKS
    assert dict((k, r['status']) for k, r in results.items() if r['status'] != 'passed') == {
        'kernel_headers': 'not_applicable', 'boot_loader': 'not_applicable', 'npu_count': 'not_applicable',
        'npu_processes': 'not_applicable', 'time_sync': 'not_applicable'}
    assert results['disk_space']['detail'] == '/: 200.0 GiB free, 70 GiB needed; /tmp: 20.0 GiB free, 10 GiB needed'
    assert results['chip_support']['detail'] == 'Atlas A2 (Ascend 910B) is supported by vllm-ascend 0.23.0'
    assert results['cann_packages']['detail'] == ', '.join(PACKAGES) + ' (url)'
    assert results['stack']['detail'] == 'vllm-ascend 0.23.0: vLLM 0.23.0, CANN 9.1.0, torch %s, torch-npu %s, ' \
        'Python 3.10-3.12' % (STACK['torch'], STACK['torch_npu'])


def test_plan_of_a_node_without_a_driver():
    npu = dict(NPU, driver_version='', npu_smi_version='', present=True)
    plan = pc.host_plan(dict(PLAN_INPUT, npu=npu))
    assert plan['driver_planned'] and not plan['upgrade_planned'] and plan['driver_target'] == '26.0.rc1'
    assert plan['driver_target_variable'] == 'npu_driver_version (default 26.0.rc1)'
    # The driver is planned: its file and its firmware's are fetched at stage 4, checked here.
    hdk = ['Ascend-hdk-910b-npu-driver_26.0.rc1_linux-x86-64.run', 'Ascend-hdk-910b-npu-firmware_9.0.0.0.205.run']
    assert plan['cann_sums_url'] == 'http://mirror.test/ascend/SHA256SUMS' and plan['package_names'] == PACKAGES + hdk
    assert plan['hdk_names'] == hdk
    assert plan['read_python'] and not plan['read_clock']
    # The firmware already running, or left alone by the role: the driver's file only.
    running = pc.host_plan(dict(PLAN_INPUT, npu=dict(npu, firmware_version='9.0.0.0.205')))
    assert running['hdk_names'] == hdk[:1]
    assert pc.host_plan(dict(PLAN_INPUT, npu=npu, npu_driver_manage_firmware=False))['hdk_names'] == hdk[:1]
    # No driver change planned: no HDK file needed.
    assert pc.host_plan(PLAN_INPUT)['hdk_names'] == []


def test_a_driver_file_missing_from_the_source_is_refused_before_stage_4():
    npu = dict(NPU, driver_version='', npu_smi_version='', present=True)
    driver = 'Ascend-hdk-910b-npu-driver_26.0.rc1_linux-x86-64.run'
    firmware = 'Ascend-hdk-910b-npu-firmware_9.0.0.0.205.run'
    listed = READ['sums']['content'] + '%s  %s\n' % ('0' * 64, firmware)
    result = run_host({'npu': npu}, {'sums': {'status': 200, 'content': listed}})['cann_packages']
    assert whats(result) == ['driver 26.0.rc1 package(s) not listed in http://mirror.test/ascend/SHA256SUMS: ' + driver]
    assert result['problems'][0]['variable'] == 'ascend_artifacts_url'
    present = PACKAGES + [firmware]
    result = run_host({'npu': npu, 'ascend_artifacts_url': '', 'ascend_artifacts_dir': '/srv/ascend'},
                      {'dir_present': present})['cann_packages']
    assert whats(result) == ['driver 26.0.rc1 package(s) missing from ascend_artifacts_dir /srv/ascend on the '
                             'controller: ' + driver]


@pytest.mark.parametrize('changes, reads', [
    ({}, ['sums']),
    ({'npu': dict(NPU, driver_version='', npu_smi_version='')}, ['kernel_headers', 'sums']),
    ({'vllm_service_multinode_mode': 'ray', 'ascend_artifacts_url': ''}, ['clock', 'cached']),
    ({'ascend_artifacts_url': '', 'ascend_artifacts_dir': '/srv/ascend'}, []),
    ({'kernel_tuning_hugepages': [{'size': '1G', 'count': 4}]}, ['boot_loader', 'sums']),
    # A check preflight_skip leaves out reads nothing.
    ({'npu': dict(NPU, driver_version=''), 'vllm_service_multinode_mode': 'dp',
      'kernel_tuning_hugepages': [{'size': '1G', 'count': 4}],
      'preflight_skip': ['kernel_headers', 'time_sync', 'cann_packages', 'boot_loader']}, []),
    ({'npu': dict(NPU, driver_version=''), 'vllm_service_multinode_mode': 'dp', 'preflight_skip': ['cann_packages']},
     ['kernel_headers', 'clock']),
])
def test_plan_names_the_reads_the_checks_need(changes, reads):
    assert pc.host_plan(dict(PLAN_INPUT, **changes))['reads'] == reads


@pytest.mark.parametrize('changes, variable', [
    ({'npu_driver_version': '25.5.0', 'npu_driver_version_defined': True}, 'npu_driver_version'),
    ({'ascend_stack_overrides': {'driver': '25.5.0'}}, 'ascend_stack_overrides.driver'),
])
def test_plan_names_where_the_driver_target_comes_from(changes, variable):
    plan = pc.host_plan(dict(PLAN_INPUT, **changes))
    assert plan['driver_target_variable'] == variable


@pytest.mark.parametrize('facts, supported', [
    ({'distribution': 'openEuler', 'distribution_version': '22.03'}, True),
    ({'distribution': 'openEuler', 'distribution_version': '22.03.1'}, True),
    ({'distribution': 'openEuler', 'distribution_version': '20.03'}, False),
    ({'distribution': 'CentOS', 'distribution_version': '7.9'}, True),
    ({'distribution': 'CentOS', 'distribution_version': '7.5'}, False),
    ({'distribution': 'CentOS', 'distribution_version': '8.6'}, False),
    ({'distribution': 'EulerOS', 'distribution_version': '2.0', 'distribution_release': 'SP8'}, True),
    ({'distribution': 'EulerOS', 'distribution_version': '2.0', 'distribution_release': 'SP5'}, False),
    ({'distribution': 'debian', 'distribution_version': '12'}, True),
])
def test_os_support(facts, supported):
    read_facts = dict(READ['facts'], distribution_release='')
    read_facts.update(facts)
    assert (run_host(read_changes={'facts': read_facts})['os']['status'] == 'passed') is supported


def test_os_refusal_lists_what_is_supported():
    results = run_host(read_changes={'facts': dict(READ['facts'], distribution='Ubuntu', distribution_version='18.04')})
    assert results['os']['problems'] == [pc.problem(
        'Ubuntu 18.04 is not a supported operating system',
        'ansible_facts.distribution, ansible_facts.distribution_version',
        'install one of: openEuler 22.03/24.03, CentOS 7.6+, EulerOS 2.8+, Debian 12; if your NPU driver release '
        'supports this one, add it to preflight_supported_os')]


def test_arch_headers_memory():
    results = run_host(plan_changes={'npu': dict(NPU, driver_version='', npu_smi_version='')},
                       read_changes={'facts': dict(READ['facts'], architecture='ppc64le', memtotal_mb=16384),
                                     'headers_found': [], 'driver_build': False})
    assert whats(results['arch']) == ['architecture ppc64le is not one of x86_64, aarch64']
    assert whats(results['kernel_headers']) == [
        'no headers for the running kernel 6.1.0-28-amd64 (looked for /lib/modules/6.1.0-28-amd64/build); the NPU '
        'driver builds its kernel modules against them']
    assert results['kernel_headers']['problems'][0]['fix'] == (
        "set os_prerequisites_driver_build: true to install them from the node's repositories, install the headers "
        'of the running kernel (kernel-devel-6.1.0-28-amd64 or linux-headers-6.1.0-28-amd64) yourself, or boot the '
        'kernel whose headers are installed')
    assert whats(results['memory']) == ['the host has 16.0 GiB of memory, less than the 32 GiB required']


def test_headers_os_prerequisites_will_install_pass_with_that_said():
    # A bare server: the driver build is on (the default), so os_prerequisites installs the
    # headers before the driver; preflight runs first and must not refuse the node for them.
    plan_changes = {'npu': dict(NPU, driver_version='', npu_smi_version='')}
    result = run_host(plan_changes=plan_changes, read_changes={'headers_found': []})['kernel_headers']
    assert result['status'] == 'passed'
    assert result['detail'] == 'not installed yet: os_prerequisites installs them before the driver'
    result = run_host(plan_changes=plan_changes, read_changes={'headers_found': [], 'driver_build': True})
    assert result['kernel_headers']['status'] == 'passed'
    result = run_host(plan_changes=plan_changes, read_changes={'headers_found': [], 'driver_build': False})
    assert result['kernel_headers']['status'] == 'failed'


def test_headers_not_needed_without_a_driver_change():
    result = run_host(read_changes={'headers_found': []})['kernel_headers']
    assert result['status'] == 'not_applicable'
    assert result['detail'] == 'no driver install or upgrade is planned (driver 26.0.rc1 installed)'


def test_disk_space_adds_up_paths_on_one_file_system():
    lines = ['/dev/vda 1 1 %d 1%% /' % (60 * GIB_K), '/dev/vda 1 1 %d 1%% /' % (60 * GIB_K),
             'tmpfs 1 1 %d 1%% /tmp' % (20 * GIB_K)]
    result = run_host(read_changes={'df': {'stdout_lines': lines, 'stderr': ''}})['disk_space']
    assert result['problems'] == [pc.problem(
        '/ has 60.0 GiB free, 70 GiB are needed: 20 GiB for ascend_install_path /usr/local/Ascend, 50 GiB for '
        'preflight_model_dir /var/lib/vllm/models', 'preflight_min_free_gb_install, preflight_min_free_gb_models',
        'free space on / or move those directories to a larger file system; lower the thresholds only if less is really '
        'enough')]


R1 = {'size_gb': 700, 'path': '/var/lib/vllm/models/DeepSeek-R1-W8A8', 'downloads': True, 'margin_gb': 5}


def test_the_model_directory_needs_room_for_the_profiles_model_before_it_is_downloaded():
    lines = ['/dev/vda 1 1 %d 1%% /' % (500 * GIB_K), '/dev/vda 1 1 %d 1%% /' % (500 * GIB_K),
             'tmpfs 1 1 %d 1%% /tmp' % (20 * GIB_K)]
    result = run_host(read_changes={'df': {'stdout_lines': lines, 'stderr': ''}, 'model': R1})['disk_space']
    assert result['problems'] == [pc.problem(
        '/ has 500.0 GiB free, 725 GiB are needed: 20 GiB for ascend_install_path /usr/local/Ascend, 705 GiB for the '
        'model (700 GB, plus vllm_service_model_free_margin_gb) in /var/lib/vllm/models',
        'preflight_min_free_gb_install, vllm_service_model_profile, vllm_service_model_free_margin_gb',
        'free space on / or move those directories to a larger file system; lower the thresholds only if less is really '
        'enough')]
    # Once the model is on the node, or when it is not downloaded (local, controller), the threshold stands.
    present = run_host(read_changes={'df': {'stdout_lines': lines + ['model directory present'], 'stderr': ''},
                                     'model': R1})['disk_space']
    assert present['problems'] == [] and present['detail'] == '/: 500.0 GiB free, 70 GiB needed; /tmp: 20.0 GiB free, 10 GiB needed'
    local = run_host(read_changes={'df': {'stdout_lines': lines, 'stderr': ''}, 'model': dict(R1, downloads=False)})
    assert local['disk_space']['problems'] == []
    # A threshold set higher than the model wins.
    assert pc.model_disk_needs([{'variable': 'preflight_min_free_gb_models', 'gb': 900}], R1, False) == [
        {'variable': 'preflight_min_free_gb_models', 'gb': 900}]


def test_disk_space_unreadable():
    result = run_host(read_changes={'df': {'stdout_lines': [], 'stderr': 'df: permission denied\n'}})['disk_space']
    assert whats(result) == ['cannot read the free space of /usr/local/Ascend, /var/lib/vllm/models, /tmp: df: '
                             'permission denied']
    assert result['detail'] == '?: 0.0 GiB free, 80 GiB needed'


@pytest.mark.parametrize('python_read, expected', [
    ({'rc': 0, 'stdout': '3.9.9\n'}, 'python3 is Python 3.9.9, outside 3.10-3.12 required by vllm-ascend 0.23.0'),
    ({'rc': 127, 'stdout': '', 'stderr': 'not found\n'}, 'cannot run python3: not found'),
    ({'rc': 1, 'stdout': '', 'stderr': '', 'msg': ''}, 'cannot run python3: exit status 1'),
])
def test_python(python_read, expected):
    assert whats(run_host(read_changes={'python_read': python_read})['python']) == [expected]


ONE_G = {'kernel_tuning_hugepages': [{'size': '1G', 'count': 16}], 'kernel_tuning_skip': []}


def test_boot_loader_is_read_only_for_1g_pages_of_the_whole_host():
    assert pc.host_plan(dict(PLAN_INPUT, **ONE_G))['cmdline_pages'] == [16]
    assert pc.host_plan(dict(PLAN_INPUT, kernel_tuning_hugepages=[{'size': '1G', 'count': 4, 'node': 1}]))[
        'cmdline_pages'] == []
    result = run_host()['boot_loader']
    assert (result['status'], result['detail']) == ('not_applicable',
                                                    'kernel_tuning_hugepages has no 1G pool of the whole host')


def test_boot_loader_passes_with_the_planned_command_as_detail():
    boot_plan = {'commands': [['/usr/sbin/grub2-mkconfig', '-o', '/boot/efi/EFI/openEuler/grub.cfg']], 'problem': ''}
    result = run_host(ONE_G, {'boot_plan': boot_plan})['boot_loader']
    assert (result['status'], result['detail']) == ('passed', '/usr/sbin/grub2-mkconfig -o /boot/efi/EFI/openEuler/grub.cfg')


def test_boot_loader_without_a_way_is_refused_naming_the_variable():
    boot_plan = {'commands': [], 'problem': '16 1G pages of the whole host go on the kernel command line: '
                                            '/etc/default/grub does not exist', 'fix': 'give each 1G pool a NUMA node'}
    result = run_host(ONE_G, {'boot_plan': boot_plan})['boot_loader']
    assert result['status'] == 'failed'
    assert result['problems'] == [{'what': '16 1G pages of the whole host go on the kernel command line: '
                                           '/etc/default/grub does not exist', 'variable': 'kernel_tuning_hugepages',
                                   'fix': 'give each 1G pool a NUMA node'}]


def test_python_not_applicable_for_the_container_method():
    result = run_host(plan_changes={'vllm_service_install_method': 'container'})['python']
    assert (result['status'], result['detail']) == ('not_applicable', 'vllm_service_install_method is container')


def test_pip_indexes_from_pypi_alone():
    result = run_host(read_changes={'vllm_service_pip_wheelhouse': ''})['pip_indexes']
    assert result['status'] == 'failed'
    assert result['problems'][0]['variable'] == 'vllm_service_pip_extra_index_urls'


def test_npu_present():
    failed = run_host(plan_changes={'npu': dict(NPU, npu_smi_error='npu-smi info: rc 1, dcmi_init_ret=-8020')})
    assert whats(failed['npu_present']) == ['reading the NPUs failed: npu-smi info: rc 1, dcmi_init_ret=-8020']
    assert failed['npu_present']['detail'] == '0 NPU(s), 0 chip(s)'
    none = run_host(plan_changes={'npu': dict(NPU, present=False, pci_functions=[], npu_count=0)})
    assert whats(none['npu_present']) == ['no Ascend NPU found: no npu-smi and no Huawei NPU PCI function under '
                                          '/sys/bus/pci/devices']
    assert none['chip_support']['detail'] == 'no NPU found'


def test_npu_count():
    result = run_host(read_changes={'ascend_expected_npu_count': 16})['npu_count']
    assert whats(result) == ['found 8 NPU(s), ascend_expected_npu_count is 16']
    assert run_host(read_changes={'ascend_expected_npu_count': '8'})['npu_count']['status'] == 'passed'


@pytest.mark.parametrize('functions, expected', [
    ([{'device': '0xd999', 'family': None}],
     ['Huawei PCI device id(s) 0xd999 are no known Ascend NPU (the known ones are 310, 310B, 310P, 910, 910B and 910_93 '
      'functions)']),
    ([{'device': '0xd802', 'family': '910b'}, {'device': '0xd500', 'family': '310p'}],
     ['more than one chip family on one host: 910b, 310p']),
    ([{'device': '0xd100', 'family': '310'}], [pc.ASCEND_310_REASON]),
])
def test_chip_support_refusals(functions, expected):
    npu = dict(NPU, pci_functions=functions, soc_version='')
    assert whats(run_host(plan_changes={'npu': npu})['chip_support']) == expected


def test_chip_support_warns_for_an_experimental_chip():
    npu = dict(NPU, pci_functions=[{'device': '0xd500', 'family': '310p'}], soc_version='')
    result = run_host(plan_changes={'npu': npu})['chip_support']
    assert result['status'] == 'warning'
    assert result['warnings'] == ['Atlas 300I Duo (Ascend 310P) is experimental in vllm-ascend 0.23.0; no release '
                                  'supports it fully yet']


def test_npu_health_and_force():
    sick = [dict(CHIPS[0]), dict(CHIPS[1], health='Warning')]
    npu = dict(NPU, chips=sick)
    assert whats(run_host(plan_changes={'npu': npu})['npu_health']) == ['unhealthy NPU chip(s): NPU 1 chip 0 (Warning)']
    forced = run_host(plan_changes={'npu': npu}, read_changes={'npu_driver_force': True})['npu_health']
    assert forced['status'] == 'warning'
    assert forced['warnings'] == ['unhealthy NPU chip(s): NPU 1 chip 0 (Warning)' + pc.FORCED]


def test_npu_health_unknown_while_the_driver_does_not_answer():
    npu = dict(NPU, npu_smi_version='')
    result = run_host(plan_changes={'npu': npu})['npu_health']
    assert result['warnings'] == ['NPU driver 26.0.rc1 is installed but npu-smi cannot read the NPUs (a reboot may be '
                                  'pending); their health is unknown']


def test_processes_block_a_driver_upgrade():
    npu = dict(NPU, driver_version='25.5.0', processes=[{'pid': 4242, 'name': 'vllm', 'npu_id': 0,
                                                         'unit': 'vllm-default.service'},
                                                        {'pid': 4243, 'name': None, 'npu_id': 1}])
    result = run_host(plan_changes={'npu': npu})['npu_processes']
    # The holder's unit, where the node's cgroup names one (npu_facts), says what to stop.
    assert result['problems'] == [pc.problem(
        '2 process(es) use the NPUs and the upgrade from driver 25.5.0 to 26.0.rc1 needs them stopped: PID 4242 (vllm) of '
        'vllm-default.service on NPU 0, PID 4243 () on NPU 1', 'ansible_facts.ascend_npu.processes, npu_driver_version (default 26.0.rc1)',
        'stop the services using the NPUs (e.g. systemctl stop the vLLM service) in a maintenance window, or keep '
        'driver 25.5.0 (npu_driver_version (default 26.0.rc1))')]


def test_driver_version_below_minimum_and_recommended():
    # 0.23.0's graph modes need HDK 25.5.1 (its release notes; PR #10555's "alloc sq cq fail"): refused below.
    low = run_host(plan_changes={'npu_driver_version': '25.3.0', 'npu_driver_version_defined': True})['driver_version']
    assert low['status'] == 'failed'
    assert low['problems'] == [pc.problem('NPU driver 25.3.0 is older than 25.5.1, the minimum for vllm-ascend 0.23.0',
                                          'npu_driver_version',
                                          'install a newer NPU driver (npu_driver_version) or choose an older release')]
    # 0.13.0 publishes a recommendation only: a warning.
    stack = stack_utils.resolve_stack('0.13.0')
    older = run_host(plan_changes={'stack': stack, 'npu_driver_version': '23.0.0', 'npu_driver_version_defined': True},
                     read_changes={'stack': stack})['driver_version']
    assert older['status'] == 'warning'
    assert older['warnings'] == ['NPU driver 23.0.0 is older than 25.5, recommended for vllm-ascend 0.13.0']


def test_time_sync():
    result = run_host(plan_changes={'vllm_service_multinode_mode': 'dp'},
                      read_changes={'ntp_show': {'stdout': 'no\n'}})['time_sync']
    assert whats(result) == ['the clock is not synchronised (timedatectl: NTPSynchronized=no); nodes of a multi-node '
                             'service (dp) need agreeing clocks']
    older = run_host(plan_changes={'vllm_service_multinode_mode': 'ray'},
                     read_changes={'ntp_show': {'stdout': '', 'stderr': 'Unknown operation show'},
                                   'ntp_status': {'stdout': 'System clock synchronized: yes'}})['time_sync']
    assert older['status'] == 'passed'


def test_cann_packages_from_each_source():
    url = run_host(read_changes={'sums': {'status': 200, 'content': '%s  *%s\n' % ('0' * 64, PACKAGES[0])}})
    assert whats(url['cann_packages']) == ['CANN 9.1.0 package(s) not listed in http://mirror.test/ascend/SHA256SUMS: '
                                           + ', '.join(PACKAGES[1:])]
    down = run_host(read_changes={'sums': {'status': -1, 'msg': 'Connection refused'}})
    assert whats(down['cann_packages']) == ['cannot read http://mirror.test/ascend/SHA256SUMS: Connection refused']
    local = run_host(plan_changes={'ascend_artifacts_dir': '/srv/ascend/', 'ascend_artifacts_url': ''},
                     read_changes={'dir_present': PACKAGES[:2]})
    assert whats(local['cann_packages']) == ['CANN 9.1.0 package(s) missing from ascend_artifacts_dir /srv/ascend on the '
                                             'controller: ' + PACKAGES[2]]
    node = run_host(plan_changes={'ascend_artifacts_url': ''}, read_changes={'cached': PACKAGES[1:]})
    assert whats(node['cann_packages']) == ['CANN 9.1.0 package(s) not pre-staged in /var/cache/ascend-vllm/packages on '
                                            'the node: ' + PACKAGES[0]]


def test_skip_and_unknown_skip():
    results = run_host(read_changes={'preflight_skip': ['memory', 'stack', 'nope'],
                                     'facts': dict(READ['facts'], memtotal_mb=1)})
    assert results['memory']['status'] == 'skipped'
    assert whats(results['preflight_skip']) == ['preflight_skip names unknown check(s): nope',
                                                'check(s) stack cannot be skipped']
    assert results['stack']['status'] == 'passed'


def test_a_stack_that_does_not_resolve():
    results = run_host(plan_changes={'stack': None},
                       read_changes={'stack': None, 'stack_error': "ascend_stack_release '0.1' is not in the matrix"})
    assert whats(results['stack']) == ["ascend_stack_release '0.1' is not in the matrix"]
    assert results['python']['detail'] == 'the stack did not resolve'
    assert results['cann_packages']['detail'] == 'the stack did not resolve'


INVENTORY = {'preflight_skip': [], 'stack': STACK, 'stack_error': '', 'inventory_hostname': 'n1', 'head': [],
             'workers': [], 'ascend_nodes': ['n1'], 'peer_modes': {}, 'vllm_service_multinode_mode': 'none',
             'vllm_service_port': None, 'vllm_service_tensor_parallel_size': None,
             'vllm_service_data_parallel_size': None, 'vllm_service_host': '127.0.0.1',
             'vllm_service_require_api_key': False, 'api_key_set': False, 'vllm_service_install_method': None,
             'ascend_artifacts_dir': '', 'artifacts_dir_exists': False, 'ascend_artifacts_url': ''}


def run_inventory(**changes):
    return dict((r['check'], r) for r in pc.inventory_results(dict(INVENTORY, **changes)))


def test_inventory_defaults_pass():
    results = run_inventory()
    assert list(results) == pc.INVENTORY_CHECKS
    assert [k for k, r in results.items() if r['status'] not in ('passed', 'not_applicable')] == []
    assert results['multinode']['detail'] == 'single node'


@pytest.mark.parametrize('changes, check, expected', [
    ({'vllm_service_port': 70000}, 'service_port', 'vllm_service_port is 70000, not a TCP port between 1 and 65535'),
    ({'vllm_service_port': 'http'}, 'service_port', 'vllm_service_port is http, not a TCP port between 1 and 65535'),
    ({'vllm_service_tensor_parallel_size': 0}, 'parallel_sizes',
     'vllm_service_tensor_parallel_size is 0, not a whole number of at least 1'),
    ({'vllm_service_data_parallel_size': 'two'}, 'parallel_sizes',
     'vllm_service_data_parallel_size is two, not a whole number of at least 1'),
    ({'vllm_service_require_api_key': True}, 'api_key',
     'vllm_service_require_api_key is true but vllm_service_api_key is empty'),
    ({'vllm_service_install_method': 'docker'}, 'install_method',
     'vllm_service_install_method is docker, not one of venv, container'),
    ({'ascend_artifacts_dir': '/nope'}, 'artifacts_dir', 'ascend_artifacts_dir /nope is not a directory on the controller'),
    ({'ascend_artifacts_url': 'ftp://x/'}, 'artifacts_url', 'ascend_artifacts_url ftp://x/ is not an http:// or https:// URL'),
    ({'vllm_service_multinode_mode': 'dp'}, 'multinode', None),
])
def test_inventory_refusals(changes, check, expected):
    result = run_inventory(**changes)[check]
    assert result['status'] == 'failed'
    if expected:
        assert whats(result) == [expected]


def test_parallel_sizes_one_set():
    assert run_inventory(vllm_service_data_parallel_size=2)['parallel_sizes']['detail'] == \
        'tensor parallel 1, data parallel 2'


def test_open_api_warning():
    result = run_inventory(vllm_service_host='0.0.0.0', vllm_service_port=8001)['api_key']
    assert result['status'] == 'warning' and 'port 8001' in result['warnings'][0]
    assert result['detail'] == 'no API key, listening on 0.0.0.0'


def test_report_summary_and_failure():
    results = pc.inventory_results(dict(INVENTORY, vllm_service_port=0, vllm_service_host='0.0.0.0'))
    assert pc.summary(results, 'inventory')[0] == \
        'inventory checks: 3 passed, 1 with a warning, 1 failed, 0 skipped, 8 not applicable'
    assert pc.failure_message(results, 'n1', 'inventory', 'reports/preflight').split('\n') == [
        'Preflight found 1 problem(s) on n1 (inventory checks); nothing was changed.',
        '- service_port: vllm_service_port is 0, not a TCP port between 1 and 65535 (vllm_service_port). Fix: set '
        'vllm_service_port to a free port in 1-65535 (vLLM listens on 8000 by default).',
        'Skip a check on purpose by adding its name to preflight_skip.',
        'Report: reports/preflight/preflight.md']
    assert pc.failure_message(pc.inventory_results(INVENTORY), 'n1', 'inventory') == ''
    report = pc.report_hosts(['n1', 'n2'], 'inventory', [{'inventory': results}, {}], [STACK, None])
    assert report['n1']['status'] == 'failed' and report['n1']['warnings'] == 1
    assert report['n1']['stack']['release'] == '0.23.0' and 'image' not in report['n1']['stack']
    assert report['n2'] == {'status': 'not_checked', 'warnings': 0, 'stack': None, 'layers': {}}


def test_filters_name_themselves_in_errors():
    from ansible.errors import AnsibleFilterError
    filters = preflight_filters.FilterModule().filters()
    assert sorted(filters) == ['preflight_ansible_python_problem', 'preflight_failure', 'preflight_host_plan', 'preflight_host_results',
                               'preflight_inventory_results', 'preflight_report_hosts', 'preflight_summary',
                               'preflight_wheelhouse_runs']
    with pytest.raises(AnsibleFilterError, match='^preflight_host_plan: '):
        filters['preflight_host_plan'](dict(PLAN_INPUT, npu_driver_version='x.y', npu=dict(NPU, driver_version='1.0')))


def test_report_hosts_filter_reads_hostvars_of_hosts_that_dropped_out():
    filters = preflight_filters.FilterModule().filters()
    results = pc.inventory_results(INVENTORY)
    report = filters['preflight_report_hosts'](['n1', 'ghost'], 'inventory',
                                               {'n1': {'__preflight_layers': {'inventory': results}, 'ascend_stack': STACK},
                                                'ghost': {}})
    assert report['n1']['status'] == 'passed' and report['ghost']['status'] == 'not_checked'


def test_a_node_python_older_than_ansible_core_runs_is_refused_naming_the_interpreter_variable():
    # Kylin V10's python3 (tests/unit/fixtures/os_facts) under the ansible-core this collection is tested with.
    assert pc.ansible_python_problem('3.7.9\n', '2.19.4', '/usr/bin/python3') == (
        "the node's Python /usr/bin/python3 is 3.7.9; ansible-core 2.19.4 runs its modules with Python 3.8 or newer "
        'on the node (ansible_python_interpreter). Fix: install a newer Python from the OS repositories (openEuler: '
        'python3 of 22.03 is 3.9; Kylin V10: python3.9 or a later build) and set ansible_python_interpreter to it; '
        "vLLM itself needs the stack row's Python (preflight_python)")
    # ansible-core 2.17 still runs modules with 3.7; 3.8 passes everywhere (the failure had another cause).
    assert pc.ansible_python_problem('3.7.9', '2.17.0', 'python3') == ''
    assert pc.ansible_python_problem('3.8.10', '2.19.4', 'python3') == ''
    assert pc.ansible_python_problem('3.6.8', '2.17.3', 'python3').startswith(
        "the node's Python python3 is 3.6.8; ansible-core 2.17.3 runs its modules with Python 3.7 or newer")


def test_an_unreadable_node_python_is_named_too():
    assert pc.ansible_python_problem('sh: 1: python3: not found', '2.19.4', 'python3') == (
        'cannot read the version of the Python python3 on the node (sh: 1: python3: not found): ansible-core 2.19.4 '
        'runs its modules with Python 3.8 or newer there; install one from the OS repositories and set '
        'ansible_python_interpreter to it')


# The glibc of the node against the manylinux tags of the row's wheels (stack_matrix glibc).
_SOURCE = 'pip would build vllm-ascend from source (a C++ build against CANN that upstream documents only with gcc > 8)'


@pytest.mark.parametrize('arch, glibc, release, newer, outcome', [
    ('x86_64', '2.36', '0.23.0', None, None),
    ('aarch64', '2.34', '0.23.0', None, None),
    # Kylin V10 / EL 8: vllm-ascend 0.23.0 is manylinux_2_34 only.
    ('aarch64', '2.28', '0.23.0', 'vllm-ascend 2.34 (manylinux_2_34)', _SOURCE),
    # CentOS 7: torch-npu and torch from 0.11.0 are manylinux_2_28; torch counts on aarch64 only.
    ('aarch64', '2.17', '0.18.0', 'torch 2.28 (manylinux_2_28), torch-npu 2.28 (manylinux_2_28), vllm-ascend 2.24 '
                                  '(manylinux_2_24)',
     _SOURCE + '; pip finds no torch or torch-npu at all (no source distribution is published)'),
    ('x86_64', '2.17', '0.18.0', 'torch-npu 2.28 (manylinux_2_28), vllm-ascend 2.24 (manylinux_2_24)',
     _SOURCE + '; pip finds no torch-npu at all (no source distribution is published)'),
])
def test_glibc_against_the_wheels_of_the_row(arch, glibc, release, newer, outcome):
    stack = stack_utils.resolve_stack(release)
    facts = dict(READ['facts'], architecture=arch)
    read = {'stack': stack, 'facts': facts, 'python_read': {'rc': 0, 'stdout': '3.11.2\nglibc %s\n' % glibc}}
    results = run_host({'stack': stack, 'facts': facts}, read)
    check = results['glibc']
    assert check['detail'] == 'glibc %s' % glibc
    if newer is None:
        assert check['status'] == 'passed'
        return
    releases = {'2.28': '0.9.1, 0.11.0, 0.13.0, 0.18.0', '2.17': '0.9.1'}[glibc]
    assert check['problems'] == [{
        'what': 'the node runs glibc %s; the wheels of vllm-ascend %s for %s need a newer one: %s. %s'
                % (glibc, release, arch, newer, outcome),
        'variable': 'vllm_service_install_method',
        'fix': 'use vllm_service_install_method: container on this node, or a release whose wheels run here '
               '(ascend_stack_release: %s), or an OS with a newer glibc' % releases}]


def test_glibc_not_read_is_not_applicable():
    results = run_host(read_changes={'python_read': {'rc': 0, 'stdout': '3.11.2\n'}})
    assert (results['glibc']['status'], results['python']['status']) == ('not_applicable', 'passed')


def test_the_python_fix_names_the_variable_a_site_sets():
    # preflight_python follows vllm_service_python: the site sets the latter.
    old = run_host(read_changes={'python_read': {'rc': 0, 'stdout': '3.8.10\n'}})['python']
    assert [(p['variable'], p['fix']) for p in old['problems']] == [('vllm_service_python', ROUTES)]
    missing = run_host(read_changes={'python_read': {'rc': 127, 'stdout': '', 'stderr': 'not found'}})['python']
    assert [(p['variable'], p['fix']) for p in missing['problems']] == [
        ('vllm_service_python', "no route supplies the service's interpreter: " + ROUTES)]


ROUTES = ('set vllm_service_python_archive to a relocatable CPython 3.10-3.12 in the artifact source '
          '(python-build-standalone install_only layout), vllm_service_python_package to the OS package of your '
          'repositories that provides one (and vllm_service_python to its path), or vllm_service_python to a Python '
          '3.10-3.12 the site installed; or use vllm_service_install_method: container')
ARCHIVE = 'cpython-3.11.14+20251120-x86_64-unknown-linux-gnu-install_only.tar.gz'
# openEuler 22.03 (glibc 2.34): no interpreter at the path yet; the read still gives the C library.
NO_PYTHON = {'rc': 127, 'stdout': '-\nglibc 2.34\n', 'stderr': 'not found\n'}


def test_an_os_package_route_passes_before_the_package_is_installed():
    results = run_host(read_changes={'python_read': NO_PYTHON, 'preflight_python': '/usr/bin/python3.11',
                                     'vllm_service_python_package': 'python3.11'})
    assert (results['python']['status'], results['python']['detail']) == (
        'passed', '/usr/bin/python3.11 from the OS package python3.11 (os_prerequisites installs it)')
    # the C library is read without the interpreter
    assert (results['glibc']['status'], results['glibc']['detail']) == ('passed', 'glibc 2.34')
    # the package does not make an interpreter that is there, and too old, right
    old = run_host(read_changes={'python_read': {'rc': 0, 'stdout': '3.9.9\nglibc 2.34\n'},
                                 'vllm_service_python_package': 'python3.11'})['python']
    assert whats(old) == ['python3 is Python 3.9.9, outside 3.10-3.12 required by vllm-ascend 0.23.0']


def test_an_archive_route_is_checked_in_its_source():
    sums = dict(READ['sums'], content=READ['sums']['content'] + '%s  %s\n' % ('1' * 64, ARCHIVE))
    results = run_host(plan_changes={'vllm_service_python_archive': ARCHIVE},
                       read_changes={'python_read': NO_PYTHON, 'sums': sums,
                                     'preflight_python': '/opt/ascend-vllm/python/bin/python3'})
    assert (results['python']['status'], results['python']['detail']) == (
        'passed', '/opt/ascend-vllm/python/bin/python3 from %s (Python 3.11)' % ARCHIVE)
    # not listed in the mirror's SHA256SUMS
    missing = run_host(plan_changes={'vllm_service_python_archive': ARCHIVE}, read_changes={'python_read': NO_PYTHON})
    assert [(p['what'], p['variable']) for p in missing['python']['problems']] == [
        ('%s (vllm_service_python_archive) is not in http://mirror.test/ascend/SHA256SUMS' % ARCHIVE,
         'vllm_service_python_archive')]
    # a controller directory
    dir_changes = {'ascend_artifacts_dir': '/srv/ascend', 'ascend_artifacts_url': '', 'vllm_service_python_archive': ARCHIVE}
    assert whats(run_host(plan_changes=dir_changes, read_changes={'python_read': NO_PYTHON})['python']) == [
        '%s (vllm_service_python_archive) is not in ascend_artifacts_dir /srv/ascend on the controller' % ARCHIVE]
    assert run_host(plan_changes=dir_changes, read_changes={'python_read': NO_PYTHON, 'dir_present': PACKAGES + [ARCHIVE]}
                    )['python']['status'] == 'passed'
    # a CPython outside the stack's range, by its name
    old = ARCHIVE.replace('3.11.14', '3.9.25')
    assert [(p['what'], p['variable']) for p in run_host(plan_changes={'vllm_service_python_archive': old},
                                                         read_changes={'python_read': NO_PYTHON})['python']['problems']] == [
        ('%s holds Python 3.9, outside 3.10-3.12 required by vllm-ascend 0.23.0' % old, 'vllm_service_python_archive')]


def test_the_archive_version_sets_the_wheelhouse_dry_runs_before_the_unpack():
    plan = pc.host_plan(dict(PLAN_INPUT, vllm_service_python_archive=ARCHIVE, vllm_service_pip_wheelhouse='/srv/wheels'))
    runs = pc.wheelhouse_runs(plan, NO_PYTHON, 'x86_64', '3.11')
    assert runs and all(run['argv'][run['argv'].index('--python-version') + 1] == '3.11' for run in runs)
    assert pc.archive_version('python-3.12.1-linux.tar.gz') == '3.12' and pc.archive_version('site-python.tgz') == ''


def test_spec_problems_check_only_what_is_set_and_hide_secrets():
    options = {'a_choice': ('r', {'type': 'str', 'choices': ['x', 'y'], 'default': 'x', 'required': True}),
               'a_secret': ('r', {'type': 'str', 'no_log': True, 'choices': ['right']}),
               'a_list': ('s', {'type': 'list', 'elements': 'int'})}
    found = pc.spec_problems(options, {'a_choice': 'z', 'a_secret': 'hunter2', 'a_list': ['1', 'two'], 'unknown': 1})
    assert [p['variable'] for p in found] == ['a_choice', 'a_list', 'a_secret']
    assert found[0]['what'] == 'value of a_choice must be one of: x, y, got: z'
    assert found[0]['fix'] == 'set a_choice as the r role documents it (ansible-doc -t role ascend.vllm.r)'
    assert 'hunter2' not in str(found) and '********' in found[2]['what']
    assert pc.spec_problems(options, {'a_choice': 'y', 'a_list': [1, '2'], 'a_secret': None}) == []
    # What a check of its own judges is left to it (one mistake, one line).
    method = {'vllm_service_install_method': ('vllm_service', {'type': 'str', 'choices': ['venv', 'container']})}
    assert pc.spec_problems(method, {'vllm_service_install_method': 'docker'}) == []


def test_port_collisions_and_ranges():
    found = pc.port_collisions([['vllm_service_port', 8000], ['ray_cluster_port', '8000'], ['ray_cluster_dashboard_port', 10005]],
                               [['ray_cluster_min_worker_port', 'ray_cluster_max_worker_port', 10002, 10999]])
    assert [p['what'] for p in found] == [
        'vllm_service_port and ray_cluster_port are both 8000',
        'ray_cluster_dashboard_port (10005) is inside ray_cluster_min_worker_port..ray_cluster_max_worker_port (10002-10999)']
    assert pc.port_collisions([['a', 1], ['b', 2]]) == []


def test_address_collisions_name_every_place_for_the_host_involved():
    addresses = {'n1': ['10.0.0.1', '10.0.0.2'], 'n2': ['10.0.0.3', '10.0.0.1'], 'n3': ['10.0.0.9']}
    assert [p['what'] for p in pc.address_collisions(addresses, 'n2')] == [
        'NPU address 10.0.0.1 is planned 2 times: n1 device 0, n2 device 1']
    assert pc.address_collisions(addresses, 'n3') == []


def test_the_service_settings_check_becomes_preflight_problems():
    found = pc.settings_problems(['vllm_service: vllm_service_model_profile x is not one of a, b.',
                                  'vllm_service: vllm_service_env: FOO has a line break. Fix: remove those characters.'])
    assert found == [
        {'what': 'vllm_service_model_profile x is not one of a, b', 'variable': 'vllm_service_model_profile',
         'fix': 'correct vllm_service_model_profile'},
        {'what': 'vllm_service_env: FOO has a line break', 'variable': 'vllm_service_env', 'fix': 'remove those characters'}]


WHEELHOUSE_READ = {'rc': 0, 'stdout': '3.11.2\nglibc 2.36\n', 'stderr': ''}


def test_a_controller_wheelhouse_is_asked_for_every_install_step_for_this_node():
    plan = pc.host_plan(dict(PLAN_INPUT, vllm_service_pip_wheelhouse='/srv/wheels/', vllm_service_pip_extra_packages=['uvloop']))
    assert plan['wheelhouse'] == '/srv/wheels'
    assert [step['step'] for step in plan['wheelhouse_steps']] == ['vllm', 'vllm-ascend']
    runs = pc.wheelhouse_runs(plan, WHEELHOUSE_READ, 'x86_64', '3.11')
    assert [run['exact'] for run in runs] == [True, True]
    first, second = runs
    assert first['argv'][:3] == ['install', '--dry-run', '--quiet']
    assert first['argv'][-4:] == ['--no-index', '--find-links', '/srv/wheels', 'vllm==0.23.0']
    assert 'manylinux_2_36_x86_64' in first['argv'] and 'manylinux_2_37_x86_64' not in first['argv']
    assert first['argv'][first['argv'].index('--python-version') + 1] == '3.11'
    assert second['requirements'][:4] == ['vllm-ascend==0.23.0', 'torch==2.10.0', 'torch-npu==2.10.0.post4',
                                          'triton-ascend==3.2.2']
    assert second['requirements'][-1] == 'uvloop'
    # Another architecture or Python than the controller's: pip judges markers by its own interpreter.
    assert [run['exact'] for run in pc.wheelhouse_runs(plan, WHEELHOUSE_READ, 'aarch64', '3.11')] == [False, False]
    # Nothing to ask: no wheelhouse, the container method, the check skipped, the Python unread.
    assert pc.host_plan(PLAN_INPUT)['wheelhouse_steps'] == []
    assert pc.host_plan(dict(PLAN_INPUT, vllm_service_pip_wheelhouse='/w', vllm_service_install_method='container'))['wheelhouse'] == ''
    assert pc.host_plan(dict(PLAN_INPUT, vllm_service_pip_wheelhouse='/w', preflight_skip=['pip_indexes']))['wheelhouse_steps'] == []
    assert pc.wheelhouse_runs(plan, {'stdout': ''}, 'x86_64', '3.11') == []


def test_a_wheelhouse_without_one_requirement_is_refused_naming_it():
    plan = pc.host_plan(dict(PLAN_INPUT, vllm_service_pip_wheelhouse='/srv/wheels'))
    runs = pc.wheelhouse_runs(plan, WHEELHOUSE_READ, 'x86_64', '3.11')
    results = [{'item': runs[0], 'rc': 0, 'stderr': ''},
               {'item': runs[1], 'rc': 1, 'stderr': 'ERROR: Could not find a version that satisfies the requirement '
                'triton-ascend==3.2.2 (from versions: none)\nERROR: No matching distribution found for triton-ascend==3.2.2'}]
    read = dict(READ, vllm_service_pip_wheelhouse='/srv/wheels', python_read=WHEELHOUSE_READ, wheelhouse_runs=results)
    result = next(r for r in pc.host_results(plan, read) if r['check'] == 'pip_indexes')
    assert result['status'] == 'failed'
    assert result['problems'] == [{
        'what': 'the wheelhouse /srv/wheels lacks triton-ascend==3.2.2, which the vllm-ascend step of the install needs '
                '(pip: "No matching distribution found")',
        'variable': 'vllm_service_pip_wheelhouse',
        'fix': 'put wheels of triton-ascend==3.2.2 for this node\'s architecture, Python and glibc into it (the site '
               'requirements report, playbooks/requirements.yml, prints the pip download command that fetches them)'}]
    # A Python the python check refuses fails every run: said there, not again.
    older = dict(read, python_read={'rc': 0, 'stdout': '3.8.10\nglibc 2.36\n'})
    assert next(r for r in pc.host_results(plan, older) if r['check'] == 'pip_indexes')['problems'] == []
    # Asked with another interpreter than the node's: a warning, not a refusal.
    results[1]['item'] = dict(runs[1], exact=False)
    result = next(r for r in pc.host_results(plan, dict(read, wheelhouse_runs=results)) if r['check'] == 'pip_indexes')
    assert result['status'] != 'failed' and result['problems'] == []
    assert result['warnings'][0].startswith('the wheelhouse /srv/wheels lacks triton-ascend==3.2.2')
    # A failure pip does not explain with a missing distribution names the step and pip's last lines.
    problems, _warnings = pc.wheelhouse_findings([{'item': runs[0], 'rc': 1, 'stderr': 'ERROR: ResolutionImpossible'}], '/w')
    assert problems[0]['what'] == 'pip cannot resolve the vllm step (vllm==0.23.0) from the wheelhouse /w: ERROR: ResolutionImpossible'
