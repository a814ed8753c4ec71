"""npu-smi output rendered from a state built from a real capture reproduces the capture byte for byte.

Each state below is written from the figures visible in the capture (fixtures/npu-smi, copied
from published outputs); nothing is read back from the expected text.
"""
import os

import pytest

from ascend_sim import npu_smi
from ascend_sim.state import new_state

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "npu-smi")
SPACES = " " * 8  # web captures show npu-smi's leading tab expanded to 8 spaces


def fixture(name, drop_prompt=False):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        text = handle.read()
    if drop_prompt:
        assert text.startswith("[root@localhost ~]$ npu-smi")
        text = text.split("\n", 1)[1]
    return text


def chip_row(npu_id, chip_id, logic_id, name, bus_id, power, temp, hbm_used=None, hbm_total=None,
             mem_used=0, mem_total=0, health="OK"):
    return {"npu_id": npu_id, "chip_id": chip_id, "logic_id": logic_id, "phy_id": logic_id, "name": name,
            "health": health, "power_w": power, "temp_c": temp, "hugepages_used": 0, "hugepages_total": 0,
            "bus_id": bus_id, "aicore_pct": 0, "memory_used_mb": mem_used, "memory_total_mb": mem_total,
            "hbm_used_mb": hbm_used, "hbm_total_mb": hbm_total}


def state_910b2_24_1_0():
    state = new_state("a2-910b3", driver="24.1.0")
    buses = ["C1", "01", "C2", "02", "81", "41", "82", "42"]
    powers = [91.1, 91.6, 88.1, 92.4, 91.7, 92.1, 90.9, 87.8]
    temps = [49, 50, 48, 50, 50, 52, 49, 50]
    hbm = [3372, 3373, 3372, 3375, 3372, 3374, 3373, 3375]
    state["chips"] = [chip_row(i, 0, i, "910B2", "0000:%s:00.0" % buses[i], powers[i], temps[i], hbm[i], 65536)
                      for i in range(8)]
    return state


def state_910b3_26_1_0():
    state = new_state("a2-910b3", driver="26.1.0")
    buses = ["C1", "C2", "81", "82", "01", "02", "41", "42"]
    powers = [100.0, 94.8, 90.0, 96.5, 96.5, 97.4, 97.8, 93.3]
    temps = [50, 48, 49, 48, 52, 49, 49, 51]
    hbm = [8676, 3403, 3403, 3407, 3403, 3402, 3402, 3403]
    state["chips"] = [chip_row(i, 0, i, "910B3", "0000:%s:00.0" % buses[i], powers[i], temps[i], hbm[i], 65536)
                      for i in range(8)]
    state["processes"] = [{"npu_id": 0, "chip_id": 0, "pid": 485946, "name": "pytest", "memory_mb": 5175,
                           "container_pid": None}]
    return state


