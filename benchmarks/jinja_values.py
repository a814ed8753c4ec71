#!/usr/bin/env python3
"""Templated values in roles/*/tasks: how many, and which are longer than a limit (default 400
characters). A long value is a program in Jinja that only Molecule can test; rules belong in
module_utils behind a filter. Usage: benchmarks/jinja_values.py [LIMIT] [--list]"""
import glob
import os
import sys

import yaml

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')


def values(node, path):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from values(value, path + [str(key)])
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from values(value, path + [str(index)])
    elif isinstance(node, str) and ('{{' in node or '{%' in node):
        yield '.'.join(path), node


def main(argv):
    limit = int(next((a for a in argv if a.isdigit()), 400))
    files = sorted(glob.glob(os.path.join(ROOT, 'roles', '*', 'tasks', '*.yml')))
    total, lines, long_ones = 0, 0, []
    for name in files:
        with open(name) as handle:
            text = handle.read()
        lines += text.count('\n')
        for path, value in values(yaml.safe_load(text) or [], []):
            total += 1
            if len(value) > limit:
                long_ones.append((len(value), os.path.relpath(name, ROOT), path))
    print('task lines %d, templated values %d, longer than %d: %d' % (lines, total, limit, len(long_ones)))
    if '--list' in argv:
        for size, name, path in sorted(long_ones, reverse=True):
            print('%6d  %s  %s' % (size, name, path))


if __name__ == '__main__':
    main(sys.argv[1:])
