"""The site requirements report's decisions (module_utils/site_requirements.py): the same lists the
stages use, grouped by what the hosts need, the refusals the venv method would meet, the ports and
each host's serve options."""
import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import bundle
from ansible_collections.ascend.vllm.plugins.module_utils import pip_plan
from ansible_collections.ascend.vllm.plugins.module_utils import site_requirements as sr
from ansible_collections.ascend.vllm.plugins.module_utils import stack as stack_utils
from ansible_collections.ascend.vllm.plugins.plugin_utils.controller_action import literal_defaults, role_yaml

VARS = role_yaml('vllm_service', 'vars', 'main.yml')
PROFILES = VARS['__vllm_service_profiles']
COMMON_ENV = VARS['__vllm_service_common_env']
PACKAGES = dict((family, role_yaml('os_prerequisites', 'vars', family + '.yml')['__os_prerequisites_os']['packages'])
                for family in sr.OS_FAMILIES)
DEFAULTS = literal_defaults()


# A site's own index mirror, which holds what PyPI lacks (triton-ascend).
MIRROR = {'vllm_service_pip_index_url': 'https://mirror.example/pypi/simple/'}


def reader(role='single', **given):
    given = dict(MIRROR, **given)

    def value(name):
        if name == '__role':
            return role
        return given[name] if name in given else DEFAULTS.get(name)
    return value


def report(hosts):
    """hosts: [(name, role, {variables})]."""
    return sr.report([name for name, _role, _v in hosts],
                     dict((name, reader(role, **variables)) for name, role, variables in hosts),
                     PROFILES, PACKAGES, COMMON_ENV)


DP_PAIR = [('a2-1', 'head', {'vllm_service_multinode_mode': 'dp', 'vllm_service_model_profile': 'deepseek-r1-w8a8',
                             'ansible_host': '10.0.0.1', 'vllm_service_multinode_rpc_port': 13389}),
           ('a2-2', 'worker', {'vllm_service_multinode_mode': 'dp', 'vllm_service_model_profile': 'deepseek-r1-w8a8',
                               'ansible_host': '10.0.0.2', 'vllm_service_multinode_rpc_port': 13389})]


def test_hosts_that_need_the_same_share_a_group_and_the_lists_are_the_stages_own():
    data = report(DP_PAIR + [('a3', 'single', {'ascend_node_chip': '910_93', 'vllm_service_install_method': 'container'})])
    assert data['problems'] == []
    assert [group['hosts'] for group in data['groups']] == [['a2-1', 'a2-2'], ['a3']]
    pair, a3 = data['groups']
    stack = stack_utils.resolve_stack(None)
    assert pair['stack']['release'] == stack['release']
    # The vendor files are exactly what the bundle planner (npu_driver's and cann's names) asks for.
    assert sorted(item['file'] for item in pair['vendor_files']) == sorted(
        bundle.vendor_files([stack], ['910b'], ['aarch64']))
    assert [item['stage'] for item in pair['vendor_files']] == ['npu_driver'] * 2 + ['cann'] * 3
    # The pip steps are the bundle's downloads, i.e. pip_plan's steps plus CANN's Python side.
    downloads = bundle.wheel_downloads({'glibc': '2.34'}, [stack], ['910b'], ['aarch64'], ['3.11'], 'DIR')
    assert [step['requirements'] for step in pair['python']] == [entry['requirements'] for entry in downloads]
    plan = pip_plan.pip_plan(stack, 'aarch64', '910b', wheelhouse=True)
    assert pair['python'][0]['requirements'] == plan['first']
    assert pair['python'][1]['requirements'][:len(plan['second'])] == plan['second']
    assert pair['python'][1]['indexes'] == {'triton-ascend==%s' % stack['triton_ascend']: 'from ' + pip_plan.stack_matrix.PIP_INDEXES['ascend-mirror']}
    assert pair['python'][0]['file'] == 'requirements-%s-aarch64-cp311-vllm.txt' % stack['release']
    download = pair['python'][0]['download']
    assert download[:2] == ['pip', 'download'] and download[-2:] == ['-r', pair['python'][0]['file']]
    assert '--platform' in download and 'manylinux_2_34_aarch64' in download and 'manylinux_2_35_aarch64' not in download
    # The container node needs an image and no wheels; the venv nodes no image.
    assert a3['python'] == [] and a3['images'] == [stack_utils.image_ref(stack, '910_93', 'ubuntu')]
    assert pair['images'] == []
    assert sorted(pair['os_packages']) == ['driver_build', 'serving_venv', 'source_build']
    assert sorted(a3['os_packages']) == ['driver_build', 'serving_container']
    assert a3['os_packages']['serving_container']['packages'] == PACKAGES['RedHat']['serving_container']


