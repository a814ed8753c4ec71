"""vllm_service's refusals of its settings alone (module_utils/vllm_service.settings_problems): one
case per refusal with the whole message the role fails with, the order, and what passes."""
import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import vllm_service as vs

# The role's defaults (roles/vllm_service/defaults/main.yml) that the checks read.
GOOD = {
    'instance': 'main', 'model_name': '', 'model_repo': '', 'restart_sec': 10, 'start_limit_burst': 5,
    'start_limit_interval': 600, 'model_profile': 'deepseek-r1-w8a8',
    'profiles': ['deepseek-r1-distill-qwen-7b', 'deepseek-r1-w8a8'], 'profile_repo': 'vllm-ascend/DeepSeek-R1-W8A8',
    'require_api_key': True, 'api_key': 'sandbox-key', 'env': {}, 'model_source': 'huggingface',
    'model_controller_dir': '', 'model_url': '', 'download_parallel': 4, 'download_timeout': 86400,
    'download_poll': 15, 'model_offline': False, 'modelscope_domain': '', 'port': 8000,
    'tensor_parallel_size': None, 'data_parallel_size': None,
}


@pytest.mark.parametrize('changes', [
    {},
    {'require_api_key': False, 'api_key': ''},
    {'require_api_key': 'no', 'api_key': None},
    {'model_source': 'controller', 'model_controller_dir': '/srv/models/x'},
    {'model_source': 'http', 'model_url': 'https://mirror.example/models/x'},
    {'model_source': 'local'},
    {'model_source': 'modelscope', 'profile_repo': '', 'model_repo': 'org/name'},
    {'restart_sec': 0, 'start_limit_interval': 0, 'start_limit_burst': 1},
    {'port': '65535', 'tensor_parallel_size': 16, 'data_parallel_size': '2'},
    {'env': {'VLLM_LOGGING_LEVEL': 'DEBUG'}, 'api_key': 'a "quoted" $key\\'},
])
def test_settings_the_role_takes(changes):
    assert vs.settings_problems(dict(GOOD, **changes)) == []


