#!/usr/bin/env bash
# Build the AWX execution environment on any Linux host with podman (or docker), ansible-galaxy
# and ansible-builder (python3 -m pip install -r awx/requirements-build.txt, from the site's own
# index if need be): the collection tarball from this checkout, then the ansible-builder context
# and, unless --create-only, the image. Nothing of the test toolchain is needed or baked in.
# Everything is written under EE_WORKDIR (default awx/build/, git-ignored): the definition files,
# collection/, context/.
#   bash awx/build-ee.sh [--create-only]
# Environment:
#   EE_TAG               the image's name (default ascend-vllm-ee:<collection version>)
#   EE_BASE_IMAGE        the base image, e.g. the site registry's copy of quay.io/centos/centos:stream9
#   EE_COLLECTIONS_DIR   offline: a directory with the tarballs of the collections this one depends
#                        on (ansible.posix, community.general, containers.podman), e.g. an offline
#                        bundle's collections/; they are installed from there with
#                        `ansible-galaxy collection install --offline`, and no Galaxy server is asked
#   EE_CONTAINER_RUNTIME podman (default) or docker
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
# A checkout's own toolchain when there is one; otherwise what PATH has.
[ -x "${ASCEND_VENV:-$repo/.venv}/bin/ansible-builder" ] && PATH="${ASCEND_VENV:-$repo/.venv}/bin:$PATH"
for tool in ansible-galaxy ansible-builder; do
  command -v "$tool" >/dev/null || {
    echo "build-ee.sh: $tool not found; install it with: python3 -m pip install -r awx/requirements-build.txt" >&2
    exit 2
  }
done
work=${EE_WORKDIR:-$repo/awx/build}
rm -rf "$work/collection" "$work/context"
mkdir -p "$work/collection"
cp awx/execution-environment.yml awx/bindep.txt "$work/"
ansible-galaxy collection build --force --output-path "$work/collection" "$repo" >/dev/null
# A fixed name, so requirements.yml and the definition need no version.
mv "$work"/collection/ascend-vllm-*.tar.gz "$work/collection/ascend-vllm.tar.gz"
if [ -n "${EE_COLLECTIONS_DIR:-}" ]; then
  # Offline: every dependency from a tarball beside this collection's, none from a Galaxy server.
  entries=("  - name: collection/ascend-vllm.tar.gz" "    type: file")
  for name in ansible-posix community-general containers-podman; do
    tarball=$(find "$EE_COLLECTIONS_DIR" -maxdepth 1 -name "$name-*.tar.gz" | sort -V | tail -n 1)
    [ -n "$tarball" ] || {
      echo "build-ee.sh: EE_COLLECTIONS_DIR ($EE_COLLECTIONS_DIR) has no $name-<version>.tar.gz;" \
           "download it on a connected host (ansible-galaxy collection download) or take an offline bundle's collections/" >&2
      exit 2
    }
    cp "$tarball" "$work/collection/"
    entries+=("  - name: collection/$(basename "$tarball")" "    type: file")
  done
  { echo "---"; echo "# Offline: from the tarballs of EE_COLLECTIONS_DIR (awx/build-ee.sh)."; echo "collections:"
    printf '%s\n' "${entries[@]}"; } > "$work/requirements.yml"
  # The galaxy step resolves dependencies from those files only.
  printf '\nbuild_arg_defaults:\n  ANSIBLE_GALAXY_CLI_COLLECTION_OPTS: "--offline"\n' >> "$work/execution-environment.yml"
else
  cp awx/requirements.yml "$work/"
fi
if [ "${1:-}" = --create-only ]; then
  ansible-builder create -f "$work/execution-environment.yml" -c "$work/context" --output-filename Containerfile
  exit 0
fi
args=()
[ -z "${EE_BASE_IMAGE:-}" ] || args+=(--build-arg "EE_BASE_IMAGE=$EE_BASE_IMAGE")
ansible-builder build -f "$work/execution-environment.yml" -c "$work/context" \
  --container-runtime "${EE_CONTAINER_RUNTIME:-podman}" \
  -t "${EE_TAG:-ascend-vllm-ee:$(awk '/^version:/ {print $2}' galaxy.yml)}" "${args[@]}"
