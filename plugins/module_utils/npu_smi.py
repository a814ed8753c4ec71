# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Parse ``npu-smi`` output and assemble the ``ascend_npu`` facts.

Everything here is a pure function of its inputs (text, a command runner, a sysfs root) and
imports nothing from ansible-core, so it is unit-tested directly against real npu-smi output.

The ``npu-smi info`` table is read through its own structure: ``+---+`` / ``+===+`` borders,
``|`` cells and the header rows that name the sub-columns of each cell. Column widths,
column order and extra columns differ between chips (910B, 910_93, 310P) and driver releases
(98, 106 and 116 character layouts), so nothing depends on character positions except as a
fallback when a cell holds fewer values than its header names.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

from ansible_collections.ascend.vllm.plugins.module_utils.command import (
    CommandFailed,
    describe_failure,
    find_executable,
    is_executable_file,
)
from ansible_collections.ascend.vllm.plugins.module_utils.pci import (
    chip_family,
    list_npu_devices,
    normalize_bus_id,
    pci_functions,
    read_numa_node,
    read_text,
)

DEFAULT_INSTALL_PATH = '/usr/local/Ascend'

# Where the driver installs npu-smi; searched after PATH because non-login shells (and Ansible)
# often lack them in PATH.
SYSTEM_BIN_DIRS = ('/usr/local/bin', '/usr/local/sbin')

# Extra queries a caller may ask for. "topo" and "mapping" are one call each; the others run
# once per chip and land in ``chips[].details.<name>``.
PER_CHIP_QUERIES = {
    'board': 'board',
    'memory': 'memory',
    'health': 'health',
    'usages': 'usages',
    'power': 'power',
    'temp': 'temp',
}
GATHER_CHOICES = ('board', 'health', 'mapping', 'memory', 'power', 'temp', 'topo', 'usages')

_NULL_VALUES = frozenset(['', '-', '--', 'NA', 'N/A', 'n/a', 'na'])
_INT_RE = re.compile(r'^-?\d+$')
_FLOAT_RE = re.compile(r'^-?\d+(\.\d+)?$')
_BORDER_RE = re.compile(r'^\+[-=+]+$')
# A value inside a cell: a word, or "used / total" with any spacing around the slash.
_VALUE_RE = re.compile(r'[^\s/]+(?:\s*/\s*[^\s/]+)?|\S+')


class NpuSmiParseError(Exception):
    """The output does not have the structure of the table it should be."""

    def __init__(self, reason, line=None, lineno=None):
        self.reason = reason
        self.line = line
        self.lineno = lineno
        msg = 'cannot parse npu-smi output: %s' % reason
        if line is not None:
            where = 'line %d' % lineno if lineno else 'line'
            msg += ' (%s: %r)' % (where, line.rstrip())
        super(NpuSmiParseError, self).__init__(msg)


# --------------------------------------------------------------------------- values

def _is_null(text):
    return text is None or text.strip() in _NULL_VALUES


def to_number(text, what, line=None, lineno=None):
    """int or float from a cell value; None for the placeholders npu-smi prints (-, NA)."""
    if _is_null(text):
        return None
    text = text.strip()
    if _INT_RE.match(text):
        return int(text)
    if _FLOAT_RE.match(text):
        return float(text)
    raise NpuSmiParseError('%s value %r is not a number' % (what, text), line, lineno)


def to_int(text, what, line=None, lineno=None):
    value = to_number(text, what, line, lineno)
    if isinstance(value, float):
        if value != int(value):
            raise NpuSmiParseError('%s value %r is not an integer' % (what, text), line, lineno)
        value = int(value)
    return value


def to_pair(text, what, line=None, lineno=None):
    """``"3372 / 65536"`` -> ``(3372, 65536)``; placeholders -> ``(None, None)``."""
    if _is_null(text):
        return None, None
    parts = text.split('/')
    if len(parts) != 2:
        raise NpuSmiParseError('%s value %r is not "used / total"' % (what, text.strip()), line, lineno)
    return to_int(parts[0], what, line, lineno), to_int(parts[1], what, line, lineno)


# --------------------------------------------------------------------------- table cells

