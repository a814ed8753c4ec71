"""Server profiles: shapes and the real figures they were taken from."""
import os

import pytest

from ascend_sim import npu_smi
from ascend_sim.profiles import PROFILES, build_chips, profile_names
from ascend_sim.state import new_state

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "npu-smi")


def fixture(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return handle.read()


def test_known_profiles():
    assert profile_names() == ["310p3-duo", "a2-910b3", "a3-9392"]
    with pytest.raises(KeyError):
        build_chips("910a")


@pytest.mark.parametrize("name, npus, per_npu, chip_name, device", [
    ("a2-910b3", list(range(8)), 1, "910B3", "d802"),
    ("a3-9392", list(range(8)), 2, "Ascend910", "d803"),
    ("310p3-duo", [0, 96, 32768, 32896], 2, "310P3", "d500"),
])
def test_profile_shape(name, npus, per_npu, chip_name, device):
    chips = build_chips(name)
    assert [c["npu_id"] for c in chips[::per_npu]] == npus
    assert [c["chip_id"] for c in chips] == [i % per_npu for i in range(len(chips))]
    assert [c["logic_id"] for c in chips] == list(range(len(chips)))
    assert {c["name"] for c in chips} == {chip_name}
    assert {c["pci_device_id"] for c in chips} == {device}
    assert len({c["bus_id"] for c in chips}) == len(chips)
    assert all(c["health"] == "OK" and c["aicore_pct"] == 0 for c in chips)


def test_a3_second_die_reports_no_power_and_310p_no_hbm():
    a3 = build_chips("a3-9392")
    assert all(c["power_w"] is None for c in a3 if c["chip_id"] == 1)
    assert all(c["power_w"] > 100 for c in a3 if c["chip_id"] == 0)
    duo = build_chips("310p3-duo")
    assert all(c["hbm_total_mb"] is None and c["memory_total_mb"] == 21527 for c in duo)
    assert new_state("310p3-duo")["hccn"] == {}


def test_fresh_a3_node_looks_like_the_published_capture():
    assert npu_smi.render_info(new_state("a3-9392", driver="25.3.rc1")) == fixture("Ascend910-A3_25.3.rc1_1.txt")


def test_fresh_a2_node_is_the_910b3_capture_without_its_test_process():
    state = new_state("a2-910b3", driver="26.1.0")
    state["chips"][0]["hbm_used_mb"] = 8676
    state["processes"] = [{"npu_id": 0, "chip_id": 0, "pid": 485946, "name": "pytest", "memory_mb": 5175,
                           "container_pid": None}]
    assert npu_smi.render_info(state) == fixture("910B3_26.1.0_1.txt")


def test_a2_affinity_follows_the_published_topology():
    chips = build_chips("a2-910b3")
    assert [c["cpu_affinity"] for c in chips] == ["144-167", "144-167", "96-119", "96-119",
                                                  "0-23", "0-23", "48-71", "48-71"]


def test_soc_versions():
    assert {name: p["board"]["soc_version"] for name, p in PROFILES.items()} == {
        "a2-910b3": "ascend910b3", "a3-9392": "ascend910_9392", "310p3-duo": "ascend310p3"}
