"""Install scripts that run inside the simulated Ascend ``.run`` packages.

The makeself header of every package calls ``<dir>/script/install.sh`` the way the vendor's
header does (``--<package path> --<cwd> [--quiet ] <options>``); that shell script starts
``python3 -m ascend_sim.installer`` from the copy of this package shipped in the payload.

Modules: ``common`` (logs, install-info files, node state, prompts, failure injection),
``hdk`` (driver and firmware), ``cann`` (toolkit, kernels/ops, NNAL), ``upgrade_tool``
(the driver's ``upgrade-tool``), ``main`` (dispatch on the payload's package.json).
"""
