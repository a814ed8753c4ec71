"""ascend.vllm.hugepages against sysfs trees and configuration files in a temporary directory."""
import os

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils.hugepages import MANAGED_HEADER
from ansible_collections.ascend.vllm.plugins.modules import hugepages

GRUB = 'GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX="crashkernel=auto rhgb"\n'


@pytest.fixture
def host(sysfs, tmp_path):
    """Two NUMA nodes with 2M and 1G pools, empty config directories, a GRUB defaults file."""
    sysfs.pool('kernel/mm/hugepages', 2048, 0)
    sysfs.pool('kernel/mm/hugepages', 1048576, 0)
    sysfs.node(0, '0-3', 8388608)
    sysfs.node(1, '4-7', 8388608)
    etc = tmp_path / 'etc'
    (etc / 'sysctl.d').mkdir(parents=True)
    (etc / 'default').mkdir()
    (etc / 'default' / 'grub').write_text(GRUB)
    (tmp_path / 'cmdline').write_text('BOOT_IMAGE=/vmlinuz ro crashkernel=auto rhgb\n')

    class Host(object):
        root = sysfs.root
        tree = sysfs
        sysctl = etc / 'sysctl.d' / '90-ascend-hugepages.conf'
        tmpfiles = etc / 'tmpfiles.d' / '90-ascend-hugepages.conf'
        grub = etc / 'default' / 'grub'
        cmdline = tmp_path / 'cmdline'

        def args(self, **kwargs):
            base = {'sysfs_root': self.root, 'sysctl_file': str(self.sysctl),
                    'tmpfiles_file': str(self.tmpfiles), 'grub_file': str(self.grub),
                    'proc_cmdline': str(self.cmdline)}
            base.update(kwargs)
            return base

        def pages(self, kb=2048, node=None):
            if node is None:
                return int(sysfs.read('kernel/mm/hugepages/hugepages-%dkB/nr_hugepages' % kb))
            return int(sysfs.read('devices/system/node/node%d/hugepages/hugepages-%dkB/nr_hugepages' % (node, kb)))

    return Host()


@pytest.fixture
def kernel_capacity(monkeypatch):
    """Make the "kernel" allocate at most ``n`` pages, as a fragmented host does."""
    def limit(n):
        def write_pool(path, count):
            with open(path, 'w') as handle:
                handle.write('%d\n' % min(count, n))
        monkeypatch.setattr(hugepages, 'write_pool', write_pool)
    return limit


def test_2m_host_wide_runtime_and_sysctl_then_idempotent(run_module, host):
    failed, result = run_module(hugepages, host.args(count=1024))
    assert not failed
    assert {k: result[k] for k in ('changed', 'requested', 'allocated', 'previous', 'reboot_required',
                                   'size_kb', 'node', 'persist_file', 'persist_changed')} == {
        'changed': True, 'requested': 1024, 'allocated': 1024, 'previous': 0, 'reboot_required': False,
        'size_kb': 2048, 'node': None, 'persist_file': str(host.sysctl), 'persist_changed': True}
    assert result['sysfs_path'] == os.path.join(host.root, 'kernel/mm/hugepages/hugepages-2048kB/nr_hugepages')
    assert host.pages() == 1024
    assert host.sysctl.read_text() == MANAGED_HEADER + '\nvm.nr_hugepages = 1024\n'
    assert oct(os.stat(str(host.sysctl)).st_mode & 0o777) == '0o644'

    failed, again = run_module(hugepages, host.args(count=1024))
    assert not failed and again['changed'] is False
    assert (again['previous'], again['allocated'], again['persist_changed']) == (1024, 1024, False)


def test_check_mode_predicts_and_writes_nothing(run_module, host):
    failed, result = run_module(hugepages, host.args(count=512), check_mode=True)
    assert not failed
    assert (result['changed'], result['previous'], result['allocated'], result['persist_changed']) == \
        (True, 0, 0, True)
    assert host.pages() == 0
    assert not host.sysctl.exists()


