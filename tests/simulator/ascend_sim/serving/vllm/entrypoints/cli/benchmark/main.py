"""``vllm bench <benchmark>``; this build has the ``serve`` benchmark only."""
from vllm.entrypoints.cli.benchmark import serve

BENCHMARKS = (serve,)


def subparser_init(subparsers):
    bench_parser = subparsers.add_parser(
        "bench", help="vLLM bench subcommand.", description="vLLM bench subcommand.",
        usage="vllm bench <bench_type> [options]")
    bench_subparsers = bench_parser.add_subparsers(required=True, dest="bench_type")
    for benchmark in BENCHMARKS:
        benchmark.add_parser(bench_subparsers)
    bench_parser.set_defaults(dispatch_function=cmd)
    return bench_parser


def cmd(args, parser=None):
    args.bench_dispatch(args)
    return 0
