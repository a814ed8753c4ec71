#!/usr/bin/env bash
# ansible-test sanity on a copy of the collection at <tmp>/ansible_collections/ascend/vllm,
# made from the files git tracks (so build junk never reaches it). Works offline: see
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
dest="$work/ansible_collections/ascend/vllm"
mkdir -p "$dest"
# Tracked and new (not ignored) files; the collections/ link back to the checkout stays out.
(cd "$REPO_ROOT" && git ls-files --cached --others --exclude-standard | grep -v '^collections/ansible_collections/' \
  | while read -r f; do [ -e "$f" ] && printf '%s\n' "$f"; done | tar -cf - -T -) | tar -C "$dest" -xf -
cd "$dest"
ansible-test sanity --python 3.11 --color no "$@"
