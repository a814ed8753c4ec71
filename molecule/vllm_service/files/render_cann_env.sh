#!/bin/bash
# Writes to $1 what sourcing the toolkit's and NNAL's set_env.sh adds to a clean environment,
# as KEY=value lines (the cann role's environment file).
set -euo pipefail
out=$1
clean() { env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C bash --noprofile --norc -c "$1"; }
before=$(clean 'env' | sort)
after=$(clean '. /usr/local/Ascend/ascend-toolkit/set_env.sh >/dev/null; . /usr/local/Ascend/nnal/atb/set_env.sh >/dev/null; env' | sort)
comm -13 <(printf '%s\n' "$before") <(printf '%s\n' "$after") | grep -v -e '^_=' -e '^SHLVL=' -e '^PWD=' > "$out.tmp"
chmod 0644 "$out.tmp"
mv "$out.tmp" "$out"
