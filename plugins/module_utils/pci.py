# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Read Ascend NPU PCI functions from sysfs (pure functions, no Ansible imports)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

HUAWEI_VENDOR_ID = '0x19e5'

# Chip family of each NPU device id: the names the vendor packages use (Ascend-hdk-910b-...,
# Ascend-cann-910_93-ops...). Known with or without a driver, from the PCI bus alone.
NPU_FAMILIES = {
    '0xd100': '310', '0xd105': '310b', '0xd107': '310b', '0xd500': '310p',
    '0xd801': '910', '0xd802': '910b', '0xd803': '910_93',
    # Ascend 950 (Huawei's driver sources: ascend_bug_report.sh PCIE_BDF_950="19e5:d806").
    '0xd806': '950dt',
}

# Device ids of Ascend NPUs: 310, 310B (d105/d107), 310P, 910, 910B, 910_93.
NPU_DEVICE_IDS = frozenset(NPU_FAMILIES)

# Kunpeng servers carry many other Huawei functions (NICs, SAS, ZIP/SEC engines, USB), so the
# vendor id alone is not enough. Unknown future NPUs are still recognised by class "processing
# accelerator" plus an Ascend-style 0xdXXX device id; the Kunpeng engines use 0xaXXX ids.
_ACCELERATOR_CLASS_PREFIX = '0x1200'

_BUS_ID_RE = re.compile(r'^([0-9a-fA-F]+):([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\.([0-7])$')


def normalize_bus_id(text):
    """``0000:C1:00.0`` / ``00000000:c1:00.0`` -> ``0000:c1:00.0`` (the sysfs spelling).

    Returns None when ``text`` is not a PCI address.
    """
    if text is None:
        return None
    match = _BUS_ID_RE.match(text.strip())
    if not match:
        return None
    domain, bus, dev, func = match.groups()
    return '%04x:%02x:%02x.%x' % (int(domain, 16), int(bus, 16), int(dev, 16), int(func, 16))


def bus_id_sort_key(bus_id):
    match = _BUS_ID_RE.match(bus_id)
    if not match:
        return (1 << 40, bus_id)
    return tuple(int(part, 16) for part in match.groups())


def read_file(path):
    """A host file's text, or None when it cannot be read (missing, no permission, not text)."""
    try:
        with open(path, 'r') as handle:
            return handle.read()
    except (IOError, OSError, UnicodeDecodeError):
        return None


def read_text(path):
    """Stripped content of a small file (sysfs attributes), or None when it cannot be read."""
    text = read_file(path)
    return None if text is None else text.strip()


def read_numa_node(sysfs_root, bus_id):
    """NUMA node of a PCI function; None when unknown (missing file or the kernel's -1)."""
    normalized = normalize_bus_id(bus_id)
    if normalized is None:
        return None
    value = read_text(os.path.join(sysfs_root, 'bus', 'pci', 'devices', normalized, 'numa_node'))
    try:
        node = int(value)
    except (TypeError, ValueError):
        return None
    return node if node >= 0 else None


def is_npu_function(vendor, device, pci_class):
    vendor = (vendor or '').lower()
    device = (device or '').lower()
    pci_class = (pci_class or '').lower()
    if vendor != HUAWEI_VENDOR_ID:
        return False
    if device in NPU_DEVICE_IDS:
        return True
    return pci_class.startswith(_ACCELERATOR_CLASS_PREFIX) and device.startswith('0xd')


def pci_functions(devices):
    """``[{bus_id, device, family}]`` of ``devices`` (list_npu_devices): the family of each device id
    (NPU_FAMILIES), None for an Ascend-style id this module does not know. The one place the roles
    learn the chip family from the PCI bus."""
    return [{'bus_id': device['bus_id'], 'device': device['device'],
             'family': NPU_FAMILIES.get((device.get('device') or '').lower())} for device in devices]


def chip_family(devices):
    """Chip family of the first NPU function of ``devices`` (list_npu_devices) with a known id,
    or None."""
    for device in devices:
        family = NPU_FAMILIES.get((device.get('device') or '').lower())
        if family:
            return family
    return None


def list_npu_devices(sysfs_root):
    """Ascend NPU PCI functions under ``<sysfs_root>/bus/pci/devices``, in PCI address order.

    Each entry: ``{bus_id, vendor, device, numa_node}``.
    """
    base = os.path.join(sysfs_root, 'bus', 'pci', 'devices')
    try:
        names = os.listdir(base)
    except OSError:
        return []
    devices = []
    for name in names:
        bus_id = normalize_bus_id(name)
        if bus_id is None:
            continue
        path = os.path.join(base, name)
        vendor = read_text(os.path.join(path, 'vendor'))
        device = read_text(os.path.join(path, 'device'))
        pci_class = read_text(os.path.join(path, 'class'))
        if not is_npu_function(vendor, device, pci_class):
            continue
        devices.append({
            'bus_id': bus_id,
            'vendor': vendor.lower(),
            'device': device.lower(),
            'numa_node': read_numa_node(sysfs_root, bus_id),
        })
    devices.sort(key=lambda d: bus_id_sort_key(d['bus_id']))
    return devices
