"""npu-smi output parsers against real outputs and against layouts derived from them."""
import os
import re

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.npu_smi import (
    NpuSmiParseError,
    parse_board,
    parse_chip_mapping,
    parse_info,
    parse_key_values,
    parse_topo,
    parse_version_info,
    soc_version,
    split_header_cell,
)

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'fixtures', 'npu-smi')


def read_fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


A2 = '910B2_24.1.0_1.txt'
A3 = 'Ascend910-A3_25.3.rc1_1.txt'
P310 = '310P3_24.1.0.1_1.txt'
D26 = '910B3_26.1.0_1.txt'


def summary(chips):
    return [(c['npu_id'], c['chip_id'], c['bus_id'], c['power_w'], c['temp_c'], c['hbm_used_mb'])
            for c in chips]


A2_SUMMARY = [
    (0, 0, '0000:c1:00.0', 91.1, 49, 3372),
    (1, 0, '0000:01:00.0', 91.6, 50, 3373),
    (2, 0, '0000:c2:00.0', 88.1, 48, 3372),
    (3, 0, '0000:02:00.0', 92.4, 50, 3375),
    (4, 0, '0000:81:00.0', 91.7, 50, 3372),
    (5, 0, '0000:41:00.0', 92.1, 52, 3374),
    (6, 0, '0000:82:00.0', 90.9, 49, 3373),
    (7, 0, '0000:42:00.0', 87.8, 50, 3375),
]


def test_a2_table_every_field_of_first_chip_and_summary_of_all():
    result = parse_info(read_fixture(A2))
    assert result['npu_smi_version'] == '24.1.0'
    assert result['warnings'] == []
    assert result['process_table'] is True
    assert result['processes'] == []
    assert summary(result['chips']) == A2_SUMMARY
    assert result['chips'][0] == {
        'npu_id': 0, 'chip_id': 0, 'device_id': None, 'phy_id': None, 'name': '910B2',
        'health': 'OK', 'power_w': 91.1, 'temp_c': 49, 'hugepages_used': 0,
        'hugepages_total': 0, 'bus_id': '0000:c1:00.0', 'aicore_pct': 0,
        'memory_used_mb': 0, 'memory_total_mb': 0, 'hbm_used_mb': 3372, 'hbm_total_mb': 65536,
        'numa_node': None, 'cpu_affinity': None, 'details': {},
    }


