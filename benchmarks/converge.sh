#!/usr/bin/env bash
# Wall time of site.yml on a fresh sandbox node: the first converge versus a no-change re-run,
# with the changed count of each run. The sandbox nodes of inventories/sandbox are removed and
# created again first (they are the project's own containers), and removed afterwards unless
# KEEP=1. Prints a Markdown table, then as its last line:
#   converge_s=<s> rerun_s=<s> rerun_changed=<n>
#   bash benchmarks/converge.sh [extra ansible-playbook args]
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
cd "$REPO_ROOT"
"$REPO_ROOT/scripts/setup.sh" >/dev/null
"$REPO_ROOT/scripts/sandbox-host.sh" >/dev/null 2>&1
. "$REPO_ROOT/scripts/lib.sh"   # picks up the image tag
sandbox() { ansible-playbook -i inventories/sandbox playbooks/sandbox.yml "$@" >/dev/null; }
sandbox -e sandbox_state=absent
sandbox
out=$(mktemp -d)
trap 'rm -rf "$out"; [ "${KEEP:-0}" = 1 ] || sandbox -e sandbox_state=absent' EXIT

declare -A seconds changed
run() {
  local name=$1 start end; shift
  start=$(date +%s.%N)
  ansible-playbook -i inventories/sandbox site.yml "$@" >"$out/$name.log" 2>&1 \
    || { tail -40 "$out/$name.log" >&2; echo "site.yml failed in the $name run" >&2; return 1; }
  end=$(date +%s.%N)
  seconds[$name]=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }')
  # The play recap has one line per host: sum the changed= counts.
  changed[$name]=$(awk '/^PLAY RECAP/ { recap = 1; next } recap && / changed=/ { for (i = 1; i <= NF; i++) if ($i ~ /^changed=/) { split($i, a, "="); n += a[2] } } END { print n + 0 }' "$out/$name.log")
  printf '| %s | %s | %s |\n' "$name" "${seconds[$name]}" "${changed[$name]}"
}
echo '| run | seconds | changed |'
echo '|---|---|---|'
run converge "$@"
run rerun "$@"
echo "converge_s=${seconds[converge]} rerun_s=${seconds[rerun]} rerun_changed=${changed[rerun]}"