def test_check_mode_of_a_settled_pool_is_unchanged(run_module, host):
    run_module(hugepages, host.args(count=512))
    failed, result = run_module(hugepages, host.args(count=512), check_mode=True)
    assert not failed and result['changed'] is False


def test_diff_of_a_settled_file_shows_only_the_runtime_value(run_module, host):
    run_module(hugepages, host.args(count=16))
    failed, result = run_module(hugepages, host.args(count=16), diff=True)
    assert not failed and result['changed'] is False
    assert result['diff'] == [{'before_header': result['sysfs_path'], 'after_header': result['sysfs_path'],
                               'before': '16\n', 'after': '16\n'}]


def test_diff_shows_runtime_value_and_file(run_module, host):
    host.sysctl.write_text(MANAGED_HEADER + '\nvm.nr_hugepages = 8\n')
    failed, result = run_module(hugepages, host.args(count=16), diff=True, check_mode=True)
    assert not failed
    assert result['diff'] == [
        {'before_header': result['sysfs_path'], 'after_header': result['sysfs_path'], 'before': '0\n', 'after': '16\n'},
        {'before_header': str(host.sysctl), 'after_header': str(host.sysctl),
         'before': MANAGED_HEADER + '\nvm.nr_hugepages = 8\n',
         'after': MANAGED_HEADER + '\nvm.nr_hugepages = 16\n'},
    ]


def test_not_persistent_touches_no_file(run_module, host):
    failed, result = run_module(hugepages, host.args(count=64, persistent=False))
    assert not failed and result['changed'] is True
    assert (result['persist_file'], result['persist_changed']) == (None, False)
    assert host.pages() == 64
    assert not host.sysctl.exists()


def test_per_node_pools_use_tmpfiles_lines(run_module, host):
    for node, count in ((0, 256), (1, 128)):
        failed, result = run_module(hugepages, host.args(count=count, node=node))
        assert not failed and result['changed'] is True
    assert (host.pages(node=0), host.pages(node=1), host.pages()) == (256, 128, 0)
    node_path = os.path.join(host.root, 'devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages')
    assert host.tmpfiles.read_text() == (
        MANAGED_HEADER + '\nw %s - - - - 256\nw %s - - - - 128\n' % (node_path % 0, node_path % 1))
    assert not host.sysctl.exists()
    failed, again = run_module(hugepages, host.args(count=256, node=0))
    assert not failed and again['changed'] is False


def test_1g_host_wide_edits_grub_and_needs_a_reboot(run_module, host):
    failed, result = run_module(hugepages, host.args(size='1G', count=8))
    assert not failed
    assert (result['changed'], result['allocated'], result['reboot_required'], result['persist_file']) == \
        (True, 8, True, str(host.grub))
    assert host.grub.read_text() == \
        'GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX="crashkernel=auto rhgb hugepagesz=1G hugepages=8"\n'
    assert host.pages(kb=1048576) == 8
    # Not rebooted yet: nothing to change, still a reboot to do.
    failed, again = run_module(hugepages, host.args(size='1G', count=8))
    assert (again['changed'], again['reboot_required']) == (False, True)
    # Booted with the new command line.
    host.cmdline.write_text('BOOT_IMAGE=/vmlinuz ro crashkernel=auto rhgb hugepagesz=1G hugepages=8\n')
    failed, booted = run_module(hugepages, host.args(size='1G', count=8))
    assert (booted['changed'], booted['reboot_required']) == (False, False)


def test_1g_shortfall_waits_for_the_reboot(run_module, host, kernel_capacity):
    kernel_capacity(3)
    failed, result = run_module(hugepages, host.args(size='1G', count=8))
    assert not failed
    assert (result['allocated'], result['reboot_required']) == (3, True)
    assert result['warnings'] == [
        'requested 8 1048576kB huge pages host-wide, the kernel allocated 3 (previously 0); the rest '
        'are allocated at the next boot from the kernel command line']


