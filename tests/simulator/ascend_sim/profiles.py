"""Server models the simulator can pretend to be.

Per-chip figures (bus ids, power, temperature, memory) come from published ``npu-smi info``
captures of the same hardware, so a fresh node looks like a real idle one:

* ``a2-910b3``  - Atlas 800I A2, 8x 910B3 (capture: 8x 910B3 on driver 26.1.0; NPU 0 there
  carried a 5175 MB test process, its idle HBM figure is the one of its neighbours).
  CPU affinity and NUMA placement follow the published ``npu-smi info -t topo`` of an
  8x 910B3 Kunpeng host (192 cores, 8 NUMA nodes of 24 cores).
* ``a3-9392``   - Atlas A3, 8 NPUs x 2 dies (capture: driver 25.3.rc1). NUMA placement is
  synthetic: A3 hosts report no unique NPU/CPU affinity.
* ``310p3-duo`` - Atlas 300I Duo cards, 310P3, two chips per card, non-contiguous NPU ids
  (bus ids, temperatures and memory from an 8x 310P3 capture on driver 24.1.0.1; the x86
  two-socket NUMA layout is synthetic).

Board identifiers that no capture shows (A3 board ids, 310P subsystem ids, serial numbers)
are marked synthetic in the data below.
"""
import copy
import hashlib

# Board constants, copied into state["board"]. Keys are documented in tests/simulator/README.md.
_BOARD_910B3 = {
    "family": "910b",
    "server_model": "Atlas 800I A2",
    "chip_type": "Ascend",
    "chip_name": "910B3",
    "npu_name": None,
    "chip_version": "V1",
    "soc_version": "ascend910b3",
    # Board query fields as printed by `npu-smi info -t board -i N` on a 910B server (25.5.1 capture).
    "product_name": "IT21HMDC_Bin5",
    "model": "NA",
    "manufacturer": "Huawei",
    "board_id": 0x60,
    "main_board_id": None,
    "pcb_id": "A",
    "bom_id": 1,
    "pci_vendor_id": 0x19E5,
    "pci_device_id": 0xD802,
    "subsystem_vendor_id": 0x19E5,
    "subsystem_device_id": 0x3003,
    "pci_class": 0x120000,
    "compatibility": "OK",
    "board_type": "server",
    "aicore_count": 20,
    "hbm_clock_mhz": 1600,
    "hbm_manufacturer_id": 0x56,
    "topo_link": "HCCS",
}

_BOARD_A3 = {
    "family": "910_93",
    "server_model": "Atlas 800T A3",
    "chip_type": "Ascend",
    "chip_name": "Ascend910",
    "npu_name": "9392",
    "chip_version": "V1",
    "soc_version": "ascend910_9392",
    # No A3 board query was published: elabel fields read as NA (what npu-smi prints when the
    # electronic label cannot be read) and the ids below are synthetic.
    "product_name": "NA",
    "model": "NA",
    "manufacturer": "NA",
    "board_id": 0x40,
    "main_board_id": 0x1A,
    "pcb_id": "A",
    "bom_id": 1,
    "pci_vendor_id": 0x19E5,
    "pci_device_id": 0xD803,
    "subsystem_vendor_id": 0x19E5,
    "subsystem_device_id": 0x3005,
    "pci_class": 0x120000,
    "compatibility": "OK",
    "board_type": "server",
    "aicore_count": 24,
    "hbm_clock_mhz": 1600,
    "hbm_manufacturer_id": 0x56,
    "topo_link": "HCCS_SW",
}

