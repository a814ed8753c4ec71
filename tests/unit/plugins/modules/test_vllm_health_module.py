"""ascend.vllm.vllm_health as a module: what it refuses before any request, and that a key never
shows in its output."""
from ansible_collections.ascend.vllm.plugins.modules import vllm_health


def test_a_key_with_a_line_break_is_refused_without_showing_it(run_module):
    failed, result = run_module(vllm_health, {'url': 'http://127.0.0.1:9', 'served_model_name': 'm',
                                              'api_key': 'secret-abc\nX-Injected: 1', 'timeout': 1})
    assert failed
    assert result['msg'] == 'vllm_health: api_key has a line break or NUL byte, which no HTTP header can carry'
    assert 'secret-abc' not in str(result)


def test_an_invalid_header_is_reported_without_the_key(monkeypatch):
    def refuse(*args, **kwargs):
        raise ValueError("Invalid header value b'Bearer secret-abc\\r'")
    monkeypatch.setattr(vllm_health, 'open_url', refuse)
    status, text = vllm_health._request('http://127.0.0.1:9/v1/models', 'secret-abc')
    assert status is None
    assert text == 'the request could not be sent (a header value is not valid HTTP)'
