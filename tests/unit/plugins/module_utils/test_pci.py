"""Chip family from the PCI device ids of the NPU functions."""
import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.pci import chip_family, pci_functions


@pytest.mark.parametrize('ids, family', [
    (['0xd802'], '910b'), (['0xd803', '0xd803'], '910_93'), (['0xD500'], '310p'), (['0xd801'], '910'),
    (['0xd806'], '950dt'),   # the Ascend 950 (Huawei's driver sources: PCIE_BDF_950="19e5:d806")
    (['0xd9ff', '0xd802'], '910b'),   # an unknown future id is skipped, the known one names the family
    (['0xd9ff'], None), ([], None),
])
def test_chip_family_from_device_ids(ids, family):
    assert chip_family([{'device': i} for i in ids]) == family


def test_pci_functions_name_each_family_and_leave_unknown_ids_null():
    devices = [{'bus_id': '0000:01:00.0', 'device': '0xd802', 'vendor': '0x19e5', 'numa_node': 0},
               {'bus_id': '0000:02:00.0', 'device': '0xD9FF', 'vendor': '0x19e5', 'numa_node': None}]
    assert pci_functions(devices) == [{'bus_id': '0000:01:00.0', 'device': '0xd802', 'family': '910b'},
                                      {'bus_id': '0000:02:00.0', 'device': '0xD9FF', 'family': None}]
