"""decommission: what goes is read from the node's own units, and nothing else of theirs goes."""
import base64

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.filter.decommission import FilterModule
from ansible_collections.ascend.vllm.plugins.module_utils import decommission
from ansible_collections.ascend.vllm.plugins.module_utils.decommission import plan, read_unit, request_problems

FILTERS = FilterModule().filters()
ETC = '/etc/ascend-vllm'
MODEL = '/var/lib/vllm/models/DeepSeek-R1-Distill-Qwen-7B'

# As the vllm_service role writes it (templates/vllm.service.j2, venv method, numactl binding).
VENV_UNIT = """# Ansible managed
[Unit]
Description=vLLM deepseek-r1-distill-qwen-7b on Ascend NPUs (main, port 8000)
[Service]
User=vllm
EnvironmentFile=/etc/ascend-vllm/cann.env
EnvironmentFile=/etc/ascend-vllm/vllm-main.env
EnvironmentFile=/etc/ascend-vllm/vllm-main.key
ExecStart=/usr/bin/numactl --cpunodebind=0 --membind=0 -- /opt/ascend-vllm/venv/bin/vllm serve \
/var/lib/vllm/models/DeepSeek-R1-Distill-Qwen-7B --served-model-name deepseek-r1-distill-qwen-7b --port 8000
CacheDirectory=vllm-main
"""
# The container method (module_utils/vllm_service.container_argv): podman reads the environment
# file; the API key file is mounted and read in the container.
CONTAINER_UNIT = """[Service]
ExecStart=/usr/bin/podman run --rm --name vllm-edge --network host --shm-size 16g \
--env-file /etc/ascend-vllm/vllm-edge.env --device=/dev/davinci0 --volume=/srv/models:/models:ro \
--volume=/etc/ascend-vllm/vllm-edge.key:/run/secrets/vllm-api-key:ro quay.io/ascend/vllm-ascend:v0.9.1 \
/bin/bash -c 'for f in /usr/local/Ascend/ascend-toolkit/set_env.sh; do if [ -f "$f" ]; then . "$f"; fi; done; \
VLLM_API_KEY="$(cat /run/secrets/vllm-api-key)" && export VLLM_API_KEY && exec vllm "$@"' vllm serve \
/models/DeepSeek-R1 --port 8001
ExecStop=/usr/bin/podman stop --time 60 vllm-edge
"""
RAY_UNIT = """[Service]
EnvironmentFile=-/etc/ascend-vllm/cann.env
EnvironmentFile=/etc/ascend-vllm/ray-head.env
ExecStart=/opt/ascend-vllm/venv/bin/ray start --head --block --port 6379
"""
# Someone else's unit of a matching name: no file of ours.
FOREIGN_UNIT = """[Service]
EnvironmentFile=/etc/default/vllm-lab
ExecStart=/home/lab/venv/bin/vllm serve /data/lab-model
"""


def settings(**change):
    base = {'etc_dir': ETC, 'model': False, 'cann': False, 'cann_env_file': ETC + '/cann.env',
            'cann_profile_script': '/etc/profile.d/ascend-cann.sh',
            'paths': ['/opt/ascend-vllm', '/var/cache/ascend-vllm'], 'present': []}
    base.update(change)
    return base


def units(*pairs):
    return [{'path': '/etc/systemd/system/' + name, 'content': text} for name, text in pairs]


def test_a_venv_unit_names_its_files_virtualenv_and_model():
    unit = read_unit('/etc/systemd/system/vllm-main.service', VENV_UNIT, ETC)
    assert unit == {'name': 'vllm-main.service', 'path': '/etc/systemd/system/vllm-main.service', 'kind': 'vllm',
                    'owned': True, 'stem': 'vllm-main', 'cache_dirs': ['/var/cache/vllm-main'],
                    'files': ['/etc/ascend-vllm/cann.env', '/etc/ascend-vllm/vllm-main.env',
                              '/etc/ascend-vllm/vllm-main.key'],
                    'venv': '/opt/ascend-vllm/venv', 'model': MODEL, 'container': '', 'image': '', 'engine': ''}


def test_a_container_unit_names_its_container_and_the_host_side_of_the_model():
    unit = read_unit('/etc/systemd/system/vllm-edge.service', CONTAINER_UNIT, ETC)
    assert unit['owned'] and unit['container'] == 'vllm-edge' and unit['venv'] == ''
    assert unit['files'] == ['/etc/ascend-vllm/vllm-edge.env', '/etc/ascend-vllm/vllm-edge.key']
    assert unit['model'] == '/srv/models/DeepSeek-R1'
    assert (unit['engine'], unit['image']) == ('/usr/bin/podman', 'quay.io/ascend/vllm-ascend:v0.9.1')


