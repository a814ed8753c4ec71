"""``npu-smi`` rendered from the simulator state.

Layouts and messages follow the published npu-smi sources and real captures:

* ``npu-smi info`` comes in three widths: 98 columns (910B / A3 with drivers up to 25.x),
  106 columns (310P cards, with DDR instead of HBM and ``NA`` power) and 116 columns
  (910B / A3 with drivers 26.x, which add ``Process id in container``);
* key/value queries (``info -t board|health|usages|memory|temp|power|common|ecc -i N [-c M]``,
  ``info -l``) print ``\\t%-30s : %s`` lines; ``info -m`` prints ``\\t%-30s`` columns;
* argument and driver errors use npu-smi's own words and exit codes: a device that is not
  there prints ``Invalid card id.`` / ``Error parameter of -i`` and the usage text (exit 215,
  i.e. -9001), an unloaded driver prints ``dcmi module initialize failed. ret is -8005``
  (exit 187). Everything goes to stdout, as npu-smi uses printf throughout.

Renderers are pure functions of the state; :func:`main` adds what depends on the node
(the state file, /etc/ascend_install.info).
"""
import sys

from .paths import rooted
from .state import load_state

TOOL_NAME = "npu-smi"

# npu-smi error codes (npu_common.h / dcmi_interface_api.h) and the exit status they give
# through exit(): the process status is the low byte of the negative code.
NPU_ERR_CODE_INVALID_PARAMETER = -9001
NPU_ERR_CODE_INNER_ERR = -9005
DCMI_ERR_CODE_INNER_ERR = -8005
DCMI_ERR_CODE_RESOURCE_OCCUPIED = -8020

INSTALL_INFO = "/etc/ascend_install.info"


def exit_status(code):
    return code & 0xFF


# --------------------------------------------------------------------------- helpers


def _render_opts(state):
    opts = {"kv_indent": "\t", "trim_trailing_blank": False}
    opts.update(state.get("render") or {})
    return opts


def _indent(state):
    return _render_opts(state)["kv_indent"]


def _kv(state, key, value, width=30):
    return "%s%-*s : %s" % (_indent(state), width, key, value)


def _finish(state, lines):
    text = "\n".join(lines) + "\n"
    if _render_opts(state)["trim_trailing_blank"]:
        text = text.rstrip("\n") + "\n"
    return text


def family(state):
    return state["board"]["family"]


def driver_version(state):
    return (state.get("driver") or {}).get("running")


def tool_version(state):
    """The version npu-smi reports for itself: the driver's, unless the state says otherwise."""
    return state.get("npu_smi_version") or driver_version(state) or "NA"


def _major(version):
    head = (version or "").split(".", 1)[0]
    return int(head) if head.isdigit() else 0


def table_layout(state):
    """98, 106 or 116: the width of the ``npu-smi info`` table for this node."""
    forced = state["board"].get("table_layout")
    if forced:
        return int(forced)
    if family(state) == "310p":
        return 106
    return 116 if _major(tool_version(state)) >= 26 else 98


def npu_ids(state):
    seen = []
    for chip in state["chips"]:
        if chip["npu_id"] not in seen:
            seen.append(chip["npu_id"])
    return seen


def chips_of(state, npu_id):
    return sorted((c for c in state["chips"] if c["npu_id"] == npu_id), key=lambda c: c["chip_id"])


def mcu_of(state, npu_id):
    return (state.get("mcu") or {}).get(str(npu_id))


def _first_chip(state, npu_id):
    return chips_of(state, npu_id)[0]


def _power(chip, dash=False):
    if chip.get("power_w") is None:
        return "-" if dash else "NA"
    return "%.1f" % chip["power_w"]


def _num(value, default=0):
    return default if value is None else value


def _pct(used, total):
    return int(_num(used)) * 100 // int(total) if total else 0


# --------------------------------------------------------------------------- npu-smi info


def _sep(widths, fill="-"):
    return "+" + "+".join(fill * w for w in widths) + "+"


def _no_proc(npu_id, width):
    return ("| No running processes found in NPU %-7d" % npu_id).ljust(width - 1) + "|"


