from vllm.entrypoints.openai.api_server import run_server
from vllm.entrypoints.openai.cli_args import make_arg_parser
from vllm.logger import init_logger

logger = init_logger(__name__)


def subparser_init(subparsers):
    serve_parser = subparsers.add_parser(
        "serve",
        help="Start the vLLM OpenAI Compatible API server.",
        description="Start the vLLM OpenAI Compatible API server.",
        usage="vllm serve [model_tag] [options]")
    serve_parser.add_argument("model_tag", type=str, nargs="?",
                              help="The model tag to serve (optional if specified in config)")
    make_arg_parser(serve_parser)
    serve_parser.set_defaults(dispatch_function=cmd)
    return serve_parser


def cmd(args, parser=None):
    if args.model_tag is not None:
        if args.model is not None and args.model != args.model_tag:
            logger.warning("Both a positional model (%s) and --model (%s) were given; "
                           "serving %s.", args.model_tag, args.model, args.model_tag)
        args.model = args.model_tag
    return run_server(args, parser)
