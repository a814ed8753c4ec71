"""vllm_service's validation rules for the node: its NPUs, the chips a service needs, the Ray
cluster's chips and a multi-node node's serving address (the sentences the scenarios assert)."""
import subprocess
import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import vllm_service as vs

NPU = {'present': True, 'chip_count': 8, 'chip_name': '910B3', 'npu_smi_error': None}


@pytest.mark.parametrize('npu, family, check_mode, expected', [
    (NPU, '910b', False, ''),
    (dict(NPU, chip_name=None), '', True, 'profile p supports 910b, 910_93, this node has NPUs (unknown family)'),
    (dict(NPU, chip_name=None), '910b', True, ''),
    (dict(NPU, npu_smi_error='dcmi_init_ret=-8005'), '910b', False,
     'npu-smi fails (dcmi_init_ret=-8005); repair the driver first (playbooks/npu_driver.yml)'),
    (dict(NPU, chip_name='310P3'), '310p', False, 'profile p supports 910b, 910_93, this node has 310P3 (310p)'),
    (dict(NPU, chip_name=None), '', False,
     'npu-smi does not list the NPUs of this node (no driver running?); run the npu_driver role first'),
    (dict(NPU, present=False, chip_count=0), '', False,
     'npu-smi does not list the NPUs of this node (no driver running?); run the npu_driver role first'),
])
def test_npu_problem(npu, family, check_mode, expected):
    assert vs.npu_problem(npu, 'p', ['910b', '910_93'], family, check_mode) == expected


def need(tp=1, dp=1, local=None, pp=1):
    return vs.chips_needed({'tensor-parallel-size': tp, 'data-parallel-size': dp, 'pipeline-parallel-size': pp,
                            'data-parallel-size-local': local if local is not None else dp})


@pytest.mark.parametrize('needed, devices, requested, mode, expected', [
    (need(4, 2), list(range(8)), [], 'none', ''),
    (need(4, 4), list(range(16)), [], 'none',
     'tensor parallel 4 x data parallel 4 needs 16 chips, but 8 are visible on n1 (8 chips, vllm_service_devices unset). '
     'Lower vllm_service_tensor_parallel_size / vllm_service_data_parallel_size or give the service more chips'),
    (need(2), [5], [5], 'none',
     'tensor parallel 2 x data parallel 1 needs 2 chips, but 1 are visible on n1 (8 chips, vllm_service_devices 5). '
     'Lower vllm_service_tensor_parallel_size / vllm_service_data_parallel_size or give the service more chips'),
    (need(1, 11, 9), list(range(9)), [], 'dp',
     'tensor parallel 1 x data parallel 9 needs 9 chips, but 8 are visible on n1 (8 chips, vllm_service_devices unset). '
     'Lower vllm_service_tensor_parallel_size / vllm_service_data_parallel_size_local or give the service more chips'),
    (need(2, pp=2), [0], [0], 'none',
     'tensor parallel 2 x data parallel 1 x pipeline parallel 2 needs 4 chips, but 1 are visible on n1 (8 chips, '
     'vllm_service_devices 0). Lower vllm_service_tensor_parallel_size / vllm_service_data_parallel_size or give the '
     'service more chips'),
    (need(1), [1, 1], [1, 1], 'none', 'vllm_service_devices 1,1 must name distinct chips of 0-7 (8 chips on this node)'),
    (need(1), [9], [9], 'none', 'vllm_service_devices 9 must name distinct chips of 0-7 (8 chips on this node)'),
    (need(16), list(range(8)), [], 'ray', ''),
])
def test_chip_fit_problem(needed, devices, requested, mode, expected):
    assert vs.chip_fit_problem(needed, devices, requested, 8, mode, 'n1') == expected


def test_ray_chips_problem():
    assert vs.ray_chips_problem(need(8, 2), [8, 8]) == ''
    assert vs.ray_chips_problem(need(16, 2), [8, 8]) == (
        'tensor parallel 16 x data parallel 2 needs 32 chips, the 2 nodes of the ray service have 16; lower '
        'vllm_service_tensor_parallel_size / vllm_service_data_parallel_size or add nodes to vllm_workers')


