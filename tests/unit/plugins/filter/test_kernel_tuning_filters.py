"""The kernel_tuning filters' own refusals (the rules are tested in module_utils)."""
import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.ascend.vllm.plugins.filter.kernel_tuning import kernel_tuning_numa_plan

FACTS = {
    'nodes': [{'id': 0, 'cpus': [0, 1, 2, 3]}, {'id': 1, 'cpus': [4, 5, 6, 7]}],
    'npus': [{'numa_node': 0, 'device_index': 1, 'cpu_affinity': None},
             {'numa_node': 1, 'device_index': 0, 'cpu_affinity': None}],
    'groups': [{'npus': [0], 'devices': [1], 'numa_nodes': [0], 'cpus': '0-3', 'cpu_count': 4},
               {'npus': [1], 'devices': [0], 'numa_nodes': [1], 'cpus': '4-7', 'cpu_count': 4}],
}


def test_without_groups_the_read_stands():
    assert kernel_tuning_numa_plan(FACTS, []) == FACTS['groups']


def test_groups_of_the_read():
    assert kernel_tuning_numa_plan(FACTS, [[1, 0]]) == [
        {'npus': [1, 0], 'devices': [0, 1], 'numa_nodes': [0, 1], 'cpus': '0-7', 'cpu_count': 8}]


def test_indexes_given_as_text_are_taken_as_numa_facts_took_them():
    # An AWX survey or JSON extra vars give ["1", "0"].
    assert kernel_tuning_numa_plan(FACTS, [['1', '0']]) == kernel_tuning_numa_plan(FACTS, [[1, 0]])


@pytest.mark.parametrize('facts, groups, message', [
    ({}, [], 'kernel_tuning_numa_plan expects ansible_facts.ascend_numa (ascend.vllm.numa_facts, read by '
             'ascend.vllm.node_facts)'),
    (FACTS, '0,1', 'kernel_tuning_npu_groups must be a list of lists of NPU indexes'),
    (FACTS, [['0', 'x']], "kernel_tuning_npu_groups entries must be lists of NPU indexes, got ['0', 'x']"),
    (FACTS, [[0, 2]], 'kernel_tuning_npu_groups: NPU index 2 in npu_groups does not exist (2 NPU(s) found, '
                      'indexed by PCI address from 0)'),
])
def test_refusals_name_the_variable(facts, groups, message):
    with pytest.raises(AnsibleFilterError) as exc:
        kernel_tuning_numa_plan(facts, groups)
    assert exc.value.message == message
