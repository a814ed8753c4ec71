"""Where the Molecule scenarios' time went: seconds per step (create, prepare, check, converge,
idempotence, verify, ...) of each scenario log that scripts/test.sh kept, measured between the
first and the last task timestamp that ansible.posix.profile_tasks printed inside the step (the
playbooks' own start-up before their first task is not counted).
    scripts/molecule_steps.py .cache/test-logs/molecule-*.log
"""
import datetime
import os
import re
import sys

STEP = re.compile(r'^INFO\s+\[(?P<scenario>[^\]>]+?) > (?P<step>[a-z_]+)\] (?P<what>Executing|Executed)')
STAMP = re.compile(r'^[A-Z][a-z]+day (\d{2} [A-Z][a-z]+ \d{4})\s+(\d{2}:\d{2}:\d{2}) ([+-]\d{4}) \(')
ORDER = ['destroy', 'syntax', 'create', 'prepare', 'check', 'converge', 'idempotence', 'side_effect',
         'verify', 'cleanup']


def step_seconds(lines):
    """{scenario: {step: seconds}} from a Molecule log; a step that runs twice adds up."""
    result = {}
    current, first, last = None, None, None
    for line in lines:
        match = STEP.match(line)
        if match:
            if current and first is not None:
                steps = result.setdefault(current[0], {})
                steps[current[1]] = steps.get(current[1], 0) + (last - first).total_seconds()
            current = (match['scenario'], match['step']) if match['what'] == 'Executing' else None
            first = last = None
            continue
        stamp = STAMP.match(line)
        if current and stamp:
            when = datetime.datetime.strptime(' '.join(stamp.groups()), '%d %B %Y %H:%M:%S %z')
            first = first or when
            last = when
    return result


def table(results):
    steps = [s for s in ORDER if any(s in r for r in results.values())]
    steps += sorted({s for r in results.values() for s in r} - set(steps))
    rows = ['| scenario | %s | total |' % ' | '.join(steps), '|---|%s---|' % ('---|' * len(steps))]
    for scenario in sorted(results, key=lambda name: -sum(results[name].values())):
        values = results[scenario]
        cells = ['%d' % values[s] if s in values else '-' for s in steps]
        rows.append('| %s | %s | %d |' % (scenario, ' | '.join(cells), sum(values.values())))
    return '\n'.join(rows)


def main(paths):
    results = {}
    for path in paths:
        if os.path.isfile(path):
            with open(path, encoding='utf-8', errors='replace') as handle:
                results.update(step_seconds(handle))
    if results:
        print("Where the scenarios' time went (seconds per Molecule step, between a step's first and last task):")
        print(table(results))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
