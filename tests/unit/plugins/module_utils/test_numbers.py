"""as_int reads numbers as Jinja's int filter did in the rules that moved into Python."""
import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.numbers import as_int


@pytest.mark.parametrize('value, expected', [
    (8, 8), ('8', 8), (' 8 ', 8), ('8.9', 8), (8.9, 8), (True, 1), ('x', 0), (None, 0), ('', 0), ('inf', 0),
])
def test_as_int(value, expected):
    assert as_int(value) == expected


def test_default():
    assert as_int('x', default=-1) == -1
