"""ascend.vllm.boot_loader_info as a module: the tools it looks for on PATH and in the sbin
directories, and the layout and plan it returns for a node's file system tree."""
import os
import stat

from ansible_collections.ascend.vllm.plugins.module_utils import boot_loader
from ansible_collections.ascend.vllm.plugins.modules import boot_loader_info


def executable(directory, name):
    path = directory / name
    path.write_text('#!/bin/sh\nexit 0\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_reads_tools_from_path_and_plans_the_pages(run_module, monkeypatch, tmp_path):
    bin_dir = tmp_path / 'bin'
    bin_dir.mkdir()
    mkconfig = executable(bin_dir, 'grub2-mkconfig')
    root = tmp_path / 'root'
    for path, text in {'etc/default/grub': 'GRUB_CMDLINE_LINUX=""\n',
                       'boot/efi/EFI/openEuler/grub.cfg': "menuentry 'openEuler' {\n}\n"}.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    (root / 'sys/firmware/efi').mkdir(parents=True)
    monkeypatch.setenv('PATH', str(bin_dir))
    seen = {}

    def read_under_root(tools):
        seen.update(tools)
        return boot_loader.read_layout(tools, str(root))

    monkeypatch.setattr(boot_loader_info, 'read_layout', read_under_root)
    failed, result = run_module(boot_loader_info, {'hugepages_1g': 16}, check_mode=True)
    assert not failed and result['changed'] is False
    assert seen['grub2-mkconfig'] == mkconfig
    assert result['layout']['firmware'] == 'uefi'
    assert result['plan'] == {'commands': [[mkconfig, '-o', '/boot/efi/EFI/openEuler/grub.cfg']],
                              'config': '/boot/efi/EFI/openEuler/grub.cfg', 'problem': '', 'fix': ''}


def test_without_a_page_count_only_the_layout_is_returned(run_module, monkeypatch, tmp_path):
    monkeypatch.setattr(boot_loader_info, 'read_layout', lambda tools: boot_loader.read_layout(tools, str(tmp_path)))
    failed, result = run_module(boot_loader_info, {})
    assert not failed and 'plan' not in result
    assert result['layout'] == {'firmware': 'bios', 'tools': result['layout']['tools'], 'configs': [],
                                'defaults_file': False, 'bls': False, 'bls_options': []}
    assert all(os.path.isabs(path) for path in result['layout']['tools'].values())