def state_a3_25_3_rc1():
    state = new_state("a3-9392", driver="25.3.rc1")
    buses = ["9D", "9F", "99", "9B", "95", "97", "91", "93", "8D", "8F", "89", "8B", "85", "87", "81", "83"]
    powers = [165.4, 162.3, 160.3, 165.6, 170.9, 162.2, 164.1, 164.5]
    temps = [37, 36, 37, 37, 36, 36, 37, 39, 37, 37, 37, 36, 36, 37, 39, 38]
    hbm = [3173, 2885, 3168, 2886, 3166, 2886, 3166, 2886, 3163, 2880, 3161, 2885, 3163, 2882, 3152, 2893]
    state["chips"] = [chip_row(i // 2, i % 2, i, "Ascend910", "0000:%s:00.0" % buses[i],
                               powers[i // 2] if i % 2 == 0 else None, temps[i], hbm[i], 65536)
                      for i in range(16)]
    return state


def state_310p3_24_1_0_1():
    state = new_state("310p3-duo", driver="24.1.0.1")
    npus = [0, 32, 96, 32768, 32800, 32832, 32864, 32896]
    buses = ["01", "02", "04", "81", "82", "83", "84", "85"]
    temps = [56, 58, 60, 56, 59, 60, 60, 61]
    used = [1844, 1846, 1845, 1846, 1844, 1843, 1844, 1846]
    state["chips"] = [chip_row(npus[i], 0, i, "310P3", "0000:%s:00.0" % buses[i], None, temps[i],
                               mem_used=used[i], mem_total=21527) for i in range(8)]
    return state


def state_910b_25_5_1():
    """The 910B server of the 25.5.1 captures (board, -l, usages, temp, power of NPU 0)."""
    state = new_state("a2-910b3", driver="25.5.1", firmware="7.8.0.6.201")
    state["render"] = {"kv_indent": SPACES, "trim_trailing_blank": True}
    chips = []
    for npu in range(8):
        chip = chip_row(npu, 0, npu, "910B3", "0000:C1:00.0" if npu == 0 else "0000:%02X:00.0" % npu,
                        103.5 if npu == 0 else 95.0, 39, 3402, 65536)
        chip.update({"serial_number": "1025C9048791", "slot_id": npu, "ctrlcpu_pct": 6})
        chips.append(chip)
    state["chips"] = chips
    state["mcu"] = {str(npu): {"chip_id": 1, "name": "Mcu", "name_width": 30, "lm75a_c": 36, "lm75b_c": 36}
                    for npu in range(8)}
    return state


def state_910b4_two_npus():
    state = new_state("a2-910b3", driver="24.1.0")
    state["render"] = {"kv_indent": SPACES, "trim_trailing_blank": False}
    state["chips"] = [chip_row(n, 0, n, "910B4", "0000:C%d:00.0" % (n + 1), 80.0, 40, 3000, 32768)
                      for n in range(2)]
    # the published sample was cut after "Mcu" plus nine spaces on its last line
    state["mcu"] = {"0": {"chip_id": 1, "name": "Mcu", "name_width": 30},
                    "1": {"chip_id": 1, "name": "Mcu", "name_width": 12}}
    return state


def test_98_column_table_910b2_driver_24_1_0():
    assert npu_smi.render_info(state_910b2_24_1_0()) == fixture("910B2_24.1.0_1.txt")


def test_98_column_table_a3_two_dies_per_npu():
    assert npu_smi.render_info(state_a3_25_3_rc1()) == fixture("Ascend910-A3_25.3.rc1_1.txt")


def test_106_column_table_310p3_non_contiguous_npu_ids():
    assert npu_smi.render_info(state_310p3_24_1_0_1()) == fixture("310P3_24.1.0.1_1.txt")


def test_116_column_table_driver_26_with_container_pid_column():
    assert npu_smi.render_info(state_910b3_26_1_0()) == fixture("910B3_26.1.0_1.txt")


def test_layout_widths_follow_family_and_driver():
    assert npu_smi.table_layout(state_910b2_24_1_0()) == 98
    assert npu_smi.table_layout(state_a3_25_3_rc1()) == 98
    assert npu_smi.table_layout(state_310p3_24_1_0_1()) == 106
    assert npu_smi.table_layout(state_910b3_26_1_0()) == 116
    for state in (state_910b2_24_1_0(), state_310p3_24_1_0_1(), state_910b3_26_1_0()):
        widths = {len(line) for line in npu_smi.render_info(state).splitlines()}
        assert widths == {npu_smi.table_layout(state)}


def test_topology_with_cpu_affinity():
    state = new_state("a2-910b3", driver="24.1.rc1.b030")
    affinity = ["144-167", "144-167", "96-119", "96-119", "0-23", "0-23", "48-71", "48-71"]
    for chip, cpus in zip(state["chips"], affinity):
        chip["cpu_affinity"] = cpus
    assert npu_smi.render_topo(state) == fixture("910B3_24.1.rc1.b030_topo_1.txt")


def test_board_query_25_5_1():
    assert npu_smi.render_board(state_910b_25_5_1(), 0) == fixture("910B-IT21HMDC_25.5.1_board_1.txt")


def test_info_list_25_5_1():
    assert npu_smi.render_info_list(state_910b_25_5_1()) == fixture("910B-IT21HMDC_25.5.1_info-l_1.txt")


def test_usages_25_5_1():
    assert npu_smi.render_usages(state_910b_25_5_1(), 0) == fixture("910B-IT21HMDC_25.5.1_usages_1.txt")


def test_temperature_25_5_1():
    assert npu_smi.render_temp(state_910b_25_5_1(), 0) == fixture("910B-IT21HMDC_25.5.1_temperature_1.txt")


def test_power_25_5_1():
    assert npu_smi.render_power(state_910b_25_5_1(), 0) == fixture("910B-IT21HMDC_25.5.1_power_1.txt")


def test_mapping_910b4_with_mcu_rows():
    expected = fixture("910B4_unknown_info-m_1.txt", drop_prompt=True)
    assert npu_smi.render_info_mapping(state_910b4_two_npus()) == expected


@pytest.mark.parametrize("name, state_factory", [
    ("910B4_unknown_board-c0_excerpt_1.txt", state_910b4_two_npus),
    ("Ascend910-A3-9392_unknown_board-c0_excerpt_1.txt", lambda: dict(state_a3_25_3_rc1(),
                                                                      render={"kv_indent": SPACES})),
])
def test_chip_board_query_starts_like_the_published_excerpt(name, state_factory):
    excerpt = fixture(name, drop_prompt=True).splitlines()
    rendered = npu_smi.render_board(state_factory(), 0, 0).splitlines()
    assert rendered[:len(excerpt)] == excerpt
    assert len(rendered) > len(excerpt)  # the excerpt was cut; the real query goes on
