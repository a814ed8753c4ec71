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


def _server(metrics_status):
    """_request of a server that is healthy, lists model m, completes, and answers /metrics."""
    from ansible_collections.ascend.vllm.tests.unit.plugins.module_utils.test_vllm_health import METRICS

    def answer(url, api_key=None, data=None, timeout=30):
        path = url.split('127.0.0.1:9', 1)[1]
        return {'/health': (200, ''),
                '/v1/models': (200, '{"data": [{"id": "m"}]}'),
                '/v1/completions': (200, '{"choices": [{"text": "Paris"}], "usage": {"completion_tokens": 1}}'),
                '/metrics': (metrics_status, METRICS if metrics_status == 200 else 'Not Found')}[path]
    return answer


def test_metrics_are_read_when_asked(run_module, monkeypatch):
    monkeypatch.setattr(vllm_health, '_request', _server(200))
    failed, result = run_module(vllm_health, {'url': 'http://127.0.0.1:9', 'served_model_name': 'm', 'metrics': True})
    assert not failed, result
    assert result['health']['metrics'] == {'requests_running': 3.0, 'requests_waiting': 0.0,
                                           'kv_cache_usage_perc': 0.031, 'generation_tokens': 1234.0}
    assert result['health']['load'] == '3 running, 0 waiting, KV cache 3.1 %, 1234 tokens generated'
    # Not asked: not read. A /metrics that does not answer is no failure.
    failed, result = run_module(vllm_health, {'url': 'http://127.0.0.1:9', 'served_model_name': 'm'})
    assert not failed and result['health']['metrics'] is None and result['health']['load'] == ''
    monkeypatch.setattr(vllm_health, '_request', _server(404))
    failed, result = run_module(vllm_health, {'url': 'http://127.0.0.1:9', 'served_model_name': 'm', 'metrics': True})
    assert not failed and result['health']['metrics'] is None and result['health']['load'] == ''


def _failed_unit(monkeypatch, journal):
    """A unit systemd reports failed, whose journal is ``journal`` (lines); the server never answers.
    Returns the list of journal lengths asked for."""
    calls = []

    def run_command(self, argv, **kwargs):
        if argv[0] == 'systemctl':
            return 0, 'ActiveState=failed\nSubState=failed\nNRestarts=0\nResult=exit-code\nExecMainStatus=1\n', ''
        lines = int(argv[argv.index('-n') + 1])
        calls.append(lines)
        return 0, '\n'.join(journal[-lines:]) + '\n', ''
    monkeypatch.setattr(vllm_health.AnsibleModule, 'run_command', run_command)
    monkeypatch.setattr(vllm_health, '_request', lambda *args, **kwargs: (None, 'connection refused'))
    return calls


def test_a_failure_names_the_root_cause_above_the_quoted_lines(run_module, monkeypatch):
    """vLLM's API server traceback fills the quoted tail; the engine core's exception is above it."""
    from ansible_collections.ascend.vllm.tests.unit.plugins.module_utils.test_vllm_health import CAUSE, ENGINE_CORE_FAILED
    calls = _failed_unit(monkeypatch, ENGINE_CORE_FAILED.splitlines())
    failed, result = run_module(vllm_health, {'url': 'http://127.0.0.1:9', 'served_model_name': 'm',
                                              'unit': 'vllm-nonnal.service', 'journal_lines': 5, 'timeout': 5})
    assert failed
    lines = result['msg'].splitlines()
    assert lines[0].startswith('vllm_health: vllm-nonnal.service is failed (result exit-code, exit status 1)')
    assert lines[1] == 'Root cause, from an earlier journal line: ' + CAUSE
    assert lines[2] == 'Last 5 journal lines of vllm-nonnal.service:'
    assert calls == [5, vllm_health.ROOT_CAUSE_LINES]
    # With the cause among the quoted lines, it is not said twice.
    failed, result = run_module(vllm_health, {'url': 'http://127.0.0.1:9', 'served_model_name': 'm',
                                              'unit': 'vllm-nonnal.service', 'journal_lines': 40, 'timeout': 5})
    assert failed and 'Root cause' not in result['msg']


