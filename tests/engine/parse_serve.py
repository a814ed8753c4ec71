"""Parse ``vllm serve`` command lines with the installed vLLM's own parser; run no engine.

Runs inside the engine virtualenv (scripts/engine.sh): ``python parse_serve.py OUT``. Reads
``{"id": [argv after "vllm"]}`` as JSON on stdin and writes to OUT (vLLM logs on stdout)
``{"version": vLLM's version, "results": {"id": {"ok": bool, "error":
text}}}``: the parser is the one ``vllm serve`` builds (vllm/entrypoints/cli/main.py), followed
by the checks ``vllm serve`` makes before it loads a model (``ServeSubcommand.validate``).
"""
import contextlib
import io
import json
import sys


def main():
    import vllm
    from vllm.entrypoints.cli import serve
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    parser = FlexibleArgumentParser(prog='vllm')
    subparsers = parser.add_subparsers(required=False, dest='subparser')
    command = serve.ServeSubcommand()
    command.subparser_init(subparsers)
    results = {}
    for name, argv in json.load(sys.stdin).items():
        errors = io.StringIO()
        try:
            with contextlib.redirect_stderr(errors):
                command.validate(parser.parse_args(argv))
            results[name] = {'ok': True, 'error': ''}
        except SystemExit:
            results[name] = {'ok': False, 'error': errors.getvalue().strip().splitlines()[-1]}
        except (TypeError, ValueError) as exc:
            results[name] = {'ok': False, 'error': '%s: %s' % (type(exc).__name__, exc)}
    with open(sys.argv[1], 'w') as out:
        json.dump({'version': vllm.__version__, 'results': results}, out)


if __name__ == '__main__':
    main()
