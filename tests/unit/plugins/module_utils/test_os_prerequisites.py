"""The OS packages a node needs for its stages (module_utils/os_prerequisites.py), planned from the
role's own vars files for the facts of each OS in tests/unit/fixtures/os_facts (sources in its README)."""
import json
import os

import pytest
import yaml

from ansible_collections.ascend.vllm.plugins.module_utils import os_prerequisites as osp

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..', '..', '..'))
VARS = os.path.join(REPO, 'roles', 'os_prerequisites', 'vars')
with open(os.path.join(REPO, 'tests', 'unit', 'fixtures', 'os_facts', 'facts.json')) as handle:
    OS_FACTS = dict((key, value['facts']) for key, value in json.load(handle).items())


def os_packages(facts):
    """What the role's first_found over vars_candidates picks; None when no file matches."""
    for name in osp.vars_candidates(facts):
        path = os.path.join(VARS, name)
        if os.path.exists(path):
            with open(path) as handle:
                return yaml.safe_load(handle)['__os_prerequisites_os']['packages']
    return None


def role_plan(os_name, stages, overrides=None, extra=()):
    facts = OS_FACTS[os_name]
    return osp.plan(os_packages(facts), facts, stages, overrides, extra)


@pytest.mark.parametrize('os_name, files', [
    ('kylin_v10_x86_64', ['Kylin_Linux_Advanced_Server_V10.yml', 'Kylin_Linux_Advanced_Server.yml', 'RedHat.yml']),
    ('openeuler_22.03_aarch64', ['openEuler_22.03.yml', 'openEuler_22.yml', 'openEuler.yml', 'RedHat.yml']),
    ('ubuntu_22.04_aarch64', ['Ubuntu_22.04.yml', 'Ubuntu_22.yml', 'Ubuntu.yml', 'Debian.yml']),
    ('debian_12_x86_64', ['Debian_12.15.yml', 'Debian_12.yml', 'Debian.yml']),
])
def test_vars_files_are_tried_most_specific_first(os_name, files):
    assert osp.vars_candidates(OS_FACTS[os_name]) == files


@pytest.mark.parametrize('os_name, stages, packages', [
    ('kylin_v10_x86_64', ['driver_build', 'serving_venv'],
     ['dkms', 'gcc', 'make', 'kernel-headers-4.19.90-24.4.v2101.ky10.x86_64',
      'kernel-devel-4.19.90-24.4.v2101.ky10.x86_64', 'python3', 'numactl']),
    ('openeuler_22.03_aarch64', ['driver_build', 'serving_venv'],
     ['dkms', 'gcc', 'make', 'kernel-headers-5.10.0-60.18.0.50.oe2203.aarch64',
      'kernel-devel-5.10.0-60.18.0.50.oe2203.aarch64', 'python3', 'numactl']),
    ('openeuler_20.03_aarch64', ['serving_container'], ['podman', 'numactl']),
    # The container unit runs podman under numactl (its NUMA binding): a node without numactl failed with 203/EXEC.
    ('debian_12_x86_64', ['serving_container'], ['podman', 'numactl']),
    ('ubuntu_22.04_aarch64', ['driver_build', 'serving_venv'],
     ['dkms', 'gcc', 'make', 'linux-headers-5.15.0-91-generic', 'python3-venv', 'numactl']),
    ('debian_12_x86_64', ['serving_venv'], ['python3-venv', 'numactl']),
    ('debian_12_x86_64', ['source_build'], ['gcc', 'g++', 'make', 'cmake', 'libnuma-dev']),
    ('openeuler_22.03_aarch64', ['source_build'], ['gcc', 'gcc-c++', 'make', 'cmake', 'numactl-devel']),
    ('kylin_v10_x86_64', ['serving_venv', 'source_build'],
     ['python3', 'numactl', 'gcc', 'gcc-c++', 'make', 'cmake', 'numactl-devel']),
    ('debian_12_x86_64', [], []),
])
def test_each_os_gets_its_own_names_with_the_running_kernel(os_name, stages, packages):
    result = role_plan(os_name, stages)
    assert result['problems'] == []
    assert result['packages'] == packages


def test_rpm_plans_read_with_rpm_and_ask_dnf():
    result = role_plan('openeuler_22.03_aarch64', ['serving_venv'])
    assert result['manager'] == 'dnf'
    assert result['query_argv'] == ['rpm', '-q', '--qf', '%{NAME}\n', 'python3', 'numactl']
    assert result['availability_command'] == ['dnf', '-q', 'repoquery', '--qf', '%{name}-%{version}-%{release}.%{arch}\n']


