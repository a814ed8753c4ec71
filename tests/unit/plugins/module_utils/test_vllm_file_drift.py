"""service_file_drift: what of a vLLM service's files differs from what the role writes (verify)."""
import os

import jinja2
import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import vllm_service as vs

TEMPLATES = os.path.join(os.path.dirname(__file__), '..', '..', '..', '..', 'roles', 'vllm_service', 'templates')


def render_env(env, cann='c' * 64, model='m' * 64, packages='p' * 64):
    """The role's own template, rendered as the template module does (the filter under its FQCN)."""
    loader = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), keep_trailing_newline=True,
                                trim_blocks=True)
    loader.filters['ascend.vllm.vllm_env_lines'] = vs.env_lines
    return loader.get_template('vllm.env.j2').render(
        ansible_managed='Ansible managed', __vllm_service_unit='vllm-main.service',
        __vllm_service_cann_env='/etc/ascend-vllm/cann.env', __vllm_service_cann_sha256=cann,
        __vllm_service_model_digest=model, __vllm_service_packages_digest=packages,
        __vllm_service_env=env, __vllm_service_env_reader='systemd')


ENV = {'ASCEND_RT_VISIBLE_DEVICES': '0', 'HOME': '/var/lib/vllm', 'VLLM_USE_V1': '1'}
UNIT = """[Unit]
Description=vLLM
[Service]
User=vllm
EnvironmentFile=/etc/ascend-vllm/cann.env
EnvironmentFile=/etc/ascend-vllm/vllm-main.env
ExecStart=/opt/ascend-vllm/venv/bin/vllm serve /models/m --port 8000
NoNewPrivileges=yes
[Install]
WantedBy=multi-user.target
"""
MODES = {'env': ('0640', 'root', 'vllm'), 'unit': ('0644', 'root', 'root'), 'key': ('0600', 'root', 'root')}


def entry(kind, want_text, have_text=None, same=True, exists=True, want=True, **have_attrs):
    mode, owner, group = MODES[kind]
    have = {'exists': exists, 'mode': mode, 'owner': owner, 'group': group}
    have.update(have_attrs)
    if kind == 'key':
        have['same'] = same
    else:
        have['text'] = want_text if have_text is None else have_text
    return {'path': '/etc/x.' + kind, 'kind': kind,
            'want': {'text': want_text, 'mode': mode, 'owner': owner, 'group': group} if want else None,
            'have': have}


def test_digests_of_the_role_template():
    text = render_env(ENV)
    assert vs.env_file_digests(text) == {'cann_env_sha256': 'c' * 64, 'model_sha256': 'm' * 64,
                                         'packages_sha256': 'p' * 64}
    assert vs.env_file_digests('A=1\n') == {}


def test_files_as_written_are_no_drift():
    assert vs.service_file_drift([entry('env', render_env(ENV)), entry('unit', UNIT), entry('key', None)]) == []


@pytest.mark.parametrize('have_env, expected', [
    (dict(ENV, INJECTED='1'), 'INJECTED added'),
    ({k: v for k, v in ENV.items() if k != 'VLLM_USE_V1'}, 'VLLM_USE_V1 missing'),
    (dict(ENV, ASCEND_RT_VISIBLE_DEVICES='0,1'), 'ASCEND_RT_VISIBLE_DEVICES changed'),
])
def test_env_variables_are_named_not_shown(have_env, expected):
    have = render_env(have_env)
    problems = vs.service_file_drift([entry('env', render_env(ENV), have)])
    assert problems == ['/etc/x.env differs from what the role writes: ' + expected]
    assert '0,1' not in problems[0]


def test_env_digests_say_what_changed_since_the_start():
    have = render_env(ENV, cann='0' * 64, packages='1' * 64)
    assert vs.service_file_drift([entry('env', render_env(ENV), have)]) == [
        "/etc/x.env differs from what the role writes: the CANN environment changed since (cann_env_sha256); "
        "the virtualenv's packages changed since (packages_sha256)"]


def test_env_other_lines():
    want = render_env(ENV)
    assert vs.service_file_drift([entry('env', want, want + '# edited by hand\n')]) == [
        '/etc/x.env differs from what the role writes: other lines differ']


def test_unit_settings_by_section_and_key():
    have = UNIT.replace('User=vllm', 'User=root').replace('--port 8000', '--port 9000').replace(
        'NoNewPrivileges=yes\n', '') + '[Service]\nEnvironment=X=1\n'
    assert vs.service_file_drift([entry('unit', UNIT, have)]) == [
        '/etc/x.unit differs from what the role writes: [Service] Environment added; [Service] NoNewPrivileges missing; '
        '[Service] ExecStart, [Service] User changed']


def test_unit_repeated_keys_compare_as_lists():
    have = UNIT.replace('EnvironmentFile=/etc/ascend-vllm/vllm-main.env\n', '')
    assert vs.service_file_drift([entry('unit', UNIT, have)]) == [
        '/etc/x.unit differs from what the role writes: [Service] EnvironmentFile changed']


def test_key_is_compared_by_the_caller():
    assert vs.service_file_drift([entry('key', None, same=False)]) == [
        '/etc/x.key differs from what the role writes: it does not hold vllm_service_api_key']


def test_key_file_left_without_a_key_configured():
    assert vs.service_file_drift([entry('key', None, want=False)]) == [
        '/etc/x.key exists, but the role writes none (no API key configured)']
    assert vs.service_file_drift([entry('key', None, want=False, exists=False)]) == []


def test_missing_file_and_attributes():
    assert vs.service_file_drift([entry('unit', UNIT, exists=False)]) == ['/etc/x.unit is missing']
    assert vs.service_file_drift([entry('env', 'A=1\n', mode='0644', group='root')]) == [
        '/etc/x.env differs from what the role writes: mode 0644, the role writes 0640; group root, the role writes vllm']
    assert vs.service_file_drift([entry('key', None, same=False, mode='0644')]) == [
        '/etc/x.key differs from what the role writes: it does not hold vllm_service_api_key; '
        'mode 0644, the role writes 0600']


def test_filter_wraps_it():
    from ansible_collections.ascend.vllm.plugins.filter import vllm_service
    filters = vllm_service.FilterModule().filters()
    assert filters['vllm_file_drift']([entry('unit', UNIT, exists=False)]) == ['/etc/x.unit is missing']
    assert filters['vllm_env_digests']('# model_sha256=ab\n') == {'model_sha256': 'ab'}


INSTALLED = {'numpy': '1.26.4', 'Decorator': '5.1.1', 'typing_extensions': '4.12.2'}


@pytest.mark.parametrize('requirements, expected', [
    (['numpy<2.0.0', 'decorator', 'typing-extensions'], []),
    (['numpy'], []),
    (['numpy>=2.0'], ['numpy 1.26.4 in /v does not satisfy numpy>=2.0 (CANN reqs)']),
    (['attrs'], ['attrs is not installed in /v (CANN reqs)']),
    (['typing_extensions>=4'], []),
])
def test_requirement_problems(requirements, expected):
    assert vs.requirement_problems(INSTALLED, requirements, '/v', 'CANN reqs') == expected


def test_requirement_problems_refuses_what_is_no_requirement():
    from ansible.errors import AnsibleFilterError
    from ansible_collections.ascend.vllm.plugins.filter import vllm_service
    with pytest.raises(AnsibleFilterError, match='^requirement_problems: '):
        vllm_service.FilterModule().filters()['vllm_requirement_problems']({}, ['numpy<<2'], '/v', 'x')