@pytest.mark.parametrize('interface, address, chosen, expected', [
    ('', '', ('eth0', '10.0.0.5'), ''),
    ('ib9', '', ('ib9', ''), 'vllm_service_multinode_interface is ib9, but n1 has no such interface (it has eth0, lo)'),
    ('', '10.9.9.9', ('eth0', '10.9.9.9'),
     'vllm_service_multinode_address is 10.9.9.9, but no interface of n1 holds it (its IPv4 addresses are 10.0.0.5)'),
    ('eth0', '10.9.9.9', ('eth0', '10.9.9.9'),
     'vllm_service_multinode_address is 10.9.9.9, but interface eth0 of n1 does not hold it (its IPv4 addresses are '
     '10.0.0.5)'),
    ('', '', ('', ''), 'n1 has no default IPv4 route to take its serving address from; set vllm_service_multinode_address '
                       '(and vllm_service_multinode_interface) for it'),
    ('eth0', '', ('eth0', ''), 'n1 has no IPv4 address on interface eth0 to take its serving address from; set '
                               'vllm_service_multinode_address (and vllm_service_multinode_interface) for it'),
])
def test_serving_address_problem(interface, address, chosen, expected):
    assert vs.serving_address_problem('n1', interface, address, ['lo', 'eth0'], ['10.0.0.5'], *chosen) == expected


WANTED = {'vllm': '0.23.0', 'vllm-ascend': '0.23.0', 'torch': '2.10.0', 'torch-npu': '2.10.0.post4'}


def test_package_problems():
    installed = {'vllm': '0.23.0+cpu', 'vllm_ascend': '0.23.0', 'torch': '2.11.0+cpu', 'Torch-NPU': '2.10.0.post4'}
    assert vs.package_problems(installed, WANTED, '/v') == ['torch 2.11.0+cpu in /v, wanted 2.10.0']
    assert vs.package_problems({}, {'vllm': '0.23.0'}, '/v') == ['vllm not installed in /v, wanted 0.23.0']
    assert vs.package_problems({'vllm': '0.23.0'}, {'vllm': '0.23.0+sim'}, '/v') == []


def test_unit_state_problems():
    assert vs.unit_state_problems('u.service', {'ActiveState': 'active', 'UnitFileState': 'enabled'}, True) == []
    assert vs.unit_state_problems('u.service', {'ActiveState': 'failed', 'UnitFileState': 'disabled'}, True,
                                  ' on n2 (data-parallel worker, ranks 2-3)') == [
        'u.service is failed on n2 (data-parallel worker, ranks 2-3)',
        'u.service is disabled, not enabled on n2 (data-parallel worker, ranks 2-3)']
    assert vs.unit_state_problems('u.service', {'ActiveState': 'active', 'UnitFileState': 'disabled'}, False) == []
    assert vs.unit_state_problems('u.service', {}, True) == ['u.service is ?', 'u.service is ?, not enabled']


def test_container_argv_takes_the_environment_from_a_file_and_mounts_the_key():
    plan = vs.container_plan([{'device_id': 0, 'phy_id': 0}, {'device_id': 1, 'phy_id': 1}], [1], '/usr/local/Ascend',
                             '/models/m')
    container = dict(plan, name='vllm-main', image='quay.io/ascend/vllm-ascend:v0.23.0')
    argv = vs.container_argv(container, 'podman', '16g', '/etc/ascend-vllm/vllm-main.env', '/etc/ascend-vllm/vllm-main.key')
    assert argv[:12] == ['/usr/bin/podman', 'run', '--rm', '--name', 'vllm-main', '--network', 'host', '--shm-size',
                         '16g', '--env-file', '/etc/ascend-vllm/vllm-main.env', '--env=ASCEND_RT_VISIBLE_DEVICES=0']
    assert '--device=/dev/davinci1' in argv and '--device=/dev/davinci_manager' in argv
    assert '--volume=/models/m:/models/m:ro' in argv
    # The key: one env file only (podman inspect prints --env-file values), the key file mounted
    # read-only and read by the shell that starts vLLM, after CANN's environment scripts.
    assert argv.count('--env-file') == 1
    assert '--volume=/etc/ascend-vllm/vllm-main.key:/run/secrets/vllm-api-key:ro' in argv
    assert argv[-5:] == ['quay.io/ascend/vllm-ascend:v0.23.0', '/bin/bash', '-c',
                         'for f in /usr/local/Ascend/ascend-toolkit/set_env.sh /usr/local/Ascend/nnal/atb/set_env.sh; '
                         'do if [ -f "$f" ]; then . "$f"; fi; done; '
                         'VLLM_API_KEY="$(cat /run/secrets/vllm-api-key)" && export VLLM_API_KEY && exec vllm "$@"',
                         'vllm']
    without_key = vs.container_argv(container, 'docker', '1g', '/e.env')
    assert without_key[0] == '/usr/bin/docker' and without_key.count('--env-file') == 1
    assert without_key[-2].endswith('done; exec vllm "$@"') and without_key[-5] == 'quay.io/ascend/vllm-ascend:v0.23.0'
    assert not [word for word in without_key if 'vllm-api-key' in word]


