#!/usr/bin/env bash
# Wall time of site.yml on a fresh sandbox node: the first converge versus a no-change re-run,
# with the changed count of each run, the tasks it ran (ok + changed + skipped, summed over hosts)
# and how often it read each host's NPUs (ascend.vllm.npu_facts executions, the most of any host;
# counted by benchmarks/callback/task_counts.py), and where the re-run's tasks are, by role. The
# sandbox nodes of inventories/sandbox are removed and created again first (they are the
# project's own containers), and removed afterwards unless KEEP=1. Prints two Markdown tables,
# then as its last line:
#   converge_s=<s> rerun_s=<s> rerun_changed=<n> rerun_tasks=<n> rerun_npu_facts=<n>
#   bash benchmarks/converge.sh [extra ansible-playbook args]
set -euo pipefail
. "$(dirname "$0")/bed.sh"
sandbox -e sandbox_state=absent
sandbox
out=$(mktemp -d)
trap 'rm -rf "$out"; [ "${KEEP:-0}" = 1 ] || sandbox -e sandbox_state=absent' EXIT

declare -A seconds changed tasks npu_reads
export ANSIBLE_CALLBACK_PLUGINS="$REPO_ROOT/benchmarks/callback"
export ANSIBLE_CALLBACKS_ENABLED="ansible.posix.profile_tasks,task_counts"
run() {
  local name=$1 start end; shift
  start=$(date +%s.%N)
  ASCEND_TASK_COUNTS="$out/$name.json" ansible-playbook -i inventories/sandbox site.yml "$@" >"$out/$name.log" 2>&1 \
    || { tail -40 "$out/$name.log" >&2; echo "site.yml failed in the $name run" >&2; return 1; }
  end=$(date +%s.%N)
  seconds[$name]=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.1f", e - s }')
  # The play recap has one line per host: sum the changed= counts.
  changed[$name]=$(awk '/^PLAY RECAP/ { recap = 1; next } recap && / changed=/ { for (i = 1; i <= NF; i++) if ($i ~ /^changed=/) { split($i, a, "="); n += a[2] } } END { print n + 0 }' "$out/$name.log")
  read -r "tasks[$name]" "npu_reads[$name]" < <(python3 -c '
import json, sys
counts = json.load(open(sys.argv[1]))
tasks = sum(n for host in counts["hosts"].values() for kind, n in host.items() if kind != "failed")
reads = max([mods.get("ascend.vllm.npu_facts", 0) for mods in counts["modules"].values()] or [0])
print(tasks, reads)' "$out/$name.json")
  printf '| %s | %s | %s | %s | %s |\n' "$name" "${seconds[$name]}" "${changed[$name]}" "${tasks[$name]}" "${npu_reads[$name]}"
}
echo '| run | seconds | changed | tasks run | npu_facts per host |'
echo '|---|---|---|---|---|'
run converge "$@"
run rerun "$@"
# Where the no-change run's tasks are: by role, most first.
echo
echo '| role | tasks in the re-run (ok + changed + skipped) | skipped |'
echo '|---|---|---|'
python3 -c '
import json, sys
roles = json.load(open(sys.argv[1]))["roles"]
rows = sorted(((sum(n for k, n in c.items() if k != "failed"), c.get("skipped", 0), r) for r, c in roles.items()), reverse=True)
for total, skipped, role in rows:
    print("| %s | %d | %d |" % (role, total, skipped))' "$out/rerun.json"
echo "converge_s=${seconds[converge]} rerun_s=${seconds[rerun]} rerun_changed=${changed[rerun]}" \
     "rerun_tasks=${tasks[rerun]} rerun_npu_facts=${npu_reads[rerun]}"