def test_debian_plans_read_with_dpkg_query_and_ask_apt_cache():
    result = role_plan('debian_12_x86_64', ['serving_venv'])
    assert result['query_argv'] == ['dpkg-query', '-W', '-f', '${Package} ${db:Status-Status}\n', 'python3-venv', 'numactl']
    assert result['availability_command'] == ['apt-cache', 'policy']


def test_site_names_replace_a_stage_and_may_differ_by_architecture():
    overrides = {'driver_build': {'all': ['dkms', 'kernel-devel-{kernel}'], 'aarch64': ['gcc-{arch}-toolset']}}
    result = role_plan('openeuler_22.03_aarch64', ['driver_build', 'serving_venv'], overrides, ['unzip'])
    assert result['packages'] == ['dkms', 'kernel-devel-5.10.0-60.18.0.50.oe2203.aarch64', 'gcc-aarch64-toolset',
                                  'python3', 'numactl', 'unzip']
    assert result['variables']['dkms'] == 'os_prerequisites_driver_build or os_prerequisites_packages.driver_build'
    assert result['variables']['numactl'] == 'os_prerequisites_packages.serving_venv'
    assert result['variables']['unzip'] == 'os_prerequisites_extra'
    x86 = osp.plan(None, OS_FACTS['kylin_v10_x86_64'], ['driver_build'], overrides)
    assert x86['packages'] == ['dkms', 'kernel-devel-4.19.90-24.4.v2101.ky10.x86_64']


def test_a_name_listed_twice_is_installed_once():
    result = role_plan('debian_12_x86_64', ['serving_venv'], extra=['numactl', 'unzip'])
    assert result['packages'] == ['python3-venv', 'numactl', 'unzip']
    assert result['stage_of']['numactl'] == 'serving_venv'


ALL_STAGES = 'driver_build, serving_venv, serving_container, source_build, monitoring, node_exporter'


@pytest.mark.parametrize('stages, overrides, problem', [
    (['serving_venv', 'drivers'], None,
     'os_prerequisites_stages: unknown stage(s) drivers; the stages are ' + ALL_STAGES),
    (['serving_venv'], {'serving': ['python3']},
     'os_prerequisites_packages: unknown stage(s) serving; the stages are ' + ALL_STAGES),
])
def test_unknown_stages_are_refused_naming_the_variable(stages, overrides, problem):
    assert role_plan('debian_12_x86_64', stages, overrides)['problems'] == [problem]


def test_an_os_without_names_is_refused_naming_the_variable_per_stage():
    facts = dict(OS_FACTS['debian_12_x86_64'], distribution='Alpine', distribution_version='3.20', os_family='Alpine',
                 pkg_mgr='apk')
    result = osp.plan(os_packages(facts), facts, ['serving_venv'])
    assert result['problems'] == [
        'no package names are known for Alpine 3.20 (OS family Alpine): set os_prerequisites_packages.serving_venv to the '
        'names of its repositories']
    # Names given for the stage, but a package manager the role does not drive.
    result = osp.plan(None, facts, ['serving_venv'], {'serving_venv': ['py3-virtualenv']})
    assert result['problems'] == [
        'the package manager apk of Alpine 3.20 is not one this role drives (apt, dnf): install py3-virtualenv '
        'yourself and set os_prerequisites_stages: []']


def test_yum_only_systems_are_refused():
    result = role_plan('centos_7_x86_64', ['serving_venv'])
    assert result['problems'] == [
        'the package manager yum of CentOS 7.6 is not one this role drives (apt, dnf): install python3, numactl '
        'yourself and set os_prerequisites_stages: []']


def test_nothing_to_install_needs_no_package_manager():
    assert role_plan('centos_7_x86_64', [])['problems'] == []


@pytest.mark.parametrize('entry, message', [
    ({'serving_venv': 'numactl'}, 'os_prerequisites_packages.serving_venv: stage serving_venv must be a list'),
    ({'serving_venv': {'arm64': ['numactl']}}, 'stage serving_venv has keys arm64; use all, x86_64 or aarch64'),
    ({'serving_venv': ['numactl-{release}']}, "package name 'numactl-{release}': only {kernel} and {arch} are filled in"),
])
def test_malformed_site_names_raise(entry, message):
    with pytest.raises(osp.PrerequisitesError, match=message.replace('{', r'\{').replace('}', r'\}').replace('(', r'\(')):
        role_plan('debian_12_x86_64', ['serving_venv'], entry)


