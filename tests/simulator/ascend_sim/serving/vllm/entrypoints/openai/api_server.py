"""The OpenAI-compatible API server (``vllm serve`` and
``python -m vllm.entrypoints.openai.api_server --model M``).

Start-up follows upstream: engine configuration (platform, model, parallel layout),
the HTTP socket bound but not yet listening (clients get "connection refused"), engine
start (workers, weights), then the socket listens and ``/health`` answers 200.
"""
import http.server
import json
import os
import signal
import socket
import sys
import threading
import time
from http import HTTPStatus
from urllib.parse import urlsplit

from vllm import envs
from vllm.engine.arg_utils import EngineArgs
from vllm.entrypoints.openai.cli_args import make_arg_parser
from vllm.entrypoints.openai.protocol import RequestError, error_body, model_card
from vllm.entrypoints.openai.serving import OpenAIServing
from vllm.logger import init_logger, set_process_label
from vllm.utils import FlexibleArgumentParser, StopFlag
from vllm.v1.engine.core import EngineCore, EngineInterrupted
from vllm.v1.metrics.prometheus import Metrics
from vllm.version import __version__ as VLLM_VERSION
from vllm.version import at_least

logger = init_logger(__name__)

_ROUTES = [
    ("/health", ("GET",)),
    ("/ping", ("GET", "POST")),
    ("/version", ("GET",)),
    ("/metrics", ("GET",)),
    ("/v1/models", ("GET",)),
    ("/v1/completions", ("POST",)),
    ("/v1/chat/completions", ("POST",)),
]
_MAX_BODY = 64 * 1024 * 1024


def _uvicorn(message, stream=None):
    """Uvicorn's own lines ("INFO:     ..."), prefixed like the vLLM ones."""
    from vllm.logger import _state  # the "(APIServer pid=N) " prefix, if any

    print(_state["prefix"] + message, file=stream or sys.stdout, flush=True)


