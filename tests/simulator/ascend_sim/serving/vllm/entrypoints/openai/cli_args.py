"""Front-end (HTTP server) options of the OpenAI-compatible server."""
import json

from vllm.engine.arg_utils import add_cli_args

UVICORN_LOG_LEVELS = ["debug", "info", "warning", "error", "critical", "trace"]


def _json_list(value):
    return json.loads(value)


def make_arg_parser(parser):
    group = parser.add_argument_group("Frontend")
    group.add_argument("--host", type=str, default=None, help="Host name.")
    group.add_argument("--port", type=int, default=8000, help="Port number.")
    group.add_argument("--uvicorn-log-level", type=str, default="info",
                       choices=UVICORN_LOG_LEVELS)
    group.add_argument("--disable-uvicorn-access-log", action="store_true")
    group.add_argument("--allow-credentials", action="store_true")
    group.add_argument("--allowed-origins", type=_json_list, default=["*"])
    group.add_argument("--allowed-methods", type=_json_list, default=["*"])
    group.add_argument("--allowed-headers", type=_json_list, default=["*"])
    group.add_argument("--api-key", type=str, default=None,
                       help="If provided, the server will require this key to be "
                            "presented in the header.")
    group.add_argument("--chat-template", type=str, default=None)
    group.add_argument("--chat-template-content-format", type=str, default="auto")
    group.add_argument("--response-role", type=str, default="assistant")
    group.add_argument("--root-path", type=str, default=None)
    group.add_argument("--return-tokens-as-token-ids", action="store_true")
    group.add_argument("--disable-frontend-multiprocessing", action="store_true")
    group.add_argument("--enable-request-id-headers", action="store_true")
    group.add_argument("--enable-auto-tool-choice", action="store_true")
    group.add_argument("--tool-call-parser", type=str, default=None)
    group.add_argument("--reasoning-parser", type=str, default=None)
    group.add_argument("--disable-fastapi-docs", action="store_true")
    group.add_argument("--enable-prompt-tokens-details", action="store_true")
    group.add_argument("--enable-server-load-tracking", action="store_true")
    group.add_argument("--enable-force-include-usage", action="store_true")
    group.add_argument("--max-log-len", type=int, default=None)
    group.add_argument("--disable-log-requests", action="store_true")
    group.add_argument("--enable-log-requests", action="store_true")
    group.add_argument("--api-server-count", "-asc", type=int, default=1)
    group.add_argument("--headless", action="store_true",
                       help="Run in headless mode: engines only, no API server.")
    add_cli_args(parser)
    return parser
