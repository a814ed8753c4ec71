"""bundle: an offline bundle holds what the roles ask for on the nodes, for the targets asked for."""
import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.filter.bundle import FilterModule
from ansible_collections.ascend.vllm.plugins.filter.cann_checks import FilterModule as CannFilters
from ansible_collections.ascend.vllm.plugins.module_utils import bundle
from ansible_collections.ascend.vllm.plugins.module_utils import cann_checks
from ansible_collections.ascend.vllm.plugins.module_utils import pip_plan
from ansible_collections.ascend.vllm.plugins.module_utils import stack

FILTERS = FilterModule().filters()
MIRROR = 'https://mirror.example.com/pypi/simple/'


def request(**changes):
    base = {
        'dir': '/srv/ascend-bundle', 'releases': ['0.23.0'], 'chips': ['910b'], 'architectures': ['aarch64'],
        'pythons': ['3.11'], 'glibc': '2.28', 'vendor': True, 'artifacts_url': 'https://mirror.example.com/ascend/',
        'artifacts_dir': '', 'wheels': True, 'pip_index_url': MIRROR, 'pip_extra_index_urls': [],
        'pip_trusted_hosts': [], 'pip_extra_packages': [], 'ray': True, 'model_url': '', 'model_dir': '',
        'model_name': '', 'images': [], 'container_images': False,
    }
    base.update(changes)
    return base


# --- pip_platforms: every manylinux level the glibc runs (pip does not widen manylinux_2_X) ------

def test_platforms_x86_64_reach_down_to_manylinux1():
    platforms = bundle.pip_platforms('x86_64', '2.28')
    assert platforms[0] == 'manylinux_2_28_x86_64'
    assert 'manylinux_2_17_x86_64' in platforms and 'manylinux_2_5_x86_64' in platforms
    assert platforms[-3:] == ['manylinux2014_x86_64', 'manylinux2010_x86_64', 'manylinux1_x86_64']
    assert 'manylinux_2_29_x86_64' not in platforms


def test_platforms_aarch64_start_at_2_17():
    platforms = bundle.pip_platforms('aarch64', '2.28')
    assert platforms[-2:] == ['manylinux_2_17_aarch64', 'manylinux2014_aarch64']
    assert not [p for p in platforms if p.startswith(('manylinux1', 'manylinux2010', 'manylinux_2_16'))]


@pytest.mark.parametrize('arch, glibc, message', [
    ('aarch64', '2.16', "glibc '2.16': expected 2.N with N >= 17 for aarch64"),
    ('x86_64', '2', "glibc '2': expected 2.N with N >= 5 for x86_64"),
    ('x86_64', '3.1', "glibc '3.1': expected 2.N with N >= 5 for x86_64"),
    ('ppc64le', '2.28', "architecture 'ppc64le' is not one of: aarch64, x86_64"),
])
def test_platforms_refuse(arch, glibc, message):
    with pytest.raises(bundle.BundleError) as exc:
        bundle.pip_platforms(arch, glibc)
    assert str(exc.value) == message


# --- problems: all at once, each naming the variable and the fix -------------------------------

def test_a_good_request_has_no_problems():
    assert FILTERS['bundle_problems'](request()) == []


