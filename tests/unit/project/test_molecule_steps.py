"""scripts/molecule_steps.py: seconds per Molecule step from a scenario log."""
import importlib.util
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
SPEC = importlib.util.spec_from_file_location('molecule_steps', REPO / 'scripts/molecule_steps.py')
STEPS = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(STEPS)

LOG = '''INFO     [site > create] Executing
TASK [Create molecule instance(s)] *********************************************
Wednesday 02 December 2026  13:54:00 +0000 (0:00:00.013)       0:00:00.013 ****
changed: [localhost]
Wednesday 02 December 2026  13:54:30 +0000 (0:00:30.000)       0:00:30.013 ****
INFO     [site > create] Executed: Successful
INFO     [site > converge] Executing
Wednesday 02 December 2026  13:55:00 +0000 (0:00:00.100)       0:00:00.100 ****
Wednesday 02 December 2026  14:02:05 +0000 (0:07:05.000)       0:07:05.100 ****
INFO     [site > converge] Executed: Successful
INFO     [site > verify] Executing
INFO     [site > verify] Executed: Successful
INFO     [site > destroy] Executing
Wednesday 02 December 2026  14:03:00 +0000 (0:00:00.013)       0:00:00.013 ****
Wednesday 02 December 2026  14:03:09 +0000 (0:00:09.000)       0:00:09.013 ****
'''


def test_each_step_is_the_span_of_its_task_timestamps():
    # destroy never reported Executed (the log was cut): it is not counted.
    assert STEPS.step_seconds(LOG.splitlines()) == {'site': {'create': 30, 'converge': 425}}


def test_the_table_lists_steps_in_molecule_order_longest_scenario_first():
    text = STEPS.table({'a': {'verify': 5, 'create': 1}, 'b': {'converge': 100}})
    assert text.splitlines() == ['| scenario | create | converge | verify | total |',
                                 '|---|---|---|---|---|',
                                 '| b | - | 100 | - | 100 |',
                                 '| a | 1 | - | 5 | 6 |']