def _render_hbm_table(state, width):
    """910B / A3 table: 98 columns up to driver 25.x, 116 from 26.x."""
    a3 = family(state) == "910_93"
    wide = width == 116
    cells = (27, 15, 70) if wide else (27, 15, 52)
    sep, eq = _sep(cells), _sep(cells, "=")
    full = "+" + "-" * (width - 2) + "+"
    lines = [full]
    if wide:
        lines.append("| %s %-35s Version: %-59s |" % (TOOL_NAME, tool_version(state), driver_version(state)))
        lines.append(sep)
        lines.append("| NPU   Name                | Health        | Power(W)             Temp(C)"
                     "                 Hugepages-Usage(page)   |")
        lines.append("| Chip  Phy-ID              " if a3 else "| Chip                      ")
        lines[-1] += "| Bus-Id        | AICore(%)            Memory-Usage(MB)        HBM-Usage(MB)           |"
        first = "| %-5d %-20s| %-13s | %-20s %-23d %-5d/ %-16d |"
        second = "| %-13s | %-20d %-5d/ %-16d %-5d/ %-16d |"
    else:
        lines.append("| %s %-24s Version: %-53s|" % (TOOL_NAME, tool_version(state), driver_version(state)))
        lines.append(sep)
        lines.append("| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|")
        lines.append("| Chip  Phy-ID              " if a3 else "| Chip                      ")
        lines[-1] += "| Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |"
        first = "| %-5d %-20s| %-13s | %-11s %-17d %-5d/ %-13d |"
        second = "| %-13s | %-11d %-5d/ %-10d %-5d/ %-13d |"
    lines.append(eq)
    for npu in npu_ids(state):
        chips = chips_of(state, npu)
        for index, chip in enumerate(chips):
            lines.append(first % (
                npu, chip["name"], chip["health"], _power(chip, dash=a3),
                chip["temp_c"], _num(chip.get("hugepages_used")), _num(chip.get("hugepages_total"))))
            head = "| %-5d %-20d" % (chip["chip_id"], chip["phy_id"]) if a3 else "| %-26d" % chip["chip_id"]
            lines.append(head + second % (
                chip["bus_id"], _num(chip.get("aicore_pct")),
                _num(chip.get("memory_used_mb")), _num(chip.get("memory_total_mb")),
                _num(chip.get("hbm_used_mb")), _num(chip.get("hbm_total_mb"))))
            if index != len(chips) - 1:
                lines.append(full)
        lines.append(eq)
    lines.append(sep)
    if wide:
        lines.append("| NPU     Chip              | Process id    | Process name       | Process memory(MB)    "
                     "| Process id in container |")
    else:
        lines.append("| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |")
    lines.append(eq)
    for npu in npu_ids(state):
        procs = _processes_of(state, npu)
        for proc in procs:
            if wide:
                container = proc.get("container_pid")
                lines.append("| %-7d %-18d| %-13d | %-18s | %-21d | %-23s |" % (
                    npu, proc["chip_id"], proc["pid"], proc.get("name") or "", proc["memory_mb"],
                    "NA" if container is None else container))
            else:
                lines.append("| %-7d %-18d| %-13d | %-24s | %-23d |" % (
                    npu, proc["chip_id"], proc["pid"], proc.get("name") or "", proc["memory_mb"]))
        if not procs:
            lines.append(_no_proc(npu, width))
        lines.append(eq)
    return lines


def _processes_of(state, npu_id):
    procs = [p for p in state.get("processes") or [] if p["npu_id"] == npu_id]
    return sorted(procs, key=lambda p: p.get("chip_id", 0))


def _render_310p_table(state):
    """310P cards: 106 columns, DDR memory, NA power, the Device (logic id) column."""
    cells = (31, 17, 54)
    sep, eq = _sep(cells), _sep(cells, "=")
    lines = ["+" + "-" * 104 + "+",
             "| %s %-40s Version: %-44s |" % (TOOL_NAME, tool_version(state), driver_version(state)),
             sep,
             "| NPU     Name                  | Health          | Power(W)     Temp(C)           Hugepages-Usage(page) |",
             "| Chip    Device                | Bus-Id          | AICore(%)    Memory-Usage(MB)                        |",
             eq]
    for npu in npu_ids(state):
        chips = chips_of(state, npu)
        for index, chip in enumerate(chips):
            lines.append("| %-7d %-22s| %-15s | %-12s %-17d %-6d/ %-13d |" % (
                npu, chip["name"], chip["health"], "NA", chip["temp_c"],
                _num(chip.get("hugepages_used")), _num(chip.get("hugepages_total"))))
            lines.append("| %-7d %-22d| %-15s | %-12d %-5d/ %-32d |" % (
                chip["chip_id"], chip["logic_id"], chip["bus_id"], _num(chip.get("aicore_pct")),
                _num(chip.get("memory_used_mb")), _num(chip.get("memory_total_mb"))))
            if index != len(chips) - 1:
                lines.append(sep)
        lines.append(eq)
    lines += [sep,
              "| NPU     Chip                  | Process id      | Process name             | Process memory(MB)        |",
              eq]
    for npu in npu_ids(state):
        procs = _processes_of(state, npu)
        for proc in procs:
            lines.append("| %-7d %-22d| %-15d | %-24s | %-25d |" % (
                npu, proc["chip_id"], proc["pid"], proc.get("name") or "", proc["memory_mb"]))
        if not procs:
            lines.append(_no_proc(npu, 106))
        lines.append(eq)
    return lines


