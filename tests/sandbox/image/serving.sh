#!/usr/bin/env bash
# The serving images of the container method (vllm_service_install_method: container), built from
# the sandbox image and saved as tarballs, as an air-gapped site receives them:
#   <dir>/vllm-ascend-<tag>.tar          localhost/ascend/vllm-ascend:v<release> (serving/Containerfile)
#   <dir>/vllm-ascend-<tag>-rebuild.tar  the same reference, rebuilt (serving/Containerfile.rebuild: a new
#                                        image ID and the 310P images' entry point, which sources no CANN)
# <tag> hashes the base image, the recipe and the stand-in packages, so a change builds them again;
# vllm-ascend.tar and vllm-ascend-rebuild.tar link to the current pair (what the container
# scenario's inventory names). Prints the two tarball paths on one line.
set -euo pipefail
. "$(dirname "$0")/../../../scripts/lib.sh"
base=${ASCEND_SANDBOX_IMAGE:-$(cat "$SANDBOX_DIR/image")}
release=${1:-0.23.0}
row=$(python3 - "$REPO_ROOT/plugins/module_utils/stack_matrix.py" "$release" <<'PY'
import runpy, sys
m = runpy.run_path(sys.argv[1])
row = [r for r in m["RELEASES"] if r["release"] == sys.argv[2]][0]
print(m["IMAGE"]["tag_prefix"] + row["vllm_ascend"], row["cann"], row["vllm"], row["vllm_ascend"], row.get("triton_ascend") or "")
PY
)
read -r image_tag cann vllm vllm_ascend triton <<<"$row"
ref="localhost/ascend/vllm-ascend:$image_tag"
out="$SANDBOX_DIR/images"
tag=$(cd "$REPO_ROOT" && {
  echo "$base $row"
  cat tests/sandbox/image/serving/Containerfile tests/sandbox/image/serving/Containerfile.rebuild \
    tests/sandbox/image/serving.sh .sandbox/artifacts/910b/SHA256SUMS
  ls .sandbox/wheels
} | sha256sum | cut -c1-12)
first="$out/vllm-ascend-$tag.tar"
second="$out/vllm-ascend-$tag-rebuild.tar"
link() { ln -sfn "$(basename "$first")" "$out/vllm-ascend.tar"; ln -sfn "$(basename "$second")" "$out/vllm-ascend-rebuild.tar"; }
if [ -s "$first" ] && [ -s "$second" ]; then
  link
  echo "$first $second"
  exit 0
fi
mkdir -p "$out"
log "building $ref from $base"
build_log="$out/build.log"
podman build -q --build-arg "BASE=$base" --build-arg "CANN_VERSION=$cann" --build-arg "VLLM_VERSION=$vllm" \
  --build-arg "VLLM_ASCEND_VERSION=$vllm_ascend" --build-arg "TRITON_ASCEND=$triton" \
  -v "$SANDBOX_DIR/artifacts/910b:/artifacts:ro" -v "$SANDBOX_DIR/wheels:/wheels:ro" \
  -t "$ref" "$REPO_ROOT/tests/sandbox/image/serving" >"$build_log" 2>&1 \
  || { tail -30 "$build_log" >&2; die "building $ref failed"; }
podman save -q -o "$first.part" "$ref" && mv "$first.part" "$first"
podman build -q --build-arg "REF=$ref" --build-arg "REVISION=rebuild-$tag" -t "$ref" \
  -f "$REPO_ROOT/tests/sandbox/image/serving/Containerfile.rebuild" "$REPO_ROOT/tests/sandbox/image/serving" >>"$build_log" 2>&1 \
  || { tail -30 "$build_log" >&2; die "rebuilding $ref failed"; }
podman save -q -o "$second.part" "$ref" && mv "$second.part" "$second"
podman rmi "$ref" >/dev/null 2>&1 || true
# Older builds are ours and no longer used.
find "$out" -maxdepth 1 -type f -name 'vllm-ascend-*.tar' ! -name "vllm-ascend-$tag*" -delete
link
echo "$first $second"
