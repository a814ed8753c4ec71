# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""cann_env: the environment the CANN set_env.sh scripts set, read from env -0 and written back."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import shutil
import subprocess

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.cann_env import (
    CannEnvError,
    clean_path_list,
    env_diff,
    env_file_lines,
    parse_env,
    quote_value,
)

CLEAN = {'PATH': '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', 'HOME': '/root',
         'LANG': 'C', 'PWD': '/root', 'SHLVL': '1', '_': '/usr/bin/env'}
# A set_env.sh pair shaped like the vendor's: toolkit then NNAL ATB, appending to empty lists.
SET_ENV = r'''
export ASCEND_TOOLKIT_HOME=/usr/local/Ascend/cann-9.1.0
export LD_LIBRARY_PATH=${ASCEND_TOOLKIT_HOME}/lib64:${ASCEND_TOOLKIT_HOME}/lib64/plugin/opskernel:$LD_LIBRARY_PATH
export PYTHONPATH=${ASCEND_TOOLKIT_HOME}/python/site-packages:$PYTHONPATH
export PATH=${ASCEND_TOOLKIT_HOME}/bin:$PATH
export ASCEND_OPP_PATH=${ASCEND_TOOLKIT_HOME}/opp
export ATB_HOME_PATH=/usr/local/Ascend/nnal/atb/latest/atb/cxx_abi_1
export LD_LIBRARY_PATH=${ATB_HOME_PATH}/lib:${LD_LIBRARY_PATH}
export ATB_SHARE_MEMORY_NAME_SUFFIX=""
export ODD='a "quoted" $HOME `x` \ back'
export SPACED="two words"
f() { :; }
export -f f
unset LANG
'''


def env0(mapping):
    return ''.join('%s=%s\0' % item for item in mapping.items())


def test_parse_env_nul_and_lines():
    text = 'A=1\0B=x=y\0MULTI=line1\nline2\0BASH_FUNC_f%%=() {  :\n}\0junk\0'
    assert parse_env(text) == {'A': '1', 'B': 'x=y', 'MULTI': 'line1\nline2'}
    assert parse_env('A=1\nB=2\n') == {'A': '1', 'B': '2'}
    assert parse_env('') == {}


@pytest.mark.parametrize('value', [None, 5, b'A=1'])
def test_parse_env_refuses_non_text(value):
    with pytest.raises(CannEnvError):
        parse_env(value)


def test_clean_path_list():
    assert clean_path_list('/a:/b:') == '/a:/b'
    assert clean_path_list(':/a::/b') == '/a:/b'
    assert clean_path_list('/opt/x') == '/opt/x'
    assert clean_path_list('') == ''


def test_env_diff_keeps_added_and_changed_only():
    after = dict(CLEAN, PATH='/x/bin:' + CLEAN['PATH'], LD_LIBRARY_PATH='/x/lib64:', ASCEND_TOOLKIT_HOME='/x',
                 SHLVL='2', _='/usr/bin/printenv', EMPTY='')
    assert env_diff(env0(CLEAN), env0(after)) == {
        'ASCEND_TOOLKIT_HOME': '/x',
        'EMPTY': '',
        'LD_LIBRARY_PATH': '/x/lib64',
        'PATH': '/x/bin:' + CLEAN['PATH'],
    }
    # dicts are accepted as they are; unset variables are not reported
    assert env_diff(CLEAN, {'HOME': '/root'}) == {}


def test_env_diff_path_that_only_gained_an_empty_entry_is_unchanged():
    assert env_diff({'PYTHONPATH': '/a'}, {'PYTHONPATH': '/a:'}) == {}


def test_env_diff_is_sorted():
    assert list(env_diff({}, {'Z': '1', 'A': '2', 'M': '3'})) == ['A', 'M', 'Z']


@pytest.mark.parametrize('value, written', [
    ('/usr/local/Ascend/cann-9.1.0', '/usr/local/Ascend/cann-9.1.0'),
    ('/a:/b', '/a:/b'),
    ('', ''),
    ('expandable_segments:True', 'expandable_segments:True'),
    ('two words', '"two words"'),
    ('a"b', '"a\\"b"'),
    ('$HOME', '"\\$HOME"'),
    ('back\\slash', '"back\\\\slash"'),
    ('`cmd`', '"\\`cmd\\`"'),
    ("it's", '"it\'s"'),
])
def test_quote_value(value, written):
    assert quote_value(value) == written


