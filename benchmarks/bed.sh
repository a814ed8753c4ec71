# shellcheck shell=bash
# Sourced by the benchmarks: the toolchain, the sandbox host and image, and `sandbox`, which creates
# (or with -e sandbox_state=absent removes) the nodes of inventories/sandbox. Never executed.
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"
cd "$REPO_ROOT"
"$REPO_ROOT/scripts/setup.sh" >/dev/null
"$REPO_ROOT/scripts/sandbox-host.sh" >/dev/null 2>&1
. "$REPO_ROOT/scripts/lib.sh"   # picks up the image tag
sandbox() { ansible-playbook -i inventories/sandbox playbooks/sandbox.yml "$@" >/dev/null; }
