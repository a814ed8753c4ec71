"""Every filter of every filter plugin has its documentation file (ansible-doc -t filter reads it)."""
import importlib
import os

import pytest
import yaml

FILTER_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..', 'plugins', 'filter')
PLUGINS = sorted(name[:-3] for name in os.listdir(FILTER_DIR) if name.endswith('.py') and not name.startswith('_'))


def filter_names():
    names = []
    for plugin in PLUGINS:
        module = importlib.import_module('ansible_collections.ascend.vllm.plugins.filter.' + plugin)
        names.extend(module.FilterModule().filters())
    return names


@pytest.mark.parametrize('name', sorted(filter_names()))
def test_filter_has_a_doc_file_naming_it(name):
    with open(os.path.join(FILTER_DIR, name + '.yml')) as handle:
        text = handle.read()
    # Parsed as ansible-doc parses it: a colon in a plain scalar breaks the whole file.
    doc = yaml.safe_load(text)
    assert doc['DOCUMENTATION']['name'] == name
    assert doc['EXAMPLES'] and doc['RETURN']['_value']['description']