def test_container_command_sources_cann_and_passes_the_key_and_the_serve_arguments(tmp_path, monkeypatch):
    """The command, run by a real bash with the image's paths moved under tmp_path: CANN's scripts are
    sourced when present (a 310P image's entry point does not), skipped when absent; the key (quotes,
    a backslash, a dollar sign) reaches vLLM's environment unchanged; the serve arguments follow."""
    toolkit = tmp_path / 'set_env.sh'
    toolkit.write_text('export ASCEND_TOOLKIT_HOME=/usr/local/Ascend/cann-9.1.0\n')
    key = tmp_path / 'key'
    key.write_text('k"ey\'s$0 1\n')
    fake = tmp_path / 'vllm'
    fake.write_text('#!/bin/sh\nprintf "%s|" "$ASCEND_TOOLKIT_HOME" "$VLLM_API_KEY" "$@"\n')
    fake.chmod(0o755)
    monkeypatch.setattr(vs, 'CONTAINER_ENV_SCRIPTS', (str(toolkit), str(tmp_path / 'absent.sh')))
    monkeypatch.setattr(vs, 'CONTAINER_KEY_PATH', str(key))
    argv = vs.container_argv({'name': 'n', 'image': 'i'}, 'podman', '1g', '/e.env', '/etc/k')
    command = argv[argv.index('i') + 1:] + ['serve', '/models/m', '--port', '8000']
    out = subprocess.run(command, env={'PATH': '%s:/usr/bin:/bin' % tmp_path}, capture_output=True, text=True, check=True)
    assert out.stdout == '/usr/local/Ascend/cann-9.1.0|k"ey\'s$0 1|serve|/models/m|--port|8000|'


def test_hub_download_keeps_the_token_out_of_argv_and_environment():
    hf = vs.hub_download('huggingface', 'org/m', '/models/m', 'main', False, 'hf', 'http://mirror', True, '/tmp/x/token')
    assert hf['argv'] == ['/bin/sh', '-c', 'HF_TOKEN="$(cat "$0")" && export HF_TOKEN && exec "$@"', '/tmp/x/token',
                          'hf', 'download', 'org/m', '--local-dir', '/models/m', '--revision', 'main']
    assert hf['env'] == {'HF_ENDPOINT': 'http://mirror'}
    ms = vs.hub_download('modelscope', 'org/m', '/models/m', '', True, 'modelscope', '', False)
    assert ms == {'argv': ['modelscope', 'download', '--model', 'org/m', '--local_dir', '/models/m'], 'env': {}}
    assert vs.hub_download('huggingface', 'o/m', '/m', '', True, 'hf')['env'] == {'HF_HUB_OFFLINE': '1'}
    assert 'MODELSCOPE_API_TOKEN="$(cat "$0")"' in vs.hub_download('modelscope', 'o/m', '/m', '', False, 'ms', '', True,
                                                                   '/t')['argv'][2]
    with pytest.raises(vs.ServiceError, match='no file to read it from'):
        vs.hub_download('huggingface', 'o/m', '/m', token_set=True)
    with pytest.raises(vs.ServiceError, match='is not a hub'):
        vs.hub_download('s3', 'o/m', '/m')


@pytest.mark.parametrize('source, offline, domain, expected', [
    ('huggingface', True, 'http://anything', []),
    ('modelscope', False, '', []),
    ('modelscope', False, 'modelscope.example.internal:8443', []),
    ('modelscope', False, 'www.modelscope.cn', []),
    ('modelscope', False, 'http://127.0.0.1:18080/hub', ['vllm_service_modelscope_domain is http://127.0.0.1:18080/hub']),
    ('modelscope', False, 'mirror.example/hub', ['vllm_service_modelscope_domain is mirror.example/hub']),
    ('modelscope', True, '', ['vllm_service_model_offline is true, but modelscope download has no offline mode']),
])
def test_hub_problems(source, offline, domain, expected):
    problems = vs.hub_problems(source, offline, domain)
    assert [p[:len(e)] for p, e in zip(problems, expected)] == expected and len(problems) == len(expected)


@pytest.mark.parametrize('parallel, timeout, poll, expected', [
    (4, 86400, 15, []),
    ('2', '60', '1', []),
    (0, 86400, 15, ['vllm_service_download_parallel is 0; it must be a whole number of at least 1']),
    (4, -1, 'soon', ['vllm_service_download_timeout is -1; it must be a whole number of at least 1',
                     'vllm_service_download_poll is soon; it must be a whole number of at least 1']),
    (True, 60, 15, ['vllm_service_download_parallel is True; it must be a whole number of at least 1']),
])
def test_download_problems(parallel, timeout, poll, expected):
    assert vs.download_problems(parallel, timeout, poll) == expected
