"""Finding one of the collection's filters compiles only the module_utils that filter uses.

ansible-core loads every file in plugins/filter to find one ``ascend.vllm.*`` filter, in the worker
process of each task, compiling the collection's source each time; the filter files therefore take
their module_utils on first use (plugins/plugin_utils/module_utils_on_use.py). Each case runs
ansible-core's own filter loader in a fresh interpreter, as a task's worker starts.
"""
import json
import os
import subprocess
import sys

import pytest

COLLECTIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), *(['..'] * 4), 'collections')
PREFIX = 'ansible_collections.ascend.vllm.plugins.module_utils.'

FIND_AND_CALL = r'''
import json, sys
from ansible.plugins.loader import filter_loader, init_plugin_loader
init_plugin_loader([sys.argv[1]])
found = filter_loader.get(sys.argv[2])
loaded_by_find = sorted(m for m in sys.modules if m.startswith(sys.argv[3]))
result = found.j2_function(*json.loads(sys.argv[4]))
print(json.dumps({'found': loaded_by_find, 'result': result,
                  'called': sorted(m for m in sys.modules if m.startswith(sys.argv[3]))}))
'''


def find_and_call(name, *args):
    out = subprocess.run([sys.executable, '-c', FIND_AND_CALL, os.path.normpath(COLLECTIONS), name, PREFIX,
                          json.dumps(args)], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.parametrize('name, args, result, used', [
    ('ascend.vllm.verify_stats', [[]], {}, ['verify_report']),
    ('ascend.vllm.monitoring_dashboard', ['t'], None, ['monitoring']),
])
def test_finding_a_filter_imports_no_module_utils_and_calling_it_imports_its_own(name, args, result, used):
    seen = find_and_call(name, *args)
    assert seen['found'] == []
    if result is not None:
        assert seen['result'] == result
    assert [m[len(PREFIX):] for m in seen['called']] == used


def test_a_default_from_module_utils_is_read_on_use():
    seen = find_and_call('ascend.vllm.monitoring_dashboard', 'Fleet')
    assert seen['result']['uid'] == 'ascend-vllm-fleet'
    assert seen['result']['title'] == 'Fleet'