def test_a_failure_names_a_known_cause_and_its_fix_before_the_journal(run_module, monkeypatch):
    # vllm-ascend issue 10525's log: NNAL missing or its environment not sourced.
    journal = ['INFO 06-16 02:47:01 [api_server.py:1] vLLM API server version 0.23.0',
               'ERROR 06-16 02:47:10 [multiproc_executor.py:870] OSError: libatb.so: cannot open shared object file: '
               'No such file or directory'] + ['ERROR 06-16 02:47:11 [core.py:1] EngineCore failed'] * 10
    _failed_unit(monkeypatch, journal)
    failed, result = run_module(vllm_health, {'url': 'http://127.0.0.1:9', 'served_model_name': 'm',
                                              'unit': 'vllm-atb.service', 'journal_lines': 5, 'timeout': 5})
    assert failed
    lines = result['msg'].splitlines()
    # The cause is above the quoted tail: found in the longer read, named before the excerpt.
    assert lines[1].startswith('Known failure (atb_missing): NNAL (which provides ATB) is not installed')
    assert lines[2] == 'Last 5 journal lines of vllm-atb.service:'
    assert [row['id'] for row in result['diagnosis']] == ['atb_missing']


def test_with_a_unit_file_the_gate_asks_where_the_restored_unit_listens(run_module, monkeypatch, tmp_path):
    """After a rollback the gate's url, name and key come from the restored files, not the task's values."""
    from ansible_collections.ascend.vllm.plugins.module_utils.vllm_service import systemd_exec
    unit = tmp_path / 'vllm-main.service'
    unit.write_text('[Service]\nExecStart=%s\n' % systemd_exec(
        ['/opt/vllm/bin/vllm', 'serve', '/models/m', '--served-model-name', 'm', '--host', '0.0.0.0', '--port', '9']))
    key = tmp_path / 'vllm-main.key'
    key.write_text('VLLM_API_KEY=old-key\n')
    asked = []
    answer = _server(200)

    def recording(url, api_key=None, data=None, timeout=30):
        asked.append((url, api_key))
        return answer(url, api_key, data, timeout)
    monkeypatch.setattr(vllm_health, '_request', recording)
    failed, result = run_module(vllm_health, {'unit_file': str(unit), 'key_file': str(key)})
    assert not failed, result
    assert result['health']['url'] == 'http://127.0.0.1:9'
    assert asked[0] == ('http://127.0.0.1:9/health', None)
    assert set(asked[1:]) == {('http://127.0.0.1:9/v1/models', 'old-key'), ('http://127.0.0.1:9/v1/completions', 'old-key')}
    assert 'old-key' not in str(result)
    # No key file: no key. No unit file: the module says which file it could not read.
    asked[:] = []
    failed, result = run_module(vllm_health, {'unit_file': str(unit), 'key_file': str(tmp_path / 'none')})
    assert not failed and all(pair[1] is None for pair in asked)
    failed, result = run_module(vllm_health, {'unit_file': str(tmp_path / 'gone.service')})
    assert failed and result['msg'].startswith('vllm_health: cannot tell where the service of %s listens: '
                                               % (tmp_path / 'gone.service'))


