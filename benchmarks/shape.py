#!/usr/bin/env python3
"""The shape of the collection, counted: public filters (and how many places use each), lookups,
modules, module_utils files, and per role its task files, task lines, notify count and the deepest
chain of includes from its entry points (tasks/main.yml and every tasks file a playbook or another
role names with tasks_from). Counts, not timings. Usage: benchmarks/shape.py [--roles]

An include is include_tasks / import_tasks (a file of the same role), include_role / import_role
(another role's main.yml or its tasks_from); a templated file name counts as one more level
without following it. The last line is key=value pairs for tools."""
import glob
import os
import re
import sys

import yaml

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
INCLUDES = ('include_tasks', 'import_tasks', 'include_role', 'import_role')
USERS = ('roles', 'playbooks')


def _load(path):
    with open(path) as handle:
        return yaml.safe_load(handle) or []


def _tasks(node):
    """Every task dict of a task list, blocks, rescues and always included."""
    for task in node if isinstance(node, list) else []:
        if not isinstance(task, dict):
            continue
        yield task
        for key in ('block', 'rescue', 'always'):
            yield from _tasks(task.get(key))


def _short(key):
    return key.rsplit('.', 1)[-1]


def includes(role, path):
    """(role, tasks file) pairs a tasks file includes; None for a templated name."""
    found = []
    for task in _tasks(_load(path)):
        for key, value in task.items():
            what = _short(key)
            if what not in INCLUDES:
                continue
            if what in ('include_tasks', 'import_tasks'):
                name = value.get('file') if isinstance(value, dict) else value
                found.append(None if '{{' in str(name) else (role, os.path.normpath(str(name))))
            else:
                other = _short(str(value.get('name', '')))
                tasks_from = value.get('tasks_from', 'main')
                found.append(None if '{{' in other + str(tasks_from) else (other, tasks_from))
    return found


def _file(role, name):
    name = name if name.endswith(('.yml', '.yaml')) else name + '.yml'
    return os.path.join(ROOT, 'roles', role, 'tasks', name)


def depth(role, name, seen=()):
    """The longest include chain from a role's tasks file (the file itself is level 1)."""
    path = _file(role, name)
    if (role, name) in seen or not os.path.exists(path):
        return 1
    deepest = 0
    for target in includes(role, path):
        deepest = max(deepest, 1 if target is None else depth(target[0], target[1], seen + ((role, name),)))
    return 1 + deepest


def entry_points(role):
    """tasks/main.yml and the tasks files other roles and playbooks name with tasks_from."""
    names = {'main'}
    pattern = re.compile(r'name:\s*(?:ascend\.vllm\.)?%s\s*\n\s*tasks_from:\s*([\w./-]+)' % re.escape(role))
    for where in USERS:
        for path in glob.glob(os.path.join(ROOT, where, '**', '*.yml'), recursive=True):
            with open(path) as handle:
                names.update(pattern.findall(handle.read()))
    return sorted(names)


def filters():
    names = []
    for path in glob.glob(os.path.join(ROOT, 'plugins', 'filter', '*.py')):
        with open(path) as handle:
            text = handle.read()
        block = re.search(r'def filters\(self\):\s*return \{(.*?)\}', text, re.S)
        if block:
            names.extend(re.findall(r"'(\w+)':", block.group(1)))
    return sorted(names)


def uses(names):
    """How many times roles and playbooks name each filter."""
    texts = []
    for where in USERS:
        for path in glob.glob(os.path.join(ROOT, where, '**', '*.*'), recursive=True):
            if path.endswith(('.yml', '.j2')):
                with open(path) as handle:
                    texts.append(handle.read())
    text = '\n'.join(texts)
    return dict((name, len(re.findall(r'ascend\.vllm\.%s\b' % name, text))) for name in names)


def roles():
    rows = []
    for role_dir in sorted(glob.glob(os.path.join(ROOT, 'roles', '*', 'tasks'))):
        role = os.path.basename(os.path.dirname(role_dir))
        files = sorted(glob.glob(os.path.join(role_dir, '**', '*.yml'), recursive=True))
        lines = sum(sum(1 for _ in open(path)) for path in files)
        notify = sum(1 for path in files for task in _tasks(_load(path)) if 'notify' in task)
        deepest = max(depth(role, name) for name in entry_points(role))
        rows.append((role, len(files), lines, notify, deepest))
    return rows


def count(pattern):
    return len(glob.glob(os.path.join(ROOT, pattern), recursive=True))


def main(argv):
    names = filters()
    counted = uses(names)
    rows = roles()
    if '--roles' in argv:
        print('%-18s %6s %6s %6s %6s' % ('role', 'files', 'lines', 'notify', 'depth'))
        for row in rows:
            print('%-18s %6d %6d %6d %6d' % row)
    once = sum(1 for n in names if counted[n] == 1)
    unused = [n for n in names if counted[n] == 0]
    print('public filters: %d (%d used once, %d by no role or playbook%s)'
          % (len(names), once, len(unused), ': ' + ', '.join(unused) if unused else ''))
    biggest = max(rows, key=lambda row: row[1])
    deepest = max(rows, key=lambda row: row[4])
    print('largest role: %s, %d task files, %d lines; deepest includes: %s, %d levels'
          % (biggest[0], biggest[1], biggest[2], deepest[0], deepest[4]))
    print('filters=%d filters_used_once=%d lookups=%d modules=%d module_utils=%d notify=%d max_role_files=%d '
          'max_role_lines=%d max_depth=%d'
          % (len(names), once, count('plugins/lookup/*.py'), count('plugins/modules/*.py'),
             count('plugins/module_utils/**/*.py') - count('plugins/module_utils/**/__init__.py'),
             sum(row[3] for row in rows), biggest[1], max(row[2] for row in rows), deepest[4]))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