@pytest.mark.parametrize('options, image', [
    (['--rm', '--name', 'n', '--network', 'host', '--env-file', '/e'], 'img:1'),
    (['--rm', '--volume=/a:/b:ro', '-it', '--device=/dev/davinci0'], 'img:1'),
    (['--name=n', '--privileged'], 'img:1'),
    (['--name'], ''),
])
def test_the_image_of_a_run_command_line(options, image):
    argv = ['/usr/bin/podman', 'run'] + options + ([image, 'vllm', 'serve'] if image else [])
    assert decommission._run_image(argv) == image


def test_the_images_of_the_container_units_go_unless_a_unit_that_stays_runs_them():
    foreign = ('[Service]\nExecStart=/usr/bin/podman run --rm --name lab quay.io/ascend/vllm-ascend:v0.9.1 vllm serve /x\n')
    result = plan(units(('vllm-edge.service', CONTAINER_UNIT)), settings())
    assert result['images'] == [{'engine': '/usr/bin/podman', 'image': 'quay.io/ascend/vllm-ascend:v0.9.1'}]
    assert 'image quay.io/ascend/vllm-ascend:v0.9.1 (podman)' in result['lines']
    shared = plan(units(('vllm-edge.service', CONTAINER_UNIT), ('vllm-lab.service', foreign)), settings())
    assert shared['images'] == [] and shared['foreign'] == ['/etc/systemd/system/vllm-lab.service']
    assert plan(units(('vllm-main.service', VENV_UNIT)), settings())['images'] == []


def test_the_containers_of_the_container_units_go_before_their_images():
    foreign = ('[Service]\nExecStart=/usr/bin/podman run --rm --name lab quay.io/ascend/vllm-ascend:v0.9.1 vllm serve /x\n')
    result = plan(units(('vllm-edge.service', CONTAINER_UNIT), ('vllm-lab.service', foreign)), settings())
    # Only our unit's container, also when a unit that stays keeps the image.
    assert result['containers'] == [{'engine': '/usr/bin/podman', 'container': 'vllm-edge'}]
    assert plan(units(('vllm-main.service', VENV_UNIT)), settings())['containers'] == []


def test_a_ray_unit_names_its_virtualenv_and_an_optional_environment_file():
    unit = read_unit('/etc/systemd/system/ray-head.service', RAY_UNIT, ETC)
    assert unit['kind'] == 'ray' and unit['venv'] == '/opt/ascend-vllm/venv' and unit['model'] == ''
    assert unit['files'] == ['/etc/ascend-vllm/cann.env', '/etc/ascend-vllm/ray-head.env']


def test_a_unit_that_reads_nothing_of_ours_is_not_ours():
    assert not read_unit('/etc/systemd/system/vllm-lab.service', FOREIGN_UNIT, ETC)['owned']


def test_a_site_unit_that_reads_cann_env_is_not_ours():
    # cann.env is documented for any unit that needs CANN; only the unit's own <stem>.env makes it ours.
    text = '[Service]\nEnvironmentFile=/etc/ascend-vllm/cann.env\nExecStart=/usr/bin/vllm serve /data\n'
    assert not read_unit('/etc/systemd/system/vllm-lab.service', text, ETC)['owned']
    result = plan(units(('vllm-lab.service', text)), settings(model=True, present=['/usr', '/data']))
    assert result['dirs'] == [] and result['units'] == [] and result['foreign'] == ['/etc/systemd/system/vllm-lab.service']


def test_a_container_unit_behind_numactl():
    text = CONTAINER_UNIT.replace('ExecStart=/usr/bin/podman', 'ExecStart=/usr/bin/numactl --cpunodebind=1 -- /usr/bin/podman')
    unit = read_unit('/etc/systemd/system/vllm-edge.service', text, ETC)
    assert (unit['owned'], unit['container'], unit['model']) == (True, 'vllm-edge', '/srv/models/DeepSeek-R1')


def test_only_a_real_virtualenv_and_a_model_this_collection_provisioned_go():
    text = VENV_UNIT.replace('/opt/ascend-vllm/venv/bin/vllm', '/usr/bin/vllm')
    found = units(('vllm-main.service', text))
    # /usr has no pyvenv.cfg; the model has no record of this collection.
    result = plan(found, settings(model=True, paths=[], present=['/usr', MODEL, '/etc/systemd/system/vllm-main.service']))
    assert result['dirs'] == [] and result['kept_models'] == [MODEL]
    assert '/usr/pyvenv.cfg' in result['candidates'] and MODEL + '/.sha256-verified.json' in result['candidates']
    result = plan(found, settings(model=True, paths=[], present=[MODEL, MODEL + '/.ascend-vllm-download.json']))
    assert result['dirs'] == [MODEL] and result['models'] == [MODEL]


