"""Catalogue of the simulated Ascend vendor packages (HDK driver/firmware, CANN).

Every version string here is one Huawei has shipped. Field values marked as *inferred* in
``INFERRED`` could not be read from a published ``version.info`` and were filled in from the
neighbouring releases; tests/simulator/PACKAGES.md lists the evidence for the others.

``catalogue()`` returns the data as plain dicts/lists so role tests can pick versions without
importing anything else; ``package_filename()`` spells the real file names.
"""
import copy
import re

ARCHES = ("aarch64", "x86_64")

# Chip families the packages are built for.  The CLI value is the key; the file-name pieces
# are the vendor's own spelling (the A3 packages are published as "Atlas-A3-...").
CHIPS = {
    "910b": {
        "product": "Atlas 800I/800T A2",
        "hdk_prefix": "Ascend-hdk-910b-npu",
        "kernels_name": "Ascend-cann-kernels-910b",
        "ops_name": "Ascend-cann-910b-ops",
        "pci_device_id": "d802",
        "opp_soc_dir": "ascend910b",
    },
    "910_93": {
        "product": "Atlas A3 (Ascend 910_93)",
        "hdk_prefix": "Atlas-A3-hdk-npu",
        "kernels_name": "Atlas-A3-cann-kernels",
        "ops_name": "Ascend-cann-A3-ops",
        "pci_device_id": "d803",
        "opp_soc_dir": "ascend910_93",
    },
    "310p": {
        "product": "Atlas 300I Duo",
        "hdk_prefix": "Ascend-hdk-310p-npu",
        "kernels_name": "Ascend-cann-kernels-310p",
        "ops_name": "Ascend-cann-310p-ops",
        "pci_device_id": "d500",
        "opp_soc_dir": "ascend310p",
    },
}

# Driver releases with the firmware shipped in the same HDK bundle.  version.info lines are
# written exactly in this order by the simulated installer.
DRIVERS = [
    {
        "version": "24.1.rc3",
        "firmware": "7.5.0.1.129",
        "ascendhal_version": "7.35.23",
        "innerversion": "V100R001C19SPC001B124",
        "compatible_version": "[V100R001C13],[V100R001C15],[V100R001C17],[V100R001C18],[V100R001C19]",
        "compatible_version_fw": "[7.0.0,7.5.99]",
        "firmware_compatible_version_drv": "[23.0.0,23.0.0.],[24.0,24.0.],[24.1,24.1.]",
    },
    {
        "version": "25.0.rc1.1",
        "firmware": "7.7.0.1.231",
        "ascendhal_version": "7.35.23",
        "innerversion": "V100R001C21SPC002B220",
        "compatible_version": "[V100R001C17],[V100R001C18],[V100R001C19],[V100R001C20],[V100R001C21]",
        "compatible_version_fw": "[7.0.0,7.7.99]",
        "firmware_compatible_version_drv": "[23.0.0,23.0.0.],[24.0,24.0.],[24.1,24.1.],[25.0,25.0.]",
    },
    {
        "version": "25.5.0",
        "firmware": "7.8.0.5.216",
        "ascendhal_version": "7.35.23",
        "innerversion": "V100R001C25SPC001B211",
        "compatible_version": "[V100R001C21],[V100R001C22],[V100R001C23],[V100R001C25],[V100R001C10]",
        "compatible_version_fw": "[6.4.0,6.4.99],[7.0.0,8.9.9]",
        "firmware_compatible_version_drv": "[23.0.0,23.0.0.],[24.0,24.0.],[24.1,24.1.],[25.0,25.0.],"
                                           "[25.2,25.2.],[25.3,25.3.],[25.5,25.5.]",
    },
    {
        # The HDK 25.5.2 bundle's firmware is 7.8.0.7.220 (download lists); the other fields are
        # 25.5.0's (no published version.info of 25.5.2 was found).
        "version": "25.5.2",
        "firmware": "7.8.0.7.220",
        "ascendhal_version": "7.35.23",
        "innerversion": "V100R001C25SPC002B220",
        "compatible_version": "[V100R001C21],[V100R001C22],[V100R001C23],[V100R001C25],[V100R001C10]",
        "compatible_version_fw": "[6.4.0,6.4.99],[7.0.0,8.9.9]",
        "firmware_compatible_version_drv": "[23.0.0,23.0.0.],[24.0,24.0.],[24.1,24.1.],[25.0,25.0.],"
                                           "[25.2,25.2.],[25.3,25.3.],[25.5,25.5.]",
    },
    {
        "version": "26.0.rc1",
        "firmware": "9.0.0.0.205",
        "ascendhal_version": "7.35.23",
        "innerversion": "V100R001C10SPC001B257",
        "compatible_version": "[V100R001C21],[V100R001C22],[V100R001C23],[V100R001C25],[V100R001C10]",
        "compatible_version_fw": "[7.0.0,9.9.99]",
        "firmware_compatible_version_drv": "[25.5,25.5.],[26.0,26.0.]",
    },
]

