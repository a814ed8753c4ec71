"""The cann role's decisions before any change: the chip family and every refusal."""
import pytest

from ansible_collections.ascend.vllm.plugins.filter.cann_checks import FilterModule
from ansible_collections.ascend.vllm.plugins.module_utils.cann_checks import chip_choice, ops_kind, request_problems, verify_problems

FILTERS = FilterModule().filters()


@pytest.mark.parametrize('soc, pci, wanted, chip, read', [
    ('Ascend910B3', '910b', '', '910b', '910b'),
    ('ascend910_9392', '910_93', '', '910_93', '910_93'),
    # npu-smi's bare chip name on A3 reads as the original 910: the PCI family decides.
    ('Ascend910', '910_93', '', '910_93', '910_93'),
    ('Ascend310P3', '310p', '', '310p', '310p'),
    # Before the driver runs: no SoC, the PCI device id names the family.
    (None, '910b', '', '910b', '910b'),
    # A chip without operator packages, and nothing on the bus.
    ('Ascend910A', '910', '', '', ''),
    ('', None, '', '', ''),
    # cann_chip wins, the reading stays for the mismatch check.
    ('Ascend910B3', '910b', '310p', '310p', '910b'),
])
def test_chip_choice(soc, pci, wanted, chip, read):
    assert chip_choice(soc, pci, wanted) == {'chip': chip, 'read': read, 'families': ['910b', '910_93', '310p']}


@pytest.mark.parametrize('cann, ok, kind', [('8.2.RC1', True, 'kernels'), ('8.3.RC2', True, 'kernels'), ('8.5.0', True, 'ops'),
                                            ('9.1.0', True, 'ops'), ('8.2.RC1', False, 'ops')])
def test_ops_kind(cann, ok, kind):
    assert ops_kind(cann, ok) == kind


GOOD = {'stack_problem': '', 'cann_chip': '', 'chip': '910b', 'chip_read': '910b', 'soc': 'Ascend910B3', 'npu_error': '',
        'chip_support': {'level': 'supported', 'message': ''}, 'target': '9.1.0', 'toolkit_before': {'action': 'none'},
        'names': {'ops': 'Ascend-cann-910b-ops_9.1.0_linux-aarch64.run', 'nnal': 'Ascend-cann-nnal_9.1.0_linux-aarch64.run'},
        'nnal': True, 'arch': 'aarch64', 'install_path': '/usr/local/Ascend', 'env_file': '/etc/ascend-vllm/cann.env',
        'profile_script': '/etc/profile.d/ascend-cann.sh'}


@pytest.mark.parametrize('change, problems', [
    ({}, []),
    ({'stack_problem': 'cann_version 8.5.1: does not go'}, ['cann_version 8.5.1: does not go']),
    ({'chip': '', 'chip_read': '', 'soc': '', 'npu_error': '`npu-smi info` failed with rc=8: dcmi'},
     ['cann_chip: npu-smi does not name the SoC of the NPUs (`npu-smi info` failed with rc=8: dcmi), so the chip family is '
      'unknown. Install the NPU driver first (the npu_driver role), or set cann_chip (910b, 910_93 or 310p)']),
    ({'chip': '', 'chip_read': '', 'soc': ''},
     ['cann_chip: npu-smi does not name the SoC of the NPUs, so the chip family is unknown. Install the NPU driver first '
      '(the npu_driver role), or set cann_chip (910b, 910_93 or 310p)']),
    ({'chip': '', 'chip_read': '', 'soc': 'Ascend910A'},
     ['cann_chip: the NPUs are Ascend910A, a chip without CANN operator packages for vLLM (910b, 910_93, 310p). Set '
      'cann_chip only if that reading is wrong']),
    ({'cann_chip': '910c', 'chip': '910c'},
     ['cann_chip: 910c is not a chip family with CANN operator packages (910b, 910_93, 310p)',
      'cann_chip: 910c is set, but the NPUs are Ascend910B3 (910b). Remove cann_chip or correct it']),
    ({'cann_chip': '310p', 'chip': '310p', 'soc': ''},
     ['cann_chip: 310p is set, but the NPUs are 910b by their PCI device id. Remove cann_chip or correct it']),
    ({'chip_support': {'level': 'unsupported', 'message': 'vllm-ascend 0.9.1 does not support 310p'}, 'chip': '310p',
      'chip_read': '310p'},
     ['cann_version 9.1.0 on 310p: vllm-ascend 0.9.1 does not support 310p. Set ascend_stack_release to a release that '
      'supports it, or cann_chip if the chip is misread']),
    ({'toolkit_before': {'action': 'refuse', 'previous_version': '9.1.0'}, 'target': '8.5.1'},
     ['cann_version: CANN toolkit 9.1.0 is installed, newer than 8.5.1: refusing to downgrade '
      '(Ascend-cann-910b-ops_9.1.0_linux-aarch64.run and Ascend-cann-nnal_9.1.0_linux-aarch64.run need the toolkit of '
      'their own version). Set cann_allow_downgrade: true to install 8.5.1 beside it, or ask for 9.1.0 or newer']),
    ({'toolkit_before': {'action': 'refuse', 'previous_version': '9.1.0'}, 'target': '8.5.1', 'nnal': False},
     ['cann_version: CANN toolkit 9.1.0 is installed, newer than 8.5.1: refusing to downgrade '
      '(Ascend-cann-910b-ops_9.1.0_linux-aarch64.run need the toolkit of their own version). Set cann_allow_downgrade: '
      'true to install 8.5.1 beside it, or ask for 9.1.0 or newer']),
    ({'arch': 'riscv64'}, ['architecture riscv64 has no CANN packages (x86_64 and aarch64 do)']),
    ({'install_path': 'usr/local/Ascend', 'env_file': 'cann.env'},
     ['ascend_install_path must be an absolute path, got usr/local/Ascend', 'cann_env_file must be an absolute path, got cann.env']),
    ({'profile_script': '/etc/profile.d/cann'},
     ['cann_profile_script must be an absolute path ending in .sh (profile.d reads only those), got /etc/profile.d/cann']),
])
def test_request_problems(change, problems):
    request = dict(GOOD, **change)
    assert request_problems(request) == problems
    assert FILTERS['cann_request_problems'](request) == problems