def test_a3_two_chips_per_npu_dash_power_and_phy_id():
    result = parse_info(read_fixture(A3))
    chips = result['chips']
    assert result['npu_smi_version'] == '25.3.rc1'
    assert len(chips) == 16
    assert [(c['npu_id'], c['chip_id'], c['phy_id']) for c in chips] == [
        (n // 2, n % 2, n) for n in range(16)]
    # The second chip of every NPU prints "-" as power.
    assert [c['power_w'] for c in chips[1::2]] == [None] * 8
    assert [c['power_w'] for c in chips[0::2]] == [165.4, 162.3, 160.3, 165.6, 170.9, 162.2, 164.1, 164.5]
    assert chips[1]['bus_id'] == '0000:9f:00.0'
    assert chips[1]['hbm_used_mb'] == 2885
    assert chips[15]['temp_c'] == 38
    assert {c['name'] for c in chips} == {'Ascend910'}
    assert result['warnings'] == []


def test_310p_no_hbm_na_power_large_npu_ids_and_device_column():
    result = parse_info(read_fixture(P310))
    chips = result['chips']
    assert result['npu_smi_version'] == '24.1.0.1'
    assert [c['npu_id'] for c in chips] == [0, 32, 96, 32768, 32800, 32832, 32864, 32896]
    assert [c['device_id'] for c in chips] == list(range(8))
    assert [c['temp_c'] for c in chips] == [56, 58, 60, 56, 59, 60, 60, 61]
    assert [c['memory_used_mb'] for c in chips] == [1844, 1846, 1845, 1846, 1844, 1843, 1844, 1846]
    assert {c['memory_total_mb'] for c in chips} == {21527}
    assert {(c['power_w'], c['hbm_used_mb'], c['hbm_total_mb']) for c in chips} == {(None, None, None)}
    assert chips[3]['bus_id'] == '0000:81:00.0'
    assert result['processes'] == []


def test_driver_26_layout_with_container_pid_column():
    result = parse_info(read_fixture(D26))
    assert result['npu_smi_version'] == '26.1.0'
    assert [c['hbm_used_mb'] for c in result['chips']] == [8676, 3403, 3403, 3407, 3403, 3402, 3402, 3403]
    assert [c['power_w'] for c in result['chips']] == [100.0, 94.8, 90.0, 96.5, 96.5, 97.4, 97.8, 93.3]
    assert result['processes'] == [
        {'npu_id': 0, 'chip_id': 0, 'pid': 485946, 'name': 'pytest', 'memory_mb': 5175,
         'container_pid': None},
    ]


A5_DOC = 'Ascend950_x.x.x_doc-example_1.txt'
A5_PR = 'Ascend950PR_25.7.rc1.6_excerpt_1.txt'


def test_ascend_950_layout_reads_columns_by_name():
    # The 950's table: "NPU ID" in one cell, a second header row and a second data row that start
    # with two empty cells, "NPU Util(%)" where A2 / A3 print "AICore(%)", no Chip column.
    result = parse_info(read_fixture(A5_DOC))
    assert result['warnings'] == []
    assert result['process_table'] is True and result['processes'] == []
    chip = result['chips'][0]
    assert len(result['chips']) == 1
    assert (chip['npu_id'], chip['chip_id'], chip['name'], chip['health'], chip['bus_id']) == (
        0, 0, 'xxx', 'OK', '0000:91:00.0')
    assert (chip['power_w'], chip['temp_c'], chip['aicore_pct']) == (204.4, 56, 0)
    assert (chip['hbm_used_mb'], chip['hbm_total_mb'], chip['memory_used_mb']) == (4439, 86016, 0)


def test_ascend_950pr_capture_cut_short_is_reported_not_refused():
    # gpustack/gpustack issue 6148's capture ends inside NPU 0's second row.
    result = parse_info(read_fixture(A5_PR))
    assert result['npu_smi_version'] == '25.7.rc1.6'
    assert result['chips'] == []
    assert result['warnings'] == ['npu-smi info output was cut short at line 9; kept the 0 complete chip row(s) '
                                  'before it']
    # Closed as npu-smi prints it, the same rows give the chip.
    closed = read_fixture(A5_PR).rstrip('\n') + '        |\n+' + '=' * 97 + '+\n'
    chip = parse_info(closed)['chips'][0]
    assert (chip['npu_id'], chip['chip_id'], chip['name'], chip['bus_id'], chip['hbm_total_mb']) == (
        0, 0, 'Ascend950PR', '0000:01:00.0', 131072)


def test_shell_prompt_before_the_table_and_crlf_are_ignored():
    text = '[root@npu-node-01 ~]# npu-smi info\r\n' + read_fixture(A2).replace('\n', '\r\n')
    result = parse_info(text)
    assert summary(result['chips']) == A2_SUMMARY
    assert result['warnings'] == []


def _widen(text, extra=5):
    # Every gap of two or more spaces grows: column starts move together in header and rows.
    return '\n'.join(re.sub(r' {2,}', lambda m: m.group(0) + ' ' * extra, line) if line.startswith('|') else line
                     for line in text.splitlines())


def _narrow(text):
    # Every gap shrinks to two spaces: sub-columns no longer line up with their headers.
    return '\n'.join(re.sub(r' {2,}', '  ', line) if line.startswith('|') else line
                     for line in text.splitlines())


@pytest.mark.parametrize('transform', [_widen, _narrow])
@pytest.mark.parametrize('name', [A2, A3, P310, D26])
def test_wider_and_narrower_columns_parse_the_same(name, transform):
    original = parse_info(read_fixture(name))
    changed = parse_info(transform(read_fixture(name)))
    assert changed == original


def _swap_cells(text, first, second, cells):
    """Swap two cells of every row that has ``cells`` cells (header rows included)."""
    out = []
    for line in text.splitlines():
        parts = line.split('|')
        if line.startswith('|') and len(parts) == cells + 2:
            parts[first + 1], parts[second + 1] = parts[second + 1], parts[first + 1]
        out.append('|'.join(parts))
    return '\n'.join(out) + '\n'


def test_reordered_cells_follow_the_header():
    text = _swap_cells(read_fixture(A2), 1, 2, 3)
    assert '| NPU   Name                | Power(W)' in text
    assert parse_info(text) == parse_info(read_fixture(A2))


def test_reordered_sub_columns_extra_cell_and_extra_sub_column():
    text = '\n'.join([
        '+--------------------------------------------------------------------------------------------------------+',
        '| npu-smi 25.2.0                                 Version: 25.2.0                                       |',
        '+---------------------+---------------+---------------------------------------------------+-----------+',
        '| NPU   Name          | Health        | Temp(C)   Power(W)   Hugepages-Usage(page)        | Slot      |',
        '| Chip  Device        | Bus-Id        | HBM-Usage(MB)   AICore(%)   Memory-Usage(MB)  Vec(%) | Fan(%)    |',
        '+=====================+===============+===================================================+===========+',
        '| 0     910B4         | Warning       | 44        85.5       0 / 0                        | 3         |',
        '| 0     0             | 0000:3D:00.0  | 1200 / 32768    7           0 / 0             12     | NA        |',
        '+=====================+===============+===================================================+===========+',
        '| 1     910B4         | OK            | 45        NA         16 / 32                      | 4         |',
        '| 0     1             | 0000:3E:00.0  | 900 / 32768     0           0 / 0             0      | NA        |',
        '+=====================+===============+===================================================+===========+',
    ]) + '\n'
    result = parse_info(text)
    first, second = result['chips']
    assert (first['health'], first['temp_c'], first['power_w'], first['hbm_used_mb'],
            first['hbm_total_mb'], first['aicore_pct'], first['device_id']) == \
        ('Warning', 44, 85.5, 1200, 32768, 7, 0)
    assert (second['power_w'], second['hugepages_used'], second['hugepages_total'],
            second['bus_id'], second['device_id']) == (None, 16, 32, '0000:3e:00.0', 1)
    # The table ends without a process table: said, not silently taken as "no process".
    assert result['processes'] == []
    assert result['process_table'] is False
    # The extra columns are named, not fatal.
    assert result['warnings'] == ['npu-smi info: column(s) Slot, Vec(%), Fan(%) of the chips table are not known to '
                                  'this parser; their values are left out',
                                  'npu-smi info printed no process table; the process list is '
                                  'unknown, not necessarily empty']


PROCESSES = '\n'.join([
    '+---------------------------+---------------+----------------------------------------------------+',
    '| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |',
    '+===========================+===============+====================================================+',
    '| 0       0                 | 1201          | python3                  | 31450                   |',
    '| 0       0                 | 1202          |                          | 112                     |',
    '| 0       0                 | 1203          | VLLM::EngineCore 0       | 28000                   |',
    '+===========================+===============+====================================================+',
    '| No running processes found in NPU 1                                                            |',
    '+===========================+===============+====================================================+',
    '| 2       0                 | 77            | ray::IDLE                | NA                      |',
    '+===========================+===============+====================================================+',
]) + '\n'


def _a2_chips_only():
    text = read_fixture(A2)
    return text[:text.index('+---------------------------+---------------+------------------------'
                            '----------------------------+\n| NPU     Chip')]


def test_several_processes_per_chip_empty_names_and_no_process_lines():
    result = parse_info(_a2_chips_only() + PROCESSES)
    assert result['process_table'] is True
    assert result['warnings'] == []
    assert result['processes'] == [
        {'npu_id': 0, 'chip_id': 0, 'pid': 1201, 'name': 'python3', 'memory_mb': 31450, 'container_pid': None},
        {'npu_id': 0, 'chip_id': 0, 'pid': 1202, 'name': '', 'memory_mb': 112, 'container_pid': None},
        {'npu_id': 0, 'chip_id': 0, 'pid': 1203, 'name': 'VLLM::EngineCore 0', 'memory_mb': 28000,
         'container_pid': None},
        {'npu_id': 2, 'chip_id': 0, 'pid': 77, 'name': 'ray::IDLE', 'memory_mb': None, 'container_pid': None},
    ]


def test_missing_process_table_is_reported():
    result = parse_info(_a2_chips_only())
    assert summary(result['chips']) == A2_SUMMARY
    assert result['process_table'] is False
    assert len(result['warnings']) == 1 and 'no process table' in result['warnings'][0]


@pytest.mark.parametrize('keep_lines, complete, cut_line', [
    (8, 1, 8),     # the record of NPU 0 is complete, the border after it is missing
    (10, 1, 10),   # first line of NPU 1 only
    (11, 2, 11),   # NPU 1 complete; then the output stops
    (12, 2, None),  # ends on the border after NPU 1: indistinguishable from a table without processes
])
def test_table_cut_between_lines_keeps_complete_chips(keep_lines, complete, cut_line):
    lines = read_fixture(A2).splitlines()[:keep_lines]
    result = parse_info('\n'.join(lines) + '\n')
    assert summary(result['chips']) == A2_SUMMARY[:complete]
    assert len(result['warnings']) == 1
    if cut_line is None:
        assert 'no process table' in result['warnings'][0]
    else:
        assert result['warnings'][0] == (
            'npu-smi info output was cut short at line %d; kept the %d complete chip row(s) '
            'before it' % (cut_line, complete))


def test_table_cut_inside_a_row_keeps_complete_chips():
    lines = read_fixture(A3).splitlines()
    text = '\n'.join(lines[:13]) + '\n' + lines[13][:40]  # NPU 1 chip 0, second line cut
    result = parse_info(text)
    assert [(c['npu_id'], c['chip_id']) for c in result['chips']] == [(0, 0), (0, 1)]
    assert result['warnings'] == ['npu-smi info output was cut short at line 14; kept the 2 '
                                  'complete chip row(s) before it']


def test_cut_inside_process_table_keeps_all_chips_and_processes_seen():
    text = _a2_chips_only() + PROCESSES
    lines = text.splitlines()
    cut = next(i for i, line in enumerate(lines) if '| 1202 ' in line)
    result = parse_info('\n'.join(lines[:cut]) + '\n' + lines[cut][:35])
    assert len(result['chips']) == 8
    assert [p['pid'] for p in result['processes']] == [1201]
    assert 'cut short at line %d' % (cut + 1) in result['warnings'][0]


def test_value_that_is_not_a_number_fails_quoting_the_line():
    text = read_fixture(A2).replace('| 91.6        50 ', '| 91.6        5O ')
    with pytest.raises(NpuSmiParseError) as exc:
        parse_info(text)
    message = str(exc.value)
    assert "Temp value '5O' is not a number" in message
    assert '| 1     910B2               | OK            | 91.6        5O' in message
    assert 'line 10' in message


def test_row_with_a_missing_cell_in_the_middle_fails_quoting_the_line():
    lines = read_fixture(A2).splitlines()
    lines[13] = '| 2     910B2               | OK            88.1        48                0    / 0             |'
    with pytest.raises(NpuSmiParseError) as exc:
        parse_info('\n'.join(lines) + '\n')
    assert 'row has 2 cells but its header has 3' in str(exc.value)
    assert 'line 14' in str(exc.value)


def test_record_with_one_line_missing_fails():
    lines = read_fixture(A2).splitlines()
    del lines[7]  # second line of NPU 0
    with pytest.raises(NpuSmiParseError) as exc:
        parse_info('\n'.join(lines) + '\n')
    assert 'chip record has 1 of the 2 lines' in str(exc.value)
    assert '| 0     910B2' in str(exc.value)


def test_output_without_a_table_fails_quoting_it():
    with pytest.raises(NpuSmiParseError) as exc:
        parse_info('dcmi module initialize failed. ret is -8005\n')
    assert str(exc.value) == ("cannot parse npu-smi output: no npu-smi table found "
                              "(line: 'dcmi module initialize failed. ret is -8005')")


def test_bus_id_that_is_no_pci_address_fails():
    text = read_fixture(A2).replace('0000:C1:00.0', '0000:C1:00  ')
    with pytest.raises(NpuSmiParseError) as exc:
        parse_info(text)
    assert "Bus-Id '0000:C1:00' is not a PCI address" in str(exc.value)


def test_header_cell_split():
    assert [n for dummy, n in split_header_cell(' NPU   Name                ')] == ['NPU', 'Name']
    assert [n for dummy, n in split_header_cell(' Process id in container ')] == ['Process id in container']
    assert [n for dummy, n in split_header_cell(' NPU Name ')] == ['NPU', 'Name']
    assert [n for dummy, n in split_header_cell(' NPU ID ')] == ['NPU ID']
    assert [n for dummy, n in split_header_cell(' NPU Util(%) Memory-Usage(MB)  HBM-Usage(MB) ')] == [
        'NPU Util(%)', 'Memory-Usage(MB)', 'HBM-Usage(MB)']
    assert split_header_cell(' Power(W)    Temp(C)') == [(1, 'Power(W)'), (13, 'Temp(C)')]


def test_board_queries_and_soc_versions():
    a3 = parse_board(read_fixture('Ascend910-A3-9392_unknown_board-c0_excerpt_1.txt'))
    assert a3 == {'NPU ID': '0', 'NPU Name': '9392', 'Chip ID': '0', 'Chip Name': 'Ascend910'}
    assert soc_version(a3['Chip Name'], a3['NPU Name']) == 'ascend910_9392'
    b4 = parse_board(read_fixture('910B4_unknown_board-c0_excerpt_1.txt'))
    assert soc_version(b4['Chip Name'], b4.get('NPU Name')) == 'ascend910b4'
    full = parse_board(read_fixture('910B-IT21HMDC_25.5.1_board_1.txt'))
    assert full['PCI Device ID'] == '0xD802'
    assert full['Firmware Version'] == '7.8.0.6.201'
    assert len(full) == 19
    assert 'Chip Name' not in full


@pytest.mark.parametrize('chip, npu, expected', [
    ('910B3', None, 'ascend910b3'),
    ('910B1', 'NA', 'ascend910b1'),
    ('Ascend910', '9392', 'ascend910_9392'),
    ('Ascend910', None, None),
    ('Ascend910', 'NA', None),
    ('310P3', None, 'ascend310p3'),
    ('310P1', None, 'ascend310p1'),
    ('Ascend 910B4', None, 'ascend910b4'),
    ('910_9391', None, 'ascend910_9391'),
    ('MCU', None, None),
    (None, None, None),
])
def test_soc_version(chip, npu, expected):
    assert soc_version(chip, npu) == expected


def test_key_values_skip_prompt_and_blank_lines():
    text = 'root@host:~# npu-smi info -t memory -i 0 -c 0\n\n        HBM Capacity(MB)  : 65536\n'
    assert parse_key_values(text) == [('HBM Capacity(MB)', '65536')]


def test_chip_mapping_skips_nothing_but_marks_mcu():
    rows = parse_chip_mapping(read_fixture('910B4_unknown_info-m_1.txt'))
    assert rows == [
        {'npu_id': 0, 'chip_id': 0, 'logic_id': 0, 'phy_id': None, 'chip_name': 'Ascend 910B4'},
        {'npu_id': 0, 'chip_id': 1, 'logic_id': None, 'phy_id': None, 'chip_name': 'Mcu'},
        {'npu_id': 1, 'chip_id': 0, 'logic_id': 1, 'phy_id': None, 'chip_name': 'Ascend 910B4'},
        {'npu_id': 1, 'chip_id': 1, 'logic_id': None, 'phy_id': None, 'chip_name': 'Mcu'},
    ]


# The A3 form with a Chip Phy-ID column (mind-cluster component/ascend-faultdiag/toolkit_src/
# ascend_fd_tk/core/common/chip_generation.py gives its header and a row); the ids here are set
# apart on purpose so that a parser reading by position instead of by header fails.
A3_MAPPING = '''\
        NPU ID                         Chip ID                        Chip Logic ID                  Chip Phy-ID                    Chip Name
        0                              0                              0                              0                              Ascend910
        0                              1                              1                              1                              Ascend910
        1                              0                              2                              3                              Ascend910
        1                              1                              3                              2                              Ascend910
'''


def test_chip_mapping_reads_the_phy_id_column_by_header():
    rows = parse_chip_mapping(A3_MAPPING)
    assert [(r['npu_id'], r['chip_id'], r['logic_id'], r['phy_id'], r['chip_name']) for r in rows] == [
        (0, 0, 0, 0, 'Ascend910'), (0, 1, 1, 1, 'Ascend910'), (1, 0, 2, 3, 'Ascend910'), (1, 1, 3, 2, 'Ascend910')]


def test_topo_cpu_affinity():
    assert parse_topo(read_fixture('910B3_24.1.rc1.b030_topo_1.txt')) == {
        0: '144-167', 1: '144-167', 2: '96-119', 3: '96-119',
        4: '0-23', 5: '0-23', 6: '48-71', 7: '48-71'}


def test_topo_without_affinity_column_and_single_npu():
    assert parse_topo('\tNPU0   NPU1\nNPU0   X      HCCS\nNPU1   HCCS   X\n') == {0: None, 1: None}
    assert parse_topo('\t   NPU0       CPU Affinity\nNPU0       X          0-23,48-71\n') == {0: '0-23,48-71'}
    assert parse_topo('\t   NPU0       CPU Affinity\nNPU0       X          NA\n') == {0: None}


def test_version_info():
    text = 'Version=24.1.rc3\ncompatible_version_fw=[7.0.0,7.5.99]\n'
    assert parse_version_info(text) == {'Version': '24.1.rc3', 'compatible_version_fw': '[7.0.0,7.5.99]'}


def test_blank_values_and_a_name_with_a_space_fall_back_to_header_offsets():
    lines = read_fixture(A2).splitlines()
    lines[6] = lines[6].replace('| 0     910B2 ', '| 0           ').replace('| 91.1 ', '|      ')
    lines[9] = lines[9].replace('| 1     910B2        ', '| 1     Ascend 910B2 ')
    result = parse_info('\n'.join(lines) + '\n')
    first, second = result['chips'][:2]
    assert (first['name'], first['power_w'], first['temp_c'], first['hugepages_total']) == (None, None, 49, 0)
    assert (second['name'], second['power_w']) == ('Ascend 910B2', 91.6)


def test_surplus_value_in_a_cell_fails_quoting_the_line():
    lines = read_fixture(A2).splitlines()
    lines[6] = lines[6].replace('| 91.1        49', '| 91.1   7    49')
    with pytest.raises(NpuSmiParseError) as exc:
        parse_info('\n'.join(lines) + '\n')
    assert "does not match the header columns Power(W), Temp(C), Hugepages-Usage(page)" in str(exc.value)
    assert 'line 7' in str(exc.value)


def test_a_renamed_column_is_left_out_and_named_not_fatal():
    """Newer drivers rename and add columns: the cells the parser knows are still read."""
    text = read_fixture('910B3_26.1.0_1.txt').replace('Hugepages-Usage(page)', 'Foobar-Usage(page)   ')
    table = parse_info(text)
    assert len(table['chips']) == 8
    assert table['chips'][0]['bus_id'] == '0000:c1:00.0' and table['chips'][0]['health'] == 'OK'
    assert table['warnings'] == ['npu-smi info: column(s) Foobar-Usage(page) of the chips table are not known to '
                                 'this parser; their values are left out']
    # Every real capture's columns are known.
    for name in ('910B3_26.1.0_1.txt', '910B2_24.1.0_1.txt', 'Ascend910-A3_25.3.rc1_1.txt', '310P3_24.1.0.1_1.txt'):
        assert not [w for w in parse_info(read_fixture(name))['warnings'] if 'not known' in w], name
