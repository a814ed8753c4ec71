"""Pure helpers of support_bundle: redaction, the log size bound, npu-smi listings, units."""
import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.support_bundle import (
    REDACTED, newest_within, npu_smi_commands, parse_npu_ids, parse_units, redact, safe_name,
    tail_lines)


@pytest.mark.parametrize('text, want', [
    ('VLLM_API_KEY=sk-abc123\n', 'VLLM_API_KEY=<redacted>\n'),
    ('HF_TOKEN="hf_xyz789"', 'HF_TOKEN="<redacted>"'),
    ('password: hunter22', 'password: <redacted>'),
    ('{"api_key": "k-1234", "port": 8000}', '{"api_key": "<redacted>", "port": 8000}'),
    ('vllm serve /m --api-key sk-live-1 --port 8000', 'vllm serve /m --api-key <redacted> --port 8000'),
    ('vllm serve /m --api-key=sk-live-1', 'vllm serve /m --api-key=<redacted>'),
    ('Authorization: Bearer abcdEFGH1234', 'Authorization: Bearer <redacted>'),
    ('proxy=http://user:s3cr3t@proxy.example:3128', 'proxy=http://user:<redacted>@proxy.example:3128'),
    ('MODELSCOPE_SECRET_ACCESS=abc', 'MODELSCOPE_SECRET_ACCESS=<redacted>'),
    ('export access-token=t0k3n', 'export access-token=<redacted>'),
    # A key with quotes as the vllm_service role writes it into its EnvironmentFile (systemd quoting):
    # the whole quoted value goes, not just what comes before the first escaped quote.
    ('VLLM_API_KEY="sandbox-\\"key\'s\\$0123456789"\n', 'VLLM_API_KEY="<redacted>"\n'),
    ('{"api_key": "k-\\"12\\"34", "port": 8000}', '{"api_key": "<redacted>", "port": 8000}'),
    ("TOKEN='a b c'", "TOKEN='<redacted>'"),
])
def test_redact_secret_shapes(text, want):
    got, count = redact(text)
    assert got == want
    assert count == 1


@pytest.mark.parametrize('text', [
    'ASCEND_TOOLKIT_HOME=/usr/local/Ascend/ascend-toolkit/latest',
    'max_tokens=16 port=8000',
    'tokenizer=/models/m/tokenizer.json',
    'prompt_tokens_total 42',
])
def test_redact_leaves_ordinary_text(text):
    got, count = redact(text)
    assert got == text
    assert count == 0


def test_literal_values_are_replaced_anywhere_longest_first():
    text = 'key molecule-key-5f0c in a log line; prefix molecule-key-5f0c2d7e too'
    got, count = redact(text, ['molecule-key-5f0c2d7e', 'molecule-key-5f0c', 'ab'])
    assert got == 'key <redacted> in a log line; prefix <redacted> too'
    assert count == 2


def test_redaction_is_stable_on_redacted_text():
    once, dummy = redact('API_KEY=abc123\n--api-key xyz987')
    twice, count = redact(once)
    assert twice == once
    assert count == 0


def test_newest_within_takes_newest_first_and_the_tail_of_the_one_that_does_not_fit():
    entries = [('/l/old', 400, 1.0), ('/l/new', 300, 3.0), ('/l/mid', 500, 2.0), ('/l/oldest', 10, 0.5)]
    chosen, skipped = newest_within(entries, 600)
    assert chosen == [('/l/new', 0), ('/l/mid', 200)]
    assert skipped == 2


def test_newest_within_everything_fits():
    chosen, skipped = newest_within([('/a', 1, 1.0), ('/b', 2, 1.0)], 10)
    assert chosen == [('/a', 0), ('/b', 0)]   # same mtime: by path
    assert skipped == 0


def test_newest_within_zero_budget_skips_all():
    assert newest_within([('/a', 1, 1.0)], 0) == ([], 1)


def test_tail_lines():
    assert tail_lines('a\nb\nc\n', 2) == 'b\nc\n'
    assert tail_lines('a\nb\n', 0) == ''
    assert tail_lines('a\nb\n', 10) == 'a\nb\n'


def test_parse_npu_ids_from_info_list():
    text = ('        Total Count                    : 2\n\n'
            '        NPU ID                         : 0\n'
            '        Product Name                   : Atlas 800I A2\n'
            '        NPU ID                         : 1\n'
            '        NPU ID                         : 1\n')
    assert parse_npu_ids(text) == [0, 1]
    assert parse_npu_ids('') == []


def test_npu_smi_commands_are_bounded():
    commands = npu_smi_commands('/usr/local/bin/npu-smi', [0, 1, 2], 2)
    assert [name for name, dummy in commands] == [
        'npu-smi/board-0.txt', 'npu-smi/health-0.txt', 'npu-smi/board-1.txt', 'npu-smi/health-1.txt']
    assert commands[0][1] == ['/usr/local/bin/npu-smi', 'info', '-t', 'board', '-i', '0']


def test_parse_units_from_list_units_and_list_unit_files():
    text = ('vllm-main.service loaded active running vLLM main\n'
            'ascend-sim-boot.service enabled enabled\n'
            'vllm-main.service enabled enabled\n'
            '\n')
    assert parse_units(text) == ['vllm-main.service', 'ascend-sim-boot.service']


def test_safe_name():
    assert safe_name('/etc/ascend-vllm/cann.env') == 'etc/ascend-vllm/cann.env'
    assert safe_name('/x/../y') == 'x/_/y'


def test_redacted_marker():
    assert REDACTED == '<redacted>'
