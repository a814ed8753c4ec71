"""How the 1G pages of /etc/default/grub reach the next boot (module_utils/boot_loader.py), on
file system trees laid out as each distribution installs its boot loader. The layouts and their
sources are in the module's docstring; the grub.cfg stub is the three lines Fedora 34+/RHEL 9 put
on the EFI system partition (search, set prefix, configfile)."""
import os

import pytest

from ansible_collections.ascend.vllm.plugins.filter import kernel_tuning as kernel_tuning_filters
from ansible_collections.ascend.vllm.plugins.module_utils import boot_loader

GENERATED = '### BEGIN /etc/grub.d/10_linux ###\nmenuentry \'Linux\' {\n  linux /vmlinuz root=/dev/sda2\n}\n'
STUB = ('search --no-floppy --fs-uuid --set=dev 0b1e-c0de\nset prefix=($dev)/grub2\n'
        'export $prefix\nconfigfile $prefix/grub.cfg\n')
DEFAULTS = 'GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX="crashkernel=auto"\n'
BLS_DEFAULTS = DEFAULTS + 'GRUB_ENABLE_BLSCFG=true\n'
MKCONFIG = {'grub2-mkconfig': '/usr/sbin/grub2-mkconfig'}
GRUBBY = {'grub2-mkconfig': '/usr/sbin/grub2-mkconfig', 'grubby': '/usr/sbin/grubby'}


def tree(root, uefi=False, files=None):
    """A node's file system under ``root``: /sys/firmware/efi for UEFI, then path -> text."""
    if uefi:
        os.makedirs(os.path.join(str(root), 'sys/firmware/efi'))
    for path, text in (files or {}).items():
        full = os.path.join(str(root), path.lstrip('/'))
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'w') as handle:
            handle.write(text)
    return str(root)


def plan(tmp_path, tools, count=16, uefi=False, files=None):
    layout = boot_loader.read_layout(tools, tree(tmp_path, uefi, files))
    return layout, boot_loader.cmdline_plan(layout, count)


def test_debian_uses_update_grub_on_bios_and_on_uefi(tmp_path):
    files = {'/etc/default/grub': DEFAULTS, '/boot/grub/grub.cfg': GENERATED, '/boot/efi/EFI/debian/grub.cfg': STUB}
    layout, result = plan(tmp_path, {'update-grub': '/usr/sbin/update-grub', 'grub-mkconfig': '/usr/sbin/grub-mkconfig'},
                          uefi=True, files=files)
    assert layout['firmware'] == 'uefi'
    assert layout['configs'] == [{'path': '/boot/grub/grub.cfg', 'stub': False, 'efi': False},
                                 {'path': '/boot/efi/EFI/debian/grub.cfg', 'stub': True, 'efi': True}]
    assert result == {'commands': [['/usr/sbin/update-grub']], 'config': '/boot/grub/grub.cfg', 'problem': '', 'fix': ''}


def test_openeuler_uefi_writes_the_efi_vendor_directory(tmp_path):
    files = {'/etc/default/grub': DEFAULTS, '/boot/efi/EFI/openEuler/grub.cfg': GENERATED}
    result = plan(tmp_path, MKCONFIG, uefi=True, files=files)[1]
    assert result['commands'] == [['/usr/sbin/grub2-mkconfig', '-o', '/boot/efi/EFI/openEuler/grub.cfg']]
    assert result['problem'] == ''


def test_kylin_bios_writes_boot_grub2(tmp_path):
    # A BIOS boot ignores a grub.cfg left on an EFI partition.
    files = {'/etc/default/grub': DEFAULTS, '/boot/grub2/grub.cfg': GENERATED, '/boot/efi/EFI/kylin/grub.cfg': GENERATED}
    result = plan(tmp_path, MKCONFIG, files=files)[1]
    assert result['commands'] == [['/usr/sbin/grub2-mkconfig', '-o', '/boot/grub2/grub.cfg']]


def test_an_efi_stub_forwards_to_boot_grub2_and_bls_entries_go_through_grubby(tmp_path):
    files = {'/etc/default/grub': BLS_DEFAULTS, '/boot/grub2/grub.cfg': GENERATED.replace('menuentry', 'blscfg\n#'),
             '/boot/efi/EFI/redhat/grub.cfg': STUB,
             '/boot/loader/entries/abc-5.14.0.conf': 'title RHEL\noptions root=/dev/sda2 hugepagesz=1G hugepages=4\n',
             '/boot/loader/entries/abc-5.14.1.conf': 'title RHEL\noptions root=/dev/sda2\n'}
    layout, result = plan(tmp_path, GRUBBY, count=8, uefi=True, files=files)
    assert layout['bls'] is True
    assert layout['bls_options'] == ['root=/dev/sda2 hugepagesz=1G hugepages=4', 'root=/dev/sda2']
    # The old pair goes by its exact values; grubby's --args then replaces nothing else.
    assert result['commands'] == [
        ['/usr/sbin/grub2-mkconfig', '-o', '/boot/grub2/grub.cfg'],
        ['/usr/sbin/grubby', '--update-kernel=ALL', '--remove-args=hugepagesz=1G hugepages=4'],
        ['/usr/sbin/grubby', '--update-kernel=ALL', '--args=hugepagesz=1G hugepages=8']]


