"""ascend.vllm.cann_environment as a module, with a real bash: set_env.sh scripts and an EnvironmentFile
written as the CANN packages and the cann role write them."""
import pytest

from ansible_collections.ascend.vllm.plugins.modules import cann_environment


@pytest.fixture
def cann(tmp_path):
    toolkit = tmp_path / 'ascend-toolkit'
    (toolkit / 'latest' / 'lib64').mkdir(parents=True)
    # As the toolkit's set_env.sh: it appends the caller's LD_LIBRARY_PATH, empty in a clean shell.
    (toolkit / 'set_env.sh').write_text(
        'export ASCEND_TOOLKIT_HOME=%s/latest\n'
        'export LD_LIBRARY_PATH=${ASCEND_TOOLKIT_HOME}/lib64:${LD_LIBRARY_PATH}\n' % toolkit)
    nnal = tmp_path / 'nnal' / 'atb'
    (nnal / 'lib').mkdir(parents=True)
    (nnal / 'lib' / 'libatb.so').write_text('')
    # NNAL's script takes --cxx_abi= and refuses to run without the toolkit's environment.
    (nnal / 'set_env.sh').write_text(
        '[ -n "$ASCEND_TOOLKIT_HOME" ] || return 1\n'
        'case "$1" in --cxx_abi=*) export ATB_ABI="${1#--cxx_abi=}";; esac\n'
        'export LD_LIBRARY_PATH=%s/lib:${LD_LIBRARY_PATH}\n' % nnal)
    return tmp_path


def test_sources_the_scripts_in_order_and_keeps_what_they_set(run_module, cann):
    toolkit, nnal = str(cann / 'ascend-toolkit' / 'set_env.sh'), str(cann / 'nnal' / 'atb' / 'set_env.sh')
    failed, result = run_module(cann_environment, {'scripts': [toolkit, nnal + ' --cxx_abi=1']}, check_mode=True)
    assert not failed and result['changed'] is False
    assert result['variables'] == {
        'ASCEND_TOOLKIT_HOME': '%s/ascend-toolkit/latest' % cann,
        'ATB_ABI': '1',
        # the empty entries the scripts append are gone
        'LD_LIBRARY_PATH': '%s/nnal/atb/lib:%s/ascend-toolkit/latest/lib64' % (cann, cann),
    }
    assert result['sourced'] == [toolkit, nnal + ' --cxx_abi=1']
    assert result['present'] == {toolkit: True, nnal: True}
    assert result['env_file'] == {'path': '', 'exists': False, 'content': '', 'toolkit_home': '', 'libatb': []}


def test_a_missing_optional_script_is_left_out_a_missing_one_fails(run_module, cann):
    toolkit, nnal = str(cann / 'ascend-toolkit' / 'set_env.sh'), str(cann / 'nnal' / 'atb' / 'set_env.sh')
    (cann / 'nnal' / 'atb' / 'set_env.sh').unlink()
    failed, result = run_module(cann_environment, {'scripts': [toolkit, nnal], 'optional': [nnal]})
    assert not failed
    assert (result['sourced'], result['present'][nnal]) == ([toolkit], False)
    failed, result = run_module(cann_environment, {'scripts': [toolkit, nnal]})
    assert failed
    assert result['msg'] == 'ascend.vllm.cann_environment: %s: no such file (a script to source)' % nnal


def test_without_source_the_scripts_are_only_looked_for(run_module, cann):
    toolkit = str(cann / 'ascend-toolkit' / 'set_env.sh')
    failed, result = run_module(cann_environment, {'scripts': [toolkit, '/nonexistent/set_env.sh'], 'source': False})
    assert not failed
    assert (result['sourced'], result['variables']) == ([], {})
    assert result['present'] == {toolkit: True, '/nonexistent/set_env.sh': False}


def test_a_script_that_fails_names_it(run_module, cann):
    nnal = str(cann / 'nnal' / 'atb' / 'set_env.sh')
    failed, result = run_module(cann_environment, {'scripts': [nnal]})
    assert failed and result['rc'] == 3
    assert result['msg'].startswith('ascend.vllm.cann_environment: `env -i PATH=')
    assert result['msg'].endswith("bash --noprofile --norc -c '<source %s>'` failed with rc=3: sourcing %s failed" % (nnal, nnal))


def test_the_environment_file_as_a_service_gets_it(run_module, cann):
    env_file = cann / 'cann.env'
    env_file.write_text('ASCEND_TOOLKIT_HOME=%s/ascend-toolkit/latest\n'
                        'LD_LIBRARY_PATH=%s/ascend-toolkit/latest/lib64:%s/nnal/atb/lib\n' % (cann, cann, cann))
    failed, result = run_module(cann_environment, {'env_file': str(env_file)})
    assert not failed
    assert result['env_file'] == {'path': str(env_file), 'exists': True, 'content': env_file.read_text(),
                                  'toolkit_home': '%s/ascend-toolkit/latest' % cann,
                                  'libatb': ['%s/nnal/atb/lib/libatb.so' % cann]}
    env_file.write_text('# no toolkit\n')
    failed, result = run_module(cann_environment, {'env_file': str(env_file)})
    assert not failed and (result['env_file']['toolkit_home'], result['env_file']['libatb']) == ('', [])
    failed, result = run_module(cann_environment, {'env_file': str(cann / 'absent.env')})
    assert not failed and result['env_file']['exists'] is False