@pytest.mark.parametrize('name, expected', [
    ('', {'stages': ['monitoring', 'node_exporter'], 'extra': []}),
    (None, {'stages': ['monitoring', 'node_exporter'], 'extra': []}),
    ('golang-github-prometheus-node-exporter', {'stages': ['monitoring'], 'extra': ['golang-github-prometheus-node-exporter']}),
])
def test_monitoring_packages_are_the_family_s_unless_the_site_names_node_exporter(name, expected):
    assert osp.monitoring_packages(name) == expected


def test_monitoring_stages_name_the_exporters_packages_per_family():
    debian = role_plan('debian_12_x86_64', ['monitoring', 'node_exporter'])
    assert debian['packages'] == ['unzip', 'dbus', 'prometheus-node-exporter'] and debian['problems'] == []
    assert debian['stage_of']['prometheus-node-exporter'] == 'node_exporter'


def test_the_stage_run_covers_the_monitoring_role_s_run():
    # site.yml's os_prerequisites stage with monitoring on, then the monitoring role's own inputs.
    packages = osp.monitoring_packages('')
    stage = {'stages': osp.stages_for(True, 'venv', packages['stages']), 'packages': {}, 'extra': packages['extra'],
             'kernel': '6.1.0-28-amd64'}
    role = {'stages': packages['stages'], 'packages': {}, 'extra': packages['extra'], 'kernel': '6.1.0-28-amd64'}
    assert stage['stages'] == ['driver_build', 'serving_venv', 'monitoring', 'node_exporter']
    assert osp.covered(role, [stage])
    named = osp.monitoring_packages('node-exporter')
    assert not osp.covered(dict(role, **named), [stage])
    assert osp.covered(dict(role, **named), [dict(stage, stages=stage['stages'] + named['stages'], extra=named['extra'])])


def test_install_method_picks_the_serving_stage():
    assert osp.stages_for(True, 'venv') == ['driver_build', 'serving_venv']
    assert osp.stages_for(False, 'container', ['serving_venv']) == ['serving_container', 'serving_venv']
    with pytest.raises(osp.PrerequisitesError, match="vllm_service_install_method must be venv or container, got 'conda'"):
        osp.stages_for(True, 'conda')


# dpkg-query -W -f '${Package} ${db:Status-Status}\n' on a node: installed, removed with its
# configuration left, and a name dpkg never saw (stderr only, exit 1).
DPKG_OUT = 'python3-venv installed\nnumactl config-files\n'


def test_dpkg_query_output_names_what_is_missing():
    result = role_plan('debian_12_x86_64', ['serving_venv'], extra=['unzip'])
    assert osp.missing_of(result, {'stdout': DPKG_OUT, 'rc': 1}) == ['numactl', 'unzip']
    assert osp.missing_of(result, {'stdout': DPKG_OUT + 'numactl installed\nunzip installed\n', 'rc': 0}) == []
    with pytest.raises(osp.PrerequisitesError, match='dpkg-query exited with 2'):
        osp.missing_of(result, {'stdout': '', 'rc': 2})


def test_rpm_query_output_names_what_is_missing():
    # rpm -q prints the installed package's name for a name-version-release.arch spec, and
    # "package <spec> is not installed" for a spec it does not find.
    result = role_plan('openeuler_22.03_aarch64', ['driver_build'])
    out = ('dkms\ngcc\nmake\nkernel-headers\n'
           'package kernel-devel-5.10.0-60.18.0.50.oe2203.aarch64 is not installed\n')
    assert osp.missing_of(result, {'stdout': out, 'rc': 1}) == ['kernel-devel-5.10.0-60.18.0.50.oe2203.aarch64']


# apt-cache policy numactl linux-headers-6.18.0-x nosuch (a name no repository has prints nothing;
# a name known only as removed prints "Candidate: (none)").
POLICY_OUT = '''numactl:
  Installed: (none)
  Candidate: 2.0.16-1
  Version table:
     2.0.16-1 500
        500 http://mirror.example/debian bookworm/main amd64 Packages
oldpkg:
  Installed: (none)
  Candidate: (none)
  Version table:
'''


