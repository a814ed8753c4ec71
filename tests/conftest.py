"""Make ``ansible_collections.ascend.vllm`` and the simulator importable for pytest.

The checkout is the collection root; ``collections/ansible_collections/ascend/vllm`` links
back to it, so putting ``collections`` on sys.path is enough.
"""
import os
import sys

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _path in (os.path.join(_ROOT, "collections"), os.path.join(_ROOT, "tests", "simulator")):
    if _path not in sys.path:
        sys.path.insert(0, _path)
