#!/usr/bin/env bash
# The prepared node images: the sandbox image (ASCEND_SANDBOX_IMAGE) as a simulated A2 server
# with its NPU driver installed (<tag>-driver), and with CANN of the default stack as well
# (<tag>-cann), built by prepared.yml through the roles themselves and committed. The tag hashes
# the base image and everything that decides what those roles install, so a change to either
# builds them again; otherwise they are reused. Prints the two image references on one line.
# Callers that may run side by side hold a lock around it (scripts/test.sh).
set -euo pipefail
. "$(dirname "$0")/../../../scripts/lib.sh"
base=${ASCEND_SANDBOX_IMAGE:?ASCEND_SANDBOX_IMAGE must name the sandbox image (scripts/sandbox-host.sh)}
repo=${ASCEND_SANDBOX_IMAGE_REPO:-localhost/ascend-vllm-node}-prepared
tag=$(cd "$REPO_ROOT" && {
  echo "$base"
  tar -c --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner --exclude=__pycache__ \
    roles/npu_driver roles/cann roles/artifacts roles/os_prerequisites roles/node_facts plugins tests/simulator \
    tests/sandbox/node.yml tests/sandbox/restart_node.yml tests/sandbox/connection_plugins \
    tests/sandbox/image/prepared.sh tests/sandbox/image/prepared.yml
} | sha256sum | cut -c1-12)
driver="$repo:$tag-driver"
cann="$repo:$tag-cann"
if podman image exists "$driver" && podman image exists "$cann"; then
  echo "$driver $cann"
  exit 0
fi

name=ascend-prepared-$$
trap 'podman rm -f -t 0 "$name" >/dev/null 2>&1 || true' EXIT
log "building $driver and $cann from $base"
podman run -d --name "$name" --hostname "$name" --privileged --systemd=always \
  -v "$SANDBOX_DIR/sysfs/a2-910b3/bus/pci/devices:/sys/bus/pci/devices:ro" "$base" /sbin/init >/dev/null
out=$(mktemp -d)
# Host variables, not extra vars: those would send the plays' delegated controller tasks into
# the container too.
printf '%s ansible_connection=sandbox_podman ansible_python_interpreter=/usr/bin/python3\n' "$name" >"$out/hosts"
if ! ansible-playbook -i "$out/hosts" -e "prepared_driver_image=$driver" -e "prepared_cann_image=$cann" \
    "$REPO_ROOT/tests/sandbox/image/prepared.yml" >"$out/log" 2>&1; then
  tail -40 "$out/log" >&2
  rm -rf "$out"
  podman rmi "$driver" "$cann" >/dev/null 2>&1 || true
  die "prepared.yml failed on $name"
fi
rm -rf "$out"
# Older builds are ours and no longer used.
podman images --format '{{.Tag}}' --filter "reference=$repo" | grep -E '^[0-9a-f]{12}-(driver|cann)$' \
  | grep -v "^$tag-" | sed "s|^|$repo:|" | xargs -r podman rmi >/dev/null 2>&1 || true
echo "$driver $cann"
