"""The ``vllm`` command (console script ``vllm = vllm.entrypoints.cli.main:main``)."""
import sys

from vllm.utils import FlexibleArgumentParser
from vllm.version import __version__


def main():
    parser = FlexibleArgumentParser(prog="vllm", description="vLLM CLI")
    parser.add_argument("-v", "--version", action="version", version=__version__)
    subparsers = parser.add_subparsers(required=False, dest="subparser")
    from vllm.entrypoints.cli import serve
    from vllm.entrypoints.cli.benchmark import main as bench

    serve_parser = serve.subparser_init(subparsers)
    bench.subparser_init(subparsers)
    args = parser.parse_args()
    if hasattr(args, "dispatch_function"):
        sys.exit(args.dispatch_function(args, serve_parser))
    parser.print_help()


if __name__ == "__main__":
    main()
