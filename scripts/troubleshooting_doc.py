"""Write docs/troubleshooting.md from the known-failure table (plugins/module_utils/known_failures.py).

    python scripts/troubleshooting_doc.py            # rewrite the page
    python scripts/troubleshooting_doc.py --check    # exit 1 when the page is stale
"""
import argparse
import importlib.util
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(REPO, 'docs', 'troubleshooting.md')
HEAD = """# Troubleshooting: known failures

When a service does not come up, the health gate (`ascend.vllm.vllm_health`) reads the journal of the
unit's current run (since it last started; systemd's restarts after a failure included, an earlier
run's lines not) and names each failure below that it recognises, cause and fix first, before the
journal excerpt. For an NPU held elsewhere it also names the holders `npu-smi info` lists, with the
systemd unit or container each runs in. The table is `plugins/module_utils/known_failures.py`; this
page is generated from it (`python scripts/troubleshooting_doc.py`).

"""


def load_table():
    spec = importlib.util.spec_from_file_location(
        'known_failures', os.path.join(REPO, 'plugins', 'module_utils', 'known_failures.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SIGNATURES


def render(rows):
    parts = [HEAD]
    for row in rows:
        parts.append('## %s\n\n- **Log line** (regular expression): `%s`\n- **Cause:** %s.\n- **Fix:** %s.\n'
                     '- **Check on the node:** `%s`\n- **Source:** %s\n\n'
                     % (row['id'], row['pattern'], row['cause'], row['fix'], row['check'], row['source']))
    return ''.join(parts).rstrip('\n') + '\n'


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n', maxsplit=1)[0])
    parser.add_argument('--check', action='store_true')
    args = parser.parse_args(argv)
    text = render(load_table())
    if args.check:
        with open(PAGE) as handle:
            if handle.read() != text:
                sys.stderr.write('docs/troubleshooting.md is stale: run python scripts/troubleshooting_doc.py\n')
                return 1
        return 0
    with open(PAGE, 'w') as handle:
        handle.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
