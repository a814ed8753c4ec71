#!/usr/bin/env bash
# Prepare this machine to run sandbox nodes: Debian packages (podman, runc, debootstrap,
# makeself), a project-local containers.conf, and the node image. Idempotent; /etc is not edited.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

missing=()
# qemu-user-static: Kunpeng (aarch64) nodes on an x86_64 machine (the aarch64 scenario).
for pkg in podman runc debootstrap makeself qemu-user-static binfmt-support; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" -eq 0 ] || die "installing ${missing[*]} needs root (apt-get)"
  log "installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# runc: crun refuses the cgroup layout of these hosts. Default ulimits no higher than the host's
# hard limits, or every container fails to start.
mkdir -p "$SANDBOX_DIR"
nofile=$(ulimit -Hn); nproc=$(ulimit -Hu)
cap() { if [ "$1" = unlimited ] || [ "$1" -gt "$2" ]; then echo "$2"; else echo "$1"; fi; }
nofile=$(cap "$nofile" 4096); nproc=$(cap "$nproc" 4096)
conf=$(cat <<CONF
# Written by scripts/sandbox-host.sh; used through CONTAINERS_CONF only.
[containers]
default_ulimits = ["nofile=$(cap 1024 "$nofile"):$nofile", "nproc=$nproc:$nproc"]

[engine]
runtime = "runc"
CONF
)
[ "$(cat "$CONTAINERS_CONF" 2>/dev/null)" = "$conf" ] || printf '%s\n' "$conf" > "$CONTAINERS_CONF"

# The user's own image when ASCEND_SANDBOX_IMAGE names one; otherwise the recipe's (built when the
# recipe changed: lib.sh exports the last one built, which is not a choice of the user's).
if [ -n "${ASCEND_SANDBOX_IMAGE:-}" ] && [ "$ASCEND_SANDBOX_IMAGE" != "$(cat "$SANDBOX_DIR/image" 2>/dev/null)" ]; then
  image=$ASCEND_SANDBOX_IMAGE
else
  image=$("$REPO_ROOT/tests/sandbox/image/build.sh")
fi
printf '%s\n' "$image" > "$SANDBOX_DIR/image"
log "sandbox image: $image"