def test_what_the_roles_leave_beside_a_unit_goes_too():
    listing = ['/etc/ascend-vllm/vllm-main.key.previous', '/etc/ascend-vllm/vllm-main.env.2231.2026-12-01@10:00:00~',
               '/etc/systemd/system/vllm-main.service.d', '/etc/systemd/system/vllm-main.service.1.2026-12-01@10:00:00~',
               '/etc/ascend-vllm/vllm-mainline.env', '/etc/systemd/system/vllm-lab.service.d']
    present = ['/etc/systemd/system/vllm-main.service', '/var/cache/vllm-main'] + listing
    result = plan(units(('vllm-main.service', VENV_UNIT)), settings(listing=listing, paths=[], present=present))
    assert result['files'] == ['/etc/systemd/system/vllm-main.service'] + sorted(listing[:4])
    assert result['dirs'] == ['/var/cache/vllm-main']


def test_the_plan_keeps_the_model_and_cann_env_unless_asked_and_leaves_foreign_units():
    found = units(('ray-head.service', RAY_UNIT), ('vllm-main.service', VENV_UNIT), ('vllm-lab.service', FOREIGN_UNIT))
    present = ['/etc/systemd/system/vllm-main.service', '/etc/systemd/system/ray-head.service',
               '/etc/ascend-vllm/vllm-main.env', '/etc/ascend-vllm/ray-head.env', '/etc/ascend-vllm/cann.env',
               '/opt/ascend-vllm/venv', '/opt/ascend-vllm/venv/pyvenv.cfg', '/opt/ascend-vllm', MODEL]
    result = plan(found, settings(present=present))
    assert result['units'] == ['vllm-main.service', 'ray-head.service']
    # cann.env is read by both units but belongs to CANN; the key file does not exist.
    assert result['files'] == ['/etc/systemd/system/vllm-main.service', '/etc/ascend-vllm/vllm-main.env',
                               '/etc/systemd/system/ray-head.service', '/etc/ascend-vllm/ray-head.env']
    # The virtualenv goes with /opt/ascend-vllm.
    assert result['dirs'] == ['/opt/ascend-vllm']
    assert result['models'] == [] and result['kept_models'] == [MODEL]
    assert result['foreign'] == ['/etc/systemd/system/vllm-lab.service']
    assert result['stays'] == [
        'stays (decommission_model is false, or it holds no record of this collection): model ' + MODEL,
        "stays (not the collection's unit): unit /etc/systemd/system/vllm-lab.service"]
    assert result['lines'][:2] == ['unit vllm-main.service (/etc/systemd/system/vllm-main.service): stopped, '
                                   'disabled and removed',
                                   'unit ray-head.service (/etc/systemd/system/ray-head.service): stopped, disabled '
                                   'and removed']
    assert result['lines'][2:] == ['directory /opt/ascend-vllm', 'file /etc/ascend-vllm/vllm-main.env',
                                   'file /etc/ascend-vllm/ray-head.env']
    # Only what may go is looked up: not the kept model, nothing of the foreign unit.
    assert MODEL not in result['candidates'] and '/home/lab/venv' not in result['candidates']
    assert FILTERS['decommission_plan'](found, settings(present=present)) == result
    # As ansible.builtin.slurp returns the files.
    slurped = [{'source': u['path'], 'content': base64.b64encode(u['content'].encode()).decode(), 'encoding': 'base64'}
               for u in found]
    assert FILTERS['decommission_plan'](slurped, settings(present=present)) == result


def test_the_plan_with_model_and_cann():
    found = units(('vllm-main.service', VENV_UNIT))
    present = ['/etc/systemd/system/vllm-main.service', '/etc/ascend-vllm/cann.env', '/etc/profile.d/ascend-cann.sh',
               MODEL, MODEL + '/.sha256-verified.json']
    result = plan(found, settings(present=present, model=True, cann=True))
    assert result['files'] == ['/etc/systemd/system/vllm-main.service', '/etc/ascend-vllm/cann.env',
                               '/etc/profile.d/ascend-cann.sh']
    assert result['dirs'] == [MODEL] and result['models'] == [MODEL] and result['kept_models'] == []
    assert 'directory %s (model)' % MODEL in result['lines'] and MODEL in result['candidates']


def test_a_bare_node_has_nothing_to_remove():
    result = plan([], settings())
    assert result['units'] == result['files'] == result['dirs'] == result['lines'] == []
    assert result['candidates'] == ['/opt/ascend-vllm', '/var/cache/ascend-vllm']