@pytest.mark.parametrize('changes, expected', [
    ({'dir': 'bundle'}, "bundle_dir: must be an absolute directory other than / (got 'bundle'). Fix: set it to where "
                        "the bundle is written, e.g. -e bundle_dir=/srv/ascend-bundle"),
    ({'dir': '/'}, "bundle_dir: must be an absolute directory other than / (got '/'). Fix: set it to where the bundle "
                   "is written, e.g. -e bundle_dir=/srv/ascend-bundle"),
    ({'chips': ['910x']}, 'bundle_chips: unknown or empty: 910x. Fix: list chip families of 910b, 910_93, 310p'),
    ({'architectures': []}, 'bundle_architectures: unknown or empty: nothing listed. Fix: list architectures of '
                            'aarch64, x86_64'),
    ({'pythons': ['3.8']}, 'bundle_pythons: Python 3.8 is outside 3.10-3.12, the range of release 0.23.0. Fix: drop '
                           'it, or build the bundle for a release that supports it'),
    ({'pythons': ['311']}, "bundle_pythons: not Python versions of the form 3.N: 311. Fix: list the nodes' Python "
                           "versions, e.g. [\"3.11\"]"),
    ({'glibc': '2.12'}, 'bundle_glibc: glibc \'2.12\': expected 2.N with N >= 17 for aarch64. Fix: set the oldest '
                        'glibc of the nodes, e.g. "2.28" (Kylin V10)'),
    ({'artifacts_url': ''}, 'bundle_artifacts_url: no source of the vendor packages is set. Fix: set '
                            'bundle_artifacts_url (an HTTP mirror with SHA256SUMS) or bundle_artifacts_dir (a directory '
                            'with SHA256SUMS), or bundle_vendor: false'),
    ({'model_url': 'https://m/x/', 'model_dir': '/x', 'model_name': 'x'},
     'bundle_model_url: both bundle_model_url and bundle_model_dir are set. Fix: keep one of them'),
    ({'model_dir': '/models/', 'model_name': ''}, "bundle_model_name: must be one directory name (got ''). Fix: set it "
                                                  "to the model's directory name, e.g. DeepSeek-R1-Distill-Qwen-7B"),
    ({'images': [' ']}, 'bundle_images: holds an empty image reference. Fix: remove it'),
    ({'container_images': True, 'container_os': 'centos'},
     "bundle_container_os: unknown image OS 'centos'. Fix: choose one of ubuntu, openeuler"),
])
def test_each_problem_names_the_variable_and_the_fix(changes, expected):
    assert bundle.problems(request(**changes)) == [expected]


def test_an_unknown_release_names_the_known_ones():
    found = bundle.problems(request(releases=['0.1.0']))
    assert len(found) == 1 and found[0].startswith('bundle_releases: ')
    assert found[0].endswith('Fix: choose from %s' % ', '.join(stack.known_releases()))


def test_indexes_beyond_pypi_are_required_without_a_mirror():
    found = bundle.problems(request(pip_index_url='', architectures=['x86_64']))
    assert found == ['bundle_pip_extra_index_urls: the wheels include what PyPI does not publish: torch==2.10.0+cpu '
                     'from %s; triton-ascend==3.2.2 from %s. Fix: name those indexes or your mirrors of them '
                     '(bundle_pip_extra_index_urls), or one mirror that holds everything (bundle_pip_index_url)'
                     % (pip_plan.stack_matrix.PIP_INDEXES['pytorch-cpu'],
                        pip_plan.stack_matrix.PIP_INDEXES['ascend-mirror'])]
    assert bundle.problems(request(pip_index_url='', pip_extra_index_urls=['https://a/', 'https://b/'])) == []
    # Without wheels, no index is needed.
    assert bundle.problems(request(pip_index_url='', wheels=False)) == []


def test_problems_come_all_at_once():
    found = bundle.problems(request(dir='x', chips=[], artifacts_url=''))
    assert [line.split(':', maxsplit=1)[0] for line in found] == ['bundle_dir', 'bundle_chips', 'bundle_artifacts_url']


def test_a_non_list_is_refused():
    assert bundle.problems(request(chips='910b')) == ["bundle_chips: expected a list, got a string ('910b')"]

    # Ansible hands a templated value over as its own str subclass: the message says "string",
    # not the internal class name.
    class _AnsibleTaggedStr(str):
        pass
    assert bundle.problems(request(chips=_AnsibleTaggedStr('910b'))) == [
        "bundle_chips: expected a list, got a string ('910b')"]


# --- plan: the same names and steps the roles use on the nodes ---------------------------------