# One CANN release per vllm-ascend row of the stack matrix.  "layout" is where the toolkit
# lands: "classic" = <p>/ascend-toolkit/<ver>; "cann_dir" = <p>/cann-<ver> with
# <p>/cann and <p>/ascend-toolkit/latest pointing at it (CANN 8.5 and later).
# "chip_pkg" is the per-chip operator package: "kernels" up to 8.3, "ops" from 8.5 on.
CANN = [
    {
        "version": "8.2.RC1",
        "vllm_ascend": "0.9.1",
        "toolkit_version": "8.2.0.0.201",
        "timestamp": "20250724_194044950",
        "innerversion": "V100R001C22SPC001B231",
        "compatible_version": "[V100R001C15],[V100R001C17],[V100R001C18],[V100R001C19],[V100R001C20],"
                              "[V100R001C21],[V100R001C22]",
        "layout": "classic",
        "chip_pkg": "kernels",
        "atb_default_abi": 0,
        "recommended_driver": "24.1.rc3",
    },
    {
        "version": "8.3.RC2",
        "vllm_ascend": "0.11.0",
        "toolkit_version": "8.3.0.1.200",
        "timestamp": "20251030_000021137",
        "innerversion": "V100R001C23SPC001B233",
        "compatible_version": "[V100R001C15],[V100R001C18],[V100R001C19],[V100R001C20],[V100R001C21],"
                              "[V100R001C23]",
        "layout": "classic",
        "chip_pkg": "kernels",
        "atb_default_abi": 0,
        "recommended_driver": "25.0.rc1.1",
    },
    {
        "version": "8.5.0",
        "vllm_ascend": "0.13.0",
        "toolkit_version": "8.5.0.2.220",
        "timestamp": "20251117_000024591",
        "innerversion": "V100R001C25SPC001B212",
        "compatible_version": "[V100R001C15],[V100R001C18],[V100R001C19],[V100R001C20],[V100R001C21],"
                              "[V100R001C23]",
        "layout": "cann_dir",
        "chip_pkg": "ops",
        "atb_default_abi": 1,
        "recommended_driver": "25.5.0",
    },
    {
        "version": "8.5.1",
        "vllm_ascend": "0.18.0",
        "toolkit_version": "8.5.1.1.220",
        "timestamp": "20260130_000024117",
        "innerversion": "V100R001C25SPC002B215",
        "compatible_version": "[V100R001C15],[V100R001C18],[V100R001C19],[V100R001C20],[V100R001C21],"
                              "[V100R001C23]",
        "layout": "cann_dir",
        "chip_pkg": "ops",
        "atb_default_abi": 1,
        "recommended_driver": "25.5.0",
    },
    {
        "version": "9.1.0",
        "vllm_ascend": "0.23.0",
        "toolkit_version": "9.1.0",
        "timestamp": "20260520_000031260",
        "innerversion": "V100R001C30SPC001B210",
        "compatible_version": "[V100R001C21],[V100R001C23],[V100R001C25],[V100R001C10]",
        "layout": "cann_dir",
        "chip_pkg": "ops",
        "atb_default_abi": 1,
        "recommended_driver": "25.5.2",
    },
    {
        # vllm-ascend v0.30.0rc2's Dockerfiles (CANN_VERSION 9.2.0_20260930220649); the fields
        # without a published version.info are 9.1.0's layout.
        "version": "9.2.0",
        "vllm_ascend": "0.30.0rc2",
        "toolkit_version": "9.2.0",
        "timestamp": "20260930_220649000",
        "innerversion": "V100R001C31B001",
        "compatible_version": "[V100R001C21],[V100R001C23],[V100R001C25],[V100R001C30]",
        "layout": "cann_dir",
        "chip_pkg": "ops",
        "atb_default_abi": 1,
        "recommended_driver": "26.0.rc1",
    },
]

# Values filled in without a published version.info to read them from.
INFERRED = {
    "driver:25.5.0": ["innerversion", "compatible_version", "firmware_compatible_version_drv"],
    "driver:25.5.2": ["ascendhal_version", "innerversion", "compatible_version", "compatible_version_fw",
                      "firmware_compatible_version_drv"],
    "driver:26.0.rc1": ["firmware", "compatible_version", "compatible_version_fw",
                        "firmware_compatible_version_drv"],
    "cann:8.2.RC1": ["innerversion", "compatible_version"],
    "cann:8.3.RC2": ["toolkit_version", "timestamp", "innerversion"],
    "cann:8.5.1": ["toolkit_version", "timestamp", "innerversion"],
    "cann:9.1.0": ["timestamp", "innerversion", "compatible_version"],
    "cann:9.2.0": ["innerversion", "compatible_version"],
}

KINDS = ("driver", "firmware", "toolkit", "kernels", "ops", "nnal")


def _find(entries, version, what):
    for entry in entries:
        if entry["version"] == version:
            return entry
    known = ", ".join(e["version"] for e in entries)
    raise KeyError("unknown %s version %r (known: %s)" % (what, version, known))


