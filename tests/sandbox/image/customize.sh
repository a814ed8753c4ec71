#!/bin/sh
# Runs inside the debootstrapped tree (chroot) before it is imported as an image.
set -eu
# Units that make no sense in a container and only slow the boot or make it "degraded".
for unit in getty@tty1.service console-getty.service systemd-udevd.service systemd-udev-trigger.service \
            systemd-remount-fs.service sys-kernel-debug.mount sys-kernel-tracing.mount \
            systemd-firstboot.service apt-daily.timer apt-daily-upgrade.timer e2scrub_reap.service; do
  ln -sf /dev/null "/etc/systemd/system/$unit"
done
# A fresh machine-id per container, created by systemd at first boot.
: > /etc/machine-id
rm -f /var/lib/dbus/machine-id
# Smaller image: no package lists or caches.
apt-get clean
rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /usr/share/doc/* /usr/share/man/*
