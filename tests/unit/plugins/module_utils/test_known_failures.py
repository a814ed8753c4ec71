# -*- coding: utf-8 -*-
# Apache License 2.0 (see LICENSE)
"""Every known failure against a real excerpt of the log its source publishes."""

from __future__ import (absolute_import, division, print_function)

__metaclass__ = type

import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import known_failures as kf

# (row id, a log excerpt as published, where)
EXCERPTS = [
    ('wheel_for_another_chip',
     "AssertionError: Current device type: AscendDeviceType.A3 does not match the installed version's device type: "
     'AscendDeviceType.A2', 'vllm_ascend/utils.py check_ascend_device_type; issue 11160'),
    ('atb_missing',
     'ERROR 06-16 02:47:10 [multiproc_executor.py:870] OSError: libatb.so: cannot open shared object file: '
     'No such file or directory', 'issue 10525'),
    ('hdk_too_old_for_graphs',
     '(EngineCore pid=1802921) EE9999[PID: 1802934] 2026-04-17-09:16:39.992.922 (EE9999):  [SqCqManage]Alloc sq cq '
     'fail, stream_id=1984, retCode=0x7020023.[FUNC:Setup][FILE:stream.cc]', 'issue 8393'),
    ('graph_streams_exhausted',
     'capture_begin:../torch_npu/csrc/core/npu/NPUGraph.cpp:230 NPU function error: '
     'c10_npu::acl::AclmdlRICaptureBegin(capture_stream_, capture_mode), error code is 207008', 'issue 9691'),
    ('hccl_socket_timeout',
     '[PID: 749] 2025-12-29-03:16:15.787.356 Get_Socket_Timeout(EI0006): Getting socket times out. Reason: 1. The '
     'remote does not initiate a connect request.', 'issue 5461'),
    ('tls_inconsistent',
     '[ERROR] HCCL(94774,all_reduce_test):2025-10-27-11:51:32.570.490 [topoinfo_exchange_agent.cc:831] '
     '[94774][InitGroupStage][RanktableCheck] Value Disable for config "tls" is invalid. Expected Value:"All ranks '
     'are consistent. Current status : rankList for enabled tls:[10.78.106.107/0]; rankList for disabled '
     'tls:[10.78.106.107/0]; rankList for query failure tls:".;',
     'hicann/hccl docs/zh/user_guide/fault_diagnosis/tls_info_config_inconsistent_EI0016.md'),
    ('roce_cqe_error',
     '[rank11]:[E313 06:55:06.502248200 compiler_depend.ts:1693] [Rank 1] HCCL watchdog thread terminated with '
     'exception: [PID: 335] 2026-03-13-06:55:06.896.485 Execution_Error_ROCE_CQE(EI0013): An error CQE occurred '
     'during operator execution.', 'issue 7384'),
    ('device_ip_not_set',
     "[RanktablCheck] 'device ip' is not set correctly, must be set when multi Server or HCCL INTRA ROCE ENABLE "
     'enabled', 'issue 7711'),
    ('npu_held_elsewhere', 'dcmi module initialize failed. ret is -8005', 'issue 2698'),
    ('npu_held_elsewhere', 'dcmi model initialized failed, because the device is used. ret is -8020',
     'Ascend/cann-container-image issue 46'),
    ('no_visible_npus', 'of visible devices (0).', 'issue 14628 (the assertion wraps onto this line)'),
    ('npu_out_of_memory',
     'RuntimeError: NPU out of memory. Tried to allocate 30.00 MiB (NPU 3; 60.96 GiB total capacity; 60.34 GiB '
     'already allocated)', 'issue 1127'),
    ('npu_out_of_memory',
     'ValueError: Free memory on device (8.0/64.0 GiB) on startup is less than desired GPU memory utilization (0.9, '
     '57.6 GiB).', 'issue 14628'),
    ('quantization_description', "KeyError: 'model.layers.0.self_attn.q_proj.weight'", 'issue 569'),
    ('quantization_description', 'NotImplementedError: There is no available ascend quantizer.', 'issue 633'),
]


@pytest.mark.parametrize('row_id, excerpt, where', EXCERPTS, ids=['%s-%d' % (e[0], i) for i, e in enumerate(EXCERPTS)])
def test_each_published_excerpt_names_its_row(row_id, excerpt, where):
    found = kf.diagnose('INFO starting\n%s\nINFO exiting\n' % excerpt)
    assert [row['id'] for row in found] == [row_id], where
    assert found[0]['line'] == excerpt.strip()


def test_every_row_has_a_published_excerpt_and_says_cause_fix_check_source():
    assert set(e[0] for e in EXCERPTS) == set(row['id'] for row in kf.SIGNATURES)
    for row in kf.SIGNATURES:
        assert all(row[key] for key in ('cause', 'fix', 'check', 'source')), row['id']


def test_a_healthy_log_names_nothing_and_two_failures_are_both_named():
    assert kf.diagnose('INFO Started server process\nINFO Application startup complete.\n') == []
    found = kf.diagnose('dcmi module initialize failed. ret is -8005\nRuntimeError: NPU out of memory. Tried to allocate 2 MiB\n')
    assert [row['id'] for row in found] == ['npu_held_elsewhere', 'npu_out_of_memory']
    text = kf.diagnosis_text(found)
    assert text.splitlines()[0].startswith('Known failure (npu_held_elsewhere): the NPU is held by another process '
                                           'or container. Fix: stop the other user of the NPU')


def test_the_troubleshooting_page_lists_every_row():
    # docs/troubleshooting.md is generated from the table; a stale page fails here.
    import importlib.util
    import os
    repo = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', '..')
    spec = importlib.util.spec_from_file_location('troubleshooting_doc', os.path.join(repo, 'scripts', 'troubleshooting_doc.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(['--check']) == 0


def test_the_holders_of_a_busy_npu_are_named_without_the_service_itself():
    processes = [{'pid': 4242, 'name': 'python3', 'npu_id': 0, 'unit': 'other.service'},
                 {'pid': 4243, 'name': 'VLLM::EngineCore 0', 'npu_id': 1, 'unit': 'vllm-main.service'},
                 {'pid': 99, 'name': '', 'npu_id': 3, 'unit': None}]
    assert kf.holders_text(processes, 'vllm-main.service') == (
        'PID 4242 (python3) on NPU 0 in other.service; PID 99 (?) on NPU 3')
    assert kf.holders_text([processes[1]], 'vllm-main.service') == ''
    row = dict(kf.diagnose('ret is -8005')[0], found='PID 4242 (python3) on NPU 0 in other.service')
    assert ' Found on the node: PID 4242 (python3) on NPU 0 in other.service. Check: npu-smi info' in kf.diagnosis_text([row])