def _split_row(line):
    """Cells of a ``| a | b |`` row, or None when the row is not closed (cut short)."""
    if not line.endswith('|') or len(line) < 2:
        return None
    return line[1:-1].split('|')


_NPU_JOINED = ('ID', 'Util')


def split_header_cell(cell):
    """Sub-column names of a header cell with the offset where each starts.

    Names are separated by two or more spaces; a single space separates two names only when
    the next word starts with a capital (``NPU Name``), which keeps ``Process id in container``
    whole; ``NPU ID`` and ``NPU Util(%)`` stay whole too: the Ascend 950's table names them so
    (its npu-smi documentation; a 950PR capture in gpustack/gpustack issue 6148), while a narrow
    A2 table prints ``NPU Name`` for two columns.
    """
    names = []
    prev_end = None
    for match in re.finditer(r'\S+', cell):
        word = match.group(0)
        gap = None if prev_end is None else match.start() - prev_end
        if names and gap == 1 and (not word[:1].isupper() or (names[-1][1] == 'NPU' and word.startswith(_NPU_JOINED))):
            start, text = names[-1]
            names[-1] = (start, text + ' ' + word)
        else:
            names.append((match.start(), word))
        prev_end = match.end()
    return names


def split_value_cell(cell):
    """Values of a data cell with their offsets; ``0    / 0`` stays one value."""
    return [(m.start(), m.group(0)) for m in _VALUE_RE.finditer(cell)]


def _assign_values(headers, cell, line, lineno):
    """Map a data cell onto the header cell's sub-columns -> list of values (None = missing)."""
    if len(headers) == 1:
        # A single column owns the whole cell: keeps empty and multi-word process names.
        return [cell.strip()]
    values = split_value_cell(cell)
    if len(values) == len(headers):
        return [text for dummy, text in values]
    # Counts differ (a value left blank, or a name with a space): fall back to where each
    # value starts relative to the header's sub-columns.
    assigned = [None] * len(headers)
    starts = [start for start, dummy in headers]
    for offset, text in values:
        index = 0
        for i, start in enumerate(starts):
            if offset >= start - 1:
                index = i
        if assigned[index] is None:
            assigned[index] = text
        elif headers[index][1].lower() == 'name':
            assigned[index] += ' ' + text
        else:
            raise NpuSmiParseError(
                'cell %r does not match the header columns %s'
                % (cell.strip(), ', '.join(name for dummy, name in headers)), line, lineno)
    return assigned


_CHIP_KEYS = (
    (re.compile(r'^npu( id)?$'), 'npu_id'),
    (re.compile(r'^name$'), 'name'),
    (re.compile(r'^chip$'), 'chip_id'),
    (re.compile(r'^device$'), 'device_id'),
    (re.compile(r'^phy-?id$'), 'phy_id'),
    (re.compile(r'^health'), 'health'),
    (re.compile(r'^bus-?id'), 'bus_id'),
    (re.compile(r'^power'), 'power_w'),
    (re.compile(r'^temp'), 'temp_c'),
    (re.compile(r'^hugepages'), 'hugepages'),
    (re.compile(r'^aicore'), 'aicore_pct'),
    # The 950 prints its overall NPU utilisation where A2 / A3 print the AI Core's.
    (re.compile(r'^npu util'), 'aicore_pct'),
    (re.compile(r'^memory'), 'memory'),
    (re.compile(r'^hbm'), 'hbm'),
)
_PROCESS_KEYS = (
    (re.compile(r'^npu( id)?$'), 'npu_id'),
    (re.compile(r'^chip$'), 'chip_id'),
    (re.compile(r'^process ?id ?in ?container'), 'container_pid'),
    (re.compile(r'^process ?id$'), 'pid'),
    (re.compile(r'^process ?name'), 'name'),
    (re.compile(r'^process ?memory'), 'memory_mb'),
)


def _canonical(name, table):
    lowered = name.strip().lower()
    for pattern, key in table:
        if pattern.match(lowered):
            return key
    return None


