# -*- coding: utf-8 -*-
# SPDX-License-Identifier: Apache-2.0
"""Known failures of vLLM on Ascend NPUs, recognised in a service's journal (pure).

Each row: ``id``, ``pattern`` (a regular expression searched line by line), ``cause``, ``fix``,
``check`` (what on the node confirms it) and ``source`` (where the message and its cause are
published). The health gate (``vllm_health``) matches its unit's journal against the table when the
service fails and names the cause and the fix before the journal excerpt. Only messages seen in a
public log or in upstream's code are listed; a row's cause is the one its source states.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

SIGNATURES = (
    {
        'id': 'wheel_for_another_chip',
        'pattern': r"does not match the installed version's device type",
        'cause': 'the installed vllm-ascend was built for another chip: the wheel PyPI publishes is an A2 build',
        'fix': 'on A3 and 300I Duo nodes use the container method (vllm_service_install_method: container) with the '
               "chip's image, or a wheel built for the chip",
        'check': 'python -c "import vllm_ascend._build_info as b; print(b.__device_type__)" against npu-smi info',
        'source': 'vllm-project/vllm-ascend issues 11160, 6206 (vllm_ascend/utils.py check_ascend_device_type)',
    },
    {
        'id': 'atb_missing',
        'pattern': r'libatb\.so: cannot open shared object file',
        'cause': "NNAL (which provides ATB) is not installed, or its set_env.sh is not in the service's environment",
        'fix': 'install CANN with NNAL (the cann role installs it with the toolkit) and source '
               '<ascend_install_path>/nnal/atb/set_env.sh; the service unit does this through its CANN environment file',
        'check': 'ls /usr/local/Ascend/nnal/atb/set_env.sh; the unit environment holds ATB_HOME_PATH',
        'source': 'vllm-project/vllm-ascend issues 10525, 152, 2727; PR 5235; docs/source/faqs.md',
    },
    {
        'id': 'hdk_too_old_for_graphs',
        'pattern': r'Alloc sq cq fail',
        'cause': 'graph capture ran out of driver stream resources: the NPU driver (HDK) is older than graph mode '
                 'needs (vllm-ascend asks HDK 25.5.1 or later)',
        'fix': 'upgrade the driver (npu_driver_version, at least 25.5.1; the default HDK suits every release here); '
               'check its version first, as other causes (several servers on one NPU) print the same line',
        'check': 'cat /usr/local/Ascend/driver/version.info',
        'source': 'vllm-project/vllm-ascend issue 8393; PR 10555 (vllm_ascend/compilation/acl_graph.py)',
    },
    {
        'id': 'graph_streams_exhausted',
        'pattern': r'error code is 207008|Stream resources are insufficient|Insufficient_Stream_Resources',
        'cause': 'too many graphs were captured for the streams the NPU has (not a driver fault)',
        'fix': 'capture fewer sizes (compilation-config cudagraph_capture_sizes or max_cudagraph_capture_size), prefer '
               'FULL_DECODE_ONLY, or turn graph mode off (enforce-eager) through vllm_service_extra_args',
        'check': "the service's compilation-config and the number of capture sizes",
        'source': 'vllm-project/vllm-ascend issue 9691; PR 10555',
    },
    {
        'id': 'hccl_socket_timeout',
        'pattern': r'EI0006|Getting socket times out',
        'cause': 'HCCL could not connect the NPUs of the service across nodes in time: a link down, addresses in '
                 'different networks, TLS settings that differ between nodes, clocks out of step, or a peer that '
                 'started too late',
        'fix': "compare 'hccn_tool -i <id> -tls -g' on every node and make it equal, check links, the NPU "
               "network plan and the nodes' clocks (the hccn role's check, verify's hccn row), and start all nodes "
               'within HCCL_CONNECT_TIMEOUT (vllm_service_hccl_connect_timeout)',
        'check': 'hccn_tool -i <id> -tls -g; hccn_tool -i <id> -link -g; hccn_tool -i <id> -net_health -g; '
                 'chronyc tracking on every node',
        'source': 'vllm-project/vllm-ascend issues 5461, 9447, 10224',
    },
    {
        'id': 'tls_inconsistent',
        'pattern': r'EI0016|for config "tls" is invalid',
        'cause': "the NPUs of the service's nodes have different TLS switches: HCCL's rank table check (Ascend HDK "
                 '25.2.0 and later) refuses to build the communicator',
        'fix': "read 'hccn_tool -i <id> -tls -g' on every device of every node and make the switch equal "
               "('hccn_tool -i <id> -tls -s enable 0|1'); verify's hccn row names the devices that differ",
        'check': 'hccn_tool -i <id> -tls -g',
        'source': 'hicann/hccl docs/zh/user_guide/fault_diagnosis/tls_info_config_inconsistent_EI0016.md',
    },
    {
        'id': 'roce_cqe_error',
        'pattern': r'EI0013|An error CQE occurred',
        'cause': "the NPU network between two devices failed during an operation (a link flapping, or the peer's "
                 'process ended)',
        'fix': "check the named devices' links and the peer node's service journal",
        'check': 'hccn_tool -i <id> -link -g; hccn_tool -i <id> -ping -g address <peer device ip>',
        'source': 'vllm-project/vllm-ascend issue 7384',
    },
    {
        'id': 'device_ip_not_set',
        'pattern': r"'device ip' is not set correctly",
        'cause': "HCCL found no device address for an NPU: /etc/hccn.conf is missing (or not mounted into the "
                 'container) or disagrees with the device',
        'fix': "run the hccn role; the device's own address ('hccn_tool -i <id> -ip -g') is authoritative",
        'check': "grep address_ /etc/hccn.conf against 'hccn_tool -i <id> -ip -g'",
        'source': 'vllm-project/vllm-ascend issue 7711; PR 16847',
    },
    {
        'id': 'npu_held_elsewhere',
        'pattern': r'ret is -8005|because the device is used\. ret is -8020',
        'cause': 'the NPU is held by another process or container',
        'fix': 'stop the other user of the NPU (npu-smi info lists its PID) or give the service other NPUs',
        'check': 'npu-smi info (process table); fuser -v /dev/davinci*',
        'source': 'vllm-project/vllm-ascend issue 2698; Ascend/cann-container-image issue 46',
    },
    {
        'id': 'no_visible_npus',
        'pattern': r'of visible devices \(0\)',
        'cause': 'the service saw no NPU: devices not passed to it, ASCEND_RT_VISIBLE_DEVICES empty, or the '
                 'driver not running',
        'fix': 'check the unit\'s ASCEND_RT_VISIBLE_DEVICES (vllm_service_devices) and, for the container method, '
               'the /dev/davinci* devices; run npu-smi info',
        'check': 'ls /dev/davinci*; npu-smi info',
        'source': 'vllm-project/vllm-ascend issue 14628',
    },
    {
        'id': 'npu_out_of_memory',
        'pattern': r'NPU out of memory|Free memory on device .* is less than desired',
        'cause': "the model, its KV cache and the graphs do not fit in the NPUs' free HBM",
        'fix': 'lower gpu-memory-utilization, max-model-len or max-num-seqs, use more NPUs or nodes, and free NPUs '
               'that other processes hold',
        'check': 'npu-smi info (HBM-Usage and the process table)',
        'source': 'vllm-project/vllm-ascend issues 1127, 19, 14628',
    },
    {
        'id': 'quantization_description',
        'pattern': r'ModelSlim Quantization Config Not Found|There is no available ascend quantizer'
                   r"|KeyError: 'model\.layers\.\d+\.",
        'cause': "the model's quantisation description does not fit this release (missing "
                 'quant_model_description.json, or layer names it does not list)',
        'fix': "serve weights quantised with ModelSlim for this release with quantization 'ascend' (the W8A8 "
               "profiles' repositories), or the unquantised model",
        'check': 'ls <model>/quant_model_description.json',
        'source': 'vllm-project/vllm-ascend issues 569, 619, 633; vllm_ascend/quantization/modelslim_config.py',
    },
)

_COMPILED = tuple((row, re.compile(row['pattern'])) for row in SIGNATURES)


def diagnose(text):
    """The rows whose pattern a line of ``text`` matches, in table order, each with the first line
    that matched (``line``). -> [dict]"""
    found = []
    lines = (text or '').splitlines()
    for row, pattern in _COMPILED:
        for line in lines:
            if pattern.search(line):
                hit = dict(row)
                hit['line'] = line.strip()
                found.append(hit)
                break
    return found


def holders_text(processes, own_unit=None):
    """Who holds the NPUs, from npu-smi's process table with each process's ``unit`` (the systemd
    unit or container, npu_smi.process_owner): 'PID 4242 (python3) on NPU 0 in other.service; ...',
    the service's own unit left out; '' when no one else holds an NPU."""
    others = [proc for proc in processes or [] if not (own_unit and proc.get('unit') == own_unit)]
    return '; '.join('PID %s (%s) on NPU %s%s' % (proc.get('pid'), proc.get('name') or '?', proc.get('npu_id'),
                                                  ' in %s' % proc['unit'] if proc.get('unit') else '')
                     for proc in others)


def diagnosis_text(found):
    """One paragraph per recognised failure: cause and fix first, then what the node showed (the
    holders of a busy NPU), the check and the source."""
    return '\n'.join('Known failure (%s): %s. Fix: %s.%s Check: %s. Source: %s. Matched: %s'
                     % (row['id'], row['cause'], row['fix'],
                        ' Found on the node: %s.' % row['found'] if row.get('found') else '',
                        row['check'], row['source'], row['line'])
                     for row in found)