@pytest.mark.parametrize('options, count, grubby', [
    ('options x hugepagesz=1G hugepages=16', 0,
     [['/usr/sbin/grubby', '--update-kernel=ALL', '--remove-args=hugepagesz=1G hugepages=16']]),
    ('options x', 0, []),
    ('options x hugepagesz=1G hugepages=16', 16,
     [['/usr/sbin/grubby', '--update-kernel=ALL', '--args=hugepagesz=1G hugepages=16']]),
])
def test_bls_entries_lose_only_the_old_pair(tmp_path, options, count, grubby):
    files = {'/etc/default/grub': BLS_DEFAULTS, '/boot/grub2/grub.cfg': GENERATED,
             '/boot/loader/entries/abc.conf': options + '\n'}
    result = plan(tmp_path, GRUBBY, count=count, files=files)[1]
    assert result['commands'][1:] == grubby


def test_blscfg_without_entries_is_plain_grub(tmp_path):
    files = {'/etc/default/grub': BLS_DEFAULTS, '/boot/grub2/grub.cfg': GENERATED}
    layout, result = plan(tmp_path, MKCONFIG, files=files)
    assert (layout['bls'], result['problem']) == (False, '')


HINT = ("give each 1G pool a NUMA node in kernel_tuning_hugepages (set at runtime, no boot loader change), or add "
        "'hugepages' to kernel_tuning_skip and put hugepagesz=1G hugepages=16 on the kernel command line yourself")


@pytest.mark.parametrize('tools, uefi, files, problem', [
    ({'update-grub': '/usr/sbin/update-grub'}, False, {},
     "/etc/default/grub does not exist: this node does not boot through GRUB's defaults file"),
    ({}, False, {'/etc/default/grub': DEFAULTS},
     "neither update-grub, grub2-mkconfig nor grub-mkconfig is on the node's PATH (or /usr/sbin, /sbin), so the boot "
     "loader configuration cannot be generated again"),
    (MKCONFIG, True, {'/etc/default/grub': DEFAULTS, '/boot/efi/EFI/openEuler/grub.cfg': GENERATED,
                      '/boot/efi/EFI/kylin/grub.cfg': GENERATED},
     'UEFI boot with more than one generated grub.cfg on the EFI system partition (/boot/efi/EFI/kylin/grub.cfg, '
     '/boot/efi/EFI/openEuler/grub.cfg): which one the firmware starts is not known'),
    (MKCONFIG, True, {'/etc/default/grub': DEFAULTS, '/boot/efi/EFI/openEuler/grub.cfg': STUB},
     'UEFI boot, but /boot/grub2/grub.cfg does not exist (found: /boot/efi/EFI/openEuler/grub.cfg)'),
    (MKCONFIG, False, {'/etc/default/grub': DEFAULTS},
     'BIOS boot, but /boot/grub2/grub.cfg does not exist (found: no grub.cfg)'),
    (MKCONFIG, False, {'/etc/default/grub': BLS_DEFAULTS, '/boot/grub2/grub.cfg': GENERATED,
                       '/boot/loader/entries/a.conf': 'options x\n'},
     'the boot entries are Boot Loader Specification files (GRUB_ENABLE_BLSCFG=true, /boot/loader/entries), whose '
     'options only grubby changes, and grubby is not installed'),
    (GRUBBY, False, {'/etc/default/grub': BLS_DEFAULTS, '/boot/grub2/grub.cfg': GENERATED,
                     '/boot/loader/entries/a.conf': 'options x hugepagesz=2M hugepages=512\n'},
     'the Boot Loader Specification entries also set hugepagesz=2M, and grubby keeps one value per argument name: '
     'adding hugepagesz=1G would drop it'),
])
def test_a_node_without_a_known_way_is_refused_with_what_to_do(tmp_path, tools, uefi, files, problem):
    result = plan(tmp_path, tools, uefi=uefi, files=files)[1]
    assert result == {'commands': [], 'config': '',
                      'problem': '16 1G pages of the whole host go on the kernel command line: ' + problem, 'fix': HINT}


@pytest.mark.parametrize('hugepages, skip, expected', [
    ([], [], []),
    ([{'size': '2M', 'count': 512}], [], []),
    ([{'size': '1G', 'count': 4, 'node': 0}], [], []),
    ([{'size': '1G', 'count': 16}], [], [16]),
    ([{'size': '1G', 'count': 16}, {'size': '1G', 'count': '0'}], [], [0]),
    ([{'size': '1G', 'count': 16}], ['hugepages'], []),
])
def test_only_1g_pages_of_the_whole_host_read_the_boot_loader(hugepages, skip, expected):
    assert boot_loader.cmdline_pages(hugepages, skip) == expected


def test_kernel_tuning_refuses_before_changing_anything(tmp_path):
    boot_plan = plan(tmp_path, MKCONFIG, files={'/etc/default/grub': DEFAULTS})[1]
    checked = kernel_tuning_filters.kernel_tuning_check(
        {'hugepages': [{'size': '1G', 'count': 16}]}, {}, ['cpu_governor', 'thp', 'memlock', 'sysctl'], [], host='n1',
        boot_plan=boot_plan)
    assert checked['problems'][-1] == (
        '16 1G pages of the whole host go on the kernel command line: BIOS boot, but /boot/grub2/grub.cfg does not '
        'exist (found: no grub.cfg) (kernel_tuning_hugepages). Fix: ' + HINT)
    assert checked['message'].endswith('Nothing was changed.')