class _Header(object):
    """One header block: a list of header rows, each a list of cells of sub-columns."""

    def __init__(self, rows):
        self.rows = list(rows)  # [(lineno, line, [[(offset, name), ...] per cell])]
        names = [name.lower() for row in rows for cell in row[2] for dummy, name in cell]
        if any(name.startswith('process') for name in names):
            self.kind = 'processes'
            table = _PROCESS_KEYS
        elif any(name.startswith('bus') or name == 'health' for name in names):
            self.kind = 'chips'
            table = _CHIP_KEYS
        else:
            self.kind = 'unknown'
            table = ()
        self.keys = [[[_canonical(name, table) for dummy, name in cell] for cell in row[2]]
                     for row in rows]
        # Header cells no key is known for (newer drivers rename and add columns): their values
        # are skipped, and named in the result's warnings.
        self.unknown = [name for row, row_keys in zip(rows, self.keys)
                        for cell, cell_keys in zip(row[2], row_keys)
                        for (dummy, name), key in zip(cell, cell_keys) if key is None]

    def __len__(self):
        return len(self.rows)

    def read(self, row_index, cells, line, lineno):
        """Values of one data row -> {canonical key: text}."""
        header_cells = self.rows[row_index][2]
        if len(cells) != len(header_cells):
            raise NpuSmiParseError(
                'row has %d cells but its header has %d' % (len(cells), len(header_cells)),
                line, lineno)
        out = {}
        for headers, keys, cell in zip(header_cells, self.keys[row_index], cells):
            for key, value in zip(keys, _assign_values(headers, cell, line, lineno)):
                if key is not None:
                    out[key] = value
        return out


# --------------------------------------------------------------------------- npu-smi info

def _chip_from_values(values):
    """Build one chip dict from ``{key: (text, line, lineno)}`` merged over its record lines."""

    def text(key):
        return values.get(key, (None, None, None))[0]

    def at(key):
        # The record line that carried the value, quoted by error messages.
        return values.get(key, (None, None, None))[1:]

    # One chip per NPU where the table has no Chip column (the Ascend 950): chip 0.
    chip_id = text('chip_id') if 'chip_id' in values else '0'
    for key, value in (('npu_id', text('npu_id')), ('chip_id', chip_id)):
        if _is_null(value):
            raise NpuSmiParseError('chip record has no %s value' % key.replace('_id', ' id'),
                                   *values['__first__'][1:])
    hugepages = to_pair(text('hugepages'), 'Hugepages-Usage', *at('hugepages'))
    memory = to_pair(text('memory'), 'Memory-Usage', *at('memory'))
    hbm = to_pair(text('hbm'), 'HBM-Usage', *at('hbm'))
    power = to_number(text('power_w'), 'Power', *at('power_w'))
    bus_id = None
    if not _is_null(text('bus_id')):
        bus_id = normalize_bus_id(text('bus_id'))
        if bus_id is None:
            raise NpuSmiParseError('Bus-Id %r is not a PCI address' % text('bus_id').strip(),
                                   *at('bus_id'))

    def word(key):
        value = text(key)
        return None if _is_null(value) else value.strip()

    return {
        'npu_id': to_int(text('npu_id'), 'NPU id', *at('npu_id')),
        'chip_id': to_int(chip_id, 'chip id', *at('chip_id')),
        'device_id': to_int(text('device_id'), 'Device', *at('device_id')),
        'phy_id': to_int(text('phy_id'), 'Phy-ID', *at('phy_id')),
        'name': word('name'),
        'health': word('health'),
        'power_w': float(power) if power is not None else None,
        'temp_c': to_number(text('temp_c'), 'Temp', *at('temp_c')),
        'hugepages_used': hugepages[0],
        'hugepages_total': hugepages[1],
        'bus_id': bus_id,
        'aicore_pct': to_number(text('aicore_pct'), 'AICore', *at('aicore_pct')),
        'memory_used_mb': memory[0],
        'memory_total_mb': memory[1],
        'hbm_used_mb': hbm[0],
        'hbm_total_mb': hbm[1],
        'numa_node': None,
        'cpu_affinity': None,
        'details': {},
    }


