"""The argument checks and the plan of ascend.vllm.report_files (module_utils/report_files.py)."""
import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import report_files as rf


def request(**extra):
    args = {'dir': '/srv/reports/', 'files': [{'name': 'a.json', 'content': '{}\n'}, {'name': 'b.md', 'mode': '0644'}]}
    args.update(extra)
    return rf.request_of(args)


def test_defaults_and_modes():
    assert request() == {'dir': '/srv/reports', 'dir_mode': 0o750,
                         'files': [{'name': 'a.json', 'content': '{}\n', 'mode': 0o640},
                                   {'name': 'b.md', 'content': '', 'mode': 0o644}],
                         'stats': None}


def test_stats_as_set_stats_takes_them():
    assert request(stats={'data': {'k': {'h': 1}}, 'aggregate': True})['stats'] == {
        'data': {'k': {'h': 1}}, 'aggregate': True, 'per_host': False}


def test_an_empty_directory_writes_no_file():
    # A report turned off (preflight_report_dir: ''): the stats are still published.
    req = request(dir='', stats={'data': {'k': 1}})
    assert (req['dir'], req['files'], req['stats']['data']) == ('', [], {'k': 1})


@pytest.mark.parametrize('args, message', [
    ({'dir': 'reports', 'files': [{'name': 'a'}]}, "dir must be an absolute path (or empty: no file), got 'reports'"),
    ({'dir': None, 'files': [{'name': 'a'}]}, "dir must be an absolute path (or empty: no file), got None"),
    ({'dir': '/r', 'files': [{'name': 'a'}], 'stats': {'k': 1}},
     "stats is {data (a mapping), aggregate, per_host}, as set_stats takes them, got {'k': 1}"),
    ({'dir': '/r', 'files': [{'name': 'a'}], 'stats': {'data': {}, 'aggregate': 'yes'}},
     "stats.aggregate must be true or false, got 'yes'"),
    ({'dir': '/r', 'files': []}, 'files must be a non-empty list of {name, content, mode}'),
    ({'dir': '/r', 'files': [{'name': '../a'}]}, "a file name has no directory part, got '../a'"),
    ({'dir': '/r', 'files': [{'name': 'a'}, {'name': 'a'}]}, 'a is named twice'),
    ({'dir': '/r', 'files': [{'name': 'a', 'owner': 'root'}]}, "each of files is {name, content, mode}, got {'name': 'a', 'owner': 'root'}"),
    ({'dir': '/r', 'files': [{'name': 'a', 'mode': 640}]}, 'the mode of a must be an octal mode given as a string such as "0640", got 640'),
    ({'dir': '/r', 'files': [{'name': 'a'}], 'dir_mode': 'u+rwx'}, "dir_mode must be an octal mode given as a string such as \"0640\", got 'u+rwx'"),
    ({'dir': '/r', 'files': [{'name': 'a'}], 'force': True}, 'unknown option(s) force; the options are dir, dir_mode, files, stats'),
])
def test_refusals_name_the_option(args, message):
    with pytest.raises(rf.ReportFilesError) as exc:
        rf.request_of(args)
    assert str(exc.value) == message


def test_plan_writes_what_differs_and_only_sets_the_mode_of_the_rest():
    req = request()
    assert rf.plan(req, 0o750, {'a.json': ('{}\n', 0o640), 'b.md': ('', 0o600)}) == {
        'create_dir': False, 'chmod_dir': False, 'write': [], 'chmod': ['b.md'], 'changed': True,
        'names': ['a.json', 'b.md']}
    assert rf.plan(req, 0o750, {'a.json': ('{"x": 1}\n', 0o640), 'b.md': None})['write'] == ['a.json', 'b.md']
    assert rf.plan(req, 0o750, {'a.json': ('{}\n', 0o640), 'b.md': ('', 0o644)})['changed'] is False
    assert rf.plan(req, None, {})['create_dir'] is True


def test_plan_sets_the_mode_of_an_existing_directory():
    plan = rf.plan(request(), 0o777, {'a.json': ('{}\n', 0o640), 'b.md': ('', 0o644)})
    assert (plan['create_dir'], plan['chmod_dir'], plan['changed']) == (False, True, True)


def test_content_templating_turned_into_data_is_written_as_json():
    # ansible-core before 2.19 templates '{"hosts": []}' into a dict
    files = [{'name': 'a.json', 'content': {'hosts': [], 'b': 1}}, {'name': 'b', 'content': None}]
    req = rf.request_of({'dir': '/r', 'files': files})
    assert [f['content'] for f in req['files']] == ['{\n  "b": 1,\n  "hosts": []\n}\n', '']