def test_an_a3_on_the_venv_method_is_refused_as_the_venv_check_would_refuse_it():
    data = report([('a3', 'single', {'ascend_node_chip': '910_93'})])
    assert len(data['problems']) == 1
    assert data['problems'][0].startswith('a3: the vllm-ascend 0.23.0 wheel on the package indexes is built for Atlas A2')
    assert '(vllm_service_install_method). Fix: set vllm_service_install_method: container' in data['problems'][0]


def test_the_data_parallel_pair_gets_the_head_and_worker_options_in_rank_order():
    data = report(DP_PAIR)
    head, worker = data['hosts']['a2-1']['argv'], data['hosts']['a2-2']['argv']
    assert head[:3] == ['vllm', 'serve', '/var/lib/vllm/models/DeepSeek-R1-W8A8']

    def option(argv, name):
        return argv[argv.index(name) + 1]
    assert option(head, '--data-parallel-address') == '10.0.0.1' == option(worker, '--data-parallel-address')
    assert option(head, '--data-parallel-size-local') == '2' and '--data-parallel-start-rank' not in head
    assert option(worker, '--data-parallel-start-rank') == '2' and '--headless' in worker
    assert '--port' in head and '--port' not in worker
    assert option(head, '--data-parallel-rpc-port') == '13389'
    ports = data['groups'][0]['ports']
    assert [item['variable'] for item in ports] == ['vllm_service_port', 'vllm_service_multinode_rpc_port',
                                                    'VLLM_DP_MASTER_PORT (vLLM)']
    assert 'HCCL_IF_IP' in ' '.join(data['hosts']['a2-1']['node_decides'])


def test_the_serving_address_a_site_sets_wins_over_the_inventory_address():
    pair = [(name, role, dict(variables, vllm_service_multinode_address='29.1.0.1')) for name, role, variables in DP_PAIR]
    argv = report(pair)['hosts']['a2-2']['argv']
    assert argv[argv.index('--data-parallel-address') + 1] == '29.1.0.1'


def test_ray_and_monitoring_add_their_ports():
    data = report([('h', 'head', {'vllm_service_multinode_mode': 'ray', 'monitoring_enabled': True})])
    variables = [item['variable'] for item in data['groups'][0]['ports']]
    assert variables == ['vllm_service_port', 'ray_cluster_port', 'ray_cluster_node_manager_port',
                         'ray_cluster_object_manager_port', 'ray_cluster_dashboard_port',
                         'monitoring_npu_exporter_port', 'monitoring_node_exporter_port',
                         'ray_cluster_min_worker_port-ray_cluster_max_worker_port']
    assert data['groups'][0]['ports'][-1]['port'] == '10002-10999'
    assert data['groups'][0]['python'][-1]['requirements'] == ['ray==%s' % stack_utils.resolve_stack(None)['ray']]


def test_x86_64_names_the_cpu_build_of_torch_and_its_index():
    data = report([('x', 'single', {'ascend_node_arch': 'x86_64'})])
    indexes = data['groups'][0]['python'][1]['indexes']
    torch = 'torch==%s' % stack_utils.resolve_stack(None)['torch']
    assert indexes[torch].startswith('as %s+cpu from ' % torch)


def test_an_index_set_up_without_what_pypi_lacks_is_refused():
    data = report([('h', 'single', {'vllm_service_pip_index_url': ''})])
    assert data['problems'] == ['h: vllm-ascend 0.23.0 on aarch64 needs triton-ascend==3.2.2, which PyPI does not publish: '
                                'triton-ascend==3.2.2 from %s (vllm_service_pip_extra_index_urls). Fix: add those indexes '
                                '(or your mirrors of them) to vllm_service_pip_extra_index_urls, point '
                                'vllm_service_pip_index_url at a mirror that holds them, or install from a wheelhouse '
                                '(vllm_service_pip_wheelhouse)' % pip_plan.stack_matrix.PIP_INDEXES['ascend-mirror']]