def render_info(state):
    """``npu-smi info``: the device table, in the width this node's driver prints."""
    if not state.get("chips"):
        return "There is no NPU card on this server.\n"
    width = table_layout(state)
    if width == 106:
        return "\n".join(_render_310p_table(state)) + "\n"
    return "\n".join(_render_hbm_table(state, width)) + "\n"


# --------------------------------------------------------------------------- info -l / -m


def render_info_list(state):
    """``npu-smi info -l``. Servers (910B, A3) list no product name or serial number."""
    lines = [_kv(state, "Total Count", len(npu_ids(state))), ""]
    server = state["board"].get("board_type") == "server"
    for npu in npu_ids(state):
        first = _first_chip(state, npu)
        lines.append(_kv(state, "NPU ID", npu))
        if not server:
            lines.append(_kv(state, "Product Name", state["board"].get("product_name") or "NA"))
            lines.append(_kv(state, "Serial Number", first.get("serial_number") or "NA"))
        lines.append(_kv(state, "Chip Count", len(chips_of(state, npu))))
        lines.append("")
    return _finish(state, lines)


def render_info_mapping(state):
    """``npu-smi info -m``: chip logic ids; A3 adds the Chip Phy-ID column; MCUs have no logic id."""
    ind = _indent(state)
    a3 = family(state) == "910_93"
    if a3:
        lines = [ind + "%-30s %-30s %-30s %-30s %-30s" % ("NPU ID", "Chip ID", "Chip Logic ID", "Chip Phy-ID",
                                                          "Chip Name")]
    else:
        lines = [ind + "%-30s %-30s %-30s %-30s" % ("NPU ID", "Chip ID", "Chip Logic ID", "Chip Name")]
    for npu in npu_ids(state):
        for chip in chips_of(state, npu):
            if a3:
                lines.append(ind + "%-30d %-30d %-30d %-30d %s" % (
                    npu, chip["chip_id"], chip["logic_id"], chip["phy_id"], chip["name"]))
            else:
                lines.append(ind + "%-30d %-30d %-30d %s %s" % (
                    npu, chip["chip_id"], chip["logic_id"], state["board"]["chip_type"], chip["name"]))
        mcu = mcu_of(state, npu)
        if mcu:
            name = "%-*s" % (mcu.get("name_width", 30), mcu.get("name", "Mcu"))
            if a3:
                lines.append(ind + "%-30d %-30d %-30s %-30s %s" % (npu, mcu["chip_id"], "-", "-", name))
            else:
                lines.append(ind + "%-30d %-30d %-30s %s" % (npu, mcu["chip_id"], "-", name))
    return _finish(state, lines)


# --------------------------------------------------------------------------- -t queries


def _hex2(value):
    return "NA" if value in (None, 0) else "0x%02x" % value


def render_board(state, npu_id, chip_id=None):
    """``npu-smi info -t board -i N [-c M]``."""
    if chip_id is not None:
        return _render_chip_board(state, npu_id, chip_id)
    board = state["board"]
    first = _first_chip(state, npu_id)
    fam = family(state)
    firmware = (state.get("firmware") or {}).get("running") or "NA"
    lines = [_kv(state, "NPU ID", npu_id),
             _kv(state, "Product Name", board.get("product_name") or "NA"),
             _kv(state, "Model", board.get("model") or "NA"),
             _kv(state, "Manufacturer", board.get("manufacturer") or "NA"),
             _kv(state, "Serial Number", first.get("serial_number") or "NA"),
             _kv(state, "Software Version", driver_version(state)),
             _kv(state, "Firmware Version", firmware),
             _kv(state, "Compatibility", board.get("compatibility", "OK")),
             _kv(state, "Board ID", _hex2(board.get("board_id")))]
    if fam == "910_93" and board.get("main_board_id") is not None:
        lines.append(_kv(state, "Main Board ID", "0x%02x" % board["main_board_id"]))
    lines += [_kv(state, "PCB ID", board.get("pcb_id") or "NA"),
              _kv(state, "BOM ID", board.get("bom_id", "NA")),
              _kv(state, "PCIe Bus Info", first["bus_id"]),
              _kv(state, "Slot ID", first.get("slot_id", 0)),
              _kv(state, "Class ID", "NA"),
              _kv(state, "PCI Vendor ID", "0x%04X" % board["pci_vendor_id"]),
              _kv(state, "PCI Device ID", "0x%04X" % board["pci_device_id"]),
              _kv(state, "Subsystem Vendor ID", "0x%04X" % board["subsystem_vendor_id"]),
              _kv(state, "Subsystem Device ID", "0x%04X" % board["subsystem_device_id"]),
              _kv(state, "Chip Count", len(chips_of(state, npu_id)))]
    if fam == "310p":
        faulty = sum(1 for c in chips_of(state, npu_id) if c["health"] not in ("OK", "Warning"))
        lines.append(_kv(state, "Chip Fault", faulty))
    return _finish(state, lines)


