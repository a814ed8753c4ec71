"""docs/shared-variables.md agrees with the roles: every `ascend_*` default is in its table with the
same default, every role that declares one gives it the same default, and the roles column names
the roles whose files use it."""
import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[3]
DOC = REPO / 'docs' / 'shared-variables.md'


def declared():
    """{name: {role: default}} of the shared variables in the roles' defaults."""
    found = {}
    for path in sorted(REPO.glob('roles/*/defaults/main.yml')):
        for name, value in (yaml.safe_load(path.read_text()) or {}).items():
            if name.startswith('ascend_'):
                found.setdefault(name, {})[path.parts[-3]] = value
    return found


def users(name):
    pattern = re.compile(r'\b%s\b' % re.escape(name))
    return sorted({path.relative_to(REPO / 'roles').parts[0]
                   for path in (REPO / 'roles').rglob('*')
                   if path.suffix in ('.yml', '.j2') and pattern.search(path.read_text())})


def documented():
    rows = {}
    for line in DOC.read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip('|').split('|')]
        if len(cells) == 4 and cells[0].startswith('`ascend_'):
            rows[cells[0].strip('`')] = {'default': yaml.safe_load(cells[1].strip('`')),
                                         'roles': [role.strip() for role in cells[2].split(',')]}
    return rows


def test_every_shared_variable_is_documented_and_nothing_else():
    assert sorted(documented()) == sorted(declared())


def test_roles_agree_on_each_default_and_the_doc_gives_it():
    doc = documented()
    for name, by_role in declared().items():
        assert len({repr(value) for value in by_role.values()}) == 1, (name, by_role)
        assert doc[name]['default'] == next(iter(by_role.values())), name


def test_the_doc_names_the_roles_that_use_each_variable():
    doc = documented()
    assert {name: users(name) for name in doc} == {name: row['roles'] for name, row in doc.items()}


def test_defaults_point_to_the_doc_not_elsewhere():
    for path in REPO.glob('roles/*/defaults/main.yml'):
        text = path.read_text()
        if 'ascend_' in text and 'Shared variables' in text:
            assert 'docs/shared-variables.md' in text, path
    assert not [str(path) for path in list(REPO.glob('roles/**/*.yml')) + list(REPO.glob('inventories/**/*.yml'))
                if 'DESIGN' in path.read_text()]
