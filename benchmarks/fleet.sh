#!/usr/bin/env bash
# Fleet scale on this machine: site.yml on 1 node and on N nodes (default 4), each a first converge
# and a no-change re-run, with the wall time and the controller's CPU time in total and per node.
# The controller's CPU time is that of a cgroup of its own that ansible-playbook starts in (its
# workers and the podman or nsenter calls they make): as root the sandbox connection enters the
# nodes with nsenter, and the module processes it starts join the node's cgroup, so they are the
# node's time, as on a real node. Without a cgroup to create (not root, or no cpuacct) it is the
# process tree's user + system time, which then counts the module processes nsenter starts too.
# The nodes are sandbox nodes (inventories/sandbox's settings, hosts ascend-fleet-<i> on the
# network ascend-fleet), created for each size and removed afterwards. Prints a Markdown table,
# then as its last line:
#   n1_converge_s=.. n1_rerun_s=.. nN_converge_s=.. nN_rerun_s=.. wall_ratio_rerun=.. rerun_cpu_per_node_s=..
#   rerun_node_cpu_per_node_s=.. cpu_bound_ratio=.. cores=.. cpu_from=cgroup|tree
# A table column and rerun_node_cpu_per_node_s give the nodes' CPU time too (their containers'
# cgroups); cpu_bound_ratio is the least the N-node re-run can take, in one-node re-runs, when all
# its CPU time (the controller's and the nodes') shares the machine's cores.
#   NODES=4 bash benchmarks/fleet.sh [extra ansible-playbook args]
set -euo pipefail
. "$(dirname "$0")/bed.sh"
nodes=${NODES:-4}
out=$(mktemp -d)
# Two levels below the checkout, as inventories/sandbox: its group_vars find .sandbox/ and tests/
# through {{ inventory_dir }}/../..
inventories="$REPO_ROOT/.cache"
inventory() {
  local n=$1 dir="$inventories/fleet-$1" i
  rm -rf "$dir"
  mkdir -p "$dir/group_vars"
  cp -r inventories/sandbox/group_vars/ascend_nodes "$dir/group_vars/ascend_nodes"
  echo 'sandbox_network: ascend-fleet' >"$dir/group_vars/ascend_nodes/sandbox.yml"
  {
    printf 'all:\n  children:\n    ascend_nodes:\n      hosts:\n'
    for i in $(seq "$n"); do printf '        ascend-fleet-%s:\n          sandbox_profile: a2-910b3\n' "$i"; done
    printf '    vllm_head:\n      hosts: {}\n    vllm_workers:\n      hosts: {}\n'
  } >"$dir/hosts.yml"
  echo "$dir"
}
current=
remove() { [ -z "$current" ] || ansible-playbook -i "$current" playbooks/sandbox.yml -e sandbox_state=absent >/dev/null 2>&1 || true; }
# The controller's cgroup: cgroup v1's cpuacct hierarchy (cpuacct.usage, nanoseconds) or the
# cgroup v2 tree (cpu.stat usage_usec); removed on exit.
cgroup=
if [ -w /sys/fs/cgroup/cpuacct ]; then
  cgroup=/sys/fs/cgroup/cpuacct/ascend-fleet-$$
elif [ -f /sys/fs/cgroup/cgroup.controllers ] && [ -w /sys/fs/cgroup ]; then
  cgroup=/sys/fs/cgroup/ascend-fleet-$$