def driver(version):
    """The catalogue entry of driver ``version`` (KeyError naming the known ones)."""
    return copy.deepcopy(_find(DRIVERS, version, "driver"))


def cann(version):
    """The catalogue entry of CANN ``version``."""
    return copy.deepcopy(_find(CANN, version, "CANN"))


def driver_for_firmware(firmware):
    """The driver entry whose HDK bundle ships ``firmware``."""
    for entry in DRIVERS:
        if entry["firmware"] == firmware:
            return copy.deepcopy(entry)
    raise KeyError("no HDK ships firmware %r" % firmware)


def chip_package_kind(cann_version):
    """'kernels' or 'ops': which per-chip operator package CANN ``cann_version`` ships."""
    return _find(CANN, cann_version, "CANN")["chip_pkg"]


def _hdk_arch(arch):
    # HDK driver file names spell x86 with a dash ("linux-x86-64"); CANN ones keep "x86_64".
    return "x86-64" if arch == "x86_64" else arch


def package_filename(kind, version, chip="910b", arch="aarch64"):
    """The vendor's file name for a package.

    ``kind`` is one of KINDS; ``version`` is the driver version for driver *and* firmware
    (the firmware name carries its own 7.x.x.x.x number, looked up here), the CANN version
    for the others.  ``kernels``/``ops`` are checked against the CANN release.
    """
    if arch not in ARCHES:
        raise ValueError("arch must be one of %s, not %r" % (", ".join(ARCHES), arch))
    if chip not in CHIPS:
        raise ValueError("chip must be one of %s, not %r" % (", ".join(CHIPS), chip))
    names = CHIPS[chip]
    if kind == "driver":
        _find(DRIVERS, version, "driver")
        return "%s-driver_%s_linux-%s.run" % (names["hdk_prefix"], version, _hdk_arch(arch))
    if kind == "firmware":
        fw = _find(DRIVERS, version, "driver")["firmware"]
        return "%s-firmware_%s.run" % (names["hdk_prefix"], fw)
    entry = _find(CANN, version, "CANN")
    if kind == "toolkit":
        return "Ascend-cann-toolkit_%s_linux-%s.run" % (version, arch)
    if kind == "nnal":
        return "Ascend-cann-nnal_%s_linux-%s.run" % (version, arch)
    if kind in ("kernels", "ops"):
        if entry["chip_pkg"] != kind:
            raise ValueError("CANN %s ships a '%s' package, not '%s'" % (version, entry["chip_pkg"], kind))
        base = names["kernels_name"] if kind == "kernels" else names["ops_name"]
        return "%s_%s_linux-%s.run" % (base, version, arch)
    raise ValueError("kind must be one of %s, not %r" % (", ".join(KINDS), kind))


_NAME_PATTERNS = [
    ("driver", re.compile(r"^(?P<prefix>Ascend-hdk-(?P<chip>910b|310p)-npu|Atlas-A3-hdk-npu)-driver_"
                          r"(?P<version>[^_]+)_linux-(?P<arch>aarch64|x86-64|x86_64)\.run$")),
    ("firmware", re.compile(r"^(?P<prefix>Ascend-hdk-(?P<chip>910b|310p)-npu|Atlas-A3-hdk-npu)-firmware_"
                            r"(?P<version>[0-9.]+)\.run$")),
    ("toolkit", re.compile(r"^Ascend-cann-toolkit_(?P<version>[^_]+)_linux-(?P<arch>aarch64|x86_64)\.run$")),
    ("nnal", re.compile(r"^Ascend-cann-nnal_(?P<version>[^_]+)_linux-(?P<arch>aarch64|x86_64)\.run$")),
    ("kernels", re.compile(r"^(?:Ascend-cann-kernels-(?P<chip>910b|310p)|Atlas-A3-cann-kernels)_"
                           r"(?P<version>[^_]+)_linux-(?P<arch>aarch64|x86_64)\.run$")),
    ("ops", re.compile(r"^Ascend-cann-(?P<chip>910b|310p|A3)-ops_(?P<version>[^_]+)_linux-"
                       r"(?P<arch>aarch64|x86_64)\.run$")),
]


def parse_package_filename(name):
    """Inverse of :func:`package_filename`: dict(kind, version, chip, arch) or None.

    For firmware ``version`` is the firmware number and ``arch`` is None (the firmware
    package is architecture independent).
    """
    for kind, pattern in _NAME_PATTERNS:
        match = pattern.match(name)
        if not match:
            continue
        groups = match.groupdict()
        chip = groups.get("chip")
        if chip == "A3" or name.startswith("Atlas-A3-"):
            chip = "910_93"
        arch = groups.get("arch")
        if arch == "x86-64":
            arch = "x86_64"
        return {"kind": kind, "version": groups["version"], "chip": chip, "arch": arch}
    return None


def catalogue():
    """Everything above as plain data (a deep copy: callers may modify it)."""
    return copy.deepcopy({
        "arches": list(ARCHES),
        "chips": CHIPS,
        "drivers": DRIVERS,
        "cann": CANN,
        "inferred": INFERRED,
        "kinds": list(KINDS),
    })
