"""Pure helpers of the vllm_service role: arguments, chip count, systemd quoting, NUMA, containers."""
import pytest

from ansible_collections.ascend.vllm.plugins.module_utils import vllm_service as vs


def test_merge_later_layers_win_and_spellings_are_one_option():
    merged = vs.merge_args({'max-model-len': 32768, 'enforce_eager': True},
                           {'--max_model_len': 16384, 'seed': 1})
    assert merged == {'max-model-len': 16384, 'enforce-eager': True, 'seed': 1}
    assert list(merged) == ['max-model-len', 'enforce-eager', 'seed']


def test_merge_none_and_false_drop_an_option():
    assert vs.merge_args({'enforce-eager': True, 'dtype': 'bfloat16'},
                         {'enforce-eager': False, 'dtype': None}) == {}


@pytest.mark.parametrize('bad', ['max model len', '--', 'Max-Len', ''])
def test_bad_option_names_are_refused(bad):
    with pytest.raises(vs.ServiceError, match='is not a vllm serve option name'):
        vs.merge_args({bad: 1})


def test_serve_argv_flags_lists_and_json():
    argv = vs.serve_argv({'served-model-name': ['a', 'b'], 'trust-remote-code': True,
                          'additional-config': {'torchair_graph_config': {'enabled': True}},
                          'tensor-parallel-size': 2})
    assert argv == ['--served-model-name', 'a', 'b', '--trust-remote-code',
                    '--additional-config', '{"torchair_graph_config":{"enabled":true}}',
                    '--tensor-parallel-size', '2']


def test_chips_needed_uses_local_data_parallel_when_given():
    assert vs.chips_needed({'tensor-parallel-size': 4, 'data-parallel-size': 4})['chips'] == 16
    two_nodes = vs.chips_needed({'tp': 1, 'tensor-parallel-size': 4, 'data-parallel-size': 4,
                                 'data-parallel-size-local': 2})
    assert two_nodes['chips'] == 8 and two_nodes['data_parallel'] == 4
    assert vs.chips_needed({})['chips'] == 1
    assert vs.chips_needed({'pipeline_parallel_size': 2, 'tensor-parallel-size': 2})['chips'] == 4


@pytest.mark.parametrize('value, message', [('two', "not a whole number"), (0, 'at least 1')])
def test_chips_needed_refuses_bad_sizes(value, message):
    with pytest.raises(vs.ServiceError, match=message):
        vs.chips_needed({'tensor-parallel-size': value})


def test_systemd_exec_quotes_what_systemd_would_expand():
    line = vs.systemd_exec(['/opt/venv/bin/vllm', 'serve', '/m', '--additional-config', '{"a": "$HOME 50%"}'])
    assert line == '/opt/venv/bin/vllm serve /m --additional-config "{\\"a\\": \\"$$HOME 50%%\\"}"'
    assert vs.systemd_exec(['x', '']) == 'x ""'
    with pytest.raises(vs.ServiceError, match='line break'):
        vs.systemd_exec(['a\nb'])


PLAN = [{'npus': [0, 1, 2, 3], 'devices': [0, 1, 2, 3], 'numa_nodes': [0], 'cpus': '0-47', 'cpu_count': 48},
        {'npus': [4, 5, 6, 7], 'devices': [4, 5, 6, 7], 'numa_nodes': [2], 'cpus': '96-143', 'cpu_count': 48}]


def test_numa_binding_covers_the_entries_holding_the_npus():
    assert vs.numa_binding(PLAN, [0, 1]) == {'cpus': '0-47', 'numa_nodes': [0], 'entries': 1}
    assert vs.numa_binding(PLAN, [3, 4]) == {'cpus': '0-47,96-143', 'numa_nodes': [0, 2], 'entries': 2}
    assert vs.numa_binding(PLAN, [9]) is None
    assert vs.numa_binding([], [0]) is None


