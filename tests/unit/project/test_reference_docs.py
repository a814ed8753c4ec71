"""docs/reference is generated from the argument specs, the stack matrix and the model profiles
(scripts/reference_docs.py): it is current, and a stale or stray page is caught."""
import importlib.util
import shutil
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[3]


def load():
    spec = importlib.util.spec_from_file_location('reference_docs', REPO / 'scripts' / 'reference_docs.py')
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_reference_pages_are_current():
    assert load().main(['--check']) == 0, 'run python scripts/reference_docs.py'


def test_a_stale_or_stray_page_is_caught(tmp_path, capsys):
    module = load()
    module.OUT = str(tmp_path / 'reference')
    shutil.copytree(REPO / 'docs' / 'reference', module.OUT)
    assert module.main(['--check']) == 0
    (tmp_path / 'reference' / 'stack-matrix.md').write_text('old\n')
    (tmp_path / 'reference' / 'roles' / 'gone.md').write_text('a role that no longer exists\n')
    assert module.main(['--check']) == 1
    assert 'stale (stack-matrix.md, roles/gone.md)' in capsys.readouterr().err


def test_each_option_appears_once_with_the_entry_points_that_take_it():
    text = (REPO / 'docs' / 'reference' / 'roles' / 'vllm_service.md').read_text()
    specs = yaml.safe_load((REPO / 'roles' / 'vllm_service' / 'meta' / 'argument_specs.yml').read_text())['argument_specs']
    names = {name for entry in specs.values() for name in (entry.get('options') or {})}
    for name in names:
        assert text.count('\n### `%s`\n' % name) == 1, name
    assert 'Type `int`; default `8000`; entry points ' in text


def test_every_release_and_profile_has_a_row():
    matrix = (REPO / 'docs' / 'reference' / 'stack-matrix.md').read_text()
    profiles = (REPO / 'docs' / 'reference' / 'model-profiles.md').read_text()
    module = load()
    for row in module._module('stack_matrix').RELEASES:
        assert '\n| %s | %s | %s |' % (row['release'], row['status'], row['vllm']) in matrix
    for name in yaml.safe_load((REPO / 'roles' / 'vllm_service' / 'vars' / 'main.yml').read_text())['__vllm_service_profiles']:
        assert '\n| `%s` |' % name in profiles
