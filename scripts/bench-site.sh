#!/usr/bin/env bash
# Wall time of site.yml on the sandbox: first converge versus a no-change re-run, with the
# changed count of each. Creates the sandbox nodes, and removes them afterwards unless KEEP=1.
#   bash scripts/bench-site.sh [extra ansible-playbook args]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$REPO_ROOT"
"$REPO_ROOT/scripts/sandbox-host.sh" >/dev/null 2>&1
. "$REPO_ROOT/scripts/lib.sh"
ansible-playbook -i inventories/sandbox playbooks/sandbox.yml >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"; [ "${KEEP:-0}" = 1 ] || ansible-playbook -i inventories/sandbox playbooks/sandbox.yml -e sandbox_state=absent >/dev/null' EXIT
run() {
  local name=$1 start end; shift
  start=$(date +%s.%N)
  ansible-playbook -i inventories/sandbox site.yml "$@" >"$out/$name.log" 2>&1 \
    || { tail -30 "$out/$name.log"; return 1; }
  end=$(date +%s.%N)
  printf '| %s | %s | %s |\n' "$name" "$(python3 -c "print('%.1f' % ($end - $start))")" \
    "$(grep -Eo 'changed=[0-9]+' "$out/$name.log" | cut -d= -f2 | python3 -c 'import sys; print(sum(map(int, sys.stdin.read().split())))')"
}
echo '| run | seconds | changed |'
echo '|---|---|---|'
run converge "$@"
run rerun "$@"
