"""The site requirements report (playbooks/requirements.yml) of inventories/example, made from the
inventory alone, and its Python requirements files resolved by real pip: the sandbox's wheelhouse
(stand-ins of the serving stack plus PyPI's wheels of everything else, for x86_64) holds the set,
and a mirror that lacks one requirement fails naming it."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
WHEELS = REPO / '.sandbox' / 'wheels'
HEAD, WORKER, A3 = 'npu-a2-01.dc1.example.com', 'npu-a2-02.dc1.example.com', 'npu-a3-01.dc1.example.com'


def run(tmp_path, extra=None):
    # No vault password: the report never reads the API key.
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / 'ansible.cfg'), ANSIBLE_NOCOLOR='1')
    env.pop('ASCEND_VAULT_PASSWORD', None)
    playbook = str(Path(sys.executable).parent / 'ansible-playbook')
    argv = [playbook, '-i', str(REPO / 'inventories/example'), str(REPO / 'playbooks/requirements.yml'),
            '-e', json.dumps(dict({'requirements_report_dir': str(tmp_path / 'report')}, **(extra or {})))]
    return subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)


def test_the_example_inventory_gets_its_report_without_a_host(tmp_path):
    result = run(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    report = tmp_path / 'report'
    data = json.loads((report / 'requirements.json').read_text())
    pair, a3 = data['groups']
    assert pair['hosts'] == [HEAD, WORKER] and a3['hosts'] == [A3]
    assert [item['file'] for item in pair['vendor_files']] == [
        'Ascend-hdk-910b-npu-driver_26.0.rc1_linux-aarch64.run', 'Ascend-hdk-910b-npu-firmware_9.0.0.0.205.run',
        'Ascend-cann-toolkit_9.1.0_linux-aarch64.run', 'Ascend-cann-910b-ops_9.1.0_linux-aarch64.run',
        'Ascend-cann-nnal_9.1.0_linux-aarch64.run',
        # openEuler 22.03's python3 is 3.9: the service's interpreter comes from the same mirror.
        'cpython-3.11.14+20251120-aarch64-unknown-linux-gnu-install_only.tar.gz']
    assert [item['file'] for item in a3['vendor_files']][-1] == 'Ascend-cann-nnal_9.1.0_linux-aarch64.run'
    assert pair['vendor_source']['sums'] == 'https://mirror.dc1.example.com/ascend/SHA256SUMS'
    assert a3['images'] == ['registry.dc1.example.com/ascend/vllm-ascend:v0.23.0-a3'] and a3['python'] == []
    assert (report / 'requirements-0.23.0-aarch64-cp311-vllm.txt').read_text() == 'vllm==0.23.0\n'
    second = (report / 'requirements-0.23.0-aarch64-cp311-vllm-ascend.txt').read_text().splitlines()
    assert second[:4] == ['vllm-ascend==0.23.0', 'torch==2.10.0', 'torch-npu==2.10.0.post4', 'triton-ascend==3.2.2']
    assert [item['port'] for item in pair['ports']][:2] == [8000, 13389]
    head, worker = data['hosts'][HEAD]['argv'], data['hosts'][WORKER]['argv']
    assert head[head.index('--data-parallel-address') + 1] == '10.20.0.11'
    assert worker[worker.index('--data-parallel-start-rank') + 1] == '2'
    markdown = (report / 'requirements.md').read_text()
    assert '## Group 1: %s, %s' % (HEAD, WORKER) in markdown and '### %s' % A3 in markdown
    assert 'Assumed' not in markdown  # the example describes its nodes
    assert 'example-key' not in ''.join(path.read_text() for path in report.iterdir())


def test_an_a3_left_on_the_venv_method_is_refused_by_the_report(tmp_path):
    result = run(tmp_path, {'vllm_service_install_method': 'venv'})
    assert result.returncode != 0
    assert ('%s: the vllm-ascend 0.23.0 wheel on the package indexes is built for Atlas A2 (Ascend 910B) and cannot '
            'serve the Atlas A3' % A3) in result.stdout
    # The report is still written, naming the refusal.
    assert '**Refused:** %s' % A3 in (tmp_path / 'report' / 'requirements.md').read_text()


def _download(step, wheels, dest):
    """The report's own pip download command, pointed at a wheelhouse instead of the index."""
    argv = list(step['download'][1:])
    # Upstream's command names no index: the connected host's pip configuration gives one.
    assert '--index-url' not in argv and not [arg for arg in argv if arg.startswith('--extra-index-url')]
    argv[argv.index('DIR')] = str(dest)
    argv = argv[:-2] + ['--no-index', '--find-links', str(wheels)] + argv[-2:]
    return [sys.executable, '-m', 'pip'] + argv


@pytest.mark.skipif(not WHEELS.is_dir(), reason='the sandbox wheelhouse is made by scripts/sandbox-host.sh (the bed stage)')
def test_the_requirements_files_resolve_with_real_pip_and_a_missing_wheel_is_named(tmp_path):
    # The sandbox's wheelhouse holds x86_64 wheels of the default release and Python 3.11.
    result = run(tmp_path, {'ascend_node_arch': 'x86_64'})
    assert result.returncode == 0, result.stdout + result.stderr
    steps = json.loads((tmp_path / 'report' / 'requirements.json').read_text())['groups'][0]['python']
    assert [step['step'] for step in steps] == ['vllm', 'vllm-ascend']
    for step in steps:
        done = subprocess.run(_download(step, WHEELS, tmp_path / 'dl'), cwd=tmp_path / 'report', capture_output=True,
                              text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
    names = sorted(path.name.split('-')[0] for path in (tmp_path / 'dl').iterdir())
    assert {'vllm', 'vllm_ascend', 'torch', 'torch_npu', 'triton_ascend', 'scipy'} <= set(names)
    # A mirror without triton-ascend: pip names what is missing.
    partial = tmp_path / 'partial'
    shutil.copytree(WHEELS, partial, ignore=shutil.ignore_patterns('triton_ascend-*', 'simple'))
    done = subprocess.run(_download(steps[1], partial, tmp_path / 'dl2'), cwd=tmp_path / 'report',
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode != 0
    assert 'No matching distribution found for triton-ascend==3.2.2' in done.stderr


@pytest.mark.skipif(not (REPO / '.sandbox' / 'wheels-aarch64').is_dir(),
                    reason='the aarch64 wheelhouse is made by scripts/sandbox-host.sh (the bed stage)')
def test_an_x86_64_host_fetches_the_kunpeng_nodes_wheels(tmp_path):
    # The example's nodes are Kunpeng (aarch64): the report's commands (the bundle's pip download,
    # --platform per manylinux level) run here, on x86_64, and take aarch64 wheels only.
    result = run(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    steps = json.loads((tmp_path / 'report' / 'requirements.json').read_text())['groups'][0]['python']
    for step in steps:
        done = subprocess.run(_download(step, REPO / '.sandbox' / 'wheels-aarch64', tmp_path / 'dl'),
                              cwd=tmp_path / 'report', capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stdout + done.stderr
    compiled = [path.name for path in (tmp_path / 'dl').iterdir() if not path.name.endswith('-none-any.whl')]
    assert compiled and all(name.endswith('_aarch64.whl') for name in compiled), compiled
    assert any(name.startswith('numpy-') for name in compiled)
