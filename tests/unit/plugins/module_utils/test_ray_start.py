"""The ray start command line (module_utils/ray_start.py), as the ray_cluster role's unit runs it."""
import pytest

from ansible_collections.ascend.vllm.plugins.filter import ray_cluster as ray_filters
from ansible_collections.ascend.vllm.plugins.module_utils.ray_start import start_argv

BASE = {'venv_dir': '/opt/ray', 'address': '10.0.0.1', 'host': 'node-1', 'npus': 8, 'resources': {},
        'node_manager_port': 6380, 'object_manager_port': 6381, 'min_worker_port': 10002, 'max_worker_port': 10100,
        'temp_dir': '/var/lib/ray', 'num_cpus': None, 'object_store_memory': None, 'extra_args': [],
        'port': 6379, 'dashboard': False, 'dashboard_port': 8265, 'head_address': '10.0.0.1:6379'}
COMMON = ['--block', '--node-ip-address=10.0.0.1', '--node-manager-port=6380', '--object-manager-port=6381',
          '--min-worker-port=10002', '--max-worker-port=10100', '--num-gpus=0',
          '--resources={"NPU": 8, "ascend_host:node-1": 1}', '--temp-dir=/var/lib/ray/tmp', '--disable-usage-stats']


def test_head_without_dashboard():
    assert start_argv(dict(BASE, head=True)) == (
        ['/opt/ray/bin/ray', 'start', '--head', '--port=6379', '--include-dashboard=false'] + COMMON)


def test_head_with_dashboard_on_the_serving_address():
    argv = start_argv(dict(BASE, head=True, dashboard=True))
    assert argv[2:7] == ['--head', '--port=6379', '--include-dashboard=true', '--dashboard-host=10.0.0.1',
                         '--dashboard-port=8265']


def test_worker_joins_the_head_with_its_own_resources_and_options():
    argv = start_argv(dict(BASE, head=False, host='node-2', npus='4', resources={'zone': 2}, num_cpus=32,
                           object_store_memory=10737418240, extra_args=['--labels={"a":"b"}']))
    assert argv[:3] == ['/opt/ray/bin/ray', 'start', '--address=10.0.0.1:6379']
    assert '--resources={"NPU": 4, "ascend_host:node-2": 1, "zone": 2}' in argv
    assert argv[-3:] == ['--num-cpus=32', '--object-store-memory=10737418240', '--labels={"a":"b"}']


def test_unset_optional_values_render_as_nothing_in_any_templating_mode():
    assert start_argv(dict(BASE, head=True, num_cpus='', object_store_memory='')) == start_argv(dict(BASE, head=True))


@pytest.mark.parametrize('changes, message', [
    ({'address': ''}, 'ray start needs address'),
    ({'head': False, 'head_address': ''}, 'a worker needs head_address'),
])
def test_missing_settings_are_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        start_argv(dict(BASE, **changes))


def test_the_filter_names_itself_in_errors():
    with pytest.raises(Exception, match='^start_argv: ray start needs venv_dir'):
        ray_filters.ray_start_argv(dict(BASE, venv_dir=None))