def test_env_file_lines():
    text = env_file_lines({'B': '2', 'A': 'x y'}, 'Managed by Ansible\nsecond line')
    assert text == '# Managed by Ansible\n# second line\nA="x y"\nB=2\n'
    assert env_file_lines({}) == '\n'


@pytest.mark.parametrize('variables', [{'1A': 'x'}, {'A-B': 'x'}, {'A': 'nul\0'}, ['A=1']])
def test_env_file_lines_refuses(variables):
    with pytest.raises(CannEnvError):
        env_file_lines(variables)


@pytest.mark.skipif(shutil.which('bash') is None, reason='needs bash')
def test_round_trip_through_a_clean_bash(tmp_path):
    """The role's pipeline: clean bash vs sourced bash, the diff written, read back by a shell."""
    script = tmp_path / 'set_env.sh'
    script.write_text(SET_ENV)
    clean_env = {'PATH': CLEAN['PATH'], 'HOME': str(tmp_path), 'LANG': 'C'}
    run = ['bash', '--noprofile', '--norc', '-c']
    before = subprocess.run(run + ['env -0'], env=clean_env, check=True, stdout=subprocess.PIPE).stdout
    after = subprocess.run(run + ['. "$0" >&2 && env -0', str(script)], env=clean_env, check=True,
                           stdout=subprocess.PIPE).stdout
    found = env_diff(before.decode(), after.decode())
    assert found == {
        'ASCEND_OPP_PATH': '/usr/local/Ascend/cann-9.1.0/opp',
        'ASCEND_TOOLKIT_HOME': '/usr/local/Ascend/cann-9.1.0',
        'ATB_HOME_PATH': '/usr/local/Ascend/nnal/atb/latest/atb/cxx_abi_1',
        'ATB_SHARE_MEMORY_NAME_SUFFIX': '',
        'LD_LIBRARY_PATH': '/usr/local/Ascend/nnal/atb/latest/atb/cxx_abi_1/lib:/usr/local/Ascend/cann-9.1.0/lib64:'
                           '/usr/local/Ascend/cann-9.1.0/lib64/plugin/opskernel',
        'ODD': 'a "quoted" $HOME `x` \\ back',
        'PATH': '/usr/local/Ascend/cann-9.1.0/bin:' + CLEAN['PATH'],
        'PYTHONPATH': '/usr/local/Ascend/cann-9.1.0/python/site-packages',
        'SPACED': 'two words',
    }
    env_file = tmp_path / 'cann.env'
    env_file.write_text(env_file_lines(found, 'header'))
    read_back = subprocess.run(run + ['set -a; . "$0"; set +a; env -0', str(env_file)], env={'PATH': CLEAN['PATH']},
                               check=True, stdout=subprocess.PIPE).stdout
    values = parse_env(read_back.decode())
    for name, value in found.items():
        assert values[name] == value, name
    assert os.path.isfile(str(env_file))


def test_source_program_quotes_paths_and_passes_arguments():
    from ansible_collections.ascend.vllm.plugins.module_utils.cann_env import MARKER, source_program
    program = source_program(["/opt/it's/set_env.sh", '/n/set_env.sh --cxx_abi=0'])
    assert program.splitlines() == [
        'env -0',
        "printf '%%s\\0' '%s'" % MARKER,
        """. '/opt/it'"'"'s/set_env.sh'  >&2 || { echo 'sourcing /opt/it'"'"'s/set_env.sh failed' >&2; exit 3; }""",
        ". '/n/set_env.sh' --cxx_abi=0 >&2 || { echo 'sourcing /n/set_env.sh --cxx_abi=0 failed' >&2; exit 3; }",
        'env -0',
    ]


def test_sourced_variables_need_the_marker():
    from ansible_collections.ascend.vllm.plugins.module_utils.cann_env import CannEnvError, MARKER, sourced_variables
    assert sourced_variables('A=1\0%s\0A=1\0B=2\0' % MARKER) == {'B': '2'}
    with pytest.raises(CannEnvError, match='no marker'):
        sourced_variables('A=1\0')