def _render_chip_board(state, npu_id, chip_id):
    board = state["board"]
    fam = family(state)
    firmware = (state.get("firmware") or {}).get("running") or "NA"
    mcu = mcu_of(state, npu_id)
    if mcu and mcu["chip_id"] == chip_id:
        lines = [_kv(state, "NPU ID", npu_id),
                 _kv(state, "Chip ID", chip_id),
                 _kv(state, "Chip Name", "MCU"),
                 _kv(state, "Board ID", _hex2(board.get("board_id"))),
                 _kv(state, "PCB ID", "NA"),
                 _kv(state, "BOM ID", board.get("bom_id", "NA")),
                 _kv(state, "Chip Position ID", chip_id),
                 _kv(state, "Firmware Version", mcu.get("firmware", "NA"))]
        return _finish(state, lines)
    chip = [c for c in chips_of(state, npu_id) if c["chip_id"] == chip_id][0]
    lines = [_kv(state, "NPU ID", npu_id)]
    if fam == "910_93":
        lines.append(_kv(state, "NPU Name", board.get("npu_name") or "NA"))
    lines.append(_kv(state, "Chip ID", chip_id))
    if fam != "910_93":
        lines.append(_kv(state, "Chip Type", board["chip_type"]))
    lines += [_kv(state, "Chip Name", chip["name"]),
              _kv(state, "Chip Version", board.get("chip_version", "V1")),
              _kv(state, "Board ID", "0x%02x" % board.get("board_id", 0))]
    if fam == "310p":
        lines.append(_kv(state, "Die ID", chip.get("vdie_id", "NA")))
    else:
        lines += [_kv(state, "PCB ID", "NA"),
                  _kv(state, "BOM ID", board.get("bom_id", "NA")),
                  _kv(state, "VDie ID", chip.get("vdie_id", "NA")),
                  _kv(state, "NDie ID", chip.get("ndie_id", "NA"))]
    lines += [_kv(state, "Chip Position ID", chip.get("chip_pos_id", chip_id)),
              _kv(state, "PCIe Bus Info", chip["bus_id"]),
              _kv(state, "Firmware Version", firmware)]
    return _finish(state, lines)


def _selected(state, npu_id, chip_id):
    chips = chips_of(state, npu_id)
    if chip_id is None:
        return chips
    return [c for c in chips if c["chip_id"] == chip_id]


def _per_chip(state, npu_id, chip_id, block, mcu_block=None):
    """``NPU ID`` / ``Chip Count`` header, then each chip's block closed by its ``Chip ID``."""
    lines = [_kv(state, "NPU ID", npu_id), _kv(state, "Chip Count", len(chips_of(state, npu_id)))]
    for chip in _selected(state, npu_id, chip_id):
        lines.append("")
        lines += block(chip)
        lines.append(_kv(state, "Chip ID", chip["chip_id"]))
    mcu = mcu_of(state, npu_id)
    if mcu_block and mcu and (chip_id is None or chip_id == mcu["chip_id"]):
        lines.append("")
        lines += mcu_block(mcu)
    return _finish(state, lines)


def _health_lines(state, chip):
    codes = chip.get("error_codes") or []
    lines = [_kv(state, "Health Status", chip["health"])]
    if not codes:
        return lines + [_kv(state, "Error Code", "NA"), _kv(state, "Error Information", "NA")]
    infos = chip.get("error_info") or []
    lines.append(_kv(state, "Error Code", " ".join("%04X" % code for code in codes)))
    for index, code in enumerate(codes):
        text = infos[index] if index < len(infos) else str(code)
        lines.append(_kv(state, "Error Information" if index == 0 else " ", text))
    return lines


def render_health(state, npu_id, chip_id=None):
    """``npu-smi info -t health -i N [-c M]``; with ``-c`` only the three health lines, as documented."""
    if chip_id is not None:
        mcu = mcu_of(state, npu_id)
        if mcu and mcu["chip_id"] == chip_id:
            return _finish(state, [_kv(state, "Health Status", mcu.get("health", "OK")),
                                   _kv(state, "Error Code", "NA"), _kv(state, "Error Information", "NA")])
        chip = _selected(state, npu_id, chip_id)[0]
        return _finish(state, _health_lines(state, chip))
    return _per_chip(state, npu_id, None, lambda chip: _health_lines(state, chip))