@pytest.mark.parametrize('changes, message', [
    ({'instance': 'a; b'},
     'vllm_service: vllm_service_instance \'a; b\' is not a unit name part: 1-64 letters, digits, "_", "." or "-", '
     'starting with a letter or digit (it names vllm-<instance>.service and its files).'),
    ({'model_name': '../../../../opt/evil'},
     'vllm_service: vllm_service_model_name \'../../../../opt/evil\' is not one directory name: letters, digits, "_", '
     '".", "+" or "-", no "/" and no ".." (it names the directory under vllm_service_model_dir).'),
    ({'restart_sec': -1},
     'vllm_service: vllm_service_restart_sec (-1) and vllm_service_start_limit_interval (600, 0 turns the limit off) '
     'must be 0 or more seconds, vllm_service_start_limit_burst (5) 1 or more starts.'),
    ({'start_limit_burst': 0},
     'vllm_service: vllm_service_restart_sec (10) and vllm_service_start_limit_interval (600, 0 turns the limit off) '
     'must be 0 or more seconds, vllm_service_start_limit_burst (0) 1 or more starts.'),
    ({'start_limit_interval': '-5'},
     'vllm_service: vllm_service_restart_sec (10) and vllm_service_start_limit_interval (-5, 0 turns the limit off) '
     'must be 0 or more seconds, vllm_service_start_limit_burst (5) 1 or more starts.'),
    ({'model_profile': 'nope'},
     'vllm_service: vllm_service_model_profile nope is not one of deepseek-r1-distill-qwen-7b, deepseek-r1-w8a8.'),
    ({'api_key': ''},
     'vllm_service: vllm_service_require_api_key is true but vllm_service_api_key is empty; set vllm_service_api_key '
     'from Ansible Vault (ansible-vault encrypt_string --name vault_vllm_service_api_key, and vllm_service_api_key set '
     'to that variable as inventories/example does) or set vllm_service_require_api_key: false.'),
    ({'api_key': '   '},
     'vllm_service: vllm_service_require_api_key is true but vllm_service_api_key is empty; set vllm_service_api_key '
     'from Ansible Vault (ansible-vault encrypt_string --name vault_vllm_service_api_key, and vllm_service_api_key set '
     'to that variable as inventories/example does) or set vllm_service_require_api_key: false. '
     'vllm_service: vllm_service_api_key: the key begins or ends with whitespace, which HTTP clients strip from the '
     'Authorization header. Fix: remove those characters (a key is one line of printable characters; quotes, '
     'backslashes and $ are fine).'),
    ({'api_key': 'sandbox-key\nINJECTED_BY_KEY=1'},
     'vllm_service: vllm_service_api_key: the key has a newline, which an EnvironmentFile cannot carry. Fix: remove '
     'those characters (a key is one line of printable characters; quotes, backslashes and $ are fine).'),
    ({'env': {'OK_NAME': 'a\nINJECTED=1', 'BAD NAME': 'x'}},
     "vllm_service: vllm_service_env: 'BAD NAME' is not an environment variable name (letters, digits, _; not "
     'starting with a digit); vllm_service_env.OK_NAME: the value has a newline, which an EnvironmentFile cannot '
     'carry. Fix: remove those characters (a key is one line of printable characters; quotes, backslashes and $ are '
     'fine).'),
    ({'model_source': 'controller'},
     'vllm_service: vllm_service_model_source is controller but vllm_service_model_controller_dir is empty.'),
    ({'model_source': 'http'}, 'vllm_service: vllm_service_model_source is http but vllm_service_model_url is empty.'),
    ({'model_source': 'huggingface', 'profile_repo': ''},
     'vllm_service: vllm_service_model_source is huggingface but vllm_service_model_repo is empty.'),
    ({'download_parallel': 0, 'download_poll': 'x'},
     'vllm_service: vllm_service_download_parallel is 0; it must be a whole number of at least 1; '
     'vllm_service_download_poll is x; it must be a whole number of at least 1.'),
    ({'model_source': 'modelscope', 'model_offline': True, 'modelscope_domain': 'http://127.0.0.1:18080/vllm-hub'},
     'vllm_service: vllm_service_model_offline is true, but modelscope download has no offline mode (the ModelScope '
     'SDK reads no offline variable and would download); stage the model on the node and use '
     'vllm_service_model_source: local, or set vllm_service_model_offline: false; vllm_service_modelscope_domain is '
     'http://127.0.0.1:18080/vllm-hub, but the ModelScope SDK puts https:// in front of it: give a host name with an '
     'optional port (modelscope.example.internal:8443), no scheme or path.'),
    # The port and sizes, with the texts of the offline preflight (one implementation).
    ({'port': 70000},
     'vllm_service: vllm_service_port is 70000, not a TCP port between 1 and 65535. Fix: set vllm_service_port to a '
     'free port in 1-65535 (vLLM listens on 8000 by default).'),
    ({'port': 'http', 'tensor_parallel_size': 0, 'data_parallel_size': 'two'},
     'vllm_service: vllm_service_port is http, not a TCP port between 1 and 65535. Fix: set vllm_service_port to a '
     'free port in 1-65535 (vLLM listens on 8000 by default). vllm_service: vllm_service_tensor_parallel_size is 0, '
     'not a whole number of at least 1. Fix: set it to the number of NPUs one model replica spans (1, 2, 4, 8 or 16). '
     'vllm_service: vllm_service_data_parallel_size is two, not a whole number of at least 1. Fix: set it to the '
     'number of model replicas (1 without data parallelism).'),
])
def test_each_refusal_is_the_message_the_role_fails_with(changes, message):
    assert ' '.join(vs.settings_problems(dict(GOOD, **changes))) == message


def test_every_refusal_at_once_in_the_roles_order_and_never_the_key():
    problems = vs.settings_problems(dict(GOOD, instance='a b', restart_sec=-1, model_profile='nope', model_source='http',
                                         api_key='secret\n', download_timeout=0))
    assert [p.split(':')[1].split()[0] for p in problems] == [
        'vllm_service_instance', 'vllm_service_restart_sec', 'vllm_service_model_profile', 'vllm_service_api_key',
        'vllm_service_model_source', 'vllm_service_download_timeout']
    assert not any('secret' in p for p in problems)


def test_an_unknown_profile_is_not_also_a_missing_repository():
    assert vs.settings_problems(dict(GOOD, model_profile='nope', profile_repo='')) == [
        'vllm_service: vllm_service_model_profile nope is not one of deepseek-r1-distill-qwen-7b, deepseek-r1-w8a8.']


def test_absent_settings_count_as_unset():
    # An unset name, key or environment is the default; unset download settings are no number.
    assert vs.settings_problems({'instance': 'main', 'start_limit_burst': 1, 'model_profile': 'p', 'profiles': ['p'],
                                 'model_source': 'local'}) == [
        'vllm_service: vllm_service_download_parallel is None; it must be a whole number of at least 1; '
        'vllm_service_download_timeout is None; it must be a whole number of at least 1; '
        'vllm_service_download_poll is None; it must be a whole number of at least 1.']
