"""``vllm bench serve``: benchmark the online serving throughput."""
from vllm.benchmarks.serve import add_cli_args, main

NAME = "serve"
HELP = "Benchmark the online serving throughput."


def add_parser(bench_subparsers):
    parser = bench_subparsers.add_parser(
        NAME, help=HELP, description=HELP, usage=f"vllm bench {NAME} [options]")
    add_cli_args(parser)
    parser.set_defaults(bench_dispatch=cmd)
    return parser


def cmd(args):
    main(args)
