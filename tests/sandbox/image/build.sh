#!/usr/bin/env bash
# Build the sandbox node image (Debian 12 + systemd) with debootstrap and `podman import` it,
# tagged with a hash of this recipe. An image with that tag already present is reused, so a
# second run costs nothing. Prints the image reference on stdout.
# ASCEND_SANDBOX_SUITE=bullseye builds the older-OS node instead: Debian 11, whose python3 (3.9)
# is older than every stack row's range, as openEuler 22.03's (3.9) and Kylin V10's (3.7) are.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
suite=${ASCEND_SANDBOX_SUITE:-bookworm}
# Debian's name of the node's architecture: the host's, or arm64 for a Kunpeng (aarch64) node,
# which runs through qemu-user-static's binfmt handler (scripts/setup.sh registers it).
arch=${ASCEND_SANDBOX_ARCH:-$(dpkg --print-architecture)}
repo=${ASCEND_SANDBOX_IMAGE_REPO:-localhost/ascend-vllm-node}
tag=$(cat "$here/packages.txt" "$here/customize.sh" "$here/build.sh" | sha256sum | cut -c1-12)
[ "$arch" = "$(dpkg --print-architecture)" ] || tag="$tag-$arch"
[ "$suite" = bookworm ] || tag="$tag-$suite"
image="$repo:$tag"

if podman image exists "$image"; then
  echo "$image"
  exit 0
fi
# The Debian mirror of this host's apt sources (bookworm's entry: the mirror holds bullseye too).
mirror=${ASCEND_SANDBOX_MIRROR:-$(python3 "$here/../apt_mirror.py" bookworm)}
include=$(grep -v '^#' "$here/packages.txt" | paste -sd, -)
rootfs=$(mktemp -d /var/tmp/ascend-node-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
echo "building $image from $mirror ($suite, $arch)" >&2
debootstrap --arch="$arch" --variant=minbase --include="$include" "$suite" "$rootfs" "$mirror" >"$rootfs.log" 2>&1 \
  || { tail -20 "$rootfs.log" >&2; rm -f "$rootfs.log"; exit 1; }
rm -f "$rootfs.log"
install -m 0755 "$here/customize.sh" "$rootfs/tmp/customize.sh"
chroot "$rootfs" /tmp/customize.sh
rm -f "$rootfs/tmp/customize.sh"
tar -C "$rootfs" --numeric-owner -c . | podman import --arch "$arch" \
  --change 'CMD ["/sbin/init"]' --change 'ENV container=podman' --change 'STOPSIGNAL SIGRTMIN+3' \
  - "$image" >/dev/null
# Older builds of this recipe for this architecture are ours and no longer used.
old='^[0-9a-f]{12}'
[ "$arch" = "$(dpkg --print-architecture)" ] || old="$old-$arch"
[ "$suite" = bookworm ] || old="$old-$suite"
old="$old\$"
podman images --format '{{.Tag}}' --filter "reference=$repo" | grep -E "$old" | grep -vx -- "${tag}" \
  | sed "s|^|$repo:|" | xargs -r podman rmi >/dev/null 2>&1 || true
echo "$image"