# A Kunpeng (aarch64) node: the same recipe for arm64, its binaries run by qemu-user-static. The
# handler must carry the F flag (the kernel opens the emulator when it is registered), or the
# emulator is not found inside a container's root file system.
# Only the aarch64 scenario needs it: a machine that cannot register it warns here, and that
# scenario alone fails (its image build cannot run arm64 programs).
if [ "$(dpkg --print-architecture)" != arm64 ]; then
  { [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc; } \
    && { [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64; } \
    && grep -q '^flags:.*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 \
    || log "WARNING: no qemu-aarch64 binfmt handler with the F flag here; the aarch64 scenario will fail"
fi
# Its image (tests/sandbox/image/build.sh with ASCEND_SANDBOX_ARCH=arm64) takes minutes under
# emulation: scripts/test.sh builds it in the aarch64 scenario's lane, beside the other scenarios.

# The PCI devices each simulated server shows before any driver: one sysfs tree per profile,
# bind-mounted read-only over /sys/bus/pci/devices of the nodes (what preflight and facts read).
for profile in a2-910b3 a3-9392 310p3-duo; do
  tree="$SANDBOX_DIR/sysfs/$profile"
  PYTHONPATH="$REPO_ROOT/tests/simulator" python3 -m ascend_sim init --force --profile "$profile" \
    --state "$tree/state.json" --sysfs-root "$tree" >/dev/null
done

# The vendor packages (.run, with SHA256SUMS) and Python wheels the sandbox site installs from:
# the simulated ones, built for this machine's architecture (the nodes share its kernel).
arch=$(uname -m)
for chip in 910b 910_93 310p; do
  PYTHONPATH="$REPO_ROOT/tests/simulator" python3 -m ascend_sim.packages build \
    --out "$SANDBOX_DIR/artifacts/$chip" --arch "$arch" --chip "$chip" >/dev/null
done
# And for the Kunpeng node: the A2 packages in their aarch64 spelling.
PYTHONPATH="$REPO_ROOT/tests/simulator" python3 -m ascend_sim.packages build \
  --out "$SANDBOX_DIR/artifacts/910b-aarch64" --arch aarch64 --chip 910b >/dev/null
# The real PyPI wheels a serving venv needs besides the stand-ins: CANN's Python requirements
# (the cann role's cann_python_requirements; numpy below 2 for CANN 8.x, any for 9.x) and pillow
# (which vLLM and torchvision require, as published), for the
# nodes' Python 3.11 on this architecture, from the index of this machine's pip configuration.
# Downloaded once: the stamp records the lists, so a re-run asks no index.
pypi_wheels=(attrs decorator sympy cffi pyyaml pathlib2 psutil protobuf scipy requests absl-py wheel typing_extensions pillow)
stamp="$SANDBOX_DIR/wheels/.pypi-downloaded"
if [ "$(cat "$stamp" 2>/dev/null)" != "numpy<2.0.0 numpy ${pypi_wheels[*]}" ]; then
  mkdir -p "$SANDBOX_DIR/wheels"
  for numpy in 'numpy<2.0.0' numpy; do
    "$VENV/bin/pip" download --quiet --only-binary=:all: --python-version 3.11 --implementation cp --abi cp311 \
      --platform "manylinux2014_$arch" --platform "manylinux_2_17_$arch" --platform "manylinux_2_28_$arch" \
      --dest "$SANDBOX_DIR/wheels" "$numpy" "${pypi_wheels[@]}"
  done
  printf '%s\n' "numpy<2.0.0 numpy ${pypi_wheels[*]}" > "$stamp"
fi
# Real Ray and its dependencies for the ray_cluster role (the Ray executor of multi-node serving),
# same platform tags; its own stamp, so the download runs once per Ray version.
# The version is the default stack row's (stack_matrix.py: what upstream's images install).
ray_version=$(python3 -c 'import runpy, sys
m = runpy.run_path(sys.argv[1])
print([r["ray"] for r in m["RELEASES"] if r["release"] == m["DEFAULT_RELEASE"]][0])' "$REPO_ROOT/plugins/module_utils/stack_matrix.py")
ray_requirement="ray==$ray_version"
ray_stamp="$SANDBOX_DIR/wheels/.ray-downloaded"
if [ "$(cat "$ray_stamp" 2>/dev/null)" != "$ray_requirement" ]; then
  mkdir -p "$SANDBOX_DIR/wheels"
  "$VENV/bin/pip" download --quiet --only-binary=:all: --python-version 3.11 --implementation cp --abi cp311 \
    --platform "manylinux2014_$arch" --platform "manylinux_2_17_$arch" --platform "manylinux_2_28_$arch" \
    --dest "$SANDBOX_DIR/wheels" "$ray_requirement"
  printf '%s\n' "$ray_requirement" > "$ray_stamp"
fi
# The index (simple/) covers every wheel of the directory, the downloaded ones too.
PYTHONPATH="$REPO_ROOT/tests/simulator" python3 -m ascend_sim.wheels build --out "$SANDBOX_DIR/wheels" >/dev/null
# The Kunpeng node's wheelhouse (scenario aarch64): the same PyPI wheels for aarch64, fetched here
# with pip download --platform (how a site fills its mirror for Kunpeng nodes from an x86 host),
# beside the stand-ins, which are pure Python.
aarch64_stamp="$SANDBOX_DIR/wheels-aarch64/.pypi-downloaded"
if [ "$(cat "$aarch64_stamp" 2>/dev/null)" != "numpy<2.0.0 numpy ${pypi_wheels[*]}" ]; then
  mkdir -p "$SANDBOX_DIR/wheels-aarch64"
  for numpy in 'numpy<2.0.0' numpy; do
    "$VENV/bin/pip" download --quiet --only-binary=:all: --python-version 3.11 --implementation cp --abi cp311 \
      --platform manylinux2014_aarch64 --platform manylinux_2_17_aarch64 --platform manylinux_2_28_aarch64 \
      --dest "$SANDBOX_DIR/wheels-aarch64" "$numpy" "${pypi_wheels[@]}"
  done
  printf '%s\n' "numpy<2.0.0 numpy ${pypi_wheels[*]}" > "$aarch64_stamp"
fi
PYTHONPATH="$REPO_ROOT/tests/simulator" python3 -m ascend_sim.wheels build --out "$SANDBOX_DIR/wheels-aarch64" \
  --release "$(python3 -c 'import runpy, sys
print(runpy.run_path(sys.argv[1])["DEFAULT_RELEASE"])' "$REPO_ROOT/plugins/module_utils/stack_matrix.py")" >/dev/null
# The model the sandbox serves, with its SHA256SUMS (vllm_service_model_source: controller).
PYTHONPATH="$REPO_ROOT/tests/simulator" python3 -m ascend_sim.model make \
  "$SANDBOX_DIR/models/DeepSeek-R1-Distill-Qwen-7B" --name DeepSeek-R1-Distill-Qwen-7B >/dev/null
# The real vLLM engine the nodes of inventories/sandbox and the engine scenarios serve with:
# its wheelhouse and model (scripts/engine.sh; downloaded once per vLLM version).
"$REPO_ROOT/scripts/engine.sh" --nodes