@pytest.mark.parametrize('variables,message', [
    ({'ascend_node_chip': 'h100'}, "ascend_node_chip: 'h100' is not a chip family"),
    ({'ascend_node_arch': 'ppc64le'}, "ascend_node_arch: 'ppc64le' is not one of aarch64, x86_64"),
    ({'ascend_node_python': 3.1}, 'ascend_node_python: 3.1 is a number, not a string (YAML reads 3.10 as 3.1)'),
    ({'ascend_node_python': '3'}, "ascend_node_python: '3' is not a Python version 3.N"),
    ({'ascend_node_glibc': '2.9'}, 'ascend_node_glibc: glibc'),
    ({'ascend_node_os_family': 'Suse'}, "ascend_node_os_family: 'Suse' is not one of Debian, RedHat"),
    ({'vllm_service_model_profile': 'deepseek-r2'}, "vllm_service_model_profile: 'deepseek-r2' is not a profile"),
    ({'ascend_stack_release': '0.1.0'}, 'ascend_stack_release: '),
])
def test_a_bad_description_is_refused_naming_the_variable(variables, message):
    data = report([('h', 'single', variables)])
    assert data['groups'] == [] and len(data['problems']) == 1
    assert data['problems'][0].startswith('h: ' + message), data['problems']


def test_what_is_assumed_is_said_and_secrets_in_the_environment_are_redacted():
    data = report([('h', 'single', {'ascend_node_chip': '910b', 'vllm_service_env': {'HF_TOKEN': 'hf_secret'}})])
    assumed = ['ascend_node_arch', 'ascend_node_glibc', 'ascend_node_os_family', 'ascend_node_python']
    assert data['groups'][0]['node']['assumed'] == assumed
    assert data['hosts']['h']['env']['HF_TOKEN'] == '<redacted>'
    files = sr.files(data, '2026-12-07T00:00:00Z')
    assert 'hf_secret' not in ''.join(item['content'] for item in files)
    assert [item['name'] for item in files] == ['requirements.json', 'requirements.md',
                                                data['groups'][0]['python'][0]['file'],
                                                data['groups'][0]['python'][1]['file']]
    markdown = files[1]['content']
    assert 'Assumed (not set in the inventory): ascend_node_arch=aarch64' in markdown
    assert files[2]['content'] == 'vllm==%s\n' % stack_utils.resolve_stack(None)['vllm']


def test_the_firewall_lets_clients_reach_the_api_and_peers_reach_everything():
    ports = [['vllm_service_port', 8000], ['vllm_service_multinode_rpc_port', 13389],
             ['monitoring_npu_exporter_port', 8082], ['monitoring_node_exporter_port', 9100]]
    head = sr.firewall_plan('head', 'dp', ports, ['10.0.0.2', '10.0.0.2', '10.0.0.3'])
    assert head == {'ports': [{'port': 8000, 'proto': 'tcp', 'variable': 'vllm_service_port'},
                              {'port': 8082, 'proto': 'tcp', 'variable': 'monitoring_npu_exporter_port'},
                              {'port': 9100, 'proto': 'tcp', 'variable': 'monitoring_node_exporter_port'}],
                    'peers': ['10.0.0.2', '10.0.0.3']}
    # A headless worker answers no client; a single node has no peers.
    assert [item['port'] for item in sr.firewall_plan('worker', 'dp', ports, ['10.0.0.1'])['ports']] == [8082, 9100]
    assert sr.firewall_plan('single', 'none', ports[:1], ['10.0.0.9']) == {
        'ports': [{'port': 8000, 'proto': 'tcp', 'variable': 'vllm_service_port'}], 'peers': []}


def test_the_service_interpreter_routes_are_listed_for_the_mirrors():
    # openEuler 22.03 (python3 3.9): one host takes a relocatable CPython from the artifact source,
    # another the OS package of the site's repositories; they need different files.
    archive = 'cpython-3.11.14+20251120-aarch64-unknown-linux-gnu-install_only.tar.gz'
    data = report([('a', 'single', {'vllm_service_python_archive': archive}),
                   ('b', 'single', {'vllm_service_python_package': 'python3.11'})])
    assert [group['hosts'] for group in data['groups']] == [['a'], ['b']]
    first, second = data['groups']
    assert first['vendor_files'][-1] == {
        'file': archive, 'stage': 'vllm_service',
        'what': "the service's interpreter (a relocatable CPython, unpacked to /opt/ascend-vllm/python)"}
    assert archive not in [item['file'] for item in second['vendor_files']]
    assert second['os_packages']['serving_venv']['packages'] == PACKAGES['RedHat']['serving_venv'] + ['python3.11']
    assert 'python3.11' not in first['os_packages']['serving_venv']['packages']
