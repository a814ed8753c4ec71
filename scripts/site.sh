#!/usr/bin/env bash
# Quick start, part one: prepare this machine, create the sandbox nodes of
# inventories/sandbox and run site.yml against them. Extra arguments go to ansible-playbook.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
"$REPO_ROOT/scripts/setup.sh"
"$REPO_ROOT/scripts/sandbox-host.sh"
ASCEND_SANDBOX_IMAGE=$(cat "$SANDBOX_DIR/image")   # the image sandbox-host.sh chose
export ASCEND_SANDBOX_IMAGE
cd "$REPO_ROOT"
ansible-playbook -i inventories/sandbox playbooks/sandbox.yml
ansible-playbook -i inventories/sandbox site.yml "$@"