def test_2m_shortfall_fails_with_requested_and_allocated(run_module, host, kernel_capacity):
    kernel_capacity(700)
    failed, result = run_module(hugepages, host.args(count=1024, node=1))
    assert failed
    assert result['msg'] == (
        'requested 1024 2048kB huge pages on NUMA node 1, the kernel allocated 700 (previously 0): '
        'not enough free contiguous memory on that node. Free memory (stop services, drop caches), '
        'lower count, reboot with the persisted value, or set allow_partial=true. '
        'The pool was set back to 0 and nothing was persisted')
    assert (result['requested'], result['allocated'], result['changed']) == (1024, 700, True)
    # Nothing half-changed: the pages the kernel did give are released, no file is written.
    assert host.pages(node=1) == 0
    assert result['persist_changed'] is False
    assert not os.path.exists(result['persist_file'])


def test_shrink_blocked_by_pages_in_use(run_module, host, monkeypatch):
    host.tree.write('kernel/mm/hugepages/hugepages-2048kB/nr_hugepages', '512\n')
    # Pages in use: the kernel keeps them whatever is written.
    monkeypatch.setattr(hugepages, 'write_pool', lambda path, count: None)
    failed, result = run_module(hugepages, host.args(count=0, persistent=False))
    assert failed
    assert result['msg'] == (
        'requested 0 2048kB huge pages host-wide, the kernel allocated 512 (previously 512): pages '
        'still in use cannot be released. Stop the processes holding them (vLLM, memcache) and run '
        'again, or set allow_partial=true. The pool was set back to 512 and nothing was persisted')


def test_allow_partial_warns(run_module, host, kernel_capacity):
    kernel_capacity(100)
    failed, result = run_module(hugepages, host.args(count=128, allow_partial=True))
    assert not failed
    assert result['allocated'] == 100
    assert result['warnings'] == ['requested 128 2048kB huge pages host-wide, the kernel allocated 100 '
                                  '(previously 0)']


def test_missing_node_fails_naming_it(run_module, host):
    failed, result = run_module(hugepages, host.args(count=1, node=3))
    assert failed
    assert result['msg'] == ('cannot set 2048kB huge pages on NUMA node 3: NUMA node 3 does not exist '
                             '(%s is missing)' % os.path.join(host.root, 'devices/system/node/node3'))


def test_missing_pool_size_fails(run_module, sysfs):
    sysfs.pool('kernel/mm/hugepages', 2048, 0)
    failed, result = run_module(hugepages, {'sysfs_root': sysfs.root, 'size': '1G', 'count': 1, 'persistent': False})
    assert failed and 'the kernel offers no 1048576kB huge page pool' in result['msg']


def test_missing_grub_file_fails_before_any_change(run_module, host, tmp_path):
    failed, result = run_module(hugepages, host.args(size='1G', count=2, grub_file=str(tmp_path / 'nogrub')))
    assert failed and result['msg'].startswith('%s does not exist' % (tmp_path / 'nogrub'))
    assert host.pages(kb=1048576) == 0


def test_zero_1g_pages_without_grub_file_is_already_done(run_module, host, tmp_path):
    failed, result = run_module(hugepages, host.args(size='1G', count=0, grub_file=str(tmp_path / 'nogrub')))
    assert not failed
    assert (result['changed'], result['persist_changed'], result['reboot_required']) == (False, False, False)
    assert not (tmp_path / 'nogrub').exists()


def test_negative_count_is_refused(run_module, host):
    failed, result = run_module(hugepages, host.args(count=-1))
    assert failed and result['msg'] == 'count must be 0 or more, got -1'


def test_later_sysctl_file_is_reported(run_module, host):
    (host.sysctl.parent / '99-sysctl.conf').write_text('vm.nr_hugepages = 4\n')
    failed, result = run_module(hugepages, host.args(count=4))
    assert not failed
    assert result['warnings'] == [
        '%s also sets vm.nr_hugepages and is read after %s: it decides the value at boot'
        % (host.sysctl.parent / '99-sysctl.conf', host.sysctl)]