def test_an_npu_held_elsewhere_is_named_with_its_holder(run_module, monkeypatch, tmp_path):
    # vllm-ascend issue 2698: the device is used by another process; npu-smi shows who, and the
    # process's cgroup which unit or container it runs in. The service's own process is left out.
    from ansible_collections.ascend.vllm.tests.unit.plugins.module_utils.test_npu_smi_parser import A2, PROCESSES, _a2_chips_only
    journal = ['ERROR 06-16 02:47:10 [worker.py:1] dcmi model initialized failed, because the device is used. ret is -8020']
    calls = _failed_unit(monkeypatch, journal)
    npu_smi_out = _a2_chips_only() + PROCESSES
    real_run = vllm_health.AnsibleModule.run_command

    def run_command(self, argv, **kwargs):
        if argv == ['/usr/local/Ascend/driver/tools/npu-smi', 'info']:
            return 0, npu_smi_out, ''
        return real_run(self, argv, **kwargs)
    monkeypatch.setattr(vllm_health.AnsibleModule, 'run_command', run_command)
    monkeypatch.setattr(vllm_health.npu_smi, 'locate_npu_smi',
                        lambda explicit, install, path: '/usr/local/Ascend/driver/tools/npu-smi')
    proc = tmp_path / 'proc'
    for pid, cgroup in ((1201, '0::/system.slice/batch-train.service\n'),
                        (1203, '0::/system.slice/vllm-main.service\n'),
                        (77, '0::/machine.slice/libpod-0123456789abcdef0123.scope/container\n')):
        (proc / str(pid)).mkdir(parents=True)
        (proc / str(pid) / 'cgroup').write_text(cgroup)
    real_attach = vllm_health.npu_smi.attach_owners
    monkeypatch.setattr(vllm_health.npu_smi, 'attach_owners', lambda processes: real_attach(processes, str(proc)))
    failed, result = run_module(vllm_health, {'url': 'http://127.0.0.1:9', 'served_model_name': 'm',
                                              'unit': 'vllm-main.service', 'journal_lines': 5, 'timeout': 5})
    assert failed and calls
    holders = ('PID 1201 (python3) on NPU 0 in batch-train.service; PID 1202 (?) on NPU 0; '
               'PID 77 (ray::IDLE) on NPU 2 in container 0123456789ab')
    assert [(row['id'], row['found']) for row in result['diagnosis']] == [('npu_held_elsewhere', holders)]
    line = result['msg'].splitlines()[1]
    assert line.startswith('Known failure (npu_held_elsewhere): the NPU is held by another process or container. '
                           'Fix: stop the other user of the NPU')
    assert ' Found on the node: %s. Check: ' % holders in line


def test_the_diagnosis_reads_only_the_current_run_of_the_unit(run_module, monkeypatch):
    """An earlier run's failure (libatb.so) is still in the unit's journal; this run fails for lack of
    free HBM: only the lines since the unit left the inactive state are diagnosed."""
    earlier = ['OSError: libatb.so: cannot open shared object file: No such file or directory']
    now = ['ValueError: Free memory on device (2.0/64.0 GiB) on startup is less than desired GPU memory utilization '
           '(0.9, 57.6 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.']
    asked = []

    def run_command(self, argv, **kwargs):
        if argv[0] == 'systemctl':
            return 0, ('ActiveState=failed\nSubState=failed\nNRestarts=0\nResult=exit-code\nExecMainStatus=1\n'
                       'InactiveExitTimestampMonotonic=%d\n' % int((vllm_health.time.monotonic() - 30) * 1e6)), ''
        asked.append(argv)
        return 0, '\n'.join(now if '--since' in argv else earlier + now) + '\n', ''
    monkeypatch.setattr(vllm_health.AnsibleModule, 'run_command', run_command)
    monkeypatch.setattr(vllm_health, '_request', lambda *args, **kwargs: (None, 'connection refused'))
    failed, result = run_module(vllm_health, {'url': 'http://127.0.0.1:9', 'served_model_name': 'm',
                                              'unit': 'vllm-main.service', 'journal_lines': 5, 'timeout': 5})
    assert failed
    assert [row['id'] for row in result['diagnosis']] == ['npu_out_of_memory']
    since = asked[1][asked[1].index('--since') + 1]
    # 30 s before now, to the second
    assert since.startswith('@') and abs(int(since[1:]) - (vllm_health.time.time() - 30)) <= 2
    # the quoted tail stays the unit's last lines
    assert '--since' not in asked[0]