class ServerState:
    def __init__(self, vllm_config, api_key, dp_head=None):
        self.vllm_config = vllm_config
        model_config = vllm_config.model_config
        self.api_key = api_key
        self.dp_head = dp_head
        self.created = int(time.time())
        self.metrics = Metrics(model_config.served_model_name[0],
                               engine_count=vllm_config.parallel_config.data_parallel_size,
                               max_model_len=model_config.max_model_len)
        self.serving = OpenAIServing(vllm_config, self.metrics, ready=self.readiness)
        self.access_log = True

    def readiness(self):
        if self.dp_head is not None:
            missing = self.dp_head.missing()
            if missing:
                return False, ("The engine is not ready: waiting for data parallel "
                               f"rank(s) {','.join(str(r) for r in missing)} to register.")
        return True, None

    def models(self):
        model_config = self.vllm_config.model_config
        return {"object": "list", "data": [
            model_card(name, model_config.model, model_config.max_model_len, self.created)
            for name in model_config.served_model_name]}


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "uvicorn"
    sys_version = ""

    def version_string(self):
        return self.server_version
    state = None  # set on the subclass built per server

    # -- plumbing -------------------------------------------------------------
    def log_message(self, format, *args):  # noqa: A002 - silence the default logger
        return

    def _access(self, status):
        if self.state.access_log:
            try:
                phrase = HTTPStatus(status).phrase
            except ValueError:
                phrase = ""
            client = "%s:%d" % self.client_address[:2]
            _uvicorn('INFO:     %s - "%s %s HTTP/%s" %d %s' % (
                client, self.command, self.path, self.request_version.split("/")[-1],
                status, phrase))

    def _send(self, status, body=b"", content_type="application/json", headers=()):
        self.send_response(status)
        if content_type:
            self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        for key, value in headers:
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self._access(status)

    def _json(self, status, obj, headers=()):
        self._send(status, json.dumps(obj, ensure_ascii=False).encode("utf-8"),
                   headers=headers)

    def _error(self, exc):
        self._json(exc.code, error_body(exc.message, exc.err_type, exc.code, exc.param))

    def _stream(self, events):
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        self._access(200)
        try:
            for event in events:
                data = event.encode("utf-8")
                self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        finally:
            close = getattr(events, "close", None)
            if close:
                close()

    def _read_body(self):
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            data = b""
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0] or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
                if len(data) > _MAX_BODY:
                    raise RequestError("Request body too large", code=413)
        length = int(self.headers.get("content-length") or 0)
        if length > _MAX_BODY:
            raise RequestError("Request body too large", code=413)
        return self.rfile.read(length) if length else b""

    def _json_body(self):
        raw = self._read_body()
        try:
            body = json.loads(raw.decode("utf-8") if raw else "")
        except (UnicodeDecodeError, ValueError) as exc:
            detail = [{"type": "json_invalid", "loc": ("body", 0), "msg": "JSON decode error",
                       "input": {}, "ctx": {"error": str(exc).split(":")[0]}}]
            raise RequestError(str(detail), err_type="Bad Request") from None
        if not isinstance(body, dict):
            detail = [{"type": "model_attributes_type", "loc": ("body",),
                       "msg": "Input should be a valid dictionary or object to extract "
                              "fields from", "input": body}]
            raise RequestError(str(detail), err_type="Bad Request")
        return body

    def _authorized(self):
        key = self.state.api_key
        if not key:
            return True
        scheme, _, token = (self.headers.get("authorization") or "").partition(" ")
        return scheme.lower() == "bearer" and token == key

    # -- routing ----------------------------------------------------------------
    def _dispatch(self):
        path = urlsplit(self.path).path
        root = getattr(self.server, "root_path", "") or ""
        if root and path.startswith(root):
            path = path[len(root):] or "/"
        if path == "/metrics/":
            path = "/metrics"
        try:
            if path.startswith("/v1") and self.command != "OPTIONS" and not self._authorized():
                # Drain the body so the connection stays usable.
                self._read_body()
                self._json(401, {"error": "Unauthorized"})
                return
            methods = dict(_ROUTES).get(path)
            if methods is None:
                if self.command in ("POST", "PUT", "PATCH"):
                    self._read_body()
                self._json(404, {"detail": "Not Found"})
                return
            if self.command not in methods and not (self.command == "HEAD" and "GET" in methods):
                if self.command in ("POST", "PUT", "PATCH"):
                    self._read_body()
                self._json(405, {"detail": "Method Not Allowed"},
                           headers=[("allow", ", ".join(methods))])
                return
            getattr(self, "_route_" + path.strip("/").replace("/", "_"))()
        except RequestError as exc:
            self._error(exc)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        except Exception as exc:  # the server must survive a bad request
            logger.exception("Error in request %s %s", self.command, self.path)
            self._error(RequestError(str(exc), err_type="InternalServerError", code=500))

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = _dispatch

    def do_OPTIONS(self):
        self._send(200, b"", content_type="text/plain; charset=utf-8",
                   headers=[("access-control-allow-origin", "*"),
                            ("access-control-allow-methods", "*"),
                            ("access-control-allow-headers", "*")])

    def _route_health(self):
        ok, _ = self.state.readiness()
        # Upstream answers with a bare Response: no body, no content type.
        self._send(200 if ok else 503, b"", content_type=None)

    def _route_ping(self):
        if self.command == "POST":
            self._read_body()
        self._route_health()

    def _route_version(self):
        self._json(200, {"version": VLLM_VERSION})

    def _route_metrics(self):
        body = self.state.metrics.render().encode("utf-8")
        self._send(200, body, content_type="text/plain; version=0.0.4; charset=utf-8")

    def _route_v1_models(self):
        self._json(200, self.state.models())

    def _generate(self, handler):
        body = self._json_body()
        kind, result = handler(body)
        if kind == "stream":
            self._stream(result)
        else:
            self._json(200, result)

    def _route_v1_completions(self):
        self._generate(self.state.serving.completions)

    def _route_v1_chat_completions(self):
        self._generate(self.state.serving.chat)


class _HTTPServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


def _server_address(host, port):
    host = "" if host is None else host
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return host, port, family