def test_vendor_files_are_what_npu_driver_and_cann_ask_for():
    plan = FILTERS['bundle_plan'](request(architectures=['aarch64', 'x86_64']))
    row = stack.resolve_stack('0.23.0')
    expected = set()
    for arch in ('aarch64', 'x86_64'):
        hdk = stack.hdk_packages(row['driver_target'], '910b', arch)
        expected |= {hdk['driver'], hdk['firmware']} | set(stack.package_names(row, '910b', arch).values())
    assert set(plan['vendor']) == expected
    # The firmware is one file for both architectures.
    firmware = stack.hdk_packages(row['driver_target'], '910b', 'x86_64')['firmware']
    assert plan['vendor'][firmware] == ['0.23.0 910b aarch64', '0.23.0 910b x86_64']
    assert len(plan['vendor']) == 9


def test_extra_files_are_added():
    plan = bundle.plan(request(extra_files=['Ascend-mindxdl-npu-exporter_26.0.0_linux-aarch64.zip']))
    assert plan['vendor']['Ascend-mindxdl-npu-exporter_26.0.0_linux-aarch64.zip'] == ['bundle_extra_files']


def test_wheels_follow_the_install_steps():
    plan = bundle.plan(request(architectures=['x86_64'], pythons=['3.10', '3.11']))
    row = stack.resolve_stack('0.23.0')
    steps = pip_plan.pip_plan(row, 'x86_64', '910b', wheelhouse=True)
    assert [(w['python'], w['step']) for w in plan['wheels']] == [
        ('3.10', 'vllm'), ('3.10', 'vllm-ascend'), ('3.10', 'ray'),
        ('3.11', 'vllm'), ('3.11', 'vllm-ascend'), ('3.11', 'ray')]
    first, second, ray = plan['wheels'][3:]
    assert first['requirements'] == steps['first']
    assert second['requirements'] == steps['second'] + cann_checks.python_requirements(row['cann'])
    assert ray['requirements'] == ['ray==%s' % row['ray']]
    argv = second['argv']
    assert argv[:9] == ['download', '--disable-pip-version-check', '--dest', '/srv/ascend-bundle/wheels/x86_64',
                        '--only-binary=:all:', '--implementation', 'cp', '--python-version', '3.11']
    assert argv[argv.index('--index-url') + 1] == MIRROR
    assert argv[-len(second['requirements']):] == second['requirements']
    platforms = [argv[i + 1] for i, value in enumerate(argv) if value == '--platform']
    assert platforms == bundle.pip_platforms('x86_64', '2.28')


def test_a_chip_without_triton_ascend_adds_nothing_but_the_union():
    row = stack.resolve_stack('0.23.0')
    plan = bundle.plan(request(chips=['910b', '310p']))
    second = plan['wheels'][1]['requirements']
    assert second.count('triton-ascend==%s' % row['triton_ascend']) == 1


def test_ray_and_extra_packages():
    plan = bundle.plan(request(ray=False, pip_extra_packages=['modelscope==1.20.0'],
                               pip_extra_index_urls=['https://a/'], pip_trusted_hosts=['a']))
    assert [w['step'] for w in plan['wheels']] == ['vllm', 'vllm-ascend']
    argv = plan['wheels'][1]['argv']
    assert argv[-1] == 'modelscope==1.20.0'
    assert '--extra-index-url=https://a/' in argv and '--trusted-host=a' in argv


def test_no_releases_means_the_matrix_default():
    plan = bundle.plan(request(releases=[]))
    assert plan['releases'] == [stack.default_release()]


def test_overrides_reach_the_wheels():
    plan = bundle.plan(request(overrides={'torch': '2.11.0'}, allow_unlisted=True))
    assert 'torch==2.11.0' in plan['wheels'][1]['requirements']
    assert plan['stacks'][0]['torch'] == '2.11.0'