def test_apt_cache_policy_says_which_are_not_offered():
    result = role_plan('debian_12_x86_64', ['serving_venv'], extra=['oldpkg', 'ascend-vllm-no-such-package'])
    problem = osp.unavailable_problem(result, ['numactl', 'oldpkg', 'ascend-vllm-no-such-package'],
                                      {'stdout': POLICY_OUT, 'rc': 0})
    assert problem == (
        'The package repositories of this Debian node do not offer: oldpkg (extra; set os_prerequisites_extra); '
        'ascend-vllm-no-such-package (extra; set os_prerequisites_extra). Add them to a repository the node uses '
        '(an air-gapped site: its own mirror), or name the packages that provide them there with the variable '
        'shown. Nothing was installed.')
    assert osp.unavailable_problem(result, ['numactl'], {'stdout': POLICY_OUT, 'rc': 0}) == ''


def test_the_running_kernels_headers_missing_from_the_mirror_name_the_driver_build_switch():
    result = role_plan('ubuntu_22.04_aarch64', ['driver_build'])
    problem = osp.unavailable_problem(result, ['linux-headers-5.15.0-91-generic'], {'stdout': '', 'rc': 0})
    assert 'linux-headers-5.15.0-91-generic (driver_build; set os_prerequisites_driver_build or ' \
           'os_prerequisites_packages.driver_build)' in problem


def test_dnf_repoquery_lines_match_names_and_full_specs():
    out = ('gcc-c++-10.3.1-10.oe2203.aarch64\n'
           'kernel-devel-5.10.0-60.18.0.50.oe2203.aarch64\n'
           'python3-devel-3.9.9-7.oe2203.aarch64\n')
    names = ['gcc', 'kernel-devel-5.10.0-60.18.0.50.oe2203.aarch64', 'kernel-devel-5.10.0-60.18.0.50.oe2203',
             'python3', 'gcc-c++']
    # gcc-c++ is not gcc, python3-devel is not python3.
    assert osp.unavailable('dnf', names, out) == ['gcc', 'python3']


def test_a_failing_repository_query_is_reported_with_its_command():
    result = role_plan('openeuler_22.03_aarch64', ['serving_venv'])
    assert osp.unavailable_problem(result, ['numactl'], {'rc': 1, 'stdout': '', 'stderr': 'Failed to download metadata\n'}) \
        == 'dnf -q repoquery failed (rc=1): Failed to download metadata'


def test_a_failing_rpm_query_is_not_taken_for_missing_packages():
    # rpm -q exits non-zero for names not installed too; without that sentence it is a failure.
    result = role_plan('openeuler_22.03_aarch64', ['serving_venv'])
    with pytest.raises(osp.PrerequisitesError, match='rpm -q exited with 1: error: rpmdb: BDB0113'):
        osp.missing_of(result, {'stdout': '', 'rc': 1, 'stderr': 'error: rpmdb: BDB0113 Thread/process failed\n'})


FIRST = {'stages': ['driver_build', 'serving_venv'], 'packages': {}, 'extra': []}


@pytest.mark.parametrize('wanted, done, expected', [
    # vllm_service's own stage after the os_prerequisites stage of site.yml: nothing to read again
    ({'stages': ['serving_venv'], 'packages': {}, 'extra': []}, [FIRST], True),
    ({'stages': ['driver_build', 'serving_venv'], 'packages': {}, 'extra': []}, [FIRST], True),
    # a stage the earlier run did not plan
    ({'stages': ['serving_container'], 'packages': {}, 'extra': []}, [FIRST], False),
    ({'stages': ['source_build'], 'packages': {}, 'extra': []}, [FIRST], False),
    # monitoring's extra packages were not part of it
    ({'stages': [], 'packages': {}, 'extra': ['unzip']}, [FIRST], False),
    ({'stages': [], 'packages': {}, 'extra': ['unzip']}, [FIRST, {'stages': [], 'packages': {}, 'extra': ['unzip', 'x']}], True),
    # other package names for a stage: another plan
    ({'stages': ['serving_venv'], 'packages': {'serving_venv': ['python3.11-venv']}, 'extra': []}, [FIRST], False),
    ({'stages': ['serving_venv'], 'packages': {}, 'extra': []}, [], False),
    ({'stages': ['serving_venv'], 'packages': None, 'extra': None}, [FIRST], True),
    # a node that booted another kernel since needs that kernel's headers
    ({'stages': ['driver_build'], 'packages': {}, 'extra': [], 'kernel': '6.1.0-31-amd64'},
     [dict(FIRST, kernel='6.1.0-30-amd64')], False),
    ({'stages': ['driver_build'], 'packages': {}, 'extra': [], 'kernel': '6.1.0-30-amd64'},
     [dict(FIRST, kernel='6.1.0-30-amd64')], True),
])
def test_an_earlier_run_covers_the_same_or_fewer_stages_and_packages(wanted, done, expected):
    assert osp.covered(wanted, done) is expected