def _process_from_values(values, line, lineno):
    for key in ('npu_id', 'pid'):
        if _is_null(values.get(key)):
            raise NpuSmiParseError('process row has no %s' % key.replace('_id', ' id'), line, lineno)
    name = values.get('name')
    return {
        'npu_id': to_int(values['npu_id'], 'NPU id', line, lineno),
        'chip_id': to_int(values.get('chip_id'), 'chip id', line, lineno),
        'pid': to_int(values['pid'], 'Process id', line, lineno),
        'name': (name or '').strip(),
        'memory_mb': to_number(values.get('memory_mb'), 'Process memory', line, lineno),
        'container_pid': to_int(values.get('container_pid'), 'Process id in container', line, lineno),
    }


def _is_header_row(cells, in_header=False):
    """Header rows name columns; data rows start with an NPU id. Inside a header block, a row
    whose first cells are empty (the 950's second header row) names columns too."""
    filled = [cell.strip() for cell in cells if cell.strip()]
    first = cells[0].strip() or (filled[0] if in_header and filled else '')
    if not first:
        return False
    word = first.split()[0]
    return not (word[:1].isdigit() or word in _NULL_VALUES)


class _CutShort(Exception):
    pass


def parse_info(text):
    """Parse the output of ``npu-smi info``.

    Returns ``{npu_smi_version, chips, processes, process_table, warnings}``; ``chips`` and
    ``processes`` follow the ``ascend_npu`` schema (without sysfs and sub-query data).
    Raises NpuSmiParseError, quoting the offending line, when a row does not fit its header.
    Output cut short yields the complete chip records before the cut, plus a warning.
    """
    lines = (text or '').splitlines()
    table_lines = [i for i, raw in enumerate(lines) if raw.strip()[:1] in ('+', '|')]
    first_border = next((i for i in table_lines if _BORDER_RE.match(lines[i].strip())), None)
    if first_border is None:
        first = next((raw for raw in lines if raw.strip()), None)
        raise NpuSmiParseError('no npu-smi table found', first)
    # Anything after the last table line (a trailing prompt) is ignored; a broken row on that
    # last line means the output was cut short rather than malformed.
    last_table_line = table_lines[-1]

    result = {'npu_smi_version': None, 'chips': [], 'processes': [], 'process_table': False,
              'warnings': []}
    state = {'header': None, 'chip_header': False}
    header_rows = []   # header block being read (rows between a border and the +===+ line)
    record = []        # chip record being read: [(values, line, lineno)]

    def flush_record():
        if not record:
            return
        header = state['header']
        if len(record) != len(header):
            raise NpuSmiParseError(
                'chip record has %d of the %d lines its header describes'
                % (len(record), len(header)), record[0][1], record[0][2])
        merged = {'__first__': (None, record[0][1], record[0][2])}
        for values, line, lineno in record:
            for key, value in values.items():
                merged.setdefault(key, (value, line, lineno))
        result['chips'].append(_chip_from_values(merged))
        del record[:]

    def handle_row(line, lineno, is_last):
        cells = _split_row(line)
        if cells is None:
            if is_last:
                raise _CutShort()
            raise NpuSmiParseError('row is not closed by "|"', line, lineno)
        first = cells[0].strip()
        header = state['header']
        if len(cells) == 1 and header is None and not header_rows:
            match = re.search(r'Version:\s*(\S+)', first) or re.search(r'npu-smi\s+(\S+)', first)
            if match:
                result['npu_smi_version'] = match.group(1)
            return  # title row
        if first.startswith('No running processes'):
            return
        if _is_header_row(cells, bool(header_rows)):
            flush_record()
            header_rows.append((lineno, line, [split_header_cell(cell) for cell in cells]))
            return
        if header_rows:
            raise NpuSmiParseError('data row inside a header block', line, lineno)
        if header is None:
            raise NpuSmiParseError('data row before any table header', line, lineno)
        if header.kind == 'unknown':
            return
        row_index = 0 if header.kind == 'processes' else len(record)
        if is_last and len(cells) < len(header.rows[row_index][2]):
            raise _CutShort()
        values = header.read(row_index, cells, line, lineno)
        if header.kind == 'processes':
            result['processes'].append(_process_from_values(values, line, lineno))
            return
        record.append((values, line, lineno))
        if len(record) == len(header):
            flush_record()

    cut_at = None
    for index in range(first_border + 1, last_table_line + 1):
        raw = lines[index]
        lineno = index + 1
        line = raw.strip()
        if not line:
            continue
        if _BORDER_RE.match(line):
            if header_rows and '=' in line:
                state['header'] = _Header(header_rows)
                del header_rows[:]
                if state['header'].kind in ('chips', 'processes') and state['header'].unknown:
                    result['warnings'].append(
                        'npu-smi info: column(s) %s of the %s table are not known to this parser; '
                        'their values are left out' % (', '.join(state['header'].unknown), state['header'].kind))
                if state['header'].kind == 'chips':
                    state['chip_header'] = True
                elif state['header'].kind == 'processes':
                    result['process_table'] = True
            elif not header_rows:
                flush_record()
            continue
        if not line.startswith('|'):
            raise NpuSmiParseError('line inside the table is neither a row nor a border', raw, lineno)
        try:
            handle_row(line, lineno, index == last_table_line)
        except _CutShort:
            cut_at = lineno

    if record or header_rows:
        cut_at = cut_at or (record[0][2] if record else header_rows[0][0])
    if cut_at is None and not _BORDER_RE.match(lines[last_table_line].strip()):
        # npu-smi closes every table with a border; ending on a row means the rest is missing.
        cut_at = last_table_line + 1
    if not state['chip_header']:
        if cut_at is not None:
            raise NpuSmiParseError('output ends before the chip table header is complete',
                                   lines[cut_at - 1], cut_at)
        raise NpuSmiParseError('no chip table header (NPU, Name, Health, Bus-Id) found',
                               lines[first_border], first_border + 1)
    if cut_at is not None:
        result['warnings'].append(
            'npu-smi info output was cut short at line %d; kept the %d complete chip row(s) '
            'before it' % (cut_at, len(result['chips'])))
    elif not result['process_table']:
        result['warnings'].append('npu-smi info printed no process table; the process list '
                                  'is unknown, not necessarily empty')
    return result


