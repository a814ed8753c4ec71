"""playbooks/bundle.yml with directory sources (bundle_artifacts_dir, bundle_model_dir), run for real on
the controller: what it copies, the manifest a site checks, a second run that changes nothing, and the
refusal of a source whose files are not what its SHA256SUMS says. (The HTTP sources, the wheels, an
image and the offline converge from the bundle run in the decommission scenario.)"""
import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
VENDOR = ['Ascend-hdk-910b-npu-driver_26.0.rc1_linux-aarch64.run', 'Ascend-hdk-910b-npu-firmware_9.0.0.0.205.run',
          'Ascend-cann-toolkit_9.1.0_linux-aarch64.run', 'Ascend-cann-910b-ops_9.1.0_linux-aarch64.run',
          'Ascend-cann-nnal_9.1.0_linux-aarch64.run']
MODEL = {'config.json': b'{"model_type": "qwen2"}\n', 'weights/model-00001.safetensors': b'w' * 4096}


def sums(directory, names):
    return ''.join('%s  %s\n' % (hashlib.sha256((directory / name).read_bytes()).hexdigest(), name) for name in names)


@pytest.fixture
def sources(tmp_path):
    vendor = tmp_path / 'vendor'
    vendor.mkdir()
    for name in VENDOR + ['Ascend-cann-toolkit_8.5.0_linux-aarch64.run']:
        (vendor / name).write_bytes(('package %s\n' % name).encode())
    (vendor / 'SHA256SUMS').write_text(sums(vendor, sorted(os.listdir(vendor))))
    model = tmp_path / 'DeepSeek-R1-Distill-Qwen-7B'
    for name, data in MODEL.items():
        (model / name).parent.mkdir(parents=True, exist_ok=True)
        (model / name).write_bytes(data)
    (model / 'SHA256SUMS').write_text(sums(model, sorted(MODEL)))
    return tmp_path


def run(sources, *args, **extra):
    values = {'bundle_dir': str(sources / 'bundle'), 'bundle_releases': ['0.23.0'], 'bundle_chips': ['910b'],
              'bundle_architectures': ['aarch64'], 'bundle_artifacts_dir': str(sources / 'vendor'),
              'bundle_model_dir': str(sources / 'DeepSeek-R1-Distill-Qwen-7B'), 'bundle_wheels': False,
              'bundle_collection': False}
    values.update(extra)
    env = dict(os.environ, ANSIBLE_CONFIG=str(REPO / 'ansible.cfg'), ANSIBLE_NOCOLOR='1',
               ANSIBLE_CALLBACK_RESULT_FORMAT='json')
    playbook = str(Path(sys.executable).parent / 'ansible-playbook')
    return subprocess.run([playbook, 'playbooks/bundle.yml', '-e', json.dumps(values)] + list(args),
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300, check=False)


def recap(result):
    match = re.search(r'localhost +: ok=(\d+) +changed=(\d+) +unreachable=0 +failed=(\d+)', result.stdout)
    assert match, result.stdout + result.stderr
    return {'ok': int(match.group(1)), 'changed': int(match.group(2)), 'failed': int(match.group(3))}


def test_a_bundle_from_directories(sources):
    first = run(sources)
    assert first.returncode == 0, first.stdout + first.stderr
    assert recap(first)['changed'] > 0
    bundle = sources / 'bundle'
    # The release's packages only, with their SHA256SUMS as the artifacts role reads it.
    assert sorted(os.listdir(bundle / 'artifacts')) == sorted(VENDOR + ['SHA256SUMS'])
    assert (bundle / 'artifacts' / 'SHA256SUMS').read_text() == sums(sources / 'vendor', sorted(VENDOR))
    model = bundle / 'models' / 'DeepSeek-R1-Distill-Qwen-7B'
    assert (model / 'weights' / 'model-00001.safetensors').read_bytes() == MODEL['weights/model-00001.safetensors']
    described = json.loads((bundle / 'bundle.json').read_text())
    assert described['vendor'] == sorted(VENDOR) and described['model'] == 'DeepSeek-R1-Distill-Qwen-7B'
    # What a site runs before it uses the bundle.
    check = subprocess.run(['sha256sum', '-c', '--quiet', 'SHA256SUMS'], cwd=bundle, capture_output=True, text=True,
                           check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    listed = [line.split('  ', 1)[1] for line in (bundle / 'SHA256SUMS').read_text().splitlines()]
    assert 'artifacts/%s' % VENDOR[0] in listed and 'bundle.json' in listed
    assert '.bundle-hashes.json' not in listed and 'SHA256SUMS' not in listed

    second = run(sources)
    assert second.returncode == 0, second.stdout + second.stderr
    assert recap(second)['changed'] == 0


def test_check_mode_writes_nothing(sources):
    result = run(sources, '--check')
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'would fetch %s' % VENDOR[0] in result.stdout
    assert not (sources / 'bundle').exists()


def test_a_source_file_unlike_its_sha256sums_is_refused(sources):
    (sources / 'vendor' / VENDOR[2]).write_bytes(b'not the vendor package\n')
    result = run(sources)
    assert result.returncode != 0
    assert ('bundle: %s in %s do not have the SHA256 its SHA256SUMS lists: the directory\'s files are not the '
            'vendor\'s. Replace them; nothing was used.' % (VENDOR[2], sources / 'vendor')) in result.stdout + result.stderr
    # The wrong copy is not left in the bundle; the right ones are.
    assert not (sources / 'bundle' / 'artifacts' / VENDOR[2]).exists()
    assert (sources / 'bundle' / 'artifacts' / VENDOR[0]).exists()


def test_the_bundle_carries_the_service_interpreter_an_inventory_names(sources):
    # An inventory with the relocatable-interpreter route: its archive travels with the vendor packages.
    archive = 'cpython-3.11.14+20251120-aarch64-unknown-linux-gnu-install_only.tar.gz'
    vendor = sources / 'vendor'
    (vendor / archive).write_bytes(b'python/bin/python3\n')
    (vendor / 'SHA256SUMS').write_text(sums(vendor, sorted(name for name in os.listdir(vendor) if name != 'SHA256SUMS')))
    result = run(sources, vllm_service_python_archive=archive, bundle_model_dir='')
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(os.listdir(sources / 'bundle' / 'artifacts')) == sorted(VENDOR + [archive, 'SHA256SUMS'])
    assert (sources / 'bundle' / 'artifacts' / 'SHA256SUMS').read_text() == sums(vendor, sorted(VENDOR + [archive]))
