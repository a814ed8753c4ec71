#!/usr/bin/env bash
# ansible-test sanity on the built collection, installed at <tmp>/ansible_collections/ascend/vllm.
# Works offline: see
# tests/sanity/pip_bootstrap.py. Extra arguments go to ansible-test.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pip_version=$(python - <<'PY'
import re, pathlib, ansible_test
src = pathlib.Path(ansible_test.__file__).parent / "_internal" / "python_requirements.py"
print(re.search(r"pip='([0-9.]+)'", src.read_text()).group(1))
PY
)
cache="$HOME/.ansible/test/cache/get_pip_${pip_version//./_}.py"
mkdir -p "$(dirname "$cache")"
cmp -s "$REPO_ROOT/tests/sanity/pip_bootstrap.py" "$cache" 2>/dev/null || cp "$REPO_ROOT/tests/sanity/pip_bootstrap.py" "$cache"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Sanity covers exactly what ships: build the collection (build_ignore drops virtualenvs, caches
# and the test-only simulator) and install the tarball into <tmp>/ansible_collections/ascend/vllm.
ansible-galaxy collection build --force --output-path "$work" "$REPO_ROOT" >/dev/null
ansible-galaxy collection install --force --no-deps -p "$work" "$work"/ascend-vllm-*.tar.gz >/dev/null
cd "$work/ansible_collections/ascend/vllm"
ansible-test sanity --python 3.11 --color no "$@"