# --------------------------------------------------------------------------- other outputs

_KV_RE = re.compile(r'^\s*([A-Za-z][A-Za-z0-9 ()%/_.\-]*?)\s*:\s?(.*?)\s*$')


def parse_key_values(text):
    """``Key : Value`` lines (``-t board``, ``-t memory``, ...) -> ordered list of pairs.

    Lines that are not key/value pairs (a shell prompt, blank lines) are skipped.
    """
    pairs = []
    for raw in (text or '').splitlines():
        if ':' not in raw:
            continue
        match = _KV_RE.match(raw)
        if match:
            pairs.append((match.group(1), match.group(2)))
    return pairs


def parse_board(text):
    """``npu-smi info -t board -i N [-c C]`` -> dict (first value of each key wins)."""
    out = {}
    for key, value in parse_key_values(text):
        out.setdefault(key, value)
    return out


_MAPPING_COLUMNS = (
    (re.compile(r'npu\s*id', re.I), 'npu_id'),
    (re.compile(r'chip\s*logic\s*id', re.I), 'logic_id'),
    (re.compile(r'chip\s*phy-?\s*id', re.I), 'phy_id'),
    (re.compile(r'chip\s*id', re.I), 'chip_id'),
    (re.compile(r'chip\s*name', re.I), 'chip_name'),
)
_MAPPING_DEFAULT = ['npu_id', 'chip_id', 'logic_id', 'chip_name']


def _mapping_header(raw):
    """Column keys of an ``npu-smi info -m`` header line in their order, or None."""
    found = []
    for pattern, key in _MAPPING_COLUMNS:
        for match in pattern.finditer(raw):
            # "Chip ID" also matches inside "Chip Logic ID"/"Chip Phy-ID" only with words between,
            # which the chip_id pattern does not allow; keep the first key at each position.
            if not any(start <= match.start() < end for start, end, dummy in found):
                found.append((match.start(), match.end(), key))
    keys = [key for dummy, dummy2, key in sorted(found)]
    if 'npu_id' in keys and 'logic_id' in keys and keys[-1] == 'chip_name':
        return keys
    return None