READS = [{'previous_version': '9.1.0', 'version_file': '/usr/local/Ascend/ascend-toolkit/latest/version.info'},
         {'previous_version': '9.1.0', 'version_file': '/usr/local/Ascend/ascend-toolkit/latest/opp/version.info'},
         {'previous_version': '9.1.0', 'version_file': '/usr/local/Ascend/nnal/atb/latest/version.info'}]
VERIFIED = {'target': '9.1.0', 'packages': READS, 'kinds': ['toolkit', 'ops', 'nnal'], 'nnal_wanted': True,
            'nnal_script_exists': True, 'nnal_dir': '/usr/local/Ascend/nnal/atb',
            'nnal_package': 'Ascend-cann-nnal_9.1.0_linux-x86_64.run', 'env_file': '/etc/ascend-vllm/cann.env',
            'env_exists': True, 'env_home': '/usr/local/Ascend/cann-9.1.0',
            'libatb': ['/usr/local/Ascend/nnal/atb/9.1.0/atb/cxx_abi_1/lib/libatb.so'], 'env_current': True,
            'env_scripts': ['/usr/local/Ascend/ascend-toolkit/set_env.sh', '/usr/local/Ascend/nnal/atb/set_env.sh']}


@pytest.mark.parametrize('change, problems', [
    ({}, []),
    ({'env_current': None}, []),
    ({'packages': [dict(READS[0], previous_version='8.5.0')] + READS[1:]},
     ['toolkit 8.5.0 is installed, not 9.1.0 (/usr/local/Ascend/ascend-toolkit/latest/version.info)']),
    # 9.1 is 9.1.0 (module_utils/stack.compare_versions); a package not installed has no version file.
    ({'target': '9.1', 'packages': READS[:1] + [{'previous_version': None, 'version_file': ''}] + READS[2:]},
     ['ops none is installed, not 9.1 (no version file)']),
    ({'nnal_script_exists': False, 'libatb': [], 'env_current': False},
     ['NNAL is not installed under /usr/local/Ascend/nnal/atb: vllm-ascend cannot load without libatb.so. Run the cann '
      'role with cann_nnal: true to install Ascend-cann-nnal_9.1.0_linux-x86_64.run']),
    # set_env.sh without a version: missing, said once (not also as a version failure).
    ({'packages': READS[:2] + [{'previous_version': None}], 'libatb': []},
     ['NNAL is not installed under /usr/local/Ascend/nnal/atb: vllm-ascend cannot load without libatb.so. Run the cann '
      'role with cann_nnal: true to install Ascend-cann-nnal_9.1.0_linux-x86_64.run']),
    # Not wanted: not read, not missing.
    ({'nnal_wanted': False, 'nnal_script_exists': False, 'packages': READS[:2], 'kinds': ['toolkit', 'kernels']}, []),
    ({'env_exists': False, 'env_home': '', 'libatb': [], 'env_current': False}, ['/etc/ascend-vllm/cann.env is missing']),
    ({'env_home': ' '}, ['/etc/ascend-vllm/cann.env does not set ASCEND_TOOLKIT_HOME']),
    ({'libatb': []}, ['/etc/ascend-vllm/cann.env puts no libatb.so on LD_LIBRARY_PATH']),
    ({'libatb': [], 'nnal_wanted': False}, []),
    ({'env_current': False},
     ['/etc/ascend-vllm/cann.env is out of date: it is not what /usr/local/Ascend/ascend-toolkit/set_env.sh and '
      '/usr/local/Ascend/nnal/atb/set_env.sh set now. Run the cann role again to render it']),
])
def test_verify_problems(change, problems):
    assert verify_problems(dict(VERIFIED, **change)) == problems
    assert FILTERS['cann_verify_problems'](dict(VERIFIED, **change)) == problems