def test_model_and_images():
    plan = bundle.plan(request(model_url='https://mirror.example.com/models/M/', model_name='M',
                               images=['localhost/ee:1'], container_images=True, chips=['910b', '910_93']))
    assert plan['model'] == {'source': 'http', 'location': 'https://mirror.example.com/models/M', 'name': 'M',
                             'dest': '/srv/ascend-bundle/models/M'}
    row = stack.resolve_stack('0.23.0')
    assert [image['ref'] for image in plan['images']] == [
        'localhost/ee:1', stack.image_ref(row, '910b'), stack.image_ref(row, '910_93')]
    assert plan['images'][0]['file'] == '/srv/ascend-bundle/images/localhost_ee_1.tar'


def test_the_plan_refuses_what_problems_refuse():
    with pytest.raises(AnsibleFilterError) as exc:
        FILTERS['bundle_plan'](request(dir='x'))
    assert str(exc.value).startswith('bundle_plan: bundle_dir: must be an absolute directory')


def test_vendor_sums():
    text = FILTERS['bundle_vendor_sums'](['b.run', 'a.run'], {'a.run': '1' * 64, 'b.run': '2' * 64, 'c': '3' * 64})
    assert text == '%s  a.run\n%s  b.run\n' % ('1' * 64, '2' * 64)
    with pytest.raises(AnsibleFilterError) as exc:
        FILTERS['bundle_vendor_sums'](['a.run', 'x.run'], {'a.run': '1' * 64})
    assert str(exc.value) == 'bundle_vendor_sums: no SHA256 is known for x.run'


# --- CANN's Python requirements: one list, for the role and the bundle --------------------------

@pytest.mark.parametrize('cann, numpy', [
    ('8.2.RC1', 'numpy<2.0.0'), ('8.5.1', 'numpy<2.0.0'), ('9.1.0', 'numpy'), (None, 'numpy'), ('', 'numpy'),
])
def test_cann_python_requirements(cann, numpy):
    requirements = CannFilters().filters()['cann_python_requirements'](cann)
    assert requirements[1] == numpy
    assert requirements[0] == 'attrs' and requirements[-1] == 'typing_extensions' and len(requirements) == 14


def test_isolated_pip_ignores_the_hosts_configuration():
    assert '--isolated' not in bundle.plan(request())['wheels'][0]['argv']
    argv = bundle.plan(request(pip_isolated=True))['wheels'][0]['argv']
    # A general option after the command, before the platforms and the requirements.
    assert argv.index('--isolated') < argv.index('--platform')


def test_a_collection_without_galaxy_yml_is_refused():
    assert bundle.problems(request(collection=True, collection_src='/usr/share/ansible/collections/x',
                                   collection_src_ok=False)) == [
        'bundle_collection: /usr/share/ansible/collections/x has no galaxy.yml (an installed copy, not a checkout). Fix: '
        'set bundle_collection_src to a checkout of the collection, or bundle_collection: false and carry the artifact '
        'the site installs from']
    assert bundle.problems(request(collection=True, collection_src='/src', collection_src_ok=True)) == []


def test_the_description_says_what_the_bundle_is_for():
    described = bundle.plan(request(model_dir='/m/M', model_name='M'))['description']
    assert described['releases'][0]['release'] == '0.23.0'
    assert (described['chips'], described['architectures'], described['pythons'], described['glibc']) == (
        ['910b'], ['aarch64'], ['3.11'], '2.28')
    assert described['model'] == 'M' and described['images'] == []
    assert described['wheel_steps'][0] == ['vllm==0.23.0']
    assert described['layout'] == ['artifacts', 'collections', 'images', 'models', 'wheels']


def test_the_serving_image_follows_the_container_os():
    row = stack.resolve_stack('0.23.0')
    plan = bundle.plan(request(container_images=True, container_os='openeuler'))
    assert [image['ref'] for image in plan['images']] == [stack.image_ref(row, '910b', 'openeuler')]