def test_covered_refuses_a_stage_list_given_as_text():
    with pytest.raises(osp.PrerequisitesError, match="stages must be a list, got 'serving_venv'"):
        osp.covered({'stages': 'serving_venv'}, [FIRST])


def inputs_of(variables, kernel='6.1.0-30-amd64'):
    return osp.run_inputs(variables.get, kernel)


STAGE_RUN = dict(FIRST, kernel='6.1.0-30-amd64')


@pytest.mark.parametrize('variables, needed', [
    # vllm_service's include after site.yml's stage: its stage only, extra left to the role's default
    ({'os_prerequisites_stages': ['serving_venv'], '__os_prerequisites_done': [STAGE_RUN]}, False),
    # no run of this play run yet (a stage playbook alone)
    ({'os_prerequisites_stages': ['serving_venv']}, True),
    # asked to read again
    ({'os_prerequisites_stages': ['serving_venv'], '__os_prerequisites_done': [STAGE_RUN],
      'os_prerequisites_refresh': 'true'}, True),
    # a stage the earlier run did not plan
    ({'os_prerequisites_stages': ['source_build'], '__os_prerequisites_done': [STAGE_RUN]}, True),
    # the site's own package names differ from those of the earlier run
    ({'os_prerequisites_stages': ['serving_venv'], 'os_prerequisites_packages': {'serving_venv': ['python3.11-venv']},
      '__os_prerequisites_done': [STAGE_RUN]}, True),
    # the service's interpreter package, which the earlier run (site.yml's stage) did not install
    ({'os_prerequisites_stages': ['serving_venv'], 'vllm_service_python_package': 'python3.11',
      '__os_prerequisites_done': [STAGE_RUN]}, True),
    ({'os_prerequisites_stages': ['serving_venv'], 'vllm_service_python_package': 'python3.11',
      '__os_prerequisites_done': [dict(STAGE_RUN, python='python3.11')]}, False),
    # the monitoring stage's extra packages cannot be known from outside the role: the role decides
    ({'os_prerequisites_stages': ['monitoring'], '__os_prerequisites_done': [STAGE_RUN]}, True),
    ({'os_prerequisites_stages': ['monitoring'], 'os_prerequisites_extra': [],
      '__os_prerequisites_done': [dict(STAGE_RUN, stages=['monitoring'])]}, False),
    # no stages known
    ({'__os_prerequisites_done': [STAGE_RUN]}, True),
])
def test_run_inputs_say_whether_the_role_must_run(variables, needed):
    assert inputs_of(variables)['needed'] is needed


def test_run_inputs_are_what_the_role_records():
    assert inputs_of({'os_prerequisites_stages': ['serving_venv']})['wanted'] == {
        'stages': ['serving_venv'], 'packages': {}, 'extra': [], 'python': '', 'kernel': '6.1.0-30-amd64'}
    # another kernel booted since the stage run: its headers are another package
    variables = {'os_prerequisites_stages': ['driver_build'], '__os_prerequisites_done': [STAGE_RUN]}
    assert (inputs_of(variables)['needed'], inputs_of(variables, '6.1.0-31-amd64')['needed']) == (False, True)


def test_the_service_interpreter_package_comes_with_serving_venv():
    # openEuler 22.03's python3 is 3.9.9; a site names the package of its own repositories (RHEL 9's
    # AppStream has python3.11), which is installed with the virtualenv's packages and named when missing.
    facts = OS_FACTS['openeuler_22.03_aarch64']
    result = osp.plan(os_packages(facts), facts, ['serving_venv'], None, (), 'os_prerequisites_extra', 'python3.11')
    assert result['packages'] == ['python3', 'numactl', 'python3.11']
    assert (result['stage_of']['python3.11'], result['variables']['python3.11']) == (
        'serving_venv', 'vllm_service_python_package')
    # not with the container method's stage
    result = osp.plan(os_packages(facts), facts, ['serving_container'], None, (), 'os_prerequisites_extra', 'python3.11')
    assert 'python3.11' not in result['packages']
    assert inputs_of({'os_prerequisites_stages': ['serving_container'],
                      'vllm_service_python_package': 'python3.11'})['wanted']['python'] == ''
