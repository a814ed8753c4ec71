#!/usr/bin/env bash
# Quick start, part two: the whole suite — unit tests, linters, ansible-test sanity, a build of
# the collection, and every Molecule scenario. Every stage runs and reports; the exit code is
# non-zero when any stage failed. Pick stages by name: scripts/test.sh unit lint
# Stages: setup bed unit yamllint ansible-lint changelog sanity build engine molecule
# MOLECULE_SCENARIOS="default npu_driver" limits the scenarios (default: all under molecule/);
# ASCEND_MOLECULE_JOBS=1 runs them one after another. The scenarios start once setup and bed are
# done and run beside the other stages; their logs print as each scenario ends.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$REPO_ROOT"

all_stages=(setup bed unit yamllint ansible-lint changelog sanity build engine molecule)
want=("$@")
[ ${#want[@]} -gt 0 ] || want=("${all_stages[@]}")
selected() { local s; for s in "${want[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

logs="$REPO_ROOT/.cache/test-logs"
mkdir -p "$logs"
suite_start=$(date +%s)

stage_setup() { "$REPO_ROOT/scripts/setup.sh"; }
stage_bed() {
  "$REPO_ROOT/scripts/sandbox-host.sh" || return 1
  # The image sandbox-host.sh chose (re-sourcing lib.sh would reset the stage records).
  ASCEND_SANDBOX_IMAGE=$(cat "$SANDBOX_DIR/image")
  export ASCEND_SANDBOX_IMAGE
}
stage_unit() { python -m pytest tests/unit -q -p no:cacheprovider 2>&1 | tee "$logs/unit.log"; return "${PIPESTATUS[0]}"; }
stage_yamllint() { yamllint -s .; }
stage_ansible_lint() { ansible-lint --offline -q; }
stage_changelog() { antsibull-changelog lint; }
stage_sanity() { "$REPO_ROOT/scripts/sanity.sh"; }
stage_build() {
  local out; out=$(mktemp -d)
  ansible-galaxy collection build --force --output-path "$out" >/dev/null || { rm -rf "$out"; return 1; }
  local tarball; tarball=$(ls "$out"/ascend-vllm-*.tar.gz)
  local junk; junk=$(tar -tzf "$tarball" | grep -E '(^|/)(\.venv|\.cache|\.sandbox|\.ansible|\.git|__pycache__|\.molecule|collections/ansible_collections)(/|$)' | head -5)
  printf 'built %s (%s KiB, %s files)\n' "$(basename "$tarball")" "$(( $(stat -c %s "$tarball") / 1024 ))" "$(tar -tzf "$tarball" | wc -l)"
  rm -rf "$out"
  [ -z "$junk" ] || { echo "build junk in the collection tarball:"; echo "$junk"; return 1; }
}
# The real vLLM of the default release (scripts/engine.sh, cached in .sandbox/engine) parses every
# profile's serve command line (tests/engine).
stage_engine() {
  local python
  python=$("$REPO_ROOT/scripts/engine.sh") || return 1
  ASCEND_ENGINE_PYTHON=$python python -m pytest tests/engine -q -p no:cacheprovider 2>&1 | tee "$logs/engine.log"
  return "${PIPESTATUS[0]}"
}
# Scenarios run side by side (ASCEND_MOLECULE_JOBS, default 3): most of a scenario's time is spent
# waiting on systemd, installers and health gates inside its own containers (measured: two
# scenarios together took 84 s against 144 s one after the other, at a third of two cores).
# Longest first, so the lanes end together; scenarios not listed go first.
# The first three need no prepared image, which is built beside them.
molecule_order="operations aarch64 site older_os ray_cluster multinode vllm_service dp_engine npu_driver container hccn cann kernel_tuning
  benchmark decommission preflight simulator diagnostics monitoring os_prerequisites modules default"
# These change host-global kernel state (huge pages, sysctls) and restore it afterwards; they take
# one lock so they never overlap each other.
host_global_scenarios=" modules kernel_tuning "
# Scenarios whose nodes start with the NPU driver (and CANN) installed name the prepared images
# (tests/sandbox/image/prepared.sh) in their molecule.yml. Built once per recipe under a lock:
# stage_molecule starts the build beside the first scenarios, and a scenario that needs the
# images waits for it (or builds them when run alone).
needs_prepared() { grep -qE 'ASCEND_SANDBOX_IMAGE_(DRIVER|CANN|ENGINE)' "molecule/$1/molecule.yml"; }
prepared_images() { flock "$logs/prepared.lock" "$REPO_ROOT/tests/sandbox/image/prepared.sh"; }
# Scenarios that serve the real engine from the engine image (prepared_engine.sh: the CANN image
# with the engine's virtualenv) name ASCEND_SANDBOX_IMAGE_ENGINE. Its own lock: the scenarios
# that need only the driver or CANN image do not wait for it.
needs_engine() { grep -q 'ASCEND_SANDBOX_IMAGE_ENGINE' "molecule/$1/molecule.yml"; }
engine_image() { flock "$logs/prepared-engine.lock" "$REPO_ROOT/tests/sandbox/image/prepared_engine.sh"; }
molecule_one() {
  local s=$1 start rc images
  start=$(date +%s)
  : >"$logs/molecule-$s.log"
  if needs_prepared "$s"; then
    if ! images=$(prepared_images 2>>"$logs/molecule-$s.log"); then
      echo "1 $(( $(date +%s) - start ))" >"$logs/molecule-$s.result"
      return
    fi
    read -r ASCEND_SANDBOX_IMAGE_DRIVER ASCEND_SANDBOX_IMAGE_CANN <<<"$images"
    export ASCEND_SANDBOX_IMAGE_DRIVER ASCEND_SANDBOX_IMAGE_CANN
  fi
  if needs_engine "$s"; then
    if ! ASCEND_SANDBOX_IMAGE_ENGINE=$(engine_image 2>>"$logs/molecule-$s.log"); then
      echo "1 $(( $(date +%s) - start ))" >"$logs/molecule-$s.result"
      return
    fi
    export ASCEND_SANDBOX_IMAGE_ENGINE
  fi
  # The Kunpeng node's image: built here (minutes under emulation), reused while its recipe holds.
  if [ "$s" = aarch64 ] && [ -z "${ASCEND_SANDBOX_IMAGE_ARM64:-}" ]; then
    if ! ASCEND_SANDBOX_IMAGE_ARM64=$(ASCEND_SANDBOX_ARCH=arm64 "$REPO_ROOT/tests/sandbox/image/build.sh" 2>>"$logs/molecule-$s.log"); then
      echo "1 $(( $(date +%s) - start ))" >"$logs/molecule-$s.result"
      return
    fi
    export ASCEND_SANDBOX_IMAGE_ARM64
  fi
  # The older-OS node's image (Debian 11) and the CPython archive of its interpreter route, built
  # in its lane once per recipe (tests/sandbox/image/cpython.sh).
  if [ "$s" = older_os ] && [ -z "${ASCEND_SANDBOX_IMAGE_BULLSEYE:-}" ]; then
    if ! ASCEND_SANDBOX_IMAGE_BULLSEYE=$(ASCEND_SANDBOX_SUITE=bullseye "$REPO_ROOT/tests/sandbox/image/build.sh" 2>>"$logs/molecule-$s.log") \
      || ! ASCEND_SANDBOX_PYTHON_ARCHIVE=$("$REPO_ROOT/tests/sandbox/image/cpython.sh" "$ASCEND_SANDBOX_IMAGE_BULLSEYE" \
             "$SANDBOX_DIR/artifacts/910b" "$SANDBOX_DIR/artifacts/910b-older-os" 2>>"$logs/molecule-$s.log"); then
      echo "1 $(( $(date +%s) - start ))" >"$logs/molecule-$s.result"
      return
    fi
    export ASCEND_SANDBOX_IMAGE_BULLSEYE ASCEND_SANDBOX_PYTHON_ARCHIVE
  fi
  if [[ $host_global_scenarios == *" $s "* ]]; then
    flock "$logs/host-global.lock" molecule test -s "$s" >>"$logs/molecule-$s.log" 2>&1
  else
    molecule test -s "$s" >>"$logs/molecule-$s.log" 2>&1
  fi
  rc=$?
  # CPU seconds of everything this lane ran and waited for (bash's `times`: Molecule, Ansible, and
  # the node's modules, which run under the nsenter connection's process); the engines and jobs
  # the nodes' systemd starts are not in it.
  times >"$logs/molecule-$s.times"
  echo "$rc $(( $(date +%s) - start )) $(lane_cpu <"$logs/molecule-$s.times")" >"$logs/molecule-$s.result"
}
# The children's user + system seconds from `times` output (its second line, e.g. "1m2.5s 0m3.1s").
lane_cpu() {
  sed -n 2p | tr 'ms' '  ' | awk '{printf "%d\n", $1 * 60 + $2 + $3 * 60 + $4}'
}
# molecule_reap: waits for one running scenario, reports it and drops it from the running list.
molecule_reap() {
  local done_pid p left=()
  wait -n -p done_pid "${running[@]}"
  molecule_report "${scenario_of[$done_pid]}"
  for p in "${running[@]}"; do [ "$p" = "$done_pid" ] || left+=("$p"); done
  running=("${left[@]}")
}
molecule_report() {
  local s=$1 rc secs cpu
  read -r rc secs cpu <"$logs/molecule-$s.result"
  log "stage molecule:$s (log follows)"
  cat "$logs/molecule-$s.log"
  # Written to files as well: the molecule stage runs in a subshell beside the other stages.
  printf '%-28s %5ss  %s%s\n' "molecule:$s" "$secs" "$([ "$rc" -eq 0 ] && echo ok || echo "FAILED (rc $rc)")" \
    "${cpu:+ (CPU ${cpu}s)}" >>"$logs/molecule.stages"
  [ "$rc" -eq 0 ] || echo "molecule:$s" >>"$logs/molecule.failed"
}
stage_molecule() {
  local scenarios=${MOLECULE_SCENARIOS:-} jobs=${ASCEND_MOLECULE_JOBS:-3} s ordered=() pid start
  start=$(date +%s)
  # Read by molecule_reap (bash's dynamic scope).
  local running=()
  local -A scenario_of=()
  if [ -z "$scenarios" ]; then
    scenarios=$(for f in molecule/*/molecule.yml; do basename "$(dirname "$f")"; done)
  fi
  local order_words=" ${molecule_order//$'\n'/ } " scenario_words=" ${scenarios//$'\n'/ } "
  for s in $scenarios; do [[ $order_words == *" $s "* ]] || ordered+=("$s"); done
  for s in $molecule_order; do [[ $scenario_words == *" $s "* ]] && ordered+=("$s"); done
  log "molecule: ${#ordered[@]} scenarios, $jobs at a time: ${ordered[*]}"
  local engine_wanted=
  for s in "${ordered[@]}"; do needs_engine "$s" && engine_wanted=1; done
  for s in "${ordered[@]}"; do
    if needs_prepared "$s"; then
      ( start=$(date +%s)
        images=$(prepared_images 2>"$logs/prepared.log") && result=ok || result=FAILED
        printf '%-28s %5ss  %s\n' "prepared images" "$(( $(date +%s) - start ))" "$result" >>"$logs/molecule.stages"
        if [ -n "$engine_wanted" ] && [ "$result" = ok ]; then
          start=$(date +%s)
          read -r _ cann <<<"$images"
          ASCEND_SANDBOX_IMAGE_CANN=$cann engine_image >/dev/null 2>"$logs/prepared-engine.log" && result=ok || result=FAILED
          printf '%-28s %5ss  %s\n' "engine image" "$(( $(date +%s) - start ))" "$result" >>"$logs/molecule.stages"
        fi ) &
      break
    fi
  done
  for s in "${ordered[@]}"; do
    rm -f "$logs/molecule-$s.result"
    while [ ${#running[@]} -ge "$jobs" ]; do molecule_reap; done
    molecule_one "$s" &
    pid=$!
    scenario_of[$pid]=$s
    running+=("$pid")
  done
  while [ ${#running[@]} -gt 0 ]; do molecule_reap; done
  printf '%-28s %5ss  (wall time of all scenarios)\n' "molecule" "$(( $(date +%s) - start ))" >>"$logs/molecule.stages"
}

# The scenarios start as soon as the toolchain and the bed are ready and run beside the other
# stages (unit, lint, sanity, build, engine), whose checks need no container: a scenario spends
# most of its time waiting inside its containers, so the machine has room for them.
molecule_pid=
start_molecule() {
  rm -f "$logs/molecule.stages" "$logs/molecule.failed"
  stage_molecule &
  molecule_pid=$!
}
finish_molecule() {
  local line
  [ -n "$molecule_pid" ] || return 0
  wait "$molecule_pid"
  [ -f "$logs/molecule.stages" ] && while IFS= read -r line; do STAGES+=("$line"); done <"$logs/molecule.stages"
  [ -f "$logs/molecule.failed" ] && while IFS= read -r line; do FAILED_STAGES+=("$line"); done <"$logs/molecule.failed"
}
for stage in "${all_stages[@]}"; do
  selected "$stage" || continue
  [ "$stage" = molecule ] && continue
  if [ "$stage" != setup ] && [ "$stage" != bed ] && [ -z "$molecule_pid" ] && selected molecule; then
    start_molecule
  fi
  run_stage "$stage" "stage_${stage//-/_}"
  # Without the toolchain or the bed nothing after them can run meaningfully.
  if [ ${#FAILED_STAGES[@]} -gt 0 ] && { [ "$stage" = setup ] || [ "$stage" = bed ]; }; then
    break
  fi
done
if [ ${#FAILED_STAGES[@]} -eq 0 ] || [ -n "$molecule_pid" ]; then
  [ -n "$molecule_pid" ] || ! selected molecule || start_molecule
  finish_molecule
fi

# Where the scenarios' time went, step by step (printing only: it never changes the result).
if [ -n "$molecule_pid" ] && [ -f "$logs/molecule.stages" ]; then
  mapfile -t ran < <(sed -n "s|^molecule:\([^ ]*\) .*|$logs/molecule-\1.log|p" "$logs/molecule.stages")
  [ ${#ran[@]} -eq 0 ] || python "$REPO_ROOT/scripts/molecule_steps.py" "${ran[@]}" >&2 || true
fi
print_stages
# The suite's CPU seconds (what it ran and waited for; not the services the nodes' systemd starts)
# against the wall time: the scenarios run side by side, so the cores bound the total.
times >"$logs/suite.times"
printf '  %-28s %5ss  (CPU %ss on %s cores)\n' total "$(( $(date +%s) - suite_start ))" \
  "$(lane_cpu <"$logs/suite.times")" "$(nproc)" >&2
if [ ${#FAILED_STAGES[@]} -gt 0 ]; then
  printf 'FAILED stages: %s\n' "${FAILED_STAGES[*]}" >&2
  # Why each failed scenario failed, at the end, where a CI output cut to its tail still shows it.
  mapfile -t broken < <(printf '%s\n' "${FAILED_STAGES[@]}" | sed -n "s|^molecule:\(.*\)$|$logs/molecule-\1.log|p")
  [ ${#broken[@]} -eq 0 ] || python "$REPO_ROOT/scripts/failure_excerpt.py" "${broken[@]}" >&2 || true
fi
# pytest's own summary line closes the output, so CI reads the unit test count.
[ -f "$logs/unit.log" ] && selected unit && grep -E '^=+ .*(passed|failed|error).* =+$|^[0-9]+ (passed|failed)' "$logs/unit.log" | tail -1
[ ${#FAILED_STAGES[@]} -eq 0 ]
