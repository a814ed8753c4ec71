#!/usr/bin/env bash
# Build the AWX execution environment: the collection tarball from this checkout, then the
# ansible-builder context and, unless --create-only, the image. Everything is written under
# EE_WORKDIR (default awx/build/, git-ignored): the definition files, collection/, context/.
#   bash awx/build-ee.sh [--create-only]        EE_TAG=ascend-vllm-ee:0.1.0 EE_BASE_IMAGE=...
set -euo pipefail
. "$(dirname "$0")/../scripts/lib.sh"
cd "$REPO_ROOT"
"$REPO_ROOT/scripts/setup.sh" >/dev/null
work=${EE_WORKDIR:-$REPO_ROOT/awx/build}
rm -rf "$work/collection" "$work/context"
mkdir -p "$work/collection"
cp "$REPO_ROOT"/awx/{execution-environment.yml,requirements.yml,bindep.txt} "$work/"
ansible-galaxy collection build --force --output-path "$work/collection" "$REPO_ROOT" >/dev/null
# A fixed name, so requirements.yml and the definition need no version.
mv "$work"/collection/ascend-vllm-*.tar.gz "$work/collection/ascend-vllm.tar.gz"
if [ "${1:-}" = --create-only ]; then
  ansible-builder create -f "$work/execution-environment.yml" -c "$work/context" --output-filename Containerfile
  exit 0
fi
args=()
[ -z "${EE_BASE_IMAGE:-}" ] || args+=(--build-arg "EE_BASE_IMAGE=$EE_BASE_IMAGE")
ansible-builder build -f "$work/execution-environment.yml" -c "$work/context" \
  -t "${EE_TAG:-ascend-vllm-ee:$(awk '/^version:/ {print $2}' galaxy.yml)}" "${args[@]}"
