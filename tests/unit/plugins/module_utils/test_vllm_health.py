"""Judging vLLM answers and unit states for the health gate."""
import json

from ansible_collections.ascend.vllm.plugins.module_utils import vllm_health as vh


def test_parse_show():
    assert vh.parse_show('ActiveState=active\nNRestarts=0\nMainPID=42\n') == {
        'ActiveState': 'active', 'NRestarts': '0', 'MainPID': '42'}


def test_unit_problem():
    assert vh.unit_problem(None, None) is None
    assert vh.unit_problem({'ActiveState': 'activating', 'NRestarts': '0'}, '0') is None
    assert vh.unit_problem({'ActiveState': 'failed', 'Result': 'exit-code', 'ExecMainStatus': '1'}, '0') == \
        'failed (result exit-code, exit status 1)'
    assert vh.unit_problem({'ActiveState': 'inactive', 'Result': 'success'}, '0') == 'inactive'
    assert vh.unit_problem({'ActiveState': 'active', 'NRestarts': '2'}, '0').startswith(
        'restarting (systemd restarted it 2 time(s)')


def test_check_models():
    body = json.dumps({'object': 'list', 'data': [{'id': 'a'}, {'id': 'b'}]})
    assert vh.check_models(200, body, 'b') == (['a', 'b'], None)
    assert vh.check_models(200, body, 'c') == (['a', 'b'], 'the served model c is not listed (listed: a, b)')
    assert vh.check_models(401, '{"error": "Unauthorized"}', 'a') == ([], 'HTTP 401: Unauthorized')
    assert vh.check_models(200, 'junk', 'a') == ([], 'not a model list: junk')


def test_check_completion():
    ok = json.dumps({'choices': [{'text': ' Paris is'}], 'usage': {'completion_tokens': 2}})
    assert vh.check_completion(200, ok) == (2, ' Paris is', None)
    nested = json.dumps({'error': {'message': 'The model `x` does not exist.', 'type': 'NotFoundError'}})
    assert vh.check_completion(404, nested) == (None, None, 'HTTP 404: The model `x` does not exist.')
    empty = json.dumps({'choices': [{'text': ''}], 'usage': {'completion_tokens': 0}})
    assert vh.check_completion(200, empty)[2] == 'the completion returned no tokens'
    # What vLLM answers when every generated token is a special one (skipped when decoding).
    special_only = json.dumps({'choices': [{'text': ''}], 'usage': {'completion_tokens': 8}})
    assert vh.check_completion(200, special_only) == (8, '', 'the completion returned 8 token(s) but no text')
    assert vh.check_completion(None, 'Connection refused') == (None, None, 'HTTP None: Connection refused')