def test_numa_binding_matches_logical_ids_not_pci_positions():
    # PCI position 0 holds logical device 4: a match by position would bind device 0 to node 0.
    plan = [{'npus': [0, 1], 'devices': [4, 5], 'numa_nodes': [0], 'cpus': '0-23'},
            {'npus': [6, 7], 'devices': [0, 1], 'numa_nodes': [6], 'cpus': '144-167'}]
    assert vs.numa_binding(plan, [0]) == {'cpus': '144-167', 'numa_nodes': [6], 'entries': 1}
    # Without logical ids (npu-smi unreadable) nothing is bound rather than a guess.
    assert vs.numa_binding([{'npus': [0], 'devices': [], 'numa_nodes': [0], 'cpus': '0-23'}], [0]) is None
    assert vs.numa_binding([{'npus': [0], 'numa_nodes': [0], 'cpus': '0-23'}], [0]) is None


def test_numa_binding_keeps_only_nodes_the_kernel_has():
    assert vs.numa_binding(PLAN, [3, 4], online_nodes=[0]) == {'cpus': '0-47,96-143', 'numa_nodes': [0], 'entries': 2}
    assert vs.numa_binding(PLAN, [4], online_nodes=[0])['numa_nodes'] == []
    with pytest.raises(vs.ServiceError, match='must be a dict'):
        vs.numa_binding(['0-47'], [0])


def test_parse_cpulist_round_trip():
    assert vs.parse_cpulist('0-2,5, 7-8') == [0, 1, 2, 5, 7, 8]


def test_parse_env_file():
    text = ('# written by cann\nASCEND_TOOLKIT_HOME=/usr/local/Ascend/ascend-toolkit/latest\n'
            'export PATH="/a:/b"\nEMPTY=\n\nnot a line\nQ=\'x y\'\n')
    assert vs.parse_env_file(text) == {'ASCEND_TOOLKIT_HOME': '/usr/local/Ascend/ascend-toolkit/latest',
                                       'PATH': '/a:/b', 'EMPTY': '', 'Q': 'x y'}