def render_usages(state, npu_id, chip_id=None):
    """``npu-smi info -t usages -i N [-c M]``."""
    def block(chip):
        if family(state) == "310p":
            total = _num(chip.get("memory_total_mb"))
            hp_total = _num(chip.get("hugepages_total"))
            return [_kv(state, "DDR Capacity(MB)", total),
                    _kv(state, "DDR Usage Rate(%)", _pct(chip.get("memory_used_mb"), total)),
                    _kv(state, "DDR Hugepages Total(page)", hp_total),
                    _kv(state, "DDR Hugepages Usage Rate(%)", _pct(chip.get("hugepages_used"), hp_total)),
                    _kv(state, "Aicore Usage Rate(%)", _num(chip.get("aicore_pct"))),
                    _kv(state, "Aicpu Usage Rate(%)", _num(chip.get("aicpu_pct"))),
                    _kv(state, "Ctrlcpu Usage Rate(%)", _num(chip.get("ctrlcpu_pct"))),
                    _kv(state, "Vectorcore Usage Rate(%)", _num(chip.get("vectorcore_pct"))),
                    _kv(state, "DDR Bandwidth Usage Rate(%)", _num(chip.get("ddr_bw_pct"))),
                    _kv(state, "DVPP VDEC Usage Rate(%)", 0),
                    _kv(state, "DVPP VPC Usage Rate(%)", 0),
                    _kv(state, "DVPP VENC Usage Rate(%)", 0),
                    _kv(state, "DVPP JPEGE Usage Rate(%)", 0),
                    _kv(state, "DVPP JPEGD Usage Rate(%)", 0)]
        # 910B and A3 have no DDR: npu-smi prints zeros for it
        return [_kv(state, "DDR Capacity(MB)", 0),
                _kv(state, "DDR Usage Rate(%)", 0),
                _kv(state, "DDR Hugepages Total(page)", 0),
                _kv(state, "DDR Hugepages Usage Rate(%)", 0),
                _kv(state, "HBM Capacity(MB)", _num(chip.get("hbm_total_mb"))),
                _kv(state, "HBM Usage Rate(%)", _pct(chip.get("hbm_used_mb"), chip.get("hbm_total_mb"))),
                _kv(state, "Aicore Usage Rate(%)", _num(chip.get("aicore_pct"))),
                _kv(state, "Aivector Usage Rate(%)", _num(chip.get("aivector_pct"))),
                _kv(state, "Aicpu Usage Rate(%)", _num(chip.get("aicpu_pct"))),
                _kv(state, "Ctrlcpu Usage Rate(%)", _num(chip.get("ctrlcpu_pct"))),
                _kv(state, "DDR Bandwidth Usage Rate(%)", 0),
                _kv(state, "HBM Bandwidth Usage Rate(%)", _num(chip.get("hbm_bw_pct"))),
                _kv(state, "NPU Utilization(%)", _num(chip.get("npu_util_pct"), _num(chip.get("aicore_pct")))),
                _kv(state, "Aicube Usage Rate(%)", _num(chip.get("aicube_pct")))]
    return _per_chip(state, npu_id, chip_id, block)


def render_memory(state, npu_id, chip_id=None):
    """``npu-smi info -t memory -i N [-c M]``: NPU ID, then per chip its memory and ``Chip ID``."""
    board = state["board"]
    lines = [_kv(state, "NPU ID", npu_id)]
    for index, chip in enumerate(_selected(state, npu_id, chip_id)):
        if index:
            lines.append("")
        if family(state) == "310p":
            lines += [_kv(state, "Total DDR Capacity(MB)", board.get("ddr_total_mb", 24576)),
                      _kv(state, "DDR Capacity(MB)", _num(chip.get("memory_total_mb"))),
                      _kv(state, "DDR Clock Speed(MHz)", board.get("ddr_clock_mhz", 3200))]
        else:
            lines += [_kv(state, "DDR Capacity(MB)", 0),
                      _kv(state, "DDR Clock Speed(MHz)", 0),
                      _kv(state, "HBM Capacity(MB)", _num(chip.get("hbm_total_mb"))),
                      _kv(state, "HBM Clock Speed(MHz)", board.get("hbm_clock_mhz") or 1600),
                      _kv(state, "HBM Temperature(C)", _num(chip.get("hbm_temp_c"), chip["temp_c"])),
                      _kv(state, "HBM Manufacturer ID", "0x%X" % (board.get("hbm_manufacturer_id") or 0x56))]
        lines.append(_kv(state, "Chip ID", chip["chip_id"]))
    return _finish(state, lines)


def render_temp(state, npu_id, chip_id=None):
    """``npu-smi info -t temp -i N [-c M]``; the board's MCU adds its LM75 sensor readings."""
    label = "NPU Temperature (C)" if state["board"].get("board_type") == "server" else "Temperature (C)"

    def mcu_block(mcu):
        ind = _indent(state)
        return [ind + "%-8s%-22s : %d" % ("LM75A_TE", " (C)", mcu.get("lm75a_c", 0)),
                ind + "%-8s%-22s : %d" % ("LM75B_TE", " (C)", mcu.get("lm75b_c", 0)),
                _kv(state, "Chip Name", "MCU")]
    return _per_chip(state, npu_id, chip_id, lambda chip: [_kv(state, label, chip["temp_c"])], mcu_block)


