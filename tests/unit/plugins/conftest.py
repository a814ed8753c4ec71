"""Shared helpers for the module and module_utils tests: fixtures, sysfs trees, module runs."""
import json
import os
import sys

import pytest

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'fixtures', 'npu-smi')


def read_fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


@pytest.fixture
def fixture_text():
    return read_fixture


def chip_mapping_text(info_text, logic_ids=None):
    """``npu-smi info -m`` for the chips of an ``npu-smi info`` table, in the column layout of
    the 910B4 capture (910B4_unknown_info-m_1.txt); logic ids are the table positions unless
    ``logic_ids`` gives them."""
    from ansible_collections.ascend.vllm.plugins.module_utils.npu_smi import parse_info
    chips = parse_info(info_text)['chips']
    ids = list(logic_ids) if logic_ids is not None else list(range(len(chips)))
    lines = ['        %-30s %-30s %-30s %-30s' % ('NPU ID', 'Chip ID', 'Chip Logic ID', 'Chip Name')]
    for chip, logic in zip(chips, ids):
        cells = (chip['npu_id'], chip['chip_id'], logic, 'Ascend ' + (chip['name'] or ''))
        lines.append('        %-30s %-30s %-30s %-30s' % cells)
    return '\n'.join(lines) + '\n'


@pytest.fixture
def chip_mapping():
    return chip_mapping_text


class RecordingRunner(object):
    """Stands in for ``module.run_command``: answers known npu-smi argument lists with fixture
    text, fails every other one like npu-smi does for an unsupported query, and records calls."""

    def __init__(self, responses=None):
        # {('info',): text or (rc, out, err)}
        self.responses = dict(responses or {})
        self.calls = []

    def __call__(self, argv):
        self.calls.append(list(argv))
        answer = self.responses.get(tuple(argv[1:]))
        if answer is None:
            return 2, '', 'Error: unsupported command %s\n' % ' '.join(argv[1:])
        if isinstance(answer, tuple):
            return answer
        return 0, answer, ''


@pytest.fixture
def recording_runner():
    return RecordingRunner