def parse_chip_mapping(text):
    """``npu-smi info -m`` -> list of ``{npu_id, chip_id, logic_id, phy_id, chip_name}``.

    The columns are read from the header line: drivers print ``NPU ID  Chip ID  Chip Logic ID
    Chip Name`` (a 910B4 capture) or add ``Chip Phy-ID`` before the name (mind-cluster's
    ascend-faultdiag chip_generation.py, A3 example); ``phy_id`` is None when there is no such
    column. MCU rows have ``-`` as logic id and come back with ``logic_id: None``.
    """
    rows = []
    columns = _MAPPING_DEFAULT
    for raw in (text or '').splitlines():
        header = _mapping_header(raw)
        if header is not None:
            columns = header
            continue
        tokens = raw.split(None, len(columns) - 1)
        if len(tokens) != len(columns):
            continue
        cells = dict(zip(columns, tokens))
        if not all(re.match(r'^(\d+|-)$', cells[key]) for key in columns[:-1]) \
                or not cells['npu_id'].isdigit() or not cells.get('chip_id', '0').isdigit():
            continue

        def number(key):
            value = cells.get(key)
            return None if value is None or value == '-' else int(value)

        rows.append({
            'npu_id': int(cells['npu_id']),
            'chip_id': number('chip_id'),
            'logic_id': number('logic_id'),
            'phy_id': number('phy_id'),
            'chip_name': cells['chip_name'].strip(),
        })
    return rows


def chip_mapping_by_chip(text):
    """``npu-smi info -m`` rows of the chips that have a logic id, keyed by ``(npu_id, chip_id)``
    (the MCU rows, without one, are left out)."""
    return dict(((row['npu_id'], row['chip_id']), row)
                for row in parse_chip_mapping(text) if row['logic_id'] is not None)


_NPU_COLUMN_RE = re.compile(r'^NPU(\d+)$')


def parse_topo(text):
    """``npu-smi info -t topo`` -> ``{row index: CPU affinity string or None}``.

    Row ``NPU<i>`` is the i-th device in npu-smi's own order (logic id order).
    """
    columns = None
    has_affinity = False
    out = {}
    for raw in (text or '').splitlines():
        tokens = raw.split()
        if not tokens:
            continue
        if columns is None:
            # The header lists NPU0..NPUn (then "CPU Affinity"); rows repeat NPUi then links.
            if _NPU_COLUMN_RE.match(tokens[0]) and (
                    len(tokens) == 1 or _NPU_COLUMN_RE.match(tokens[1]) or tokens[1] == 'CPU'):
                columns = 0
                while columns < len(tokens) and _NPU_COLUMN_RE.match(tokens[columns]):
                    columns += 1
                has_affinity = 'Affinity' in raw
            continue
        match = _NPU_COLUMN_RE.match(tokens[0])
        if not match:
            if tokens[0].startswith('Legend'):
                break
            continue
        affinity = None
        if has_affinity and len(tokens) > columns + 1:
            affinity = ''.join(tokens[columns + 1:])
            if _is_null(affinity):
                affinity = None
        out[int(match.group(1))] = affinity
    return out


def parse_version_info(text):
    """``Key=Value`` lines of Ascend ``version.info`` files -> dict."""
    out = {}
    for raw in (text or '').splitlines():
        if '=' not in raw:
            continue
        key, value = raw.split('=', 1)
        out.setdefault(key.strip(), value.strip())
    return out


def read_version_file(path):
    """The ``Version=`` value of a version.info file, or None."""
    text = read_text(path)
    if text is None:
        return None
    for key, value in parse_version_info(text).items():
        if key.lower() == 'version' and value:
            return value
    return None


def soc_version(chip_name, npu_name=None):
    """SoC name as CANN and vllm-ascend expect it (``SOC_VERSION``), or None when unknown.

    910B class: ``ascend`` + chip name (910B3 -> ascend910b3). 910_93 (A3) reports chip name
    ``Ascend910`` and the variant as NPU Name (9392 -> ascend910_9392). 310P3 -> ascend310p3.
    A bare ``910`` without NPU Name is the original 910 or an A3 whose variant is unknown: None.
    """
    if not chip_name:
        return None
    name = re.sub(r'\s+', '', chip_name).lower()
    if name.startswith('ascend'):
        name = name[len('ascend'):]
    npu = re.sub(r'\s+', '', npu_name or '')
    if name == '910':
        if re.match(r'^\d+$', npu) and not _is_null(npu):
            return 'ascend910_' + npu
        return None
    match = re.match(r'^910_?(\d{4})$', name)
    if match:
        return 'ascend910_' + match.group(1)
    if re.match(r'^\d{3}[a-z]\d+$', name):
        return 'ascend' + name
    return None