def render_power(state, npu_id, chip_id=None):
    """``npu-smi info -t power -i N [-c M]``."""
    return _per_chip(state, npu_id, chip_id,
                     lambda chip: [_kv(state, "NPU Real-time Power(W)", _power(chip))])


def render_common(state, npu_id, chip_id=None):
    """``npu-smi info -t common -i N``: per-chip summary, then the MCU's temperature."""
    board = state["board"]
    fam = family(state)
    lines = [_kv(state, "NPU ID", npu_id), _kv(state, "Chip Count", len(chips_of(state, npu_id)))]
    for chip in _selected(state, npu_id, chip_id):
        lines += ["", _kv(state, "Chip ID", chip["chip_id"])]
        if fam == "310p":
            lines.append(_kv(state, "Memory Usage Rate(%)",
                             _pct(chip.get("memory_used_mb"), chip.get("memory_total_mb"))))
        else:
            lines += [_kv(state, "Memory Usage Rate(%)", 0),
                      _kv(state, "HBM Usage Rate(%)", _pct(chip.get("hbm_used_mb"), chip.get("hbm_total_mb")))]
        lines += [_kv(state, "Aicore Usage Rate(%)", _num(chip.get("aicore_pct"))),
                  _kv(state, "Aicore Freq(MHZ)", board.get("aicore_freq_mhz", 1800)),
                  _kv(state, "Aicore curFreq(MHZ)", board.get("aicore_freq_mhz", 1800))]
        if fam != "310p":
            lines.append(_kv(state, "Aicore Count", board.get("aicore_count", 0)))
        lines.append(_kv(state, "Temperature(C)", chip["temp_c"]))
        if fam != "310p":
            lines.append(_kv(state, "NPU Real-time Power(W)", _power(chip)))
    mcu = mcu_of(state, npu_id)
    if mcu and chip_id is None:
        lines += ["", _kv(state, "Chip Name", "mcu"), _kv(state, "Temperature(C)", mcu.get("temp_c", 40))]
        if fam == "310p":
            lines.append(_kv(state, "NPU Real-time Power(W)", "%.1f" % mcu.get("power_w", 0.0)))
    return _finish(state, lines)


def render_ecc(state, npu_id, chip_id=None):
    """``npu-smi info -t ecc -i N``: error counters (all zero on the simulated hardware)."""
    def ecc(chip, key):
        return (chip.get("ecc") or {}).get(key, 0)
    lines = [_kv(state, "NPU ID", npu_id, 40), _kv(state, "Chip Count", len(chips_of(state, npu_id)), 40)]
    for chip in _selected(state, npu_id, chip_id):
        lines.append("")
        keys = ["DDR Single Bit Error Count", "DDR Double Bit Error Count"]
        if family(state) == "310p":
            keys += ["DDR Single Bit Aggregate Total Err Cnt", "DDR Double Bit Aggregate Total Err Cnt",
                     "DDR Single Bit Isolated Pages Count", "DDR Double Bit Isolated Pages Count"]
        else:
            keys += ["HBM Single Bit Error Count", "HBM Double Bit Error Count",
                     "HBM Single Bit Aggregate Total Err Cnt", "HBM Double Bit Aggregate Total Err Cnt",
                     "HBM Single Bit Isolated Pages Count", "HBM Double Bit Isolated Pages Count"]
        lines += [_kv(state, key, ecc(chip, key), 40) for key in keys]
        lines.append(_kv(state, "Chip ID", chip["chip_id"], 40))
    return _finish(state, lines)


# --------------------------------------------------------------------------- topology

_LEGEND_HEAD = ["Legend:", "",
                "  X    = Self",
                "  SYS  = Path traversing PCIe and NUMA nodes. Nodes are connected through SMP, such as QPI, UPI.",
                "  PHB  = Path traversing PCIe and the PCIe host bridge of a CPU."]


def _topo_link(state, a, b):
    if a is b:
        return "X"
    fam = family(state)
    if fam == "910_93":
        return "SIO" if a["npu_id"] == b["npu_id"] else (state["board"].get("topo_link") or "HCCS_SW")
    if fam == "310p":
        return "PHB" if a.get("numa_node") == b.get("numa_node") else "SYS"
    return state["board"].get("topo_link") or "HCCS"