@pytest.mark.parametrize('change, problems', [
    ({}, []),
    ({'confirm': False, 'check_mode': True}, []),
    ({'confirm': False}, ['decommission_confirm is not true: this play stops the vLLM service of the node and removes '
                          'what the collection installed. Run it with --check to see what would go, then with '
                          '-e decommission_confirm=true']),
    ({'driver': True, 'cann': True}, []),
    ({'driver': True}, ['decommission_driver needs decommission_cann: the vendor removes the NPU driver and firmware '
                        'after every other Ascend package (set decommission_cann: true too)']),
    ({'drain_file': '/srv/hooks/drain.yml', 'drain_exists': False},
     ['decommission_drain_tasks: no such file on the controller: /srv/hooks/drain.yml']),
    ({'paths': ['/', '/opt', 'opt/ascend-vllm', '/opt/../etc', '']},
     ['decommission_paths: %s is not a directory this collection owns: give absolute paths at least two levels deep '
      '(such as /opt/ascend-vllm)' % path for path in ['/', '/opt', 'opt/ascend-vllm', '/opt/../etc', "''"]]),
])
def test_request_problems(change, problems):
    request = dict({'confirm': True, 'check_mode': False, 'drain_file': '/srv/hooks/drain.yml', 'drain_exists': True,
                    'paths': ['/opt/ascend-vllm', '/var/cache/ascend-vllm']}, **change)
    assert request_problems(request) == problems
    assert FILTERS['decommission_problems'](request) == problems


def test_the_filters_refuse_what_is_not_a_mapping():
    with pytest.raises(AnsibleFilterError, match='expects a mapping, got list'):
        FILTERS['decommission_problems']([])
    with pytest.raises(AnsibleFilterError, match='expects the settings as a mapping'):
        FILTERS['decommission_plan']([], [])
    with pytest.raises(AnsibleFilterError, match=r'expects slurp results or \[\{path, content\}\] units'):
        FILTERS['decommission_plan']([{'content': ''}], settings())


def test_the_report_adds_the_packages_that_went():
    planned = {'lines': ['unit vllm-main.service (/etc/systemd/system/vllm-main.service): stopped, disabled and removed']}
    packages = [{'kind': 'nnal', 'changed': False, 'action': 'none'},
                {'kind': 'toolkit', 'changed': True, 'previous_version': '9.1.0',
                 'uninstaller': '/var/cache/ascend-vllm/packages/Ascend-cann-toolkit_9.1.0_linux-x86_64.run'},
                {'kind': 'driver', 'changed': True, 'previous_version': None,
                 'uninstaller': '/usr/local/Ascend/driver/script/uninstall.sh'},
                'skipped']
    assert FILTERS['decommission_report'](planned, packages) == planned['lines'] + [
        'package toolkit 9.1.0 (/var/cache/ascend-vllm/packages/Ascend-cann-toolkit_9.1.0_linux-x86_64.run)',
        'package driver of an unfinished install (/usr/local/Ascend/driver/script/uninstall.sh)']
    assert FILTERS['decommission_report'](planned, []) == planned['lines']
    with pytest.raises(AnsibleFilterError, match='expects the plan as a mapping'):
        FILTERS['decommission_report']([], [])


RECORDS = ['/var/lib/ascend-vllm/stages/npu_driver.json', '/var/lib/ascend-vllm/stages/cann.json',
           '/var/lib/ascend-vllm/stages/vllm_venv-venv-e9c74ad4538e.json',
           '/var/lib/ascend-vllm/stages/vllm_venv-venv-0.18.0-5b1f0c2d9a8e.json',
           '/var/lib/ascend-vllm/stages/notes.txt']


@pytest.mark.parametrize('change, files, dirs', [
    # The service goes: its virtualenvs' records; CANN's and the driver's still vouch for them.
    ({}, RECORDS[2:4], []),
    ({'cann': True}, RECORDS[1:4], []),
    # Everything goes: the collection's state directory with every record in it.
    ({'cann': True, 'driver': True}, [], ['/var/lib/ascend-vllm']),
])
def test_the_stage_records_of_what_goes_go(change, files, dirs):
    present = RECORDS + ['/var/lib/ascend-vllm']
    result = plan([], settings(records=RECORDS, present=present, **change))
    assert [f for f in result['files'] if f.startswith('/var/lib/')] == sorted(files)
    assert result['dirs'] == dirs
    assert ['file %s' % f for f in sorted(files)] + ['directory %s' % d for d in dirs] == \
        [line for line in result['lines'] if '/var/lib/' in line]


def test_records_that_are_not_found_are_not_planned():
    result = plan([], settings(records=RECORDS, present=[], cann=True, driver=True))
    assert result['files'] == result['dirs'] == []
    assert '/var/lib/ascend-vllm' in result['candidates']