# --------------------------------------------------------------------------- gather

def npu_smi_search_dirs(install_path):
    return list(SYSTEM_BIN_DIRS) + [os.path.join(install_path, 'driver', 'tools')]


def locate_npu_smi(explicit, install_path, search_path):
    """Path of npu-smi: ``explicit`` when it is executable (else None), otherwise the first
    hit in ``search_path`` (PATH-style) and :func:`npu_smi_search_dirs`."""
    if explicit:
        return explicit if is_executable_file(explicit) else None
    return find_executable('npu-smi', search_path, npu_smi_search_dirs(install_path))


def empty_facts():
    return {
        'present': False,
        'npu_smi_path': None,
        'npu_smi_version': None,
        'driver_version': None,
        'firmware_version': None,
        'npu_count': 0,
        'chip_count': 0,
        'chip_name': None,
        'chip_family': None,
        'soc_version': None,
        'healthy': False,
        'chips': [],
        'processes': [],
        # Why `npu-smi info` failed, when the facts came from the PCI bus instead (on_failure='pci').
        'npu_smi_error': None,
        # The NPU functions of the PCI bus with their chip family (pci.pci_functions), driver or not.
        'pci_functions': [],
    }


def _run(run, argv):
    rc, out, err = run(argv)
    return rc, out or '', err or ''


def _pci_facts(facts, devices):
    if devices:
        facts['present'] = True
        facts['npu_count'] = len(devices)
        facts['chip_count'] = len(devices)
    return facts


_CONTAINER_SCOPE = re.compile(r'^(?:libpod|docker|crio|cri-containerd)-([0-9a-f]{12,64})\.scope$')


def process_owner(cgroup_text):
    """What holds a process, from its ``/proc/<pid>/cgroup``: the systemd unit (``vllm-default.service``)
    or a container (``container 1a2b3c4d5e6f``), None when neither shows. cgroup v2 has one line
    ``0::<path>``; v1 names systemd's hierarchy ``name=systemd``."""
    path = None
    for line in (cgroup_text or '').splitlines():
        parts = line.strip().split(':', 2)
        if len(parts) == 3 and (parts[0] == '0' and parts[1] == '' or parts[1] == 'name=systemd'):
            path = parts[2]
            if parts[0] == '0':
                break
    unit = None
    for part in reversed([p for p in (path or '').split('/') if p]):
        container = _CONTAINER_SCOPE.match(part)
        if container:
            return 'container %s' % container.group(1)[:12]
        if part.endswith('.service') and unit is None:
            unit = part
    return unit


def attach_owners(processes, proc_root='/proc'):
    """Who holds each NPU: sets each process's ``unit``, the unit or container of its cgroup (a
    process gone already: None). Returns ``processes``."""
    for process in processes:
        try:
            with open(os.path.join(proc_root, str(process['pid']), 'cgroup')) as handle:
                process['unit'] = process_owner(handle.read())
        except (IOError, OSError):
            process['unit'] = None
    return processes