CHIPS_A2 = [{'npu_id': i, 'chip_id': 0, 'device_id': None} for i in range(8)]
# Physical ids set apart from the logic ids on purpose: the device node follows the physical one.
CHIPS_A3 = [{'npu_id': i // 2, 'chip_id': i % 2, 'device_id': i, 'phy_id': 15 - i} for i in range(16)]


def test_container_plan_devices_and_mounts_of_design_section_6():
    plan = vs.container_plan(CHIPS_A2, [2, 3], '/usr/local/Ascend/', '/var/lib/vllm/models')
    assert plan['devices'] == ['/dev/davinci2', '/dev/davinci3', '/dev/davinci_manager', '/dev/devmm_svm',
                               '/dev/hisi_hdc']
    assert plan['volumes'] == ['/usr/local/dcmi:/usr/local/dcmi:ro',
                               '/usr/local/Ascend/driver/tools/hccn_tool:/usr/local/Ascend/driver/tools/hccn_tool:ro',
                               '/usr/local/bin/npu-smi:/usr/local/bin/npu-smi:ro',
                               '/usr/local/Ascend/driver/lib64:/usr/local/Ascend/driver/lib64:ro',
                               '/usr/local/Ascend/driver/version.info:/usr/local/Ascend/driver/version.info:ro',
                               '/etc/ascend_install.info:/etc/ascend_install.info:ro',
                               '/var/lib/vllm/models:/var/lib/vllm/models:ro']
    assert plan['env'] == {'ASCEND_RT_VISIBLE_DEVICES': '0,1'}


def test_container_plan_uses_the_device_ids_npu_facts_read():
    # /dev/davinci<N>: N is the physical id (Huawei's DCMI reference, device_phy_id).
    plan = vs.container_plan(CHIPS_A3, [0, 1], '/opt/Ascend', extra_mounts=['/data:/data'])
    assert plan['devices'][:2] == ['/dev/davinci15', '/dev/davinci14']
    assert plan['env'] == {'ASCEND_RT_VISIBLE_DEVICES': '0,1'}
    assert plan['volumes'][1] == '/opt/Ascend/driver/tools/hccn_tool:/opt/Ascend/driver/tools/hccn_tool:ro'
    assert plan['volumes'][3] == '/opt/Ascend/driver/lib64:/opt/Ascend/driver/lib64:ro'
    assert plan['volumes'][-1] == '/data:/data'


def test_container_plan_refuses_unknown_or_repeated_chips():
    with pytest.raises(vs.ServiceError, match='device 8 is not one of the 8 chips'):
        vs.container_plan(CHIPS_A2, [7, 8])
    with pytest.raises(vs.ServiceError, match='more than once'):
        vs.container_plan(CHIPS_A2, [1, 1])


def test_one_binding_layer_per_release_and_architecture():
    from ansible_collections.ascend.vllm.plugins.module_utils.stack import resolve_stack
    # vllm-ascend binds itself on ARM from 0.18.0: the unit adds no numactl.
    assert vs.binding_layer(resolve_stack('0.23.0'), 'aarch64') == 'vllm-ascend'
    assert vs.binding_layer(resolve_stack('0.18.0'), 'aarch64', numa_bind=False) == 'vllm-ascend'
    # It skips x86 and is off by default before: numactl around the service, unless turned off.
    assert vs.binding_layer(resolve_stack('0.23.0'), 'x86_64') == 'numactl'
    assert vs.binding_layer(resolve_stack('0.13.0'), 'aarch64') == 'numactl'
    assert vs.binding_layer(resolve_stack('0.13.0'), 'aarch64', numa_bind=False) == 'none'
    # A stack resolved by an older collection (no binds_cpus_on) keeps the numactl layer.
    assert vs.binding_layer({'release': '0.23.0'}, 'aarch64') == 'numactl'
    # enable_cpu_binding false in --additional-config: numactl takes over.
    assert vs.binding_layer(resolve_stack('0.23.0'), 'aarch64', True, '{"enable_cpu_binding": false}') == 'numactl'
    assert vs.binding_layer(resolve_stack('0.23.0'), 'aarch64', True, {'enable_cpu_binding': True}) == 'vllm-ascend'
    with pytest.raises(vs.ServiceError, match='--additional-config is not JSON'):
        vs.binding_layer(resolve_stack('0.23.0'), 'aarch64', True, '{enable')


@pytest.mark.parametrize('family, multinode, mode', [
    ('910_93', False, 'AIV'), ('910_93', True, 'AIV'),   # A3: AIV within a super node, one server or more
    ('910b', False, 'AIV'),
    # A2 across servers: AIV has no cross-server AlltoAllV (CANN HCCL_OP_EXPANSION_MODE), and the
    # two-node A2 tutorials of vllm-ascend set no expansion mode.
    ('910b', True, None),
    ('310p', False, None), ('310p', True, None), (None, False, None),
])
def test_aiv_only_where_cann_supports_it(family, multinode, mode):
    assert vs.hccl_expansion_mode(family, multinode) == mode


def test_container_plan_finds_the_chip_by_its_logic_id():
    # The service names logic ids; npu-smi's list order is not theirs here.
    chips = [{'npu_id': 0, 'chip_id': 0, 'device_id': 1, 'phy_id': None},
             {'npu_id': 1, 'chip_id': 0, 'device_id': 0, 'phy_id': None}]
    assert vs.container_plan(chips, [0])['devices'][0] == '/dev/davinci0'
    with pytest.raises(vs.ServiceError, match='device 2 is not one of the 2 chips'):
        vs.container_plan(chips, [2])


# systemd.exec(5), EnvironmentFile=: "..." values keep " \ ` $ after a backslash; unquoted
# values lose backslashes and surrounding whitespace. Each value must read back as it was.
@pytest.mark.parametrize('value', ['sandbox-key-0123456789', 'a"b', "it's", 'back\\slash', 'p$HOME', 'a b',
                                   ' lead', 'tick`', 'expandable_segments:True', '', '#x;y=z', "'q'", '"dq"'])
def test_env_lines_read_back_unchanged(value):
    line = vs.env_line('K', value)
    assert '\n' not in line
    assert vs.parse_env_file(line) == {'K': value}
    # podman's --env-file takes the rest of the line as it is.
    assert vs.env_line('K', value, 'podman') == 'K=' + value


def test_plain_values_stay_unquoted():
    assert vs.env_lines({'B': '1', 'A': 'expandable_segments:True'}) == ['A=expandable_segments:True', 'B=1']
    assert vs.env_line('K', 'a"b') == 'K="a\\"b"'
    assert vs.env_line('K', 'p$HOME') == 'K="p\\$HOME"'


def test_what_no_environment_file_can_carry_is_named_without_the_value():
    assert vs.env_problems({'A': 'x\nINJECTED=1', '1B': 'c', 'C': 'ok', 'D': 'x\ry', 'E': 'x\x00'},
                           'vllm_service_env') == [
        "vllm_service_env: '1B' is not an environment variable name (letters, digits, _; not starting with a digit)",
        'vllm_service_env.A: the value has a newline, which an EnvironmentFile cannot carry',
        'vllm_service_env.D: the value has a carriage return, which an EnvironmentFile cannot carry',
        'vllm_service_env.E: the value has a NUL byte, which an EnvironmentFile cannot carry']
    with pytest.raises(vs.ServiceError, match='newline'):
        vs.env_line('K', 'a\nINJECTED_BY_KEY=1')


def test_api_key_problems():
    assert vs.api_key_problems('secret\nINJECTED_BY_KEY=1') == [
        'vllm_service_api_key: the key has a newline, which an EnvironmentFile cannot carry']
    assert vs.api_key_problems(' secret') == [
        'vllm_service_api_key: the key begins or ends with whitespace, which HTTP clients strip from the '
        'Authorization header']
    assert vs.api_key_problems('s"e\'c\\r$et') == []
    assert vs.api_key_problems('') == []
    assert all('secret' not in m for m in vs.api_key_problems('secret\n'))


def test_names_that_would_not_stay_what_they_name_are_refused():
    assert vs.name_problems('main', 'DeepSeek-R1-Distill-Qwen-7B', 'deepseek-ai/DeepSeek-R1-Distill-Qwen-7B') == []
    assert vs.name_problems('r1.w8a8_2', '', '') == []
    assert vs.name_problems('a; b') == [
        "vllm_service_instance 'a; b' is not a unit name part: 1-64 letters, digits, \"_\", \".\" or \"-\", starting "
        "with a letter or digit (it names vllm-<instance>.service and its files)"]
    for bad in ('../../../../opt/evil', 'a/b', '..', '.hidden', 'x..y'):
        assert [p.split(' ')[0] for p in vs.name_problems('main', bad)] == ['vllm_service_model_name'], bad
    for bad in ('org', 'a/b/c', '../x', 'org/..', '/abs'):
        assert [p.split(' ')[0] for p in vs.name_problems('main', None, bad)] == ['vllm_service_model_repo'], bad
    assert len(vs.name_problems('', 'a/b', 'x')) == 3


def test_every_profile_name_passes():
    import yaml
    from pathlib import Path
    profiles = yaml.safe_load((Path(__file__).resolve().parents[4] / 'roles' / 'vllm_service' / 'vars' / 'main.yml')
                              .read_text())['__vllm_service_profiles']
    for name, profile in profiles.items():
        assert vs.name_problems('main', profile['model_name'], profile['repo']) == [], name


@pytest.mark.parametrize('changed, state, action, reset', [
    (False, 'active', 'none', False),
    (True, 'active', 'restarted', False),
    # A crash loop waiting for its automatic restart: `start` would only wait for that restart.
    (True, 'activating', 'restarted', False),
    (True, 'reloading', 'restarted', False),
    (True, 'deactivating', 'restarted', False),
    (False, 'activating', 'started', False),
    (True, 'inactive', 'started', False),
    (False, 'inactive', 'started', False),
    # Gave up (start limit): cleared first, then started.
    (True, 'failed', 'started', True),
    (False, 'failed\n', 'started', True),
    # A unit not written yet (check mode) or unknown to systemd.
    (True, '', 'started', False),
    (False, 'unknown', 'started', False),
])
def test_unit_action(changed, state, action, reset):
    assert vs.unit_action(changed, state) == {'action': action, 'reset_failed': reset}


ENV, KEY, UNIT = '/etc/ascend-vllm/vllm-main.env', '/etc/ascend-vllm/vllm-main.key', '/etc/systemd/system/vllm-main.service'


def _written(env=None, key=None, key_moved=None, unit=None):
    ok = {'changed': False}
    return [{'path': ENV, 'result': env or ok}, {'path': KEY, 'result': key or ok},
            {'path': KEY, 'result': key_moved or {'skipped': True, 'changed': False}, 'backup': KEY + '.previous'},
            {'path': UNIT, 'result': unit or ok}]


def test_rollback_plan_restores_replaced_files_and_removes_new_ones():
    plan = vs.rollback_plan(_written(env={'changed': True, 'backup_file': ENV + '.1.2026~'},
                                     key={'changed': True},
                                     unit={'changed': True, 'backup_file': UNIT + '.1.2026~'}), 'active\n')
    assert plan == {'possible': True, 'reason': None,
                    'restore': [[ENV + '.1.2026~', ENV], [UNIT + '.1.2026~', UNIT]],
                    'remove': [KEY], 'discard': [ENV + '.1.2026~', UNIT + '.1.2026~']}


def test_rollback_plan_leaves_a_file_whose_mode_only_changed():
    # copy/template fix a file's mode or owner without a backup (the content is the same): it was
    # there before the run and must not be removed by a rollback.
    files = _written(env={'changed': True})
    files[0]['existed'] = True
    plan = vs.rollback_plan(files, 'active')
    assert plan['remove'] == [] and plan['restore'] == []
    assert not plan['possible'] and plan['reason'] == 'this run changed the content of none of the files the unit reads'


def test_rollback_plan_puts_a_removed_key_back_from_where_it_was_moved():
    plan = vs.rollback_plan(_written(key_moved={'changed': True}), 'active')
    assert plan['restore'] == [[KEY + '.previous', KEY]]
    assert plan['possible'] and plan['remove'] == []


@pytest.mark.parametrize('active, role, enabled, reason', [
    ('activating', 'single', True, 'the unit was activating before this run, so there is no serving configuration'),
    ('', 'single', True, 'the unit was unknown before this run'),
    ('active', 'head', True, 'a multi-node service is not rolled back'),
    ('active', 'single', False, 'vllm_service_rollback is false'),
])
def test_rollback_plan_refuses_without_a_serving_single_node_to_return_to(active, role, enabled, reason):
    plan = vs.rollback_plan(_written(env={'changed': True, 'backup_file': ENV + '~'}), active, role, enabled)
    assert not plan['possible'] and plan['reason'].startswith(reason)
    # The backups are still discarded when nothing is rolled back.
    assert plan['discard'] == [ENV + '~']


def test_rollback_plan_without_a_change_has_nothing_to_restore():
    plan = vs.rollback_plan(_written(), 'active')
    assert plan == {'possible': False, 'reason': 'this run changed the content of none of the files the unit reads',
                    'restore': [], 'remove': [], 'discard': []}


@pytest.mark.parametrize('host, key_set, warned', [
    ('0.0.0.0', False, True), ('::', False, True), ('', False, True), ('127.0.0.1', False, False), ('0.0.0.0', True, False),
])
def test_open_api_warnings(host, key_set, warned):
    warnings = vs.open_api_warnings(host, 8000, key_set)
    assert bool(warnings) == warned
    if warned:
        assert warnings[0].startswith('no vllm_service_api_key is set and vllm_service_host is %s: the OpenAI API answers '
                                      'anyone who reaches port 8000' % (host or 'empty'))


def test_requirement_names_in_order_once():
    assert vs.requirement_names(['vllm==0.23.0', ' numpy<2.0.0', 'fastapi[standard]>=0.115.0', 'torch_npu==2.10.0.post4',
                                 'vllm']) == ['vllm', 'numpy', 'fastapi', 'torch_npu']
    with pytest.raises(vs.ServiceError, match="'==1' is not a pip requirement"):
        vs.requirement_names(['==1'])


LOADED = {'User': 'vllm', 'NoNewPrivileges': 'yes', 'ProtectSystem': 'strict', 'ProtectHome': 'yes', 'PrivateTmp': 'yes',
          'DevicePolicy': 'closed', 'CapabilityBoundingSet': '', 'NeedDaemonReload': 'no',
          'FragmentPath': '/etc/systemd/system/vllm-main.service'}


def test_unit_drift_accepts_the_unit_the_role_writes():
    assert vs.unit_drift('vllm-main.service', LOADED, 'vllm') == []


def test_unit_drift_names_every_weakened_setting_and_an_unloaded_edit():
    tampered = dict(LOADED, User='root', NoNewPrivileges='no', ProtectSystem='no', NeedDaemonReload='yes',
                    CapabilityBoundingSet='cap_chown cap_sys_admin')
    assert vs.unit_drift('vllm-main.service', tampered, 'vllm') == [
        'vllm-main.service was changed on disk since systemd loaded it (/etc/systemd/system/vllm-main.service; '
        'NeedDaemonReload=yes)',
        'vllm-main.service runs with CapabilityBoundingSet=cap_chown cap_sys_admin, the role writes CapabilityBoundingSet=',
        'vllm-main.service runs with NoNewPrivileges=no, the role writes NoNewPrivileges=yes',
        'vllm-main.service runs with ProtectSystem=no, the role writes ProtectSystem=strict',
        'vllm-main.service runs with User=root, the role writes User=vllm',
    ]


def test_unit_drift_does_not_judge_what_was_not_read():
    assert vs.unit_drift('vllm-main.service', {'User': 'vllm'}, 'vllm') == []


PROFILE = {
    'args': {'max-model-len': 32768, 'block-size': 128},
    'env': {'A': 'profile'},
    'chips': {
        '910b': {'args': {'dtype': 'bfloat16'}, 'env': {'A': 'chip'},
                 'multinode': {'dp': {'head': {'data-parallel-size-local': 2},
                                      'worker': {'data-parallel-size-local': 2, 'data-parallel-start-rank': 2}}}},
        '310p': {'args': {'dtype': 'float16', 'max-model-len': 16384}},
    },
    'releases': {'0.23.0': {'args': {'max-model-len': 8192}, 'env': {'B': 'release'}}},
}


def test_profile_serve_layers_profile_chip_release_in_order():
    serve = vs.profile_serve(PROFILE, '310p', '0.23.0.post1', {'A': 'common', 'C': 'common'})
    # The post release takes 0.23.0's entry, which wins over the chip's max-model-len.
    assert serve['args'] == {'max-model-len': 8192, 'block-size': 128, 'dtype': 'float16'}
    assert serve['env'] == {'A': 'profile', 'B': 'release', 'C': 'common'}
    assert serve['multinode'] == {}


@pytest.mark.parametrize('family, multinode, aiv', [('910b', False, 'AIV'), ('910b', True, None)])
def test_profile_serve_sets_aiv_where_cann_supports_it(family, multinode, aiv):
    serve = vs.profile_serve(PROFILE, family, '0.18.0', {}, multinode)
    assert serve['env'].get('HCCL_OP_EXPANSION_MODE') == aiv
    assert serve['env']['A'] == 'chip'
    assert serve['args'] == {'max-model-len': 32768, 'block-size': 128, 'dtype': 'bfloat16'}


def test_profile_serve_names_the_supported_families():
    with pytest.raises(vs.ServiceError, match=r"does not support chip family '910_93' \(it supports 310p, 910b\)"):
        vs.profile_serve(PROFILE, '910_93', '0.23.0')


DP = {'size': 4, 'local': 2, 'start': 2, 'address': '192.0.2.10', 'rpc_port': 13389}
SINGLE = {'served-model-name': 'm', 'host': '0.0.0.0', 'port': 8000, 'data-parallel-size': 4}


def test_dp_head_keeps_the_http_port_and_names_the_rpc_endpoint():
    args = vs.multinode_args(SINGLE, 'dp', 'head', PROFILE['chips']['910b']['multinode'], DP)
    assert args == {'served-model-name': 'm', 'host': '0.0.0.0', 'port': 8000, 'data-parallel-size': 4,
                    'data-parallel-size-local': 2, 'data-parallel-address': '192.0.2.10',
                    'data-parallel-rpc-port': 13389}


def test_dp_worker_is_headless_from_its_start_rank_without_host_and_port():
    args = vs.multinode_args(SINGLE, 'dp', 'worker', PROFILE['chips']['910b']['multinode'], DP)
    assert args['headless'] is True and args['data-parallel-start-rank'] == 2
    assert 'host' not in args and 'port' not in args
    argv = vs.serve_argv(args)
    assert argv[argv.index('--data-parallel-start-rank') + 1] == '2' and '--headless' in argv


def test_ray_mode_adds_the_ray_executor_only():
    assert vs.multinode_args(SINGLE, 'ray', 'head') == dict(SINGLE, **{'distributed-executor-backend': 'ray'})


@pytest.mark.parametrize('mode, role, message', [('tp', 'head', 'must be dp or ray'), ('dp', 'leader', 'head or a worker')])
def test_multinode_args_refuses_unknown_modes_and_roles(mode, role, message):
    with pytest.raises(vs.ServiceError, match=message):
        vs.multinode_args(SINGLE, mode, role)


# The serve step's files and unit as the role leaves them: each reason below is one difference.
def _service_files(**have):
    entry = {'exists': True, 'mode': '0640', 'owner': 'root', 'group': 'vllm', 'same': True}
    entry.update(have)
    return [{'path': '/etc/ascend-vllm/vllm-main.env', 'kind': 'env',
             'want': {'mode': '0640', 'owner': 'root', 'group': 'vllm'}, 'have': entry},
            {'path': '/etc/ascend-vllm/vllm-main.key', 'kind': 'key', 'want': None, 'have': {'exists': False}}]


RUNNING = {'ActiveState': 'active', 'UnitFileState': 'enabled', 'NeedDaemonReload': 'no'}


@pytest.mark.parametrize('files, unit, enabled, repaired, reasons', [
    (_service_files(), RUNNING, True, False, []),
    (_service_files(same=False), RUNNING, True, False,
     ['/etc/ascend-vllm/vllm-main.env differs from what the role writes: its content differs']),
    (_service_files(mode='0644'), RUNNING, True, False,
     ['/etc/ascend-vllm/vllm-main.env differs from what the role writes: mode 0644, the role writes 0640']),
    (_service_files(exists=False), RUNNING, True, False, ['/etc/ascend-vllm/vllm-main.env is missing']),
    (_service_files()[:1] + [{'path': '/etc/ascend-vllm/vllm-main.key', 'kind': 'key', 'want': None, 'have': {'exists': True}}],
     RUNNING, True, False,
     ['/etc/ascend-vllm/vllm-main.key exists, but the role writes none (no API key configured)']),
    (_service_files(), dict(RUNNING, ActiveState='failed'), True, False, ['the unit is failed']),
    (_service_files(), {}, True, False, ['the unit is unknown', 'the unit is unknown, vllm_service_enabled is true']),
    (_service_files(), dict(RUNNING, UnitFileState='disabled'), True, False,
     ['the unit is disabled, vllm_service_enabled is true']),
    (_service_files(), dict(RUNNING, UnitFileState='disabled'), False, False, []),
    (_service_files(), RUNNING, False, False, ['the unit is enabled, vllm_service_enabled is false']),
    (_service_files(), dict(RUNNING, NeedDaemonReload='yes'), True, False, ['systemd has not loaded the unit file as it is']),
    (_service_files(), RUNNING, True, True, ['files of the virtualenv were repaired']),
])
def test_write_reasons(files, unit, enabled, repaired, reasons):
    assert vs.write_reasons(files, unit, enabled, repaired) == reasons


def test_write_reasons_filter():
    from ansible_collections.ascend.vllm.plugins.filter.vllm_service import FilterModule
    assert FilterModule().filters()['vllm_write_reasons'](_service_files(), RUNNING, True) == []


def test_write_reasons_filter_takes_enabled_as_ansible_does():
    from ansible_collections.ascend.vllm.plugins.filter.vllm_service import FilterModule
    reasons = FilterModule().filters()['vllm_write_reasons'](_service_files(), RUNNING, 'false')
    assert reasons == ['the unit is enabled, vllm_service_enabled is false']