_BOARD_310P3 = {
    "family": "310p",
    "server_model": "Atlas 300I Duo",
    "chip_type": "Ascend",
    "chip_name": "310P3",
    "npu_name": None,
    "chip_version": "V1",
    "soc_version": "ascend310p3",
    "product_name": "Atlas 300I Duo",
    "model": "NA",
    "manufacturer": "Huawei",
    # 0x64 is what a published 310P chip board query shows; subsystem ids are synthetic.
    "board_id": 0x64,
    "main_board_id": None,
    "pcb_id": "A",
    "bom_id": 1,
    "pci_vendor_id": 0x19E5,
    "pci_device_id": 0xD500,
    "subsystem_vendor_id": 0x19E5,
    "subsystem_device_id": 0x0100,
    "pci_class": 0x120000,
    "compatibility": "OK",
    "board_type": "card",
    "aicore_count": 8,
    "hbm_clock_mhz": None,
    "hbm_manufacturer_id": None,
    "topo_link": None,
}

PROFILES = {
    "a2-910b3": {
        "description": "Atlas 800I A2: 8x Ascend 910B3 64 GB HBM, one chip per NPU",
        "board": _BOARD_910B3,
        "npu_ids": [0, 1, 2, 3, 4, 5, 6, 7],
        "chips_per_npu": 1,
        # chip rows in NPU order: (bus id, power W, temp C, idle HBM MB, NUMA node)
        "chips": [
            ("0000:C1:00.0", 100.0, 50, 3403, 6),
            ("0000:C2:00.0", 94.8, 48, 3403, 6),
            ("0000:81:00.0", 90.0, 49, 3403, 4),
            ("0000:82:00.0", 96.5, 48, 3407, 4),
            ("0000:01:00.0", 96.5, 52, 3403, 0),
            ("0000:02:00.0", 97.4, 49, 3402, 0),
            ("0000:41:00.0", 97.8, 49, 3402, 2),
            ("0000:42:00.0", 93.3, 51, 3403, 2),
        ],
        "hbm_total_mb": 65536,
        "memory_total_mb": 0,
        "mcu": {"chip_id": 1, "lm75a_c": 36, "lm75b_c": 36},
        "numa": {"nodes": 8, "cpus_per_node": 24, "mem_mb_per_node": 130048},
    },
    "a3-9392": {
        "description": "Atlas A3: 8 NPUs x 2 dies (Chip Name Ascend910, NPU Name 9392), 64 GB HBM per die",
        "board": _BOARD_A3,
        "npu_ids": [0, 1, 2, 3, 4, 5, 6, 7],
        "chips_per_npu": 2,
        # the second die of each NPU reports no power of its own: npu-smi prints "-"
        "chips": [
            ("0000:9D:00.0", 165.4, 37, 3173, 0), ("0000:9F:00.0", None, 36, 2885, 0),
            ("0000:99:00.0", 162.3, 37, 3168, 0), ("0000:9B:00.0", None, 37, 2886, 0),
            ("0000:95:00.0", 160.3, 36, 3166, 1), ("0000:97:00.0", None, 36, 2886, 1),
            ("0000:91:00.0", 165.6, 37, 3166, 1), ("0000:93:00.0", None, 39, 2886, 1),
            ("0000:8D:00.0", 170.9, 37, 3163, 2), ("0000:8F:00.0", None, 37, 2880, 2),
            ("0000:89:00.0", 162.2, 37, 3161, 2), ("0000:8B:00.0", None, 36, 2885, 2),
            ("0000:85:00.0", 164.1, 36, 3163, 3), ("0000:87:00.0", None, 37, 2882, 3),
            ("0000:81:00.0", 164.5, 39, 3152, 3), ("0000:83:00.0", None, 38, 2893, 3),
        ],
        "hbm_total_mb": 65536,
        "memory_total_mb": 0,
        "mcu": None,
        "numa": {"nodes": 4, "cpus_per_node": 80, "mem_mb_per_node": 261120},
    },
    "310p3-duo": {
        "description": "Atlas 300I Duo: 4 cards x 2 Ascend 310P3 chips, NPU ids as firmware numbers them",
        "board": _BOARD_310P3,
        "npu_ids": [0, 96, 32768, 32896],
        "chips_per_npu": 2,
        # (bus id, power (NA on 310P), temp C, DDR used MB, NUMA node)
        "chips": [
            ("0000:01:00.0", None, 56, 1844, 0), ("0000:02:00.0", None, 58, 1846, 0),
            ("0000:04:00.0", None, 60, 1845, 0), ("0000:81:00.0", None, 56, 1846, 1),
            ("0000:82:00.0", None, 59, 1844, 1), ("0000:83:00.0", None, 60, 1843, 1),
            ("0000:84:00.0", None, 60, 1844, 1), ("0000:85:00.0", None, 61, 1846, 1),
        ],
        "hbm_total_mb": None,
        "memory_total_mb": 21527,
        "mcu": {"chip_id": 2, "lm75a_c": 41, "lm75b_c": 40},
        "numa": {"nodes": 2, "cpus_per_node": 32, "mem_mb_per_node": 257024},
    },
}

