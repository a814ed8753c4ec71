"""A task that reads the service's API key file - its digest (stat with a checksum) or its
content (slurp) - hides its result (no_log): -v would print the key's sha256 otherwise.
ascend.vllm.service_state compares it on the node and returns no digest (its own tests), so its
reads need not hide their result - as long as the key file is only compared (digests), never read
(read returns the text)."""
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[3]
READS = ('ansible.builtin.stat', 'ansible.builtin.slurp', 'ascend.vllm.service_state')


def tasks(node):
    if isinstance(node, list):
        for item in node:
            yield from tasks(item)
    elif isinstance(node, dict):
        if any(key in node for key in ('block', 'rescue', 'always')):
            for key in ('block', 'rescue', 'always'):
                yield from tasks(node.get(key) or [])
        else:
            yield node


def key_reads():
    for path in sorted(REPO.glob('roles/*/tasks/*.yml')):
        for task in tasks(yaml.safe_load(path.read_text()) or []):
            action = next((name for name in READS if name in task), None)
            if action is None:
                continue
            args = yaml.safe_dump({'args': task[action], 'loop': task.get('loop')})
            if '__vllm_service_key_file' not in args:
                continue
            if action == 'ansible.builtin.stat' and (task[action] or {}).get('get_checksum') is False:
                continue
            yield path.relative_to(REPO), task.get('name'), action, task.get('no_log')


def test_service_state_only_compares_the_key_file():
    reads = []
    for path in sorted(REPO.glob('roles/*/tasks/*.yml')):
        for task in tasks(yaml.safe_load(path.read_text()) or []):
            args = task.get('ascend.vllm.service_state')
            if args is None or '__vllm_service_key_file' not in yaml.safe_dump(args.get('files')):
                continue
            reads.append((str(path.relative_to(REPO)), task.get('name')))
            assert '__vllm_service_key_file' in yaml.safe_dump(args.get('digests')), (path, task.get('name'))
            assert '__vllm_service_key_file' not in yaml.safe_dump(args.get('read')), (path, task.get('name'))
    # the serve step's read and verify's
    assert len(reads) == 2, reads


def test_every_read_of_the_key_file_is_no_log():
    found = list(key_reads())
    # the serve step's read and verify's
    assert len(found) >= 2, found
    assert [(str(path), name) for path, name, action, no_log in found
            if no_log is not True and action != 'ascend.vllm.service_state'] == []