def create_server(args, state):
    host, port, family = _server_address(args.host, args.port)
    handler = type("Handler", (_Handler,), {"state": state})
    server_cls = type("Server", (_HTTPServer,), {"address_family": family})
    server = server_cls((host, port), handler, bind_and_activate=False)
    server.root_path = (args.root_path or "").rstrip("/")
    try:
        server.server_bind()
    except OSError:
        server.server_close()
        raise
    return server


def _non_default_args(args, parser):
    if parser is None:
        return {}
    result = {}
    for key, value in sorted(vars(args).items()):
        if key in ("dispatch_function", "subparser"):
            continue
        if value != parser.get_default(key):
            result[key] = value
    return result


def _install_signal_handlers(stop):
    def handler(signum, frame):
        stop.set()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


def run_server(args, parser=None):
    """Run until SIGTERM/SIGINT. Returns the process exit code."""
    if not args.headless:
        set_process_label("APIServer")
    logger.info("vLLM API server version %s", VLLM_VERSION)
    logger.info("non-default args: %s", _non_default_args(args, parser))
    if args.model is None:
        args.model = "Qwen/Qwen3-0.6B" if at_least(0, 10, 0) else "facebook/opt-125m"
    stop = StopFlag()
    _install_signal_handlers(stop)

    server = None
    if not args.headless:
        # Reserve the port before configuration and the (long) engine start, as upstream
        # does: a port in use fails at once, and clients are refused until it listens.
        server = create_server(args, None)

    vllm_config = EngineArgs.from_cli_args(args).create_engine_config()
    parallel = vllm_config.parallel_config

    dp_head = None
    if not args.headless and parallel.remote_dp_ranks > 0:
        from vllm.distributed.dp_coordinator import DPHead

        dp_head = DPHead(parallel)
        dp_head.start()

    try:
        if args.headless:
            logger.info("Launching %d data parallel engine(s) in headless mode, with head "
                        "node address tcp://%s:%d.", parallel.data_parallel_size_local,
                        parallel.data_parallel_address, parallel.data_parallel_rpc_port)
        EngineCore(vllm_config).start(stop)
    except EngineInterrupted:
        logger.info("Shutdown requested during engine start-up.")
        if server is not None:
            server.server_close()
        if dp_head is not None:
            dp_head.close()
        return 0

    if args.headless:
        from vllm.distributed.dp_coordinator import DPWorker

        rc = DPWorker(parallel).run(stop)
        logger.info("Headless engine(s) stopped.")
        return rc

    state = ServerState(vllm_config, args.api_key or envs.VLLM_API_KEY, dp_head)
    state.access_log = not args.disable_uvicorn_access_log
    server.RequestHandlerClass.state = state
    host = args.host if args.host else "0.0.0.0"
    shown = "[%s]" % host if ":" in host else host
    if at_least(0, 10, 0):
        logger.info("Starting vLLM API server %d on http://%s:%d", 0, shown, args.port)
    else:
        logger.info("Starting vLLM API server on http://%s:%d", shown, args.port)
    logger.info("Available routes are:")
    for path, methods in _ROUTES:
        logger.info("Route: %s, Methods: %s", path, ", ".join(methods))
    server.server_activate()
    pid = os.getpid()
    _uvicorn("INFO:     Started server process [%d]" % pid)
    _uvicorn("INFO:     Waiting for application startup.")
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                              name="http", daemon=True)
    thread.start()
    _uvicorn("INFO:     Application startup complete.")
    stop.wait()
    _uvicorn("INFO:     Shutting down")
    server.shutdown()
    server.server_close()
    if dp_head is not None:
        dp_head.close()
    _uvicorn("INFO:     Waiting for application shutdown.")
    _uvicorn("INFO:     Application shutdown complete.")
    _uvicorn("INFO:     Finished server process [%d]" % pid)
    return 0


def main():
    parser = FlexibleArgumentParser(description="vLLM OpenAI-Compatible RESTful API server.")
    make_arg_parser(parser)
    args = parser.parse_args()
    sys.exit(run_server(args, parser))


if __name__ == "__main__":
    main()
