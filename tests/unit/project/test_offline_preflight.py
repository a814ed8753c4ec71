"""The offline preflight (playbooks/preflight.yml --tags inventory) on inventories/example: the
example passes without any host, and the mistakes a new site made on day 1 are each refused before
any host is contacted, naming the variable."""
import json
import os
import re
import subprocess
import sys
from pathlib import Path


REPO = Path(__file__).resolve().parents[3]


def preflight(extra=None):
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / 'ansible.cfg'), ANSIBLE_NOCOLOR='1',
               ASCEND_VAULT_PASSWORD='example-only-change-me')
    playbook = str(Path(sys.executable).parent / 'ansible-playbook')
    argv = [playbook, '-i', 'inventories/example', '--vault-id', 'example@inventories/vault-password.sh',
            'playbooks/preflight.yml', '--tags', 'inventory', '-e', 'preflight_report_dir=']
    if extra:
        argv += ['-e', json.dumps(extra)]
    return subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False)


def problems(result):
    """The problem lines of the failure messages, once each."""
    return sorted(set(line for line in result.stdout.splitlines() if line.startswith('- ')))


def problems_of(result, host):
    """The problem lines of one host's failure message."""
    block = result.stdout.split('problem(s) on %s (inventory checks)' % host, 1)[1]
    return [line for line in block.split('Skip a check', 1)[0].splitlines() if line.startswith('- ')]


def test_the_example_inventory_passes_offline():
    result = preflight()
    assert result.returncode == 0, result.stdout + result.stderr
    assert re.search(r'npu-a2-01\S* +: ok=\d+ +changed=0 +unreachable=0 +failed=0', result.stdout)


def test_day_one_mistakes_are_refused_offline_naming_the_variable():
    result = preflight({'vllm_service_model_profile': 'deepseek-r1-w8a8x', 'vllm_service_model_source': 'https',
                        'vllm_service_multinode_rpc_port': 8000, 'npu_driver_manage_firmware': 'maybe',
                        'monitoring_enabled': True, 'monitoring_npu_exporter_port': 9100,
                        'vllm_service_api_key': 'key-that-must-not-show'})
    assert result.returncode != 0
    found = problems(result)
    expected = [
        '- variables: value of vllm_service_model_source must be one of: controller, local, http, huggingface, '
        'modelscope, got: https (vllm_service_model_source).',
        "- variables: argument 'npu_driver_manage_firmware' is of type str and we were unable to convert to bool",
        '- service_settings: vllm_service_model_profile deepseek-r1-w8a8x is not one of deepseek-r1-distill-qwen-14b',
        '- ports: vllm_service_port and vllm_service_multinode_rpc_port are both 8000 (vllm_service_port, '
        'vllm_service_multinode_rpc_port).',
        '- ports: monitoring_npu_exporter_port and monitoring_node_exporter_port are both 9100',
    ]
    for start in expected:
        assert any(line.startswith(start) for line in found), (start, found)
    # The A3 node serves on its own: it opens no data-parallel rpc port, so no collision there.
    a3 = problems_of(result, 'npu-a3-01.dc1.example.com')
    assert a3 and not any('vllm_service_multinode_rpc_port' in line for line in a3)
    assert any('vllm_service_multinode_rpc_port' in line for line in problems_of(result, 'npu-a2-01.dc1.example.com'))
    assert 'key-that-must-not-show' not in result.stdout + result.stderr


def test_one_npu_address_planned_on_two_hosts_is_refused_offline():
    result = preflight({'hccn_addresses': ['10.0.0.1']})
    assert result.returncode != 0
    assert ('- hccn_addresses: NPU address 10.0.0.1 is planned 3 times: npu-a2-01.dc1.example.com device 0, '
            'npu-a2-02.dc1.example.com device 0, npu-a3-01.dc1.example.com device 0 (hccn_addresses).') in ' '.join(
                problems(result))


def test_a_mistake_a_check_of_its_own_judges_is_reported_once():
    result = preflight({'vllm_service_install_method': 'docker', 'vllm_service_require_api_key': True,
                        'vllm_service_api_key': ''})
    lines = problems_of(result, 'npu-a3-01.dc1.example.com')
    assert [line.split(':', 1)[0] for line in lines] == ['- api_key', '- install_method'], lines


def test_a_node_the_inventory_calls_an_a3_is_refused_the_venv_method_offline():
    result = preflight({'vllm_service_install_method': 'venv'})
    assert result.returncode != 0
    a3 = problems_of(result, 'npu-a3-01.dc1.example.com')
    assert len(a3) == 1 and a3[0].startswith(
        '- install_method: the vllm-ascend 0.23.0 wheel on the package indexes is built for Atlas A2 (Ascend 910B) and '
        'cannot serve the Atlas A3'), a3
    assert '(ascend_node_chip is 910_93) (vllm_service_install_method). Fix: set vllm_service_install_method: ' \
           'container for this node' in a3[0]
    # The A2 nodes the inventory describes as such pass.
    assert 'problem(s) on npu-a2-01.dc1.example.com' not in result.stdout
