#!/usr/bin/env bash
# The relocatable-interpreter route of the older-OS node (molecule/older_os): a CPython 3.11 for
# a node whose own python3 is too old (Debian 11's 3.9 standing for openEuler 22.03's 3.9).
# A site takes a python-build-standalone install_only tarball; its stand-in here is built from
# CPython's source as Debian ships it (the orig tarball of bookworm's python3.11, from the Debian
# mirror of this host's apt sources, checked against the SHA256 in that suite's Sources index),
# compiled inside the older-OS node image for the prefix vllm_service unpacks it to, and packed in
# the same layout (python/bin/python3 in a cpython-<version>+<tag>-<triple>-install_only.tar.gz).
# Unlike python-build-standalone's static builds it links the node's shared libraries (OpenSSL,
# libffi, SQLite), which Debian 11's own python3 already brings.
#
# Usage: cpython.sh IMAGE SOURCE_ARTIFACTS OUT_ARTIFACTS
# Writes OUT_ARTIFACTS: the files of SOURCE_ARTIFACTS (hard links) plus the archive, and a
# SHA256SUMS listing them all. The archive is built once per recipe (.sandbox/python/<hash>).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../../scripts/lib.sh"
image=$1 source_dir=$2 out_dir=$3
version=3.11.2
source_sha256=2411c74bda5bbcfcddaf4531f66d1adc73f247f529aee981b029513aefdbf849
prefix=/opt/ascend-vllm/python
name="cpython-$version+debian11-$(uname -m)-unknown-linux-gnu-install_only.tar.gz"
recipe=$( (cat "$0"; echo "$image") | sha256sum | cut -c1-12)
cache="$SANDBOX_DIR/python/$recipe"
archive="$cache/$name"

if [ ! -f "$archive" ]; then
  mirror=${ASCEND_SANDBOX_MIRROR:-$(python3 "$here/../apt_mirror.py" bookworm)}
  work=$(mktemp -d /var/tmp/ascend-cpython.XXXXXX)
  trap 'rm -rf "$work"' EXIT
  curl -fsS --retry 3 -o "$work/src.tar.gz" "$mirror/pool/main/p/python3.11/python3.11_$version.orig.tar.gz"
  echo "$source_sha256  $work/src.tar.gz" | sha256sum -c --quiet
  echo "building $name in $image" >&2
  podman run --rm -v "$work:/build" "$image" bash -euc "
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends gcc make libc6-dev zlib1g-dev libffi-dev libssl-dev \
      libbz2-dev liblzma-dev libsqlite3-dev >/dev/null
    tar -C /tmp -xzf /build/src.tar.gz
    cd /tmp/Python-$version
    ./configure -q --prefix=$prefix --with-ensurepip=no --disable-test-modules
    make -s -j\$(nproc) >/dev/null 2>&1 || make -j\$(nproc)
    make -s install DESTDIR=/tmp/stage >/dev/null
    mv /tmp/stage$prefix /tmp/stage/python
    test -x /tmp/stage/python/bin/python3
    tar -C /tmp/stage -czf /build/out.tar.gz python
  " >"$work/build.log" 2>&1 || { tail -30 "$work/build.log" >&2; exit 1; }
  mkdir -p "$cache"
  mv "$work/out.tar.gz" "$archive"
  # Earlier recipes' archives are ours and no longer used.
  find "$SANDBOX_DIR/python" -mindepth 1 -maxdepth 1 -type d ! -name "$recipe" -exec rm -rf {} +
fi

rm -rf "$out_dir"
mkdir -p "$out_dir"
for file in "$source_dir"/*; do
  [ "$(basename "$file")" = SHA256SUMS ] || ln -f "$file" "$out_dir/"
done
ln -f "$archive" "$out_dir/"
(cd "$out_dir" && sha256sum -- * > SHA256SUMS.new && mv SHA256SUMS.new SHA256SUMS)
echo "$name"