DEFAULT_PROFILE = "a2-910b3"


def profile_names():
    return sorted(PROFILES)


def get_profile(name):
    try:
        return PROFILES[name]
    except KeyError:
        raise KeyError("unknown profile %r (known: %s)" % (name, ", ".join(profile_names())))


def _die_ids(bus_id, salt):
    """Five 32-bit words, stable per bus id, shaped like npu-smi's VDie/NDie ID lines."""
    digest = hashlib.sha256(("%s/%s" % (salt, bus_id)).encode()).hexdigest().upper()
    return " ".join(digest[i:i + 8] for i in range(0, 40, 8))


def cpu_range(node, cpus_per_node):
    first = node * cpus_per_node
    return "%d-%d" % (first, first + cpus_per_node - 1)


def build_chips(name):
    """Chip rows for a fresh, idle node of profile ``name`` (state["chips"])."""
    prof = get_profile(name)
    numa = prof["numa"]
    per = prof["chips_per_npu"]
    hbm = prof["hbm_total_mb"] is not None
    chips = []
    for index, (bus_id, power, temp, used, node) in enumerate(prof["chips"]):
        npu_id = prof["npu_ids"][index // per]
        chip = {
            "npu_id": npu_id,
            "chip_id": index % per,
            "logic_id": index,
            "phy_id": index,
            "name": prof["board"]["chip_name"],
            "health": "OK",
            "power_w": power,
            "temp_c": temp,
            "hugepages_used": 0,
            "hugepages_total": 0,
            "bus_id": bus_id,
            "aicore_pct": 0,
            "memory_used_mb": 0 if hbm else used,
            "memory_total_mb": prof["memory_total_mb"],
            "hbm_used_mb": used if hbm else None,
            "hbm_total_mb": prof["hbm_total_mb"],
            "numa_node": node,
            "cpu_affinity": cpu_range(node, numa["cpus_per_node"]),
            "pci_device_id": "%04x" % prof["board"]["pci_device_id"],
            # idle memory, restored when the node reboots and its processes are gone
            "idle_used_mb": used,
            "ctrlcpu_pct": 6 if hbm else 13,
            "hbm_temp_c": temp - 2 if hbm else None,
            "error_codes": [],
            "vdie_id": _die_ids(bus_id, "vdie"),
            "ndie_id": _die_ids(bus_id, "ndie"),
            "chip_pos_id": index % per,
        }
        if chip["chip_id"] == 0:
            # per-NPU board fields live on the NPU's first chip (serial numbers are synthetic)
            chip["serial_number"] = "1025C904%04d" % (8791 + 13 * (index // per))
            chip["slot_id"] = index // per
        chips.append(chip)
    return chips


def build_mcus(name):
    """state["mcu"]: the board management controller each NPU carries (empty for A3)."""
    prof = get_profile(name)
    if not prof["mcu"]:
        return {}
    mcus = {}
    for npu_id in prof["npu_ids"]:
        entry = dict(prof["mcu"])
        entry.update({"name": "Mcu", "name_width": 30})
        mcus[str(npu_id)] = entry
    return mcus


def board_constants(name):
    return copy.deepcopy(get_profile(name)["board"])


def numa_layout(name):
    return dict(get_profile(name)["numa"])
