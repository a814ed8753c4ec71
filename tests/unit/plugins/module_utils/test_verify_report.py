"""The verify role's report: rows of checks left out, the printed table and the JUnit XML."""
import xml.etree.ElementTree as ET

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.filter.verify import FilterModule
from ansible_collections.ascend.vllm.plugins.module_utils import verify_report as vr

FILTERS = FilterModule().filters()
STAMP = '2026-12-02T07:30:00'


def row(check, ok=True, actual='as wanted', **extra):
    return dict({'check': check, 'wanted': 'w', 'actual': actual, 'ok': ok}, **extra)


def test_the_skippable_names_are_the_argument_specs_choices():
    import yaml
    from pathlib import Path
    spec = yaml.safe_load((Path(__file__).resolve().parents[4] / 'roles/verify/meta/argument_specs.yml').read_text())
    assert list(vr.SKIP_NAMES) == spec['argument_specs']['main']['options']['verify_skip']['choices']


def test_skipped_rows_name_every_check_left_out():
    assert FILTERS['verify_skipped_rows'](['cann', 'npu']) == [
        {'check': c, 'wanted': 'checked', 'actual': 'skipped (verify_skip)', 'ok': True, 'skipped': True}
        for c in ('npu_present', 'npu_health', 'npu_temperature', 'cann')]
    assert FILTERS['verify_skipped_rows']([]) == []


def test_table_marks_ok_drift_and_skip():
    rows = [row('cann'), row('vllm_service', ok=False, actual='down'), row('tuning: thp', actual='skipped', skipped=True)]
    assert FILTERS['verify_table'](rows) == [
        'ok    cann: wanted w; actual as wanted',
        'DRIFT vllm_service: wanted w; actual down',
        'skip  tuning: thp: wanted w; actual skipped']


def test_drift_leaves_out_skipped_rows():
    rows = [row('a'), row('b', ok=False), row('c', ok=False, skipped=True)]
    assert FILTERS['verify_drift'](rows) == ['b']


def test_awx_stats_per_host():
    # What ascend_verify held when each host published its own entry (the operations scenario reads it
    # through ansible-runner).
    results = {'n2': [row('a'), row('b', ok=False), row('c', ok=False, skipped=True)], 'n1': [row('a')]}
    assert FILTERS['verify_stats'](results) == {
        'n1': {'drift': False, 'failed_checks': [], 'checks': 1},
        'n2': {'drift': True, 'failed_checks': ['b'], 'checks': 3},
    }


def parse(text):
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    return ET.fromstring(text.split('\n', 1)[1])


def test_junit_counts_failures_errors_and_skips_per_host_and_in_total():
    results = {
        'n1': [row('cann'), row('vllm_service', ok=False, actual='vllm-main.service is inactive'),
               row('tuning: thp', actual='skipped', skipped=True)],
        'n2': None,
    }
    root = parse(FILTERS['verify_junit'](results, ['n1', 'n2'], STAMP))
    # junit-10.xsd (jenkinsci/xunit-plugin) allows the root name, time, tests, failures, errors.
    assert root.attrib == {'name': 'ascend.vllm verify', 'tests': '4', 'failures': '1', 'errors': '1'}
    n1, n2 = root.findall('testsuite')
    assert n1.attrib == {'name': 'n1', 'hostname': 'n1', 'tests': '3', 'failures': '1', 'errors': '0',
                         'skipped': '1', 'timestamp': STAMP}
    cases = {case.get('name'): case for case in n1.findall('testcase')}
    assert list(cases['cann']) == []
    assert cases['vllm_service'].find('failure').get('message') == 'wanted w; actual vllm-main.service is inactive'
    # A skipped check is not a pass: CI shows it as skipped.
    assert cases['tuning: thp'].find('skipped').get('message') == 'skipped'
    assert n2.attrib['errors'] == '1'
    assert n2.find('testcase/error').get('message') == 'n2 dropped out before verify (unreachable or failed earlier)'


def test_junit_escapes_what_it_quotes():
    text = FILTERS['verify_junit']({'n<1>': [row('a&b', ok=False, actual='"x" < y')]}, ['n<1>'], STAMP)
    case = parse(text).find('testsuite/testcase')
    assert case.get('classname') == 'n<1>' and case.get('name') == 'a&b'
    assert case.find('failure').get('message') == 'wanted w; actual "x" < y'


def test_junit_keeps_the_attribute_order_the_scenarios_match():
    text = FILTERS['verify_junit']({'n1': [row('vllm_service', ok=False)]}, ['n1'], STAMP)
    assert '<testsuites name="ascend.vllm verify" tests="1" failures="1" errors="0">' in text
    assert ('<testsuite name="n1" hostname="n1" tests="1" failures="1" errors="0" skipped="0" timestamp="%s">'
            % STAMP) in text
    assert '<testcase classname="n1" name="vllm_service">\n      <failure message="wanted w; actual as wanted" />' in text


def test_junit_refuses_results_that_are_no_mapping():
    with pytest.raises(AnsibleFilterError, match='verify_junit|junit_xml'):
        FILTERS['verify_junit']([row('a')], ['n1'], STAMP)
