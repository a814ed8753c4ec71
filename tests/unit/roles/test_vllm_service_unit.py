"""The unit vllm_service writes (templates/vllm.service.j2), rendered as the template module does."""
from pathlib import Path

import jinja2
import pytest
import yaml

from ansible_collections.ascend.vllm.plugins.module_utils import vllm_service as vs

ROLE = Path(__file__).resolve().parents[3] / 'roles' / 'vllm_service'
DEFAULTS = yaml.safe_load((ROLE / 'defaults' / 'main.yml').read_text())


def render_unit(method, engine='podman'):
    """The role's unit template with its defaults and the values the role's tasks work out."""
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(ROLE / 'templates')), keep_trailing_newline=True,
                             trim_blocks=True, undefined=jinja2.StrictUndefined)
    env.filters['ascend.vllm.vllm_systemd_exec'] = vs.systemd_exec
    values = dict(DEFAULTS)
    values.update(
        ansible_managed='Ansible managed', groups={'vllm_head': ['node-1']},
        vllm_service_install_method=method, vllm_service_container_engine=engine,
        __vllm_service_role='head', __vllm_service_served_name='deepseek-r1-distill-qwen-7b',
        __vllm_service_unit='vllm-main.service', __vllm_service_cann_env='/etc/ascend-vllm/cann.env',
        __vllm_service_env_file='/etc/ascend-vllm/vllm-main.env', __vllm_service_key_file='/etc/ascend-vllm/vllm-main.key',
        __vllm_service_container={'name': 'vllm-main', 'image': 'quay.io/ascend/vllm-ascend:v0.23.0'},
        __vllm_service_argv=(['/usr/bin/%s' % engine, 'run', '--rm', '--name', 'vllm-main', 'image'] if method == 'container'
                             else ['/opt/ascend-vllm/venv/bin/vllm', 'serve', '/models/m', '--port', '8000']),
        __vllm_service_device_allow=['/dev/davinci0', '/dev/davinci_manager'],
    )
    return env.get_template('vllm.service.j2').render(**values)


@pytest.mark.parametrize('engine', ['podman', 'docker'])
def test_container_unit_removes_its_container_after_the_stop(engine):
    # systemd may end `run --rm` before the container is removed; the container then keeps its
    # name (the next --name is refused) and its image (decommission cannot remove it).
    settings = vs._unit_settings(render_unit('container', engine))
    assert settings['[Service] ExecStartPre'] == ['-/usr/bin/%s rm -f vllm-main' % engine]
    assert settings['[Service] ExecStop'] == ['/usr/bin/%s stop --time 60 vllm-main' % engine]
    assert settings['[Service] ExecStopPost'] == ['-/usr/bin/%s rm -f vllm-main' % engine]
    assert '[Service] User' not in settings


def test_venv_unit_has_no_container_steps():
    settings = vs._unit_settings(render_unit('venv'))
    assert settings['[Service] ExecStart'] == ['/opt/ascend-vllm/venv/bin/vllm serve /models/m --port 8000']
    for key in ('ExecStartPre', 'ExecStop', 'ExecStopPost'):
        assert '[Service] %s' % key not in settings
    assert settings['[Service] User'] == ['vllm']
    assert settings['[Service] DeviceAllow'] == ['/dev/davinci0 rw', '/dev/davinci_manager rw']
