"""The example inventory is what an air-gapped site copies: secrets from Ansible Vault, every
source a mirror of the site. Its variables are read as Ansible reads them (ansible's debug action
runs on the controller and contacts no host)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
HOSTS = ('npu-a2-01.dc1.example.com', 'npu-a2-02.dc1.example.com', 'npu-a3-01.dc1.example.com')
PASSWORD_CLIENT = 'example@inventories/vault-password.sh'


def host_vars(host, names, password='example-only-change-me', inventory='inventories/example', extra=None):
    # Ad-hoc output: 'host | SUCCESS => {json}' (the minimal callback; ansible.cfg's callbacks are
    # for playbooks).
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / 'ansible.cfg'), ANSIBLE_NOCOLOR='1',
               ANSIBLE_CALLBACK_RESULT_FORMAT='json')
    env.pop('ASCEND_VAULT_PASSWORD', None)
    if password is not None:
        env['ASCEND_VAULT_PASSWORD'] = password
    ansible = str(Path(sys.executable).parent / 'ansible')
    result = subprocess.run([ansible, host, '-i', inventory, '--vault-id', PASSWORD_CLIENT,
                             '-m', 'ansible.builtin.debug', '-a', 'var=[%s]' % ','.join(names)]
                            + (['-e', json.dumps(extra)] if extra else []),
                            cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False)
    return result


def values(result, host):
    head, body = result.stdout.split(' => ', 1)
    assert head.strip() == '%s | SUCCESS' % host, result.stdout
    return next(value for key, value in json.loads(body).items() if key.startswith('['))


@pytest.mark.parametrize('host', HOSTS)
def test_the_api_key_comes_from_the_vault(host):
    result = host_vars(host, ['vllm_service_api_key'])
    assert result.returncode == 0, result.stdout + result.stderr
    assert values(result, host) == ['example-key-3f6a1c9e']


def test_without_the_vault_password_the_run_stops_and_says_why():
    result = host_vars(HOSTS[0], ['vllm_service_api_key'], password=None)
    assert result.returncode != 0
    assert 'ASCEND_VAULT_PASSWORD is not set (the password of vault id example)' in result.stderr


@pytest.mark.parametrize('host, model', [(HOSTS[0], 'DeepSeek-R1-W8A8'), (HOSTS[1], 'DeepSeek-R1-W8A8'),
                                         (HOSTS[2], 'DeepSeek-R1-Distill-Qwen-7B')])
def test_every_source_is_the_sites_mirror(host, model):
    names = ['vllm_service_model_source', 'vllm_service_model_url', 'vllm_service_pip_index_url', 'ascend_artifacts_url']
    result = host_vars(host, names)
    assert result.returncode == 0, result.stdout + result.stderr
    assert values(result, host) == ['http', 'https://mirror.dc1.example.com/models/%s/' % model,
                                    'https://mirror.dc1.example.com/pypi/simple/', 'https://mirror.dc1.example.com/ascend/']


def test_the_vault_file_holds_no_clear_text_secret():
    text = (REPO / 'inventories/example/group_vars/ascend_nodes/vault.yml').read_text()
    assert 'vault_vllm_service_api_key: !vault |' in text and '$ANSIBLE_VAULT;1.2;AES256;example' in text
    assert 'example-key-3f6a1c9e' not in text


OFFLINE_HOSTS = ('npu-a2-01.dc2.example.com', 'npu-a2-02.dc2.example.com')
BUNDLE_SOURCES = ['ascend_artifacts_dir', 'ascend_artifacts_url', 'vllm_service_model_source',
                  'vllm_service_model_controller_dir', 'vllm_service_pip_wheelhouse', 'vllm_service_pip_index_url',
                  'vllm_service_api_key']


@pytest.mark.parametrize('host', OFFLINE_HOSTS)
@pytest.mark.parametrize('arch', ['aarch64', 'x86_64'])
def test_the_offline_site_takes_everything_from_the_bundle(host, arch):
    """inventories/offline: vendor packages, model and wheels of the node's architecture from the
    bundle's layout (module_utils/bundle.py LAYOUT), no URL at all, the key from the vault."""
    result = host_vars(host, BUNDLE_SOURCES, inventory='inventories/offline',
                       extra={'ansible_facts': {'architecture': arch}})
    assert result.returncode == 0, result.stdout + result.stderr
    got = dict(zip(BUNDLE_SOURCES, values(result, host)))
    bundle = '/srv/ascend-bundle'
    assert got['ascend_artifacts_dir'] == bundle + '/artifacts'
    assert got['vllm_service_model_source'] == 'controller'
    assert got['vllm_service_model_controller_dir'] == bundle + '/models/DeepSeek-R1-Distill-Qwen-7B'
    assert got['vllm_service_pip_wheelhouse'] == '%s/wheels/%s' % (bundle, arch)
    assert got['vllm_service_api_key'] == 'example-offline-key-5b2e'
    # Nothing names a network source.
    for number, name in enumerate(('ascend_artifacts_url', 'vllm_service_pip_index_url'), 1):
        assert str(got[name]) == "<< error %d - '%s' is undefined >>" % (number, name), got[name]


def test_the_firewall_of_the_example_lets_in_the_api_and_the_other_node():
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / 'ansible.cfg'), ANSIBLE_NOCOLOR='1',
               ANSIBLE_CALLBACK_RESULT_FORMAT='json', ASCEND_VAULT_PASSWORD='example-only-change-me')
    ansible = str(Path(sys.executable).parent / 'ansible')
    plans = {}
    for host in HOSTS:
        result = subprocess.run([ansible, host, '-i', 'inventories/example', '--vault-id', PASSWORD_CLIENT,
                                 '-m', 'ascend.vllm.inventory_variables'], cwd=REPO, env=env, capture_output=True,
                                text=True, timeout=120, check=False)
        head, body = result.stdout.split(' => ', 1)
        assert head.strip() == '%s | SUCCESS' % host, result.stdout + result.stderr
        plans[host] = json.loads(body)['firewall']
    api = [{'port': 8000, 'proto': 'tcp', 'variable': 'vllm_service_port'}]
    assert plans[HOSTS[0]] == {'ports': api, 'peers': ['10.20.0.12']}
    # The headless worker answers no client; the A3 serves alone.
    assert plans[HOSTS[1]] == {'ports': [], 'peers': ['10.20.0.11']}
    assert plans[HOSTS[2]] == {'ports': api, 'peers': []}