def render_topo(state):
    """``npu-smi info -t topo``: link type between every pair of devices, then CPU affinity.

    A3 hosts list devices by Phy-ID and print no CPU affinity (their NPUs hang off a switch
    board, not a CPU).
    """
    fam = family(state)
    a3 = fam == "910_93"
    devices = sorted(state["chips"], key=lambda c: c["phy_id"] if a3 else (c["npu_id"], c["chip_id"]))
    if not a3:
        devices = [c for c in devices if c["chip_id"] == 0] if fam != "310p" else devices

    def label(chip):
        return "Phy-ID%-5d" % chip["phy_id"] if a3 else "NPU%-8d" % (chip["logic_id"] if fam == "310p"
                                                                       else chip["npu_id"])
    header = _indent(state) + "   " + "".join(label(c) for c in devices)
    lines = [header + ("" if a3 else "CPU Affinity")]
    for row in devices:
        cells = "".join("%-11s" % _topo_link(state, row, col) for col in devices)
        lines.append(label(row) + cells + ("" if a3 else row.get("cpu_affinity") or "NA"))
    lines.append("")
    lines += _LEGEND_HEAD
    if fam != "310p":
        lines += ["  PIX  = Path traversing a single PCIe switch",
                  "  PXB  = Path traversing multiple PCIe switches"]
    lines.append("  HCCS = Connection traversing HCCS.")
    if a3:
        lines += ["  SIO  = Path traversing the SIO bus",
                  "  HCCS_SW = Connection traversing HCCS through a switch"]
    lines.append("  NA   = Unknown relationship.")
    return _finish(state, lines)


# --------------------------------------------------------------------------- help, version


def render_help():
    lines = ["Usage: %s <Command|-h|-v> [Options...]" % TOOL_NAME, "", "%s Command:" % TOOL_NAME]
    for name, desc in (("-h", "This command's help information"), ("--help", "This command's help information"),
                       ("-v", "Show npu-smi version information"), ("info", "Show hardware details"),
                       ("set", "Modify device configuration properties"), ("clear", "Clear device information"),
                       ("upgrade", "Upgrade MCU firmware")):
        lines.append("\t%-12s  %s" % (name, desc))
    return "\n".join(lines) + "\n"


def render_info_help(name="info"):
    return "\n".join([
        "Usage: %s %s <watch|proc|-h|-m|-l|-t type> [Options...]" % (TOOL_NAME, name),
        "",
        "Commands:",
        "       watch          Show all device's status in scrolling format",
        "       proc           Show device's matrix process status in scrolling format",
        "       -h, --help     Show this help text and exit",
        "       -m             Show all device's mapping information",
        "       -l             Show all device's topology information",
        "       -t type        Show information for type",
        "                      type: board, flash, memory, usages, sensors, temp, power, volt, mac-addr,",
        "                            common, health, product, ecc, ip, sys-time, i2c_check, work-mode,",
        "                            ecc-enable, p2p-enable, ssh-enable, license, customized-info, device-share,",
        "                            device-share-cfg-recover, nve-level, aicpu-config, pcie-err, mcu-monitor,",
        "                            err-count, boot-area, vnpu-mode, info-vnpu, vnpu-svm, cpu-num-cfg,",
        "                            first-power-on-date, proc-mem, phyid-remap, vnpu-cfg-recover, key-manage,",
        "                            template-info, pkcs-enable, p2p-mem-cfg, pwm-mode, pwm-duty-ratio,",
        "                            boot-select, topo, hccs, sio-info, spod-info, tls-csr-get, tls-cert,",
        "                            tls-cert-period, rootkey, hccs-bw, cpu-freq-up, sys-log-info, hccs-credit,",
        "                            custom-op, custom-op-cfg-recover, custom-op-secverify-enable,",
        "                            custom-op-secverify-mode, op-timeout, current-fault-event,",
        "                            custom-op-secverify-cert, multi-die-policy, multi-die-policy-cfg-recover.",
        "",
        "Options:",
        "       -i %d          Card ID",
        "       -c %d          Chip ID",
        "       -p %d          Chip Physical ID",
    ]) + "\n"


def render_version(state):
    return "%s version: %s\n" % (TOOL_NAME, tool_version(state))


# --------------------------------------------------------------------------- command line

_TYPE_RENDERERS = {
    "board": render_board,
    "health": render_health,
    "usages": render_usages,
    "memory": render_memory,
    "temp": render_temp,
    "power": render_power,
    "common": render_common,
    "ecc": render_ecc,
}

_COMMANDS = ("-h", "--help", "-v", "info", "set", "clear", "upgrade")


class _Out:
    def __init__(self, stream):
        self.stream = stream

    def write(self, text):
        self.stream.write(text)


def _install_complete(root=None):
    try:
        with open(rooted(INSTALL_INFO, root), encoding="utf-8", errors="replace") as handle:
            return "Driver_Install_Status=complete" in handle.read()
    except OSError:
        return False


def _dcmi_init(state):
    """0 when the driver answers, else npu-smi's dcmi error code."""
    inject = state.get("inject") or {}
    if inject.get("dcmi_init_ret"):
        return int(inject["dcmi_init_ret"])
    if not driver_version(state):
        return DCMI_ERR_CODE_INNER_ERR
    return 0


def _card_ok(state, npu_id):
    return npu_id in npu_ids(state)


def _chip_ok(state, npu_id, chip_id):
    if not _card_ok(state, npu_id):
        return False
    mcu = mcu_of(state, npu_id)
    return any(c["chip_id"] == chip_id for c in chips_of(state, npu_id)) or bool(mcu and mcu["chip_id"] == chip_id)


