#!/usr/bin/env bash
# Quick start, part two: the whole suite — unit tests, linters, ansible-test sanity, a build of
# the collection, and every Molecule scenario. Every stage runs and reports; the exit code is
# non-zero when any stage failed. Pick stages by name: scripts/test.sh unit lint
# Stages: setup bed unit yamllint ansible-lint changelog sanity build molecule
# MOLECULE_SCENARIOS="default npu_driver" limits the scenarios (default: all under molecule/).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
cd "$REPO_ROOT"

all_stages=(setup bed unit yamllint ansible-lint changelog sanity build molecule)
want=("$@")
[ ${#want[@]} -gt 0 ] || want=("${all_stages[@]}")
selected() { local s; for s in "${want[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

logs="$REPO_ROOT/.cache/test-logs"
mkdir -p "$logs"
suite_start=$(date +%s)

stage_setup() { "$REPO_ROOT/scripts/setup.sh"; }
stage_bed() {
  "$REPO_ROOT/scripts/sandbox-host.sh" || return 1
  # The image just built (re-sourcing lib.sh would reset the stage records).
  [ -n "${ASCEND_SANDBOX_IMAGE:-}" ] || { ASCEND_SANDBOX_IMAGE=$(cat "$SANDBOX_DIR/image"); export ASCEND_SANDBOX_IMAGE; }
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
stage_molecule() {
  local scenarios=${MOLECULE_SCENARIOS:-} rc=0 s
  if [ -z "$scenarios" ]; then
    scenarios=$(for f in molecule/*/molecule.yml; do basename "$(dirname "$f")"; done)
  fi
  for s in $scenarios; do
    run_stage "molecule:$s" molecule test -s "$s" || rc=1
  done
  return $rc
}

for stage in "${all_stages[@]}"; do
  selected "$stage" || continue
  if [ "$stage" = molecule ]; then
    stage_molecule
  else
    run_stage "$stage" "stage_${stage//-/_}"
  fi
  # Without the toolchain or the bed nothing after them can run meaningfully.
  if [ ${#FAILED_STAGES[@]} -gt 0 ] && { [ "$stage" = setup ] || [ "$stage" = bed ]; }; then
    break
  fi
done

print_stages
printf '  %-28s %5ss\n' total "$(( $(date +%s) - suite_start ))" >&2
if [ ${#FAILED_STAGES[@]} -gt 0 ]; then
  printf 'FAILED stages: %s\n' "${FAILED_STAGES[*]}" >&2
fi
# pytest's own summary line closes the output, so CI reads the unit test count.
[ -f "$logs/unit.log" ] && selected unit && grep -E '^=+ .*(passed|failed|error).* =+$|^[0-9]+ (passed|failed)' "$logs/unit.log" | tail -1
[ ${#FAILED_STAGES[@]} -eq 0 ]
