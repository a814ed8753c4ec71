"""Huge page paths and the edits of sysctl.d, tmpfiles.d and GRUB files."""
import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.hugepages import (
    MANAGED_HEADER,
    gigantic_pages_on_cmdline,
    nr_hugepages_path,
    render_sysctl,
    size_kb,
    sysctl_overrides,
    update_grub_cmdline,
    update_tmpfiles,
)

GRUB = '''GRUB_DEFAULT=0
GRUB_TIMEOUT=5
GRUB_CMDLINE_LINUX_DEFAULT="quiet splash"
GRUB_CMDLINE_LINUX="crashkernel=auto iommu.passthrough=1"
GRUB_DISABLE_RECOVERY="true"
'''


def test_size_and_paths():
    assert (size_kb('2M'), size_kb('1g')) == (2048, 1048576)
    with pytest.raises(ValueError):
        size_kb('4K')
    assert nr_hugepages_path('/sys', 2048) == '/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages'
    assert nr_hugepages_path('/sys', 1048576, 2) == \
        '/sys/devices/system/node/node2/hugepages/hugepages-1048576kB/nr_hugepages'


def test_sysctl_content():
    assert render_sysctl(16384) == MANAGED_HEADER + '\nvm.nr_hugepages = 16384\n'


def test_grub_pair_is_appended_and_the_rest_kept():
    out = update_grub_cmdline(GRUB, 64)
    assert out == GRUB.replace('iommu.passthrough=1"', 'iommu.passthrough=1 hugepagesz=1G hugepages=64"')
    assert update_grub_cmdline(out, 64) == out  # idempotent


def test_grub_pair_is_updated_in_place():
    text = 'GRUB_CMDLINE_LINUX="a hugepagesz=1G hugepages=8 b hugepagesz=2M hugepages=512"\n'
    assert update_grub_cmdline(text, 32) == \
        'GRUB_CMDLINE_LINUX="a hugepagesz=1G hugepages=32 b hugepagesz=2M hugepages=512"\n'


def test_grub_count_zero_removes_only_the_1g_pair():
    text = "GRUB_CMDLINE_LINUX='hugepagesz=2M hugepages=512 hugepagesz=1024M hugepages=8 ro'\n"
    assert update_grub_cmdline(text, 0) == "GRUB_CMDLINE_LINUX='hugepagesz=2M hugepages=512 ro'\n"


def test_grub_duplicates_are_collapsed():
    text = 'GRUB_CMDLINE_LINUX="hugepagesz=1G hugepages=4 x hugepagesz=1G hugepages=8"\n'
    assert update_grub_cmdline(text, 16) == 'GRUB_CMDLINE_LINUX="hugepagesz=1G hugepages=16 x"\n'


def test_grub_without_cmdline_line_gets_one():
    assert update_grub_cmdline('GRUB_TIMEOUT=5\n', 2) == \
        'GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX="hugepagesz=1G hugepages=2"\n'
    assert update_grub_cmdline('GRUB_TIMEOUT=5', 2) == \
        'GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX="hugepagesz=1G hugepages=2"\n'
    assert update_grub_cmdline('GRUB_TIMEOUT=5\n', 0) == 'GRUB_TIMEOUT=5\n'


def test_grub_unquoted_and_empty_values():
    assert update_grub_cmdline('GRUB_CMDLINE_LINUX=ro\n', 1) == \
        'GRUB_CMDLINE_LINUX="ro hugepagesz=1G hugepages=1"\n'
    assert update_grub_cmdline('GRUB_CMDLINE_LINUX=""\n', 1) == \
        'GRUB_CMDLINE_LINUX="hugepagesz=1G hugepages=1"\n'


def test_grub_second_assignment_extending_the_first():
    text = 'GRUB_CMDLINE_LINUX="ro"\nGRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX quiet"\n'
    out = update_grub_cmdline(text, 4)
    assert out == 'GRUB_CMDLINE_LINUX="ro"\nGRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX quiet hugepagesz=1G hugepages=4"\n'
    assert update_grub_cmdline(out, 4) == out


@pytest.mark.parametrize('cmdline, count', [
    ('BOOT_IMAGE=/vmlinuz ro hugepagesz=1G hugepages=64 quiet', 64),
    ('ro default_hugepagesz=2M hugepagesz=2M hugepages=1024', 0),
    ('ro hugepages=1024', 0),
    ('ro hugepagesz=1G hugepagesz=2M hugepages=8', 0),
    ('', 0),
])
def test_gigantic_pages_on_cmdline(cmdline, count):
    assert gigantic_pages_on_cmdline(cmdline) == count


def test_tmpfiles_lines_per_node():
    node0 = nr_hugepages_path('/sys', 2048, 0)
    node2 = nr_hugepages_path('/sys', 2048, 2)
    first = update_tmpfiles('', node0, 1024)
    assert first == MANAGED_HEADER + '\nw %s - - - - 1024\n' % node0
    both = update_tmpfiles(first, node2, 512)
    assert both == first + 'w %s - - - - 512\n' % node2
    assert update_tmpfiles(both, node2, 512) == both
    changed = update_tmpfiles(both, node0, 0)
    assert changed.splitlines() == [MANAGED_HEADER, 'w %s - - - - 0' % node0, 'w %s - - - - 512' % node2]


def test_tmpfiles_keeps_foreign_lines():
    text = 'd /run/foo 0755 root root -\n'
    path = nr_hugepages_path('/sys', 1048576, 1)
    assert update_tmpfiles(text, path, 4) == text + 'w %s - - - - 4\n' % path


def test_sysctl_overrides_later_files_only(tmp_path):
    ours = tmp_path / '90-ascend-hugepages.conf'
    ours.write_text(render_sysctl(8))
    (tmp_path / '10-early.conf').write_text('vm.nr_hugepages = 4\n')
    (tmp_path / '99-sysctl.conf').write_text('# vm.nr_hugepages = 1\nvm/nr_hugepages=128\n')
    (tmp_path / '95-other.conf').write_text('vm.swappiness = 0\n')
    (tmp_path / '97-notes.txt').write_text('vm.nr_hugepages = 2\n')
    assert sysctl_overrides(str(ours)) == [str(tmp_path / '99-sysctl.conf')]
