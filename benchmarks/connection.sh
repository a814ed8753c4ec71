#!/usr/bin/env bash
# Cost of reaching a sandbox node: N command tasks (default 40) on one node through the upstream
# containers.podman.podman connection, through the sandbox's pipelined one
# (tests/sandbox/connection_plugins/sandbox_podman.py) with `podman exec` and with nsenter (its
# default as root), and through Mitogen's podman connection with its linear strategy (mitogen
# from requirements-dev.txt; not used by the suite). The sandbox nodes of inventories/sandbox
# are created first and removed afterwards unless KEEP=1. Prints a Markdown table of wall and
# controller CPU seconds (the ansible-playbook process tree: through nsenter the node's module
# processes are in it, through podman exec they are the container's), then as its last line:
#   upstream_s=<s> pipelined_s=<s> nsenter_s=<s> mitogen_s=<s> upstream_cpu_s=<s> pipelined_cpu_s=<s> nsenter_cpu_s=<s> mitogen_cpu_s=<s>
#   TASKS=40 bash benchmarks/connection.sh
set -euo pipefail
. "$(dirname "$0")/bed.sh"
sandbox
out=$(mktemp -d)
trap 'rm -rf "$out"; [ "${KEEP:-0}" = 1 ] || sandbox -e sandbox_state=absent' EXIT
tasks=${TASKS:-40}
{
  printf -- '- name: %s command tasks\n  hosts: ascend_nodes\n  gather_facts: false\n  tasks:\n' "$tasks"
  for i in $(seq "$tasks"); do
    printf '    - name: Task %s\n      ansible.builtin.command: /bin/true\n      changed_when: false\n' "$i"
  done
} >"$out/tasks.yml"
declare -A wall cpu
run() {
  local name=$1 connection=$2 user sys
  /usr/bin/time -f '%e %U %S' -o "$out/$name.time" \
    ansible-playbook -i inventories/sandbox "$out/tasks.yml" -e "ansible_connection=$connection" >"$out/$name.log" 2>&1 \
    || { tail -20 "$out/$name.log" >&2; return 1; }
  read -r wall[$name] user sys <"$out/$name.time"
  cpu[$name]=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')
  printf '| %s | %s | %s | %s |\n' "$name" "$connection" "${wall[$name]}" "${cpu[$name]}"
}
echo '| run | connection | seconds | controller CPU seconds |'
echo '|---|---|---|---|'
run upstream containers.podman.podman
ASCEND_SANDBOX_EXEC=podman run pipelined sandbox_podman
ASCEND_SANDBOX_EXEC=nsenter run nsenter sandbox_podman
mitogen_dir=$(python -c 'import ansible_mitogen, os; print(os.path.dirname(ansible_mitogen.__file__))')
ANSIBLE_STRATEGY_PLUGINS="$mitogen_dir/plugins/strategy" ANSIBLE_STRATEGY=mitogen_linear run mitogen podman
echo "upstream_s=${wall[upstream]} pipelined_s=${wall[pipelined]} nsenter_s=${wall[nsenter]} mitogen_s=${wall[mitogen]}" \
     "upstream_cpu_s=${cpu[upstream]} pipelined_cpu_s=${cpu[pipelined]} nsenter_cpu_s=${cpu[nsenter]}" \
     "mitogen_cpu_s=${cpu[mitogen]}"