fi
[ -z "$cgroup" ] || mkdir "$cgroup" 2>/dev/null || cgroup=
trap 'remove; rm -rf "$out" "$inventories"/fleet-*; [ -z "$cgroup" ] || rmdir "$cgroup" 2>/dev/null || true' EXIT
cgroup_cpu_s() {
  if [ -f "$cgroup/cpuacct.usage" ]; then awk '{ printf "%.1f", $1 / 1e9 }' "$cgroup/cpuacct.usage"
  else awk '$1 == "usage_usec" { printf "%.1f", $2 / 1e6 }' "$cgroup/cpu.stat"; fi
}
# The nodes' CPU time: that of their containers' cgroups, which the module processes join
# (cpuacct.usage of cgroup v1, cpu.stat of v2), and when each container started: a reboot of a
# sandbox node restarts its container, whose new cgroup counts from zero, so a run with a reboot
# has no node figure. "-" when a cgroup cannot be read.
nodes_cpu_s() {
  local total=0 name path value
  for name in $(podman ps --format '{{.Names}}' | grep '^ascend-fleet-'); do
    path=$(podman inspect "$name" --format '{{.State.CgroupPath}}' 2>/dev/null) || { echo -; return; }
    if [ -f "/sys/fs/cgroup/cpuacct$path/cpuacct.usage" ]; then
      value=$(awk '{ printf "%.3f", $1 / 1e9 }' "/sys/fs/cgroup/cpuacct$path/cpuacct.usage")
    elif [ -f "/sys/fs/cgroup$path/cpu.stat" ]; then
      value=$(awk '$1 == "usage_usec" { printf "%.3f", $2 / 1e6 }' "/sys/fs/cgroup$path/cpu.stat")
    else
      echo -; return
    fi
    total=$(awk -v t="$total" -v v="$value" 'BEGIN { printf "%.3f", t + v }')
  done
  echo "$total"
}
nodes_started() { podman ps --format '{{.Names}} {{.StartedAt}}' | grep '^ascend-fleet-' | sort; }
declare -A wall cpu node_cpu
run() {
  local n=$1 name=$2 inv=$3 user sys before nodes_before started; shift 3
  [ -z "$cgroup" ] || before=$(cgroup_cpu_s)
  nodes_before=$(nodes_cpu_s)
  started=$(nodes_started)
  /usr/bin/time -f '%e %U %S' -o "$out/$n-$name.time" \
    bash -c '[ -z "$1" ] || echo $$ >"$1/cgroup.procs"; shift; exec "$@"' fleet "$cgroup" \
    ansible-playbook -i "$inv" site.yml "$@" >"$out/$n-$name.log" 2>&1 \
    || { tail -40 "$out/$n-$name.log" >&2; echo "site.yml failed on $n nodes ($name)" >&2; return 1; }
  read -r "wall[$n-$name]" user sys <"$out/$n-$name.time"
  if [ -n "$cgroup" ]; then
    cpu[$n-$name]=$(awk -v a="$before" -v b="$(cgroup_cpu_s)" 'BEGIN { printf "%.1f", b - a }')
  else
    cpu[$n-$name]=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')
  fi
  [ "$started" = "$(nodes_started)" ] || nodes_before=-
  node_cpu[$n-$name]=$(awk -v a="$nodes_before" -v b="$(nodes_cpu_s)" -v n="$n" \
    'BEGIN { if (a == "-" || b == "-") print "-"; else printf "%.1f", (b - a) / n }')
  printf '| %s | %s | %s | %s | %s | %s |\n' "$n" "$name" "${wall[$n-$name]}" "${cpu[$n-$name]}" \
    "$(awk -v c="${cpu[$n-$name]}" -v n="$n" 'BEGIN { printf "%.1f", c / n }')" "${node_cpu[$n-$name]}"
}
echo '| nodes | run | seconds | controller CPU seconds | controller CPU seconds per node | node CPU seconds per node |'
echo '|---|---|---|---|---|---|'
for n in 1 "$nodes"; do
  current=$(inventory "$n")
  remove
  ansible-playbook -i "$current" playbooks/sandbox.yml >/dev/null
  run "$n" converge "$current" "$@"
  run "$n" rerun "$current" "$@"
  remove
  current=
done
ratio=$(awk -v a="${wall[$nodes-rerun]}" -v b="${wall[1-rerun]}" 'BEGIN { printf "%.2f", a / b }')
per_node=$(awk -v c="${cpu[$nodes-rerun]}" -v n="$nodes" 'BEGIN { printf "%.1f", c / n }')
# All of a run's CPU time shares this machine's cores: N nodes' re-run takes at least N x (controller
# + node CPU per node) / cores, whatever the tasks wait for; printed against the measured ratio.
# Without the controller's own cgroup its figure holds the module processes too: none then.
cores=$(nproc)
floor=$(awk -v c="$per_node" -v m="${node_cpu[$nodes-rerun]}" -v n="$nodes" -v k="$cores" -v w="${wall[1-rerun]}" \
  -v g="$cgroup" 'BEGIN { if (m == "-" || g == "") print "-"; else printf "%.2f", n * (c + m) / k / w }')
echo "n1_converge_s=${wall[1-converge]} n1_rerun_s=${wall[1-rerun]} n${nodes}_converge_s=${wall[$nodes-converge]}" \
     "n${nodes}_rerun_s=${wall[$nodes-rerun]} wall_ratio_rerun=$ratio rerun_cpu_per_node_s=$per_node" \
     "rerun_node_cpu_per_node_s=${node_cpu[$nodes-rerun]} cpu_bound_ratio=$floor cores=$cores" \
     "cpu_from=$([ -n "$cgroup" ] && echo cgroup || echo tree)"
