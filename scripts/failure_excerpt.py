"""Why a Molecule scenario failed, in a few lines: the task that failed last before Molecule gave up
(its TASK header, the error and the start of the result) and Molecule's own ERROR lines. CI keeps
only the tail of a long output, where this is printed.
    scripts/failure_excerpt.py .cache/test-logs/molecule-<scenario>.log ...
"""
import os
import re
import sys

FAILED_HOST = re.compile(r'^(fatal|failed): \[')
TASK = re.compile(r'^TASK \[')
STEP = re.compile(r'^INFO\s+\[[^\]]+\] Executing')
MOLECULE_ERROR = re.compile(r'^(ERROR|CRITICAL)\s')
# The tasks Molecule lists under "Idempotence test failed because of the following tasks:".
LISTED = re.compile(r'^\*  => ')


def excerpt(lines, after=20):
    """The lines that say why: the last failed task's header and result (at most `after` lines of
    it) before Molecule's first ERROR, then Molecule's ERROR lines with the tasks they list; [] for a
    log without a failure."""
    errors = [i for i, line in enumerate(lines) if MOLECULE_ERROR.match(line)]
    if not errors:
        return []
    end = errors[0]
    # Only the step that failed: a converge's rescued refusals are not why its idempotence failed.
    steps = [i for i in range(end) if STEP.match(lines[i])]
    failed = [i for i in range(steps[-1] if steps else 0, end) if FAILED_HOST.match(lines[i])]
    shown = []
    if failed:
        hit = failed[-1]
        tasks = [i for i in range(hit + 1) if TASK.match(lines[i])]
        # The task's header, its time and Ansible's [ERROR] line, then the result from a little
        # before the failed host's line; what lies between (the task's source) is left out.
        head = lines[tasks[-1]:tasks[-1] + 3] if tasks and hit - tasks[-1] <= 100 else []
        start = max(tasks[-1] + 3, hit - 3) if head else hit
        shown = head + (['...'] if head and start > tasks[-1] + 3 else []) + lines[start:min(hit + after, end)]
    said = []
    for i in errors:
        said.append(lines[i])
        i += 1
        while i < len(lines) and LISTED.match(lines[i]):
            said.append(lines[i])
            i += 1
    return shown + ['...'] + said if shown else said


def main(paths):
    for path in paths:
        with open(path, errors='replace') as handle:
            lines = handle.read().splitlines()
        found = excerpt(lines)
        if found:
            print("--- why %s failed ---" % os.path.basename(path))
            print('\n'.join(found))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
