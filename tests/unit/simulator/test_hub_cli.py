"""The hub CLI stand-in (tests/sandbox/hub_cli.py) against a loopback HTTP server."""
import functools
import http.server
import importlib.util
import json
import os
import threading

import pytest

_PATH = os.path.join(os.path.dirname(__file__), '..', '..', 'sandbox', 'hub_cli.py')
_SPEC = importlib.util.spec_from_file_location('hub_cli', _PATH)
hub_cli = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(hub_cli)

REPO = 'deepseek-ai/DeepSeek-R1-Distill-Qwen-7B'


class _Quiet(http.server.SimpleHTTPRequestHandler):
    requests = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        _Quiet.requests.append((self.path, self.headers.get('Authorization')))
        return super().do_GET()


@pytest.fixture
def mirror(tmp_path):
    root = tmp_path / 'mirror'
    files = {'config.json': b'{}', 'sub/model.safetensors': b'w' * 100}
    for name, data in files.items():
        path = root / REPO / 'resolve' / 'main' / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    listing = root / 'api' / 'models' / REPO / 'revision' / 'main'
    listing.parent.mkdir(parents=True)
    listing.write_text(json.dumps({'siblings': [{'rfilename': n} for n in files]}))
    handler = functools.partial(_Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Quiet.requests = []
    yield 'http://127.0.0.1:%d' % server.server_address[1]
    server.shutdown()
    server.server_close()


def test_hf_download_then_offline_from_the_cache(mirror, tmp_path):
    log = tmp_path / 'log'
    env = {'HF_ENDPOINT': mirror, 'HF_HOME': str(tmp_path / 'cache'), 'HF_TOKEN': 'secret',
           'HUB_STANDIN_LOG': str(log)}
    out = tmp_path / 'model'
    assert hub_cli.main(['download', REPO, '--local-dir', str(out)], env, 'hf') == 0
    assert (out / 'sub' / 'model.safetensors').read_bytes() == b'w' * 100
    assert ('/%s/resolve/main/config.json' % REPO, 'Bearer secret') in _Quiet.requests
    fetched = len(_Quiet.requests)
    offline = dict(env, HF_HUB_OFFLINE='1')
    again = tmp_path / 'again'
    assert hub_cli.main(['download', REPO, '--local-dir', str(again)], offline, 'hf') == 0
    assert len(_Quiet.requests) == fetched and (again / 'config.json').exists()
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert lines[0] == {'cli': 'hf', 'argv': ['download', REPO, '--local-dir', str(out)], 'endpoint': mirror,
                        'offline': False, 'token': True}
    assert lines[1]['offline'] is True


def test_offline_without_cache_fails_like_the_real_cli(tmp_path, capsys):
    env = {'HF_HUB_OFFLINE': '1', 'HF_HOME': str(tmp_path / 'empty')}
    assert hub_cli.main(['download', REPO, '--local-dir', str(tmp_path / 'm')], env, 'hf') == 1
    assert 'Cannot find the requested files in the local cache' in capsys.readouterr().err


def test_modelscope_domain_as_the_sdk_builds_it():
    assert hub_cli._endpoint('modelscope', {'MODELSCOPE_DOMAIN': 'mirror.example:8443'}) == 'https://mirror.example:8443'
    assert hub_cli._endpoint('modelscope', {}) == 'https://www.modelscope.cn'
    # The SDK does not look for a scheme: one given gives a broken address (the role refuses it).
    assert hub_cli._endpoint('modelscope', {'MODELSCOPE_DOMAIN': 'http://m'}) == 'https://http://m'


def test_modelscope_has_no_offline_mode():
    assert not hub_cli._offline('modelscope', {'HF_HUB_OFFLINE': '1', 'MODELSCOPE_OFFLINE': '1'})
    assert hub_cli._offline('hf', {'HF_HUB_OFFLINE': '1'})


def test_modelscope_arguments(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(hub_cli, 'download', lambda cli, args, env: calls.append((cli, args.repo, args.local_dir,
                                                                                  args.revision)) or args.local_dir)
    assert hub_cli.main(['download', '--model', REPO, '--local_dir', str(tmp_path), '--revision', 'v1'], {},
                        'modelscope') == 0
    assert calls == [('modelscope', REPO, str(tmp_path), 'v1')]


def test_unreachable_endpoint_is_an_error(tmp_path, capsys):
    env = {'HF_ENDPOINT': 'http://127.0.0.1:9', 'HF_HOME': str(tmp_path / 'c')}
    assert hub_cli.main(['download', REPO, '--local-dir', str(tmp_path / 'm')], env, 'hf') == 1
    assert capsys.readouterr().err.startswith('hf: error:')