class SysfsTree(object):
    """Builds the parts of /sys (and a sibling /proc/meminfo) the modules read."""

    def __init__(self, root):
        self.base = str(root)
        self.root = os.path.join(self.base, 'sys')
        os.makedirs(self.root)

    def write(self, relative, content):
        path = os.path.join(self.root, relative)
        if not os.path.isdir(os.path.dirname(path)):
            os.makedirs(os.path.dirname(path))
        with open(path, 'w') as handle:
            handle.write(content)
        return path

    def read(self, relative):
        with open(os.path.join(self.root, relative)) as handle:
            return handle.read()

    def pci(self, bus_id, vendor='0x19e5', device='0xd802', pci_class='0x120000', numa_node=-1):
        base = 'bus/pci/devices/%s/' % bus_id
        self.write(base + 'vendor', vendor + '\n')
        self.write(base + 'device', device + '\n')
        self.write(base + 'class', pci_class + '\n')
        self.write(base + 'numa_node', '%d\n' % numa_node)

    def pool(self, directory, size_kb, total, free=None):
        base = '%s/hugepages-%dkB/' % (directory, size_kb)
        self.write(base + 'nr_hugepages', '%d\n' % total)
        self.write(base + 'free_hugepages', '%d\n' % (total if free is None else free))

    def node(self, node_id, cpulist, mem_kb, pools=None):
        base = 'devices/system/node/node%d' % node_id
        self.write(base + '/cpulist', cpulist + '\n')
        self.write(base + '/meminfo',
                   'Node %d MemTotal:       %d kB\nNode %d MemFree:        %d kB\n'
                   % (node_id, mem_kb, node_id, mem_kb // 2))
        for size_kb, (total, free) in sorted((pools or {2048: (0, 0), 1048576: (0, 0)}).items()):
            self.pool(base + '/hugepages', size_kb, total, free)

    def cpus(self, online, present=None):
        self.write('devices/system/cpu/online', online + '\n')
        self.write('devices/system/cpu/present', (present or online) + '\n')

    def meminfo(self, mem_kb):
        path = os.path.join(self.base, 'proc', 'meminfo')
        os.makedirs(os.path.dirname(path))
        with open(path, 'w') as handle:
            handle.write('MemTotal:       %d kB\nMemFree:        %d kB\nHugepagesize:       2048 kB\n'
                         % (mem_kb, mem_kb // 2))
        return path


@pytest.fixture
def sysfs(tmp_path):
    return SysfsTree(tmp_path)


# A 910B2 Atlas 800 A2 on a 2-socket Kunpeng 920: four NUMA nodes of 48 CPUs; the bus ids are
# those of the 910B2 fixture. Buses 00-7f hang off socket 0 (node 0), 80-ff off socket 1 (node 2).
KUNPENG_NPUS = [
    ('0000:01:00.0', 0), ('0000:02:00.0', 0), ('0000:41:00.0', 0), ('0000:42:00.0', 0),
    ('0000:81:00.0', 2), ('0000:82:00.0', 2), ('0000:c1:00.0', 2), ('0000:c2:00.0', 2),
]


@pytest.fixture
def kunpeng(sysfs):
    for node_id in range(4):
        pools = {2048: (1024, 1000), 1048576: (0, 0)} if node_id in (0, 2) else None
        sysfs.node(node_id, '%d-%d' % (node_id * 48, node_id * 48 + 47), 263614464, pools)
    sysfs.cpus('0-191')
    for bus_id, node_id in KUNPENG_NPUS:
        sysfs.pci(bus_id, numa_node=node_id)
    # Other Huawei functions of a Kunpeng board and a foreign device: never NPUs.
    sysfs.pci('0000:7d:00.0', device='0xa222', pci_class='0x020000', numa_node=0)   # on-board NIC
    sysfs.pci('0000:75:00.0', device='0xa250', pci_class='0x120000', numa_node=0)   # ZIP engine
    sysfs.pci('0000:03:00.0', vendor='0x15b3', device='0x1017', pci_class='0x020000', numa_node=0)
    return sysfs


def write_fake_npu_smi(directory, responses):
    """An npu-smi executable answering ``responses`` ({'info': fixture text, ...}) and failing
    every other sub-command with rc 2 and a message on stderr."""
    data = os.path.join(str(directory), 'npu-smi.json')
    with open(data, 'w') as handle:
        json.dump(responses, handle)
    path = os.path.join(str(directory), 'npu-smi')
    with open(path, 'w') as handle:
        handle.write('#!%s\n' % sys.executable)
        handle.write(
            'import json, sys\n'
            'answers = json.load(open(%r))\n'
            'key = " ".join(sys.argv[1:])\n'
            'if key in answers:\n'
            '    sys.stdout.write(answers[key])\n'
            '    sys.exit(0)\n'
            'sys.stderr.write("Error: the command %%s is not supported on this device.\\n" %% key)\n'
            'sys.exit(2)\n' % data)
    os.chmod(path, 0o755)
    return path


@pytest.fixture
def fake_npu_smi(tmp_path):
    def make(responses, directory=None):
        directory = directory or tmp_path / 'bin'
        directory.mkdir(parents=True, exist_ok=True)
        return write_fake_npu_smi(directory, responses)
    return make


@pytest.fixture
def run_module(capsys, monkeypatch):
    """Run a module's main() in-process with the given args; returns (failed, result)."""
    from ansible.module_utils import basic
    from ansible.module_utils.common import warnings as common_warnings

    def run(module, args, check_mode=False, diff=False):
        args = dict(args)
        if check_mode:
            args['_ansible_check_mode'] = True
        if diff:
            args['_ansible_diff'] = True
        try:
            from ansible.module_utils.testing import patch_module_args
        except ImportError:  # ansible-core < 2.19
            patch_module_args = None
        # Once controller code is imported in this process (other tests do), ansible-core 2.19
        # routes module warnings to the controller's display instead of the module result.
        try:
            from ansible.module_utils import _internal as module_internal
        except ImportError:  # ansible-core < 2.19
            module_internal = None
        if module_internal is not None:
            monkeypatch.setattr(module_internal, 'is_controller', False, raising=False)
        # Module warnings are process-global; each run must start without the previous ones.
        common_warnings._global_warnings.clear()
        common_warnings._global_deprecations.clear()
        capsys.readouterr()
        if patch_module_args is not None:
            with patch_module_args(args):
                code = _call_main(module)
        else:
            monkeypatch.setattr(basic, '_ANSIBLE_ARGS', json.dumps({'ANSIBLE_MODULE_ARGS': args}).encode())
            code = _call_main(module)
        out = capsys.readouterr().out
        result = json.loads(out[out.index('{'):])
        if 'warnings' in result:
            result['warnings'] = [warning_text(w) for w in result['warnings']]
        assert bool(result.get('failed')) == (code != 0), result
        return bool(result.get('failed')), result

    return run


def warning_text(warning):
    """ansible-core 2.19 reports warnings as structured events, earlier releases as strings."""
    if isinstance(warning, dict):
        return warning.get('event', warning).get('msg')
    return warning


def _call_main(module):
    with pytest.raises(SystemExit) as exc:
        module.main()
    return exc.value.code


# Bundle directories (bundle_manifest tests): files dated 1970, so a new write is always newer.
OLD_NS = 1000 * 10 ** 9


def write_old(path, data, mtime_ns=OLD_NS):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    os.utime(str(path), ns=(mtime_ns, mtime_ns))


@pytest.fixture
def old_file():
    """write_old(path, data, mtime_ns=OLD_NS): a file with a given modification time."""
    return write_old


@pytest.fixture
def bundle(tmp_path):
    root = tmp_path / 'bundle'
    write_old(root / 'README', b'offline bundle\n')
    write_old(root / 'wheels' / 'vllm-0.9.1-py3-none-any.whl', b'w' * 3000)
    write_old(root / 'packages' / 'Ascend-cann-toolkit.run', b'r' * 5000)
    return root