@pytest.mark.parametrize('changes, variable, shown', [
    ({'pythons': [3.10, '3.11']}, 'bundle_pythons', '3.1'),
    ({'glibc': 2.30}, 'bundle_glibc', '2.3'),
])
def test_versions_read_as_numbers_are_refused(changes, variable, shown):
    assert bundle.problems(request(**changes)) == [
        '%s: version %s is a number, not a string (YAML reads 3.10 as 3.1). Fix: quote the versions, e.g. '
        '["3.10", "3.11"] and "2.28"' % (variable, shown)]


def test_marker_notes_warn_only_for_unlike_targets():
    notes = FILTERS['bundle_marker_notes']
    assert notes({'machine': 'x86_64', 'python': '3.11'}, ['x86_64'], ['3.11']) == []
    assert notes({'machine': 'arm64', 'python': '3.11'}, ['aarch64'], ['3.11']) == []
    warned = notes({'machine': 'x86_64', 'python': '3.11'}, ['aarch64', 'x86_64'], ['3.11', '3.12'])
    assert warned == [
        'bundle_python (x86_64, Python 3.11) differs from the targets aarch64, Python 3.12: pip evaluates the '
        'environment markers of dependencies against the Python that downloads, so a dependency conditional on the '
        'architecture or the Python version can be missing from the wheelhouse. For a complete one, build the bundle on '
        'a aarch64 host with Python 3.12 (bundle_python), one target at a time']


@pytest.mark.parametrize('changes, expected', [
    ({'pip_extra_index_urls': 'https://a/'}, "bundle_pip_extra_index_urls: expected a list, got a string ('https://a/')"),
    ({'extra_files': 'x.zip'}, "bundle_extra_files: expected a list, got a string ('x.zip')"),
    ({'container_os': 5}, 'bundle_container_os: expected a string, got an integer (5). Fix: set it to a string (or an empty one)'),
])
def test_wrong_types_are_problems_not_errors(changes, expected):
    assert bundle.problems(request(**changes)) == [expected]


def test_what_only_planning_finds_is_a_problem_too():
    # No firmware is known for a driver the matrix does not name.
    found = bundle.problems(request(overrides={'driver': '99.0.0'}, allow_unlisted=True))
    assert len(found) == 1
    assert found[0].startswith('bundle_releases: cannot be bundled as asked: no package name is known for the driver '
                               '99.0.0 of 0.23.0 910b aarch64.')


def test_pip_failures_name_the_target_and_the_way_out():
    item = {'release': '0.23.0', 'arch': 'aarch64', 'python': '3.11', 'step': 'vllm-ascend'}
    results = [
        {'item': dict(item, step='vllm'), 'rc': 0, 'stderr': ''},
        {'item': item, 'rc': 1,
         'stderr': 'ERROR: Could not find a version that satisfies the requirement vllm-ascend==0.23.0\n'
                   'ERROR: No matching distribution found for vllm-ascend==0.23.0\n'},
        {'item': dict(item, step='ray'), 'rc': 2, 'stderr': 'line 1\nline 2\nERROR: Exception:\nOSError: disk full\n'},
        {'item': item, 'skipped': True},
    ]
    assert FILTERS['bundle_pip_failures'](results) == [
        '0.23.0 aarch64 cp311 vllm-ascend: no wheel of vllm-ascend==0.23.0 for this architecture, Python and glibc on '
        'the indexes named (pip: "No matching distribution found"). A package published only as a source distribution '
        "is built on the node, which a bundle of wheels cannot carry: bundle the stack's image (bundle_container_images) "
        'for it, or put a wheel of it in an index named in bundle_pip_index_url / bundle_pip_extra_index_urls',
        '0.23.0 aarch64 cp311 ray: pip download failed with rc 2: line 2 ERROR: Exception: OSError: disk full']
