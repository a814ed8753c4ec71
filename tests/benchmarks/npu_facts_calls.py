"""How many npu-smi invocations (and how long) one npu_facts gathering costs, per server profile
and per `gather` option set. npu-smi is answered by the simulator's renderer, in process, so the
figures count our work and the number of calls, not a real driver's latency (on real servers each
npu-smi call costs 0.1-1 s, which is why the count matters).

    .venv/bin/python tests/benchmarks/npu_facts_calls.py [--repeat 50]
"""
import argparse
import io
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path[:0] = [os.path.join(ROOT, 'collections'), os.path.join(ROOT, 'tests', 'simulator')]

from ansible_collections.ascend.vllm.plugins.module_utils import npu_smi as parser  # noqa: E402
from ascend_sim import npu_smi as simulated, state as sim_state  # noqa: E402

DRIVERS = {'a2-910b3': '24.1.rc3', 'a3-9392': '25.0.rc1.1', '310p3-duo': '24.1.rc3'}
GATHERS = [(), ('topo',), ('mapping', 'topo'), ('board', 'health')]


def runner_for(state, calls):
    def run(argv):
        calls.append(argv)
        out = io.StringIO()
        rc = simulated.main(list(argv[1:]), state=state, stdout=out)
        return rc, out.getvalue(), ''
    return run


def main():
    args = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    args.add_argument('--repeat', type=int, default=50)
    opts = args.parse_args()
    print('| profile | chips | gather | npu-smi calls | ms per gathering |')
    print('|---|---|---|---|---|')
    for profile, driver in DRIVERS.items():
        state = sim_state.new_state(profile, driver=driver)
        for gather in GATHERS:
            calls = []
            start = time.perf_counter()
            for dummy in range(opts.repeat):
                facts, _warnings = parser.gather_npu_facts(runner_for(state, calls), 'npu-smi',
                                                           install_path='/nonexistent',
                                                           sysfs_root='/nonexistent', gather=gather)
            elapsed = (time.perf_counter() - start) * 1000 / opts.repeat
            print('| %s | %d | %s | %d | %.2f |' % (profile, facts['chip_count'], ','.join(gather) or '(default)',
                                                  len(calls) // opts.repeat, elapsed))
    return 0


if __name__ == '__main__':
    sys.exit(main())
