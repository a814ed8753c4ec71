#!/usr/bin/env bash
# Create (or refresh) the pinned controller toolchain in .venv. Re-running is cheap: the
# virtualenv is rebuilt only when requirements-dev.txt changes.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

python=${ASCEND_PYTHON:-}
if [ -z "$python" ]; then
  for candidate in python3.11 python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
      python=$(command -v "$candidate"); break
    fi
  done
fi
[ -n "$python" ] || die "Python 3.11 is required for the controller toolchain (set ASCEND_PYTHON to its path)"

if ! "$python" -c 'import venv, ensurepip' 2>/dev/null; then
  log "installing python3-venv"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
fi

# Prometheus and promtool (the monitoring tests check and run the alert rules with them) from
# Debian's prometheus package, unpacked into .cache: installing the package would start a
# Prometheus service on this machine. The package comes from the machine's apt sources.
prometheus_dir="$REPO_ROOT/.cache/prometheus"
if [ ! -x "$prometheus_dir/usr/bin/promtool" ]; then
  log "unpacking Debian's prometheus package into $prometheus_dir"
  mkdir -p "$prometheus_dir/deb"
  rm -f "$prometheus_dir"/deb/prometheus_*.deb
  (cd "$prometheus_dir/deb" && { apt-get download -qq prometheus 2>/dev/null \
      || { apt-get update -qq && apt-get download -qq prometheus; }; }) \
    || die "apt-get download prometheus failed (the monitoring tests need its promtool)"
  dpkg-deb -x "$prometheus_dir"/deb/prometheus_*.deb "$prometheus_dir"
fi

# The commit-msg hook of the checkout (.githooks): warns on a subject over 72 characters.
if git -C "$REPO_ROOT" rev-parse --git-dir >/dev/null 2>&1; then
  git -C "$REPO_ROOT" config core.hooksPath .githooks
fi

stamp="$VENV/.requirements.sha256"
want=$(sha256sum "$REPO_ROOT/requirements-dev.txt" | cut -d' ' -f1)
if [ -x "$VENV/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  log "toolchain up to date in $VENV"
  exit 0
fi
log "creating toolchain virtualenv in $VENV"
"$python" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r "$REPO_ROOT/requirements-dev.txt"
echo "$want" > "$stamp"
# sed reads the whole output: head would close the pipe early, and ansible fails on the broken pipe.
"$VENV/bin/ansible" --version | sed -n 1p