def gather_npu_facts(run, npu_smi, install_path=DEFAULT_INSTALL_PATH, sysfs_root='/sys',
                     gather=(), on_failure='fail', proc_root='/proc'):
    """Collect ``ascend_npu`` facts.

    ``run(argv) -> (rc, stdout, stderr)`` executes commands (injected so tests can count
    them); ``npu_smi`` is the binary's path or None when it is not installed.
    Returns ``(facts, warnings)``. Raises NpuSmiParseError for a table that does not parse and
    command.CommandFailed when ``npu-smi info`` itself fails.
    """
    gather = list(gather or ())
    facts = empty_facts()
    warnings = []
    facts['driver_version'] = read_version_file(os.path.join(install_path, 'driver', 'version.info'))
    facts['firmware_version'] = read_version_file(os.path.join(install_path, 'firmware', 'version.info'))

    devices = list_npu_devices(sysfs_root)
    facts['chip_family'] = chip_family(devices)
    facts['pci_functions'] = pci_functions(devices)
    if not npu_smi:
        if devices:
            _pci_facts(facts, devices)
            warnings.append(
                'found %d Ascend NPU PCI function(s) (%s) but no npu-smi: the NPU driver is not '
                'installed (or %s/driver/tools is missing)'
                % (len(devices), ', '.join(d['bus_id'] for d in devices), install_path))
        return facts, warnings

    facts['npu_smi_path'] = npu_smi
    argv = [npu_smi, 'info']
    rc, out, err = _run(run, argv)
    if rc != 0:
        if on_failure != 'pci':
            raise CommandFailed(argv, rc, out, err)
        # An installed driver that does not run (unfinished install, pending reboot): the PCI bus
        # still tells what is there, and the roles that repair it need those facts fresh.
        facts['npu_smi_error'] = describe_failure(argv, rc, out, err)
        warnings.append('%s; NPUs read from the PCI bus' % facts['npu_smi_error'])
        return _pci_facts(facts, devices), warnings
    table = parse_info(out)
    warnings.extend(table['warnings'])
    chips = table['chips']
    facts['npu_smi_version'] = table['npu_smi_version']
    facts['chips'] = chips
    facts['processes'] = attach_owners(table['processes'], proc_root)
    facts['chip_count'] = len(chips)
    facts['npu_count'] = len(set(chip['npu_id'] for chip in chips))
    facts['present'] = bool(chips) or bool(devices)
    facts['chip_name'] = chips[0]['name'] if chips else None
    facts['healthy'] = bool(chips) and all(chip['health'] == 'OK' for chip in chips)
    for chip in chips:
        chip['numa_node'] = read_numa_node(sysfs_root, chip['bus_id'])

    if not chips:
        return facts, warnings

    def sub_query(args, consequence):
        argv = [npu_smi, 'info'] + args
        rc, out, err = _run(run, argv)
        if rc != 0:
            warnings.append('%s; %s' % (describe_failure(argv, rc, out, err), consequence))
            return None
        return out

    # SoC name: one board query on the first chip is enough (every chip of a host is the same).
    first = chips[0]
    board_args = ['-t', 'board', '-i', str(first['npu_id']), '-c', str(first['chip_id'])]
    board_text = sub_query(board_args, 'soc_version derived from the chip name in npu-smi info')
    board = parse_board(board_text) if board_text is not None else {}
    soc = soc_version(board.get('Chip Name') or first['name'], board.get('NPU Name'))
    if soc is None and board:
        soc = soc_version(first['name'])
    facts['soc_version'] = soc
    if 'board' in gather and board_text is not None:
        first['details']['board'] = board

    if 'mapping' in gather:
        text = sub_query(['-m'], 'device_id (logic id) left null')
        if text is not None:
            rows = chip_mapping_by_chip(text)
            for chip in chips:
                row = rows.get((chip['npu_id'], chip['chip_id']))
                if row is not None:
                    chip['device_id'] = row['logic_id']
                    if chip.get('phy_id') is None:
                        chip['phy_id'] = row['phy_id']

    if 'topo' in gather:
        text = sub_query(['-t', 'topo'], 'cpu_affinity left null')
        if text is not None:
            affinity = parse_topo(text)
            ids = [chip['device_id'] for chip in chips]
            use_ids = all(i is not None for i in ids) and len(set(ids)) == len(ids)
            for position, chip in enumerate(chips):
                chip['cpu_affinity'] = affinity.get(chip['device_id'] if use_ids else position)

    for name in sorted(PER_CHIP_QUERIES):
        if name not in gather:
            continue
        for chip in chips:
            if name in chip['details']:
                continue
            args = ['-t', PER_CHIP_QUERIES[name], '-i', str(chip['npu_id']), '-c', str(chip['chip_id'])]
            text = sub_query(args, '"%s" details not gathered for this and the remaining chips'
                                   % name)
            if text is None:
                break  # the same query fails on every chip; one warning is enough
            chip['details'][name] = parse_board(text)

    return facts, warnings
