"""ascend.vllm.support_bundle run in-process against temporary directories and a fake npu-smi."""
import os
import tarfile

import pytest

from ansible_collections.ascend.vllm.plugins.modules import support_bundle

LIST = ('        Total Count                    : 2\n\n'
        '        NPU ID                         : 0\n'
        '        Product Name                   : Atlas 800I A2\n\n'
        '        NPU ID                         : 1\n'
        '        Product Name                   : Atlas 800I A2\n')


@pytest.fixture
def node(tmp_path, fake_npu_smi, fixture_text):
    npu_smi = fake_npu_smi({'info': fixture_text('910B2_24.1.0_1.txt'), 'info -l': LIST,
                            'info -t board -i 0': 'NPU ID : 0\nChip Name : 910B3\n'})
    install = tmp_path / 'Ascend'
    (install / 'driver').mkdir(parents=True)
    (install / 'driver' / 'version.info').write_text('Version=25.5.0\n')
    (install / 'cann-9.1.0' / 'x86_64-linux').mkdir(parents=True)
    (install / 'cann-9.1.0' / 'x86_64-linux' / 'ascend_toolkit_install.info').write_text('version=9.1.0\n')
    slog = tmp_path / 'slog'
    slog.mkdir()
    for index, name in enumerate(['old.log', 'mid.log', 'new.log']):
        path = slog / name
        path.write_text(('%-15s\n' % name) * 32000)   # 512000 bytes each
        os.utime(str(path), (1000 + index, 1000 + index))
    config = tmp_path / 'etc-ascend-vllm'
    config.mkdir()
    (config / 'vllm-main.env').write_text('VLLM_API_KEY=sk-secret-value-1\nASCEND_RT_VISIBLE_DEVICES=0\n')
    (config / 'cann.env').write_text('ASCEND_TOOLKIT_HOME=/usr/local/Ascend/cann-9.1.0\n')
    out = tmp_path / 'out'
    out.mkdir()

    class Node(object):
        def args(self, **kwargs):
            base = {'dest': str(out / 'bundle-node1.tar.gz'), 'install_path': str(install),
                    'npu_smi_path': npu_smi, 'log_dirs': [str(slog), str(tmp_path / 'no-such-dir')],
                    'extra_paths': [str(config), str(tmp_path / 'hccn.conf')], 'units': ['no-such-unit-xyz*'],
                    'redact_values': ['molecule-key-5f0c2d7e']}
            base.update(kwargs)
            return base

        dest = out / 'bundle-node1.tar.gz'
    return Node()


def members(path):
    with tarfile.open(str(path)) as tar:
        return {m.name: (tar.extractfile(m).read().decode() if m.isfile() else None) for m in tar.getmembers()}


def test_bundle_has_npu_smi_versions_logs_config_and_a_summary(run_module, node, tmp_path):
    failed, result = run_module(support_bundle, node.args())
    assert not failed, result
    assert result['changed']
    files = members(node.dest)
    assert set(files) >= {'bundle-node1/summary.txt', 'bundle-node1/npu-smi/info.txt', 'bundle-node1/npu-smi/list.txt',
                          'bundle-node1/npu-smi/board-0.txt', 'bundle-node1/system/uname.txt'}
    # board of NPU 1 is not answered by the fake npu-smi: recorded as failed, collection goes on
    failed_board = [s for s in result['sections'] if s['file'] == 'npu-smi/board-1.txt'][0]
    assert failed_board['status'].startswith('failed (rc=2)')
    versions = [name for name in files if '/versions/' in name]
    assert any(name.endswith('driver/version.info') for name in versions)
    assert any(name.endswith('ascend_toolkit_install.info') for name in versions)
    assert os.stat(str(node.dest)).st_mode & 0o777 == 0o600
    summary = files['bundle-node1/summary.txt'].splitlines()
    missing_dir = str(tmp_path / 'no-such-dir')
    assert 'logs/%s\tmissing\t%s' % (missing_dir.lstrip('/'), missing_dir) in summary
    hccn = str(tmp_path / 'hccn.conf')
    assert 'config/%s\tmissing\t%s' % (hccn.lstrip('/'), hccn) in summary


def test_secrets_are_redacted_everywhere(run_module, node, tmp_path):
    (tmp_path / 'etc-ascend-vllm' / 'notes.txt').write_text('the key is molecule-key-5f0c2d7e\n')
    failed, result = run_module(support_bundle, node.args())
    assert not failed
    text = ''.join(v or '' for v in members(node.dest).values())
    assert 'sk-secret-value-1' not in text
    assert 'molecule-key-5f0c2d7e' not in text
    assert 'VLLM_API_KEY=<redacted>' in text
    assert 'ASCEND_TOOLKIT_HOME=/usr/local/Ascend/cann-9.1.0' in text
    assert result['redactions'] >= 2
    assert 'molecule-key-5f0c2d7e' not in repr(result)


def test_logs_are_bounded_newest_first(run_module, node):
    failed, result = run_module(support_bundle, node.args(log_max_mb=0))
    assert not failed
    assert result['logs_skipped'] == 3
    assert not [n for n in members(node.dest) if '/logs/' in n]

    # 1 MiB: new.log and mid.log whole (500 KiB each), the newest 24 KiB of old.log
    failed, result = run_module(support_bundle, node.args(log_max_mb=1))
    assert result['logs_skipped'] == 0
    logs = {os.path.basename(n): v for n, v in members(node.dest).items() if '/logs/' in n}
    assert len(logs['new.log']) == 512000 and len(logs['mid.log']) == 512000
    assert logs['old.log'].startswith('# newest 24576 bytes of ')
    assert logs['old.log'].splitlines()[1] == 'old.log        '


def test_check_mode_writes_nothing(run_module, node):
    failed, result = run_module(support_bundle, node.args(), check_mode=True)
    assert not failed
    assert result['changed']
    assert not node.dest.exists()


def test_missing_directory_of_dest_fails_naming_it(run_module, node, tmp_path):
    failed, result = run_module(support_bundle, node.args(dest=str(tmp_path / 'nope' / 'b.tar.gz')))
    assert failed
    assert result['msg'] == 'support_bundle: the directory of dest %s does not exist' % (tmp_path / 'nope' / 'b.tar.gz')


def test_negative_bound_fails(run_module, node):
    failed, result = run_module(support_bundle, node.args(log_max_mb=-1))
    assert failed
    assert result['msg'] == 'support_bundle: log_max_mb must be 0 or more, got -1'


def test_the_diagnosis_names_known_failures_in_the_journals():
    bundle = support_bundle.Bundle([])
    bundle.add_text('journal/vllm-main.service.log', 'INFO start\nOSError: libatb.so: cannot open shared object file: '
                    'No such file or directory\n', 'journalctl')
    bundle.add_text('journal/vllm-other.service.log', 'INFO Application startup complete.\n', 'journalctl')
    bundle.add_text('logs/x.log', 'dcmi module initialize failed. ret is -8005\n', 'file')   # not a journal
    found, text = support_bundle.diagnosis(bundle)
    assert [(row['unit'], row['id']) for row in found] == [('vllm-main.service', 'atb_missing')]
    assert text.startswith('vllm-main.service:\nKnown failure (atb_missing): NNAL (which provides ATB) is not installed')
    empty = support_bundle.Bundle([])
    assert support_bundle.diagnosis(empty) == ([], "No known failure found in the services' journals.\n")