def _to_int(text):
    try:
        return int(text, 10)
    except (TypeError, ValueError):
        return None


def _info(state, args, out):
    if not args:
        text = render_info(state)
        out.write(text)
        if family(state) != "310p" and state.get("chips") and not _install_complete():
            out.write("[WARNING]The driver package may not be completely installed, "
                      "which may cause function abnormal. Please reinstall it.\n")
        return 0
    opts = {}
    single = 0
    index = 0
    while index < len(args):
        flag = args[index]
        value = args[index + 1] if index + 1 < len(args) else None
        if flag in ("-t", "-l", "-m", "-h", "--help"):
            single += 1
            if single > 1:
                out.write("Error parameter of %s\n" % flag)
                out.write(render_info_help())
                return exit_status(NPU_ERR_CODE_INVALID_PARAMETER)
        if flag in ("-h", "--help"):
            out.write(render_info_help())
            return 0
        if flag == "-i":
            npu_id = _to_int(value)
            opts["id"] = npu_id
            if npu_id is None or not _card_ok(state, npu_id):
                out.write("Invalid card id.\nError parameter of -i\n")
                out.write(render_info_help())
                return exit_status(NPU_ERR_CODE_INVALID_PARAMETER)
        elif flag == "-c":
            chip_id = _to_int(value)
            opts["chip"] = chip_id
            if chip_id is None or not _chip_ok(state, opts.get("id"), chip_id):
                out.write("Invalid chip id.\nError parameter of -c\n")
                out.write(render_info_help())
                return exit_status(NPU_ERR_CODE_INVALID_PARAMETER)
        elif flag == "-t":
            if value is None:
                out.write("Error parameter of -t\n")
                out.write(render_info_help())
                return exit_status(NPU_ERR_CODE_INVALID_PARAMETER)
            opts["type"] = value
        elif flag == "-l":
            opts["list"] = True
        elif flag == "-m":
            opts["mapping"] = True
        else:
            out.write("Error parameter of %s\n" % flag)
            out.write(render_info_help())
            return exit_status(NPU_ERR_CODE_INVALID_PARAMETER)
        index += 2
    if opts.get("list"):
        out.write(render_info_list(state))
        return 0
    if opts.get("mapping"):
        out.write(render_info_mapping(state))
        return 0
    kind = opts.get("type")
    if kind == "topo":
        out.write(render_topo(state))
        return 0
    if kind not in _TYPE_RENDERERS:
        out.write("Error parameter of -t\n")
        out.write(render_info_help())
        return exit_status(NPU_ERR_CODE_INVALID_PARAMETER)
    if opts.get("id") is None:
        out.write("\nThis command must input card id.\n\n")
        out.write(render_info_help())
        return exit_status(NPU_ERR_CODE_INVALID_PARAMETER)
    out.write(_TYPE_RENDERERS[kind](state, opts["id"], opts.get("chip")))
    return 0


def main(argv, state=None, stdout=None):
    """Run ``npu-smi`` with ``argv`` (the arguments after the program name); return the exit status.

    ``state`` defaults to the node's state file. Output goes to ``stdout`` (default sys.stdout).
    """
    out = _Out(stdout or sys.stdout)
    argv = list(argv)
    if not argv:
        out.write(render_help())
        return exit_status(NPU_ERR_CODE_INVALID_PARAMETER)
    if argv[0] not in _COMMANDS:
        out.write("Command or option is not found.\n")
        out.write(render_help())
        return exit_status(NPU_ERR_CODE_INNER_ERR)
    if state is None:
        try:
            state = load_state()
        except FileNotFoundError:
            # no simulated hardware at all: the driver library finds nothing to talk to
            state = {"driver": {"running": None}, "chips": [], "board": {"family": "910b"}}
    ret = _dcmi_init(state)
    if ret:
        if ret == DCMI_ERR_CODE_RESOURCE_OCCUPIED:
            out.write("dcmi model initialized failed, because the device is used. ret is %d\n" % ret)
        else:
            out.write("dcmi module initialize failed. ret is %d\n" % ret)
        return exit_status(ret)
    command = argv[0]
    if command in ("-h", "--help"):
        out.write(render_help())
        return 0
    if command == "-v":
        out.write(render_version(state))
        return 0
    if command == "info":
        return _info(state, argv[1:], out)
    # set / clear / upgrade change hardware settings the test bed does not model
    out.write("Error parameter of %s\n" % (argv[1] if len(argv) > 1 else command))
    out.write(render_help())
    return exit_status(NPU_ERR_CODE_INVALID_PARAMETER)


if __name__ == "__main__":  # pragma: no cover - exercised through ``python3 -m ascend_sim npu-smi``
    sys.exit(main(sys.argv[1:]))
