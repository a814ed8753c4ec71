"""Run one playbook through ansible-runner, the executor AWX uses, and print its artifacts as JSON.

The job's private data directory gets what AWX would show: artifacts/<ident>/status, rc, stdout
and job_events/*.json. The last line of output is one JSON object: status and rc (from the
artifact files), the number of job events, the playbook_on_stats event's counters and
artifact_data (what set_stats published), and the job's stdout without colour codes.
"""

import argparse
import glob
import json
import os
import re

import ansible_runner


def _read(directory, name):
    path = os.path.join(directory, name)
    if not os.path.exists(path):
        return None
    with open(path) as handle:
        return handle.read().strip()


def _event_number(path):
    return int(os.path.basename(path).split('-', 1)[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument('--private-data-dir', required=True)
    parser.add_argument('--project-dir', required=True)
    parser.add_argument('--inventory', required=True)
    parser.add_argument('--playbook', required=True)
    parser.add_argument('--ident', required=True)
    parser.add_argument('--extravars', default='{}', help='JSON object')
    args = parser.parse_args()

    if not os.path.isdir(args.private_data_dir):
        os.makedirs(args.private_data_dir)
    # ansible-runner passes env/extravars whenever it exists and writes it only when it does not,
    # so every job would inherit the first job's extra vars (an interrupted run of the scenario
    # leaves them behind for the next run's first job too).
    leftover = os.path.join(args.private_data_dir, 'env', 'extravars')
    if os.path.exists(leftover):
        os.remove(leftover)
    ansible_runner.run(private_data_dir=args.private_data_dir, project_dir=args.project_dir,
                       inventory=args.inventory, playbook=args.playbook, ident=args.ident,
                       extravars=json.loads(args.extravars), quiet=True,
                       # As AWX shows results: one JSON document per result, no line folding.
                       envvars={'ANSIBLE_CALLBACK_RESULT_FORMAT': 'json'})

    artifacts = os.path.join(args.private_data_dir, 'artifacts', args.ident)
    events = sorted(glob.glob(os.path.join(artifacts, 'job_events', '*.json')), key=_event_number)
    stats = {}
    for path in reversed(events):
        with open(path) as handle:
            event = json.load(handle)
        if event.get('event') == 'playbook_on_stats':
            stats = event.get('event_data', {})
            break
    stdout = re.sub(r'\x1b\[[0-9;]*m', '', _read(artifacts, 'stdout') or '')
    print(json.dumps({
        'status': _read(artifacts, 'status'),
        'rc': _read(artifacts, 'rc'),
        'events': len(events),
        'stats': dict((key, stats.get(key) or {}) for key in ('ok', 'changed', 'failures', 'dark', 'artifact_data')),
        'stdout': stdout,
    }))


if __name__ == '__main__':
    main()
