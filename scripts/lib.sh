# shellcheck shell=bash
# Common environment for the project's scripts: repository root, the pinned virtualenv,
# the project-local podman configuration and stage timing. Sourced, never executed.

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VENV="${ASCEND_VENV:-$REPO_ROOT/.venv}"
SANDBOX_DIR="$REPO_ROOT/.sandbox"

# podman reads this instead of /etc/containers/containers.conf: the host's files stay untouched.
export CONTAINERS_CONF="$SANDBOX_DIR/containers.conf"
export ANSIBLE_CONFIG="$REPO_ROOT/ansible.cfg"
export PATH="$VENV/bin:$PATH"
# Localhost plays run on the controller's own Python; interpreter discovery may find shims
# that point at interpreters which no longer exist.
export ASCEND_CONTROLLER_PYTHON="$VENV/bin/python"
export PY_COLORS=0 ANSIBLE_FORCE_COLOR=0 ANSIBLE_NOCOLOR=1

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

STAGES=()
# run_stage NAME COMMAND...: runs a stage, records its duration and result; never aborts the suite
# so that every stage reports, the caller decides from FAILED_STAGES.
FAILED_STAGES=()
run_stage() {
  local name=$1 start rc
  shift
  log "stage $name: $*"
  start=$(date +%s)
  "$@"
  rc=$?
  STAGES+=("$(printf '%-28s %5ss  %s' "$name" "$(( $(date +%s) - start ))" "$([ $rc -eq 0 ] && echo ok || echo "FAILED (rc $rc)")")")
  [ $rc -eq 0 ] || FAILED_STAGES+=("$name")
  return $rc
}
print_stages() {
  printf '\nStage durations:\n' >&2
  printf '  %s\n' "${STAGES[@]}" >&2
}

# Molecule scenarios live in molecule/ at the root (one per role), not extensions/molecule.
export MOLECULE_GLOB="molecule/*/molecule.yml"
# The image built by scripts/sandbox-host.sh, unless the user points at their own.
if [ -z "${ASCEND_SANDBOX_IMAGE:-}" ] && [ -f "$SANDBOX_DIR/image" ]; then
  ASCEND_SANDBOX_IMAGE=$(cat "$SANDBOX_DIR/image")
  export ASCEND_SANDBOX_IMAGE
fi
