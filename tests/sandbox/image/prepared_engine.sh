#!/usr/bin/env bash
# The prepared engine image: the CANN image (ASCEND_SANDBOX_IMAGE_CANN, prepared.sh) with the
# vLLM service's virtualenv of the real engine and its model, installed by prepared_engine.yml
# through the vllm_service role and committed as <tag>-engine. The tag hashes the CANN image
# (whose tag hashes the roles, plugins and simulator), the vllm_service role, the engine's
# requirements and wheelhouse (scripts/engine.sh: each wheel's name and size), the model's
# manifest and these two files; an unchanged recipe reuses the image. Needs the bed's engine
# wheelhouse and model. Prints the image reference.
# Callers that may run side by side hold a lock around it (scripts/test.sh).
set -euo pipefail
. "$(dirname "$0")/../../../scripts/lib.sh"
cann=${ASCEND_SANDBOX_IMAGE_CANN:?ASCEND_SANDBOX_IMAGE_CANN must name the CANN image (tests/sandbox/image/prepared.sh)}
repo=${ASCEND_SANDBOX_IMAGE_REPO:-localhost/ascend-vllm-node}-prepared
wheels="$SANDBOX_DIR/engine/node-wheels"
model="$SANDBOX_DIR/models/engine/DeepSeek-R1-Distill-Qwen-7B"
[ -d "$wheels" ] && [ -f "$model/SHA256SUMS" ] || die "no engine wheelhouse or model under $SANDBOX_DIR (scripts/engine.sh --nodes)"
tag=$(cd "$REPO_ROOT" && {
  echo "$cann"
  (cd "$wheels" && stat -c '%n %s' -- *)
  cat "$SANDBOX_DIR"/engine/requirements-*.txt "$model/SHA256SUMS"
  tar -c --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --exclude=__pycache__ \
    roles/vllm_service tests/sandbox/image/prepared_engine.sh tests/sandbox/image/prepared_engine.yml
} | sha256sum | cut -c1-12)
engine="$repo:$tag-engine"
if podman image exists "$engine"; then
  echo "$engine"
  exit 0
fi

name=ascend-prepared-engine-$$
trap 'podman rm -f -t 0 "$name" >/dev/null 2>&1 || true' EXIT
log "building $engine from $cann"
podman run -d --name "$name" --hostname "$name" --privileged --systemd=always \
  -v "$SANDBOX_DIR/sysfs/a2-910b3/bus/pci/devices:/sys/bus/pci/devices:ro" \
  -v "$wheels:/var/cache/ascend-vllm/wheels:ro" "$cann" /sbin/init >/dev/null
out=$(mktemp -d)
# Host variables, not extra vars: those would send the play's delegated controller task into the
# container too.
printf '%s ansible_connection=sandbox_podman ansible_python_interpreter=/usr/bin/python3\n' "$name" >"$out/hosts"
if ! ansible-playbook -i "$out/hosts" -e "prepared_engine_image=$engine" \
    "$REPO_ROOT/tests/sandbox/image/prepared_engine.yml" >"$out/log" 2>&1; then
  tail -40 "$out/log" >&2
  rm -rf "$out"
  podman rmi "$engine" >/dev/null 2>&1 || true
  die "prepared_engine.yml failed on $name"
fi
rm -rf "$out"
# Older builds are ours and no longer used.
podman images --format '{{.Tag}}' --filter "reference=$repo" | grep -E '^[0-9a-f]{12}-engine$' \
  | grep -v "^$tag-" | sed "s|^|$repo:|" | xargs -r podman rmi >/dev/null 2>&1 || true
echo "$engine"
