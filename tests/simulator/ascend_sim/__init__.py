"""Stand-ins for Ascend NPU hardware and vendor tools, used only by the test bed.

Sibling modules: ``paths`` (re-rootable paths), ``state`` (the node's JSON state),
``profiles`` (server models), ``npu_smi``, ``hccn_tool``, ``sysfs``; ``python3 -m ascend_sim``
is the command line. See tests/simulator/README.md.
"""
