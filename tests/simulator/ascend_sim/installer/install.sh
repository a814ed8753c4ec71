#!/bin/bash
# Startup script of a simulated Ascend package.  The makeself header runs it from the
# extracted payload as: install.sh --<package file> --<directory it was started in>
# [--quiet] <options>, like the vendor's install.sh; the work is done in Python.
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if ! command -v python3 >/dev/null 2>&1; then
    echo "[ERROR]python3 is required to install this package" >&2
    exit 1
fi
PYTHONPATH="${script_dir}${PYTHONPATH:+:${PYTHONPATH}}" exec python3 -m ascend_sim.installer "$@"
