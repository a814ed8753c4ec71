"""The stand-in ``vllm serve``: HTTP API, start-up refusals, data-parallel head/worker.

Servers run from the source tree (PYTHONPATH=tests/simulator/ascend_sim/serving) on
127.0.0.1 with a free port; every process started here is stopped by PID in a finally.
"""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from ascend_sim import model as model_gen
from ascend_sim import state as sim_state
from ansible_collections.ascend.vllm.plugins.module_utils import known_failures

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
SERVING = os.path.join(ROOT, "tests", "simulator", "ascend_sim", "serving")
BOS = "<｜begin▁of▁sentence｜>"
LOAD_SECONDS = "0.2"
START_TIMEOUT = 30
_VOLATILE_ENV = ("ASCEND_", "ATB_", "VLLM_", "RAY_")


# --------------------------------------------------------------------------- helpers
def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def count_tokens(text):
    """The documented counting rule of the stand-in tokenizer."""
    special = ["<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", "<｜User｜>",
               "<｜Assistant｜>", "<think>", "</think>"]
    pattern = "|".join(re.escape(t) for t in special) + r"|\w+|[^\w\s]"
    return len(re.findall(pattern, text))


class Node:
    """A fake Ascend node: CANN toolkit dir, NNAL/ATB dir with libatb.so, device nodes."""

    def __init__(self, base, chips=8, profile="a2-910b3"):
        self.base = str(base)
        # The simulated driver's state: the SoC torch-npu reports (torch_npu.npu.get_soc_version).
        self.state = os.path.join(self.base, "state.json")
        sim_state.save_state(sim_state.new_state(profile), self.state)
        self.model = os.path.join(self.base, "DeepSeek-R1-Distill-Qwen-7B")
        model_gen.make(self.model)
        self.cann = os.path.join(self.base, "Ascend", "ascend-toolkit", "latest")
        self.atb = os.path.join(self.base, "Ascend", "nnal", "atb", "latest", "atb", "cxx_abi_1")
        os.makedirs(self.cann, exist_ok=True)
        os.makedirs(os.path.join(self.atb, "lib"), exist_ok=True)
        open(os.path.join(self.atb, "lib", "libatb.so"), "wb").close()
        self.dev = os.path.join(self.base, "dev")
        os.makedirs(self.dev, exist_ok=True)
        for name in ["davinci%d" % i for i in range(chips)] + [
                "davinci_manager", "devmm_svm", "hisi_hdc"]:
            open(os.path.join(self.dev, name), "wb").close()

    def env(self, **overrides):
        env = {k: v for k, v in os.environ.items() if not k.startswith(_VOLATILE_ENV)}
        env.update({
            "PYTHONPATH": SERVING,
            "PYTHONUNBUFFERED": "1",
            "ASCEND_TOOLKIT_HOME": self.cann,
            "ATB_HOME_PATH": self.atb,
            "ASCEND_SIM_DEV_DIR": self.dev,
            "ASCEND_SIM_STATE": self.state,
            "ASCEND_SIM_LOAD_SECONDS": LOAD_SECONDS,
        })
        for key, value in overrides.items():
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value
        return env


class Server:
    """``python -m vllm.entrypoints.cli.main serve ...`` as a child process."""

    def __init__(self, node, args, env=None, log_dir=None, module="vllm.entrypoints.cli.main",
                 serve=True, port=None):
        self.port = port or free_port()
        self.log_path = os.path.join(log_dir or node.base, "server-%d-%d.log"
                                     % (self.port, time.monotonic_ns()))
        argv = [sys.executable, "-m", module] + (["serve"] if serve else []) + list(args)
        if "--headless" not in args:
            argv += ["--host", "127.0.0.1", "--port", str(self.port)]
        self.log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(argv, env=env or node.env(), stdout=self.log,
                                     stderr=subprocess.STDOUT, cwd=node.base)
        self.returncode = None

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def output(self):
        with open(self.log_path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")

    def health(self):
        """HTTP status of /health, or None when the connection is refused."""
        try:
            with urllib.request.urlopen(self.url + "/health", timeout=5) as resp:
                return resp.status
        except urllib.error.HTTPError as exc:
            return exc.code
        except (ConnectionRefusedError, ConnectionResetError):
            return None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, (ConnectionRefusedError, ConnectionResetError)):
                return None
            raise

    def wait_health(self, status=200, timeout=START_TIMEOUT):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError("server exited rc=%s:\n%s" % (self.proc.returncode,
                                                                   self.output()))
            last = self.health()
            if last == status:
                return
            time.sleep(0.05)
        raise AssertionError("no /health %s within %ss (last %s):\n%s"
                             % (status, timeout, last, self.output()))

    def wait_log(self, text, timeout=START_TIMEOUT):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.output():
                return
            time.sleep(0.05)
        raise AssertionError("%r not logged within %ss:\n%s" % (text, timeout, self.output()))

    def wait_exit(self, timeout=START_TIMEOUT):
        try:
            self.returncode = self.proc.wait(timeout=timeout)
        finally:
            self.log.close()
        return self.returncode

    def stop(self):
        """SIGTERM, wait (bounded), escalate to SIGKILL; returns the exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=15)
        self.log.close()
        self.returncode = self.proc.returncode
        return self.returncode


def request(method, url, body=None, headers=None, raw=None, timeout=30):
    """(status, headers, body bytes) without raising on HTTP errors."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
    if data is not None and "Content-Type" not in req.headers:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


def post_json(server, path, body, **kw):
    status, _, data = request("POST", server.url + path, body, **kw)
    return status, json.loads(data.decode("utf-8"))


def get_json(server, path, **kw):
    status, _, data = request("GET", server.url + path, **kw)
    return status, json.loads(data.decode("utf-8"))


def sse_events(data):
    events = [chunk for chunk in data.decode("utf-8").split("\n\n") if chunk]
    assert all(e.startswith("data: ") for e in events), events
    assert events[-1] == "data: [DONE]"
    return [json.loads(e[len("data: "):]) for e in events[:-1]]


def metric_value(text, name, **labels):
    for line in text.splitlines():
        if line.startswith("#") or not line.startswith(name + "{"):
            continue
        series, _, value = line.rpartition(" ")
        if all('%s="%s"' % (k, v) in series for k, v in labels.items()):
            return float(value)
    raise AssertionError("no %s%s in metrics" % (name, labels))


def serving_tree(tmp_path, path, text):
    """A copy of the stand-in serving tree with one file rewritten (another release, another build)."""
    tree = tmp_path / "serving"
    shutil.copytree(SERVING, tree, ignore=shutil.ignore_patterns("__pycache__"))
    (tree / path).write_text(text)
    return str(tree)


def run_to_exit(node, args, env=None, timeout=START_TIMEOUT):
    """Run a server that is expected to refuse to start; returns (rc, output)."""
    server = Server(node, args, env=env)
    try:
        rc = server.wait_exit(timeout)
    finally:
        server.stop()
    return rc, server.output()


def assert_serves(node, args, env=None):
    """A server that is expected to start: it answers /health with 200, then stops cleanly."""
    server = Server(node, args, env=env)
    try:
        server.wait_health(200)
    finally:
        assert server.stop() == 0, server.output()


# --------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def node(tmp_path_factory):
    return Node(tmp_path_factory.mktemp("node"))


@pytest.fixture(scope="module")
def server(node):
    srv = Server(node, [node.model, "--served-model-name", "r1", "DeepSeek-R1-7B",
                        "--max-model-len", "256", "--max-num-seqs", "4", "--seed", "7",
                        "--tensor-parallel-size", "2", "--block-size", "128",
                        "--gpu-memory-utilization", "0.9", "--dtype", "bfloat16",
                        "--trust-remote-code"])
    try:
        srv.wait_health(200)
        yield srv
    finally:
        assert srv.stop() == 0, srv.output()


# --------------------------------------------------------------------------- start-up
def test_port_refuses_connections_until_loaded_then_health_is_empty_200(node):
    srv = Server(node, [node.model], env=node.env(ASCEND_SIM_LOAD_SECONDS="1.5"))
    try:
        time.sleep(0.3)
        assert srv.proc.poll() is None
        assert srv.health() is None  # still loading: connection refused
        srv.wait_health(200)
        status, headers, body = request("GET", srv.url + "/health")
        assert (status, body) == (200, b"")
        assert headers["content-length"] == "0" and "content-type" not in headers
        log = srv.output()
        assert "Loading weights took" in log
        assert "Starting vLLM API server 0 on http://127.0.0.1:%d" % srv.port in log
        assert "Application startup complete." in log
        # The server was not listening before the weights were loaded.
        assert log.index("Loading weights took") < log.index("Starting vLLM API server")
    finally:
        assert srv.stop() == 0
    assert "INFO:     Finished server process" in srv.output()


def test_sigterm_during_loading_exits_cleanly(node):
    srv = Server(node, [node.model], env=node.env(ASCEND_SIM_LOAD_SECONDS="30"))
    try:
        srv.wait_log("Starting to load model")
    finally:
        rc = srv.stop()
    assert rc == 0, srv.output()


def test_legacy_api_server_module_invocation(node):
    srv = Server(node, ["--model", node.model], module="vllm.entrypoints.openai.api_server",
                 serve=False)
    try:
        srv.wait_health(200)
        status, body = get_json(srv, "/v1/models")
        assert status == 200
        assert body["data"][0]["id"] == node.model
    finally:
        assert srv.stop() == 0


# --------------------------------------------------------------------------- endpoints
def test_models_lists_every_served_name_in_openai_shape(server, node):
    status, body = get_json(server, "/v1/models")
    assert status == 200
    assert body["object"] == "list"
    assert [card["id"] for card in body["data"]] == ["r1", "DeepSeek-R1-7B"]
    card = body["data"][0]
    assert card["object"] == "model"
    assert card["owned_by"] == "vllm"
    assert card["root"] == node.model
    assert card["parent"] is None
    assert card["max_model_len"] == 256
    assert isinstance(card["created"], int)
    assert card["permission"][0]["object"] == "model_permission"


def test_version_reports_the_package_version(server):
    assert get_json(server, "/version") == (200, {"version": "0.23.0+sim"})


def test_completion_usage_counts_and_determinism(server):
    prompt = "Hello, world! 2 + 2 ="
    body = {"model": "r1", "prompt": prompt, "max_tokens": 5}
    status, first = post_json(server, "/v1/completions", body)
    assert status == 200, first
    assert first["object"] == "text_completion"
    assert first["id"].startswith("cmpl-")
    assert first["model"] == "r1"
    choice = first["choices"][0]
    assert choice["index"] == 0
    assert choice["finish_reason"] == "length"
    usage = first["usage"]
    assert usage["prompt_tokens"] == 1 + count_tokens(prompt)  # BOS + prompt
    assert usage["completion_tokens"] == count_tokens(choice["text"]) == 5
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    _, second = post_json(server, "/v1/completions", body)
    assert second["choices"][0]["text"] == choice["text"]
    _, other = post_json(server, "/v1/completions", dict(body, prompt="Something else"))
    assert other["choices"][0]["text"] != choice["text"]
    _, seeded = post_json(server, "/v1/completions", dict(body, seed=12345))
    assert seeded["choices"][0]["text"] != choice["text"]


def test_served_name_alias_and_default_model(server):
    status, body = post_json(server, "/v1/completions",
                             {"model": "DeepSeek-R1-7B", "prompt": "hi", "max_tokens": 2})
    assert status == 200 and body["model"] == "DeepSeek-R1-7B"
    status, body = post_json(server, "/v1/completions", {"prompt": "hi", "max_tokens": 2})
    assert status == 200 and body["model"] == "r1"


def test_completion_lengths_follow_max_tokens_and_stop(server):
    _, natural = post_json(server, "/v1/completions",
                           {"prompt": "Why is the sky blue?", "max_tokens": 100})
    choice = natural["choices"][0]
    assert choice["finish_reason"] == "stop"
    assert 8 <= natural["usage"]["completion_tokens"] <= 47
    _, forced = post_json(server, "/v1/completions",
                          {"prompt": "Why is the sky blue?", "max_tokens": 60,
                           "ignore_eos": True})
    assert forced["usage"]["completion_tokens"] == 60
    assert forced["choices"][0]["finish_reason"] == "length"
    _, default = post_json(server, "/v1/completions", {"prompt": "Why is the sky blue?",
                                                       "ignore_eos": True})
    assert default["usage"]["completion_tokens"] == 16  # upstream default max_tokens
    words = choice["text"].split()
    stop_word = words[3]
    _, stopped = post_json(server, "/v1/completions",
                           {"prompt": "Why is the sky blue?", "max_tokens": 100,
                            "stop": [" " + stop_word]})
    stopped_choice = stopped["choices"][0]
    assert stopped_choice["finish_reason"] == "stop"
    assert stopped_choice["stop_reason"] == " " + stop_word
    assert stopped_choice["text"] == choice["text"][:choice["text"].index(" " + stop_word)]
    assert stopped["usage"]["completion_tokens"] == count_tokens(stopped_choice["text"])


def test_completion_batch_and_n(server):
    status, body = post_json(server, "/v1/completions",
                             {"prompt": ["one", "two"], "n": 2, "max_tokens": 3})
    assert status == 200
    assert [c["index"] for c in body["choices"]] == [0, 1, 2, 3]
    assert len({c["text"] for c in body["choices"]}) == 4
    assert body["usage"]["prompt_tokens"] == 2 * 2  # BOS + one word, twice
    assert body["usage"]["completion_tokens"] == 12
    status, body = post_json(server, "/v1/completions", {"prompt": [1, 2, 3], "max_tokens": 1})
    assert status == 200 and body["usage"]["prompt_tokens"] == 3


def test_chat_completion_shape_and_usage(server):
    messages = [{"role": "system", "content": "Be brief."},
                {"role": "user", "content": "What is 1+1?"}]
    status, body = post_json(server, "/v1/chat/completions",
                             {"model": "r1", "messages": messages, "max_tokens": 50})
    assert status == 200, body
    assert body["object"] == "chat.completion"
    assert body["id"].startswith("chatcmpl-")
    message = body["choices"][0]["message"]
    assert message["role"] == "assistant"
    assert message["tool_calls"] == []
    rendered = BOS + "Be brief." + "<｜User｜>What is 1+1?" + "<｜Assistant｜>"
    assert body["usage"]["prompt_tokens"] == count_tokens(rendered)
    assert body["usage"]["completion_tokens"] == count_tokens(message["content"]) <= 50
    status, parts = post_json(server, "/v1/chat/completions", {
        "messages": [{"role": "user", "content": [{"type": "text", "text": "What is 1+1?"}]}],
        "max_completion_tokens": 50})
    assert status == 200
    assert parts["usage"]["prompt_tokens"] == count_tokens(
        BOS + "<｜User｜>What is 1+1?<｜Assistant｜>")


def test_streamed_completion_matches_the_plain_one(server):
    body = {"model": "r1", "prompt": "Count to ten", "max_tokens": 7}
    _, plain = post_json(server, "/v1/completions", body)
    status, headers, data = request("POST", server.url + "/v1/completions",
                                    dict(body, stream=True,
                                         stream_options={"include_usage": True}))
    assert status == 200
    assert headers["content-type"].startswith("text/event-stream")
    events = sse_events(data)
    text_events, usage_event = events[:-1], events[-1]
    assert all(e["object"] == "text_completion" for e in events)
    assert len({e["id"] for e in events}) == 1
    assert "".join(e["choices"][0]["text"] for e in text_events) == plain["choices"][0]["text"]
    assert len(text_events) == 7  # one event per token
    assert [e["choices"][0]["finish_reason"] for e in text_events] == [None] * 6 + ["length"]
    assert usage_event["choices"] == []
    assert usage_event["usage"] == plain["usage"]
    _, _, no_usage = request("POST", server.url + "/v1/completions", dict(body, stream=True))
    assert all("usage" not in e for e in sse_events(no_usage))


def test_streamed_chat_starts_with_role_and_matches_the_plain_one(server):
    body = {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}
    _, plain = post_json(server, "/v1/chat/completions", body)
    _, _, data = request("POST", server.url + "/v1/chat/completions", dict(body, stream=True))
    events = sse_events(data)
    assert all(e["object"] == "chat.completion.chunk" for e in events)
    assert events[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    content = "".join(e["choices"][0]["delta"].get("content", "") for e in events[1:])
    assert content == plain["choices"][0]["message"]["content"]
    assert events[-1]["choices"][0]["finish_reason"] == plain["choices"][0]["finish_reason"]


def test_unknown_model_is_404_with_the_error_object(server):
    status, body = post_json(server, "/v1/completions", {"model": "gpt-4", "prompt": "x"})
    assert status == 404
    assert body == {"error": {"message": "The model `gpt-4` does not exist.",
                              "type": "NotFoundError", "param": "model", "code": 404}}
    status, body = post_json(server, "/v1/chat/completions",
                             {"model": "gpt-4", "messages": [{"role": "user", "content": "x"}]})
    assert status == 404 and body["error"]["type"] == "NotFoundError"


@pytest.mark.parametrize("payload, fragment", [
    ({"model": "r1"}, "Field required"),
    ({"prompt": "x", "max_tokens": 0}, "max_tokens must be at least 1, got 0."),
    ({"prompt": "x", "temperature": -1}, "temperature must be non-negative"),
    ({"prompt": "x", "n": 0}, "n must be at least 1"),
    ({"prompt": {"not": "valid"}}, "prompt"),
    ({"prompt": "x", "stream_options": {"include_usage": True}},
     "Stream options can only be defined when `stream=True`."),
])
def test_bad_completion_requests_are_400(server, payload, fragment):
    status, body = post_json(server, "/v1/completions", payload)
    assert status == 400, body
    assert body["error"]["code"] == 400
    assert fragment in body["error"]["message"]


def test_invalid_json_and_bad_messages_are_400(server):
    status, _, data = request("POST", server.url + "/v1/completions", raw=b"{not json")
    assert status == 400
    assert "JSON decode error" in json.loads(data)["error"]["message"]
    status, body = post_json(server, "/v1/chat/completions", {"messages": []})
    assert status == 400
    status, body = post_json(server, "/v1/chat/completions", {"messages": [{"content": "x"}]})
    assert status == 400


def test_prompt_longer_than_max_model_len_is_400(server):
    long_prompt = " ".join(["word"] * 300)
    status, body = post_json(server, "/v1/completions", {"prompt": long_prompt})
    assert status == 400
    assert body["error"]["message"] == (
        "This model's maximum context length is 256 tokens. However, your request has "
        "301 input tokens. Please reduce the length of the input messages.")
    status, body = post_json(server, "/v1/completions",
                             {"prompt": "hello", "max_tokens": 255})
    assert status == 400
    assert "'max_tokens' or 'max_completion_tokens' is too large: 255" in body["error"]["message"]
    status, body = post_json(server, "/v1/chat/completions", {
        "messages": [{"role": "user", "content": long_prompt}]})
    assert status == 400 and "maximum context length is 256" in body["error"]["message"]


def test_unknown_paths_and_methods(server):
    status, _, data = request("GET", server.url + "/nope")
    assert (status, json.loads(data)) == (404, {"detail": "Not Found"})
    status, headers, data = request("GET", server.url + "/v1/completions")
    assert (status, json.loads(data)) == (405, {"detail": "Method Not Allowed"})
    assert headers["allow"] == "POST"


def test_metrics_use_vllm_names_and_count_requests(server):
    status, headers, data = request("GET", server.url + "/metrics")
    assert status == 200
    assert headers["content-type"].startswith("text/plain")
    before = data.decode()
    for name in ("vllm:num_requests_running", "vllm:num_requests_waiting"):
        assert "# TYPE %s gauge" % name in before
    for name in ("vllm:prompt_tokens_total", "vllm:generation_tokens_total"):
        assert "# TYPE %s counter" % name in before
    for name in ("vllm:time_to_first_token_seconds", "vllm:e2e_request_latency_seconds"):
        assert "# TYPE %s histogram" % name in before
        assert '%s_bucket{model_name="r1",engine="0",le="+Inf"}' % name in before
    labels = {"model_name": "r1", "engine": "0"}
    _, body = post_json(server, "/v1/completions", {"prompt": "metrics please", "max_tokens": 9})
    _, _, data = request("GET", server.url + "/metrics/")
    after = data.decode()
    for metric, delta in (("vllm:prompt_tokens_total", body["usage"]["prompt_tokens"]),
                          ("vllm:generation_tokens_total", 9),
                          ("vllm:e2e_request_latency_seconds_count", 1),
                          ("vllm:time_to_first_token_seconds_count", 1)):
        assert metric_value(after, metric, **labels) - metric_value(before, metric, **labels) \
            == delta, metric
    assert metric_value(after, "vllm:request_success_total", finished_reason="length",
                        **labels) >= 1
    assert metric_value(after, "vllm:num_requests_running", **labels) == 0


def test_running_and_waiting_gauges_follow_max_num_seqs(node):
    srv = Server(node, [node.model, "--max-num-seqs", "1"],
                 env=node.env(ASCEND_SIM_TOKEN_SECONDS="0.02"))
    conns = []
    try:
        srv.wait_health(200)
        for _ in range(3):
            conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
            conn.request("POST", "/v1/completions",
                         json.dumps({"prompt": "slow", "max_tokens": 30, "ignore_eos": True}),
                         {"Content-Type": "application/json"})
            conns.append(conn)
        deadline = time.monotonic() + 10
        seen = None
        while time.monotonic() < deadline:
            _, _, data = request("GET", srv.url + "/metrics")
            text = data.decode()
            seen = (metric_value(text, "vllm:num_requests_running"),
                    metric_value(text, "vllm:num_requests_waiting"))
            if seen == (1.0, 2.0):
                break
            time.sleep(0.02)
        assert seen == (1.0, 2.0)
        for conn in conns:
            resp = conn.getresponse()
            assert resp.status == 200
            assert json.loads(resp.read())["usage"]["completion_tokens"] == 30
        _, _, data = request("GET", srv.url + "/metrics")
        text = data.decode()
        assert metric_value(text, "vllm:num_requests_running") == 0
        assert metric_value(text, "vllm:num_requests_waiting") == 0
        assert metric_value(text, "vllm:time_to_first_token_seconds_sum") > 0.02
    finally:
        for conn in conns:
            conn.close()
        assert srv.stop() == 0


# --------------------------------------------------------------------------- api key
@pytest.mark.parametrize("how", ["option", "env"])
def test_api_key_guards_v1_only(node, how):
    args, env = [node.model], node.env()
    if how == "option":
        args += ["--api-key", "s3cret"]
    else:
        env["VLLM_API_KEY"] = "s3cret"
    srv = Server(node, args, env=env)
    try:
        srv.wait_health(200)
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": "s3cret"}):
            status, _, data = request("GET", srv.url + "/v1/models", headers=headers)
            assert (status, json.loads(data)) == (401, {"error": "Unauthorized"})
        status, _, data = request("POST", srv.url + "/v1/completions",
                                  {"prompt": "x", "max_tokens": 1})
        assert status == 401
        good = {"Authorization": "Bearer s3cret"}
        status, _, _ = request("GET", srv.url + "/v1/models", headers=good)
        assert status == 200
        status, _, _ = request("POST", srv.url + "/v1/completions",
                               {"prompt": "x", "max_tokens": 1}, headers=good)
        assert status == 200
        for path in ("/health", "/metrics", "/version"):
            assert request("GET", srv.url + path)[0] == 200
    finally:
        assert srv.stop() == 0


# --------------------------------------------------------------------------- refusals
def test_without_cann_environment_torch_npu_ends_the_import_of_vllm(node, tmp_path):
    # 0.23.0: transformers imports torch_npu while vLLM imports it (as the real engine does in
    # the site scenario); torch-npu's message is the last line and no platform is looked for.
    for env in (node.env(ASCEND_TOOLKIT_HOME=None),
                node.env(ASCEND_TOOLKIT_HOME=str(tmp_path / "missing"))):
        rc, out = run_to_exit(node, [node.model], env=env)
        assert rc == 1
        assert "Traceback (most recent call last):" in out
        assert out.rstrip().splitlines()[-1] == (
            "ImportError: libhccl.so: cannot open shared object file: No such file or directory. "
            "Please check that the cann package is installed. Please run 'source set_env.sh' in "
            "the CANN installation path.")
        assert "Failed to infer device type" not in out


def test_without_cann_environment_older_releases_cannot_infer_the_device_type(node, tmp_path):
    tree = serving_tree(tmp_path, "vllm/_version.py", '__version__ = "0.9.1+sim"\n')
    rc, out = run_to_exit(node, [node.model], env=node.env(ASCEND_TOOLKIT_HOME=None, PYTHONPATH=tree))
    assert rc == 1
    assert out.rstrip().splitlines()[-1] == (
        "RuntimeError: Failed to infer device type, please set the environment variable "
        "`VLLM_LOGGING_LEVEL=DEBUG` to turn on verbose logging to help debug the issue.")
    assert "No platform detected, vLLM is running on UnspecifiedPlatform" in out
    rc, out = run_to_exit(node, [node.model], env=node.env(ASCEND_TOOLKIT_HOME=None, PYTHONPATH=tree,
                                                         VLLM_LOGGING_LEVEL="DEBUG"))
    assert rc == 1
    assert "libhccl.so: cannot open shared object file" in out


@pytest.mark.parametrize("profile, build, current", [
    ("a3-9392", "A2", "A3"),
    ("310p3-duo", "A2", "_310P"),
    ("a2-910b3", "A3", "A2"),
])
def test_a_build_for_another_chip_stops_the_worker(tmp_path, profile, build, current):
    # vllm_ascend/utils.py check_ascend_device_type (v0.13.0 ... v0.23.0), called by the worker:
    # the wheels PyPI publishes are A2 builds (vllm_ascend/_build_info.py).
    other = Node(tmp_path / "node", profile=profile)
    tree = serving_tree(tmp_path, "vllm_ascend/_build_info.py", "__device_type__ = %r\n" % build)
    rc, out = run_to_exit(other, [other.model], env=other.env(PYTHONPATH=tree))
    assert rc == 1
    assert out.rstrip().splitlines()[-1] == (
        "AssertionError: Current device type: AscendDeviceType.%s does not match the installed version's device "
        "type: AscendDeviceType.%s, please check your installation package." % (current, build))
    assert _diagnosed(out) == ["wheel_for_another_chip"]


def test_a_build_that_records_no_device_type_is_not_checked(tmp_path):
    # 0.11.0's build info names a SoC only and its worker checks nothing.
    other = Node(tmp_path / "node", profile="a3-9392")
    tree = serving_tree(tmp_path, "vllm_ascend/_build_info.py", "__soc_version__ = 'ASCEND910B1'\n")
    assert_serves(other, [other.model], env=other.env(PYTHONPATH=tree))


def test_without_nnal_atb_the_library_import_fails(node, tmp_path):
    empty = tmp_path / "atb"
    empty.mkdir()
    for env in (node.env(ATB_HOME_PATH=None), node.env(ATB_HOME_PATH=str(empty))):
        rc, out = run_to_exit(node, [node.model], env=env)
        assert rc == 1
        assert out.rstrip().splitlines()[-1] == (
            "ImportError: libatb.so: cannot open shared object file: No such file or directory")
        assert "EngineCore failed to start." in out


@pytest.mark.parametrize("args, visible, ok", [
    (["-tp", "4"], "0,1", False),
    (["-tp", "2", "-dp", "2"], "0,1,2", False),
    (["-tp", "2", "-dp", "2"], "0,1,2,3", True),
    (["-tp", "4", "-pp", "2"], None, True),      # 8 device nodes, nothing hidden
    (["-tp", "4", "-dp", "4"], None, False),     # 16 needed, 8 present
    (["-tp", "1"], "", False),                   # empty list hides every chip
])
def test_chip_visibility_bounds_tp_times_local_dp(node, args, visible, ok):
    env = node.env(ASCEND_RT_VISIBLE_DEVICES=visible)
    if ok:
        srv = Server(node, [node.model] + args, env=env)
        try:
            srv.wait_health(200)
        finally:
            assert srv.stop() == 0
        return
    rc, out = run_to_exit(node, [node.model] + args, env=env)
    assert rc == 1
    tp = int(args[args.index("-tp") + 1])
    dp = int(args[args.index("-dp") + 1]) if "-dp" in args else 1
    have = 8 if visible is None else len([v for v in visible.split(",") if v])
    assert out.rstrip().splitlines()[-1] == (
        "AssertionError: local_world_size (%d) must be less than or equal to the number of "
        "visible devices (%d)." % (tp * dp, have))
    # vllm-project/vllm-ascend issue 14628: none visible is a known failure; too few is not.
    assert _diagnosed(out) == (["no_visible_npus"] if have == 0 else [])


def test_device_nodes_are_counted_from_the_device_directory(node, tmp_path):
    dev = tmp_path / "dev"
    dev.mkdir()
    for name in ("davinci0", "davinci1", "davinci_manager", "davinci10x"):
        (dev / name).write_bytes(b"")
    rc, out = run_to_exit(node, [node.model, "-tp", "4"], env=node.env(ASCEND_SIM_DEV_DIR=str(dev)))
    assert rc == 1
    assert "local_world_size (4) must be less than or equal to the number of visible " \
           "devices (2)." in out


def test_port_in_use_fails_before_any_other_check(node):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        # Without NNAL the worker would fail later (step 5); the port is checked first.
        srv = Server(node, [node.model], env=node.env(ATB_HOME_PATH=None), port=port)
        try:
            rc = srv.wait_exit()
        finally:
            srv.stop()
    assert rc == 1
    out = srv.output()
    assert out.rstrip().splitlines()[-1] == "OSError: [Errno 98] Address already in use"
    assert "libatb" not in out


def test_model_directory_without_config_json(node, tmp_path):
    broken = tmp_path / "model"
    shutil.copytree(node.model, broken)
    os.remove(broken / "config.json")
    rc, out = run_to_exit(node, [str(broken)])
    assert rc == 1
    assert ("ValueError: Invalid repository ID or local directory specified: '%s'." % broken) in out
    assert "   - For Hugging Face models: ensure the presence of a 'config.json'." in out


def test_model_directory_without_weights(node, tmp_path):
    broken = tmp_path / "model"
    shutil.copytree(node.model, broken)
    os.remove(broken / "model.safetensors")
    rc, out = run_to_exit(node, [str(broken)])
    assert rc == 1
    assert out.rstrip().splitlines()[-1] == (
        "RuntimeError: Cannot find any model weights with `%s`" % broken)


@pytest.mark.parametrize("args, fragment", [
    (["--max-model-len", "200k"], "User-specified max_model_len (200000) is greater than the "
                                   "derived max_model_len (max_position_embeddings=131072"),
    (["-tp", "3"], "Total number of attention heads (28) must be divisible by tensor "
                   "parallel size (3)."),
    (["--gpu-memory-utilization", "1.5"], "GPU memory utilization must be less than 1.0. "
                                          "Got 1.5."),
    (["--quantization", "fp8"], "fp8 quantization is currently not supported in npu."),
    (["--quantization", "ascend"], "ERROR: ModelSlim Quantization Config Not Found"),
])
def test_configuration_errors_stop_start_up(node, args, fragment):
    rc, out = run_to_exit(node, [node.model] + args)
    assert rc == 1
    assert fragment in out


def test_human_readable_max_model_len_is_accepted(node):
    srv = Server(node, [node.model, "--max-model-len", "32k"])
    try:
        srv.wait_health(200)
        assert get_json(srv, "/v1/models")[1]["data"][0]["max_model_len"] == 32000
    finally:
        assert srv.stop() == 0


def test_deepseek_w8a8_serves_with_ascend_quantization_and_fp8_release_does_not(node, tmp_path):
    w8a8 = str(tmp_path / "DeepSeek-R1-W8A8")
    model_gen.make(w8a8, name="DeepSeek-R1-W8A8")
    srv = Server(node, [w8a8, "--quantization", "ascend", "-dp", "2", "-tp", "4",
                        "--enable-expert-parallel", "--max-model-len", "16384",
                        "--max-num-batched-tokens", "4096", "--max-num-seqs", "16",
                        "--gpu-memory-utilization", "0.92"])
    try:
        srv.wait_health(200)
    finally:
        assert srv.stop() == 0
    fp8 = str(tmp_path / "DeepSeek-R1")
    model_gen.make(fp8, name="DeepSeek-R1")
    rc, out = run_to_exit(node, [fp8])
    assert rc == 1
    assert "fp8 quantization is currently not supported in npu." in out


@pytest.mark.parametrize("args", [["--no-such-option"], ["--dtype", "int3"],
                                  ["--port", "eighty"]])
def test_command_line_errors_exit_2_like_argparse(node, args):
    rc, out = run_to_exit(node, [node.model] + args)
    assert rc == 2
    assert "usage: vllm" in out


def test_ray_backend_needs_ray_and_a_reachable_cluster(node, tmp_path):
    rc, out = run_to_exit(node, [node.model, "--distributed-executor-backend", "ray"])
    assert rc == 1
    assert "ValueError: Failed to import Ray: No module named 'ray'." in out
    fake = tmp_path / "site"
    (fake / "ray").mkdir(parents=True)
    (fake / "ray" / "__init__.py").write_text("__version__ = '2.40.0'\n")
    pythonpath = os.pathsep.join([SERVING, str(fake)])
    closed = free_port()
    env = node.env(PYTHONPATH=pythonpath, RAY_ADDRESS="127.0.0.1:%d" % closed, PATH="/nonexistent")
    rc, out = run_to_exit(node, [node.model, "--distributed-executor-backend", "ray"], env=env)
    assert rc == 1
    assert "ConnectionError: Could not find any running Ray instance." in out
    with socket.socket() as gcs:
        gcs.bind(("127.0.0.1", 0))
        gcs.listen(8)
        env["RAY_ADDRESS"] = "127.0.0.1:%d" % gcs.getsockname()[1]
        srv = Server(node, [node.model, "--distributed-executor-backend", "ray", "-tp", "4",
                            "-pp", "4"], env=env)
        try:
            srv.wait_health(200)  # TP x PP beyond this node's chips: Ray places workers
            assert "Connected to Ray cluster at 127.0.0.1:" in srv.output()
        finally:
            assert srv.stop() == 0


def test_release_0_9_1_uses_the_flat_error_object_and_older_log_line(node, tmp_path):
    tree = serving_tree(tmp_path, "vllm/_version.py", '__version__ = "0.9.1+sim"\n')
    srv = Server(node, [node.model], env=node.env(PYTHONPATH=tree))
    try:
        srv.wait_health(200)
        status, body = post_json(srv, "/v1/completions", {"model": "nope", "prompt": "x"})
        assert status == 404
        assert body == {"object": "error", "message": "The model `nope` does not exist.",
                        "type": "NotFoundError", "param": "model", "code": 404}
        assert get_json(srv, "/version")[1] == {"version": "0.9.1+sim"}
        _, _, metrics = request("GET", srv.url + "/metrics")
        assert "vllm:gpu_cache_usage_perc" in metrics.decode()
        log = srv.output()
        assert "Starting vLLM API server on http://127.0.0.1:%d" % srv.port in log
        assert "(APIServer pid=" not in log
    finally:
        assert srv.stop() == 0


# --------------------------------------------------------------------------- imports
def _python(node, code, **env):
    return subprocess.run([sys.executable, "-c", code], env=node.env(**env), cwd=node.base,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60)


def test_package_imports_behave_like_the_real_ones(node):
    result = _python(node, "import vllm, vllm_ascend, torch; "
                           "print(vllm.__version__, vllm_ascend.__version__, torch.__version__)")
    assert result.returncode == 0
    assert result.stdout.decode().split() == ["0.23.0+sim", "0.23.0+sim", "2.10.0+sim"]
    result = _python(node, "import torch; print(torch.compiled_with_cxx11_abi())")
    # torch 2.10 wheels use the C++11 ABI on every architecture (NNAL picks cxx_abi_1).
    assert result.returncode == 0 and result.stdout.decode().strip() == "True"
    result = _python(node, "import torch, torch_npu; print(torch.npu.device_count())",
                     ASCEND_RT_VISIBLE_DEVICES="4,5,6")
    assert result.returncode == 0 and result.stdout.decode().strip() == "3"
    result = _python(node, "import torch_npu", ASCEND_TOOLKIT_HOME=None)
    assert result.returncode == 1
    assert result.stdout.decode().rstrip().splitlines()[-1] == (
        "ImportError: libhccl.so: cannot open shared object file: No such file or directory. "
        "Please check that the cann package is installed. Please run 'source set_env.sh' in "
        "the CANN installation path.")
    # Part of the toolkit's environment left (ASCEND_OPP_PATH): torch-npu names the compiler package.
    result = _python(node, "import torch_npu", ASCEND_TOOLKIT_HOME=None, ASCEND_OPP_PATH="/usr/local/Ascend/opp")
    assert result.returncode == 1
    assert "Please check that the compiler package is installed." in result.stdout.decode()


def test_version_option(node):
    result = subprocess.run([sys.executable, "-m", "vllm.entrypoints.cli.main", "--version"],
                            env=node.env(), stdout=subprocess.PIPE, timeout=60)
    assert result.returncode == 0 and result.stdout.decode().strip() == "0.23.0+sim"


# --------------------------------------------------------------------------- data parallel
def _dp_args(node, rpc_port, *extra):
    return [node.model, "-dp", "4", "-dpl", "2", "-dpa", "127.0.0.1", "-dpp",
            str(rpc_port)] + list(extra)


def test_dp_head_is_ready_only_while_every_remote_rank_is_registered(node):
    rpc = free_port()
    env = node.env(ASCEND_SIM_DP_HEARTBEAT_SECONDS="0.1", ASCEND_SIM_DP_TIMEOUT_SECONDS="3")
    head = Server(node, _dp_args(node, rpc), env=env)
    workers = []
    try:
        head.wait_log("Application startup complete.")
        assert head.health() == 503
        status, body = post_json(head, "/v1/completions", {"prompt": "x", "max_tokens": 1})
        assert status == 503 and "2,3" in body["error"]["message"]

        workers.append(Server(node, _dp_args(node, rpc, "--headless", "-dpr", "2"), env=env))
        head.wait_health(200)
        assert "DP rank(s) 2-3 registered" in head.output()
        status, body = post_json(head, "/v1/completions", {"prompt": "x", "max_tokens": 1})
        assert status == 200
        _, _, metrics = request("GET", head.url + "/metrics")
        engines = set(re.findall(r'vllm:num_requests_running\{model_name="[^"]+",engine="(\d)"',
                                 metrics.decode()))
        assert engines == {"0", "1", "2", "3"}

        assert workers[0].stop() == 0
        head.wait_health(503, timeout=10)
        assert "disconnected" in head.output()

        workers.append(Server(node, _dp_args(node, rpc, "--headless", "-dpr", "2"), env=env))
        head.wait_health(200)
    finally:
        for worker in workers:
            worker.stop()
        assert head.stop() == 0


def test_dp_worker_reconnects_after_the_head_restarts(node):
    rpc = free_port()
    env = node.env(ASCEND_SIM_DP_HEARTBEAT_SECONDS="0.1", ASCEND_SIM_DP_TIMEOUT_SECONDS="3")
    worker = Server(node, _dp_args(node, rpc, "--headless", "-dpr", "2"), env=env)
    head = second = None
    try:
        worker.wait_log("Waiting for data parallel head")
        head = Server(node, _dp_args(node, rpc), env=env)
        head.wait_health(200)
        assert head.stop() == 0
        worker.wait_log("Lost connection to data parallel head")
        second = Server(node, _dp_args(node, rpc), env=env, port=head.port)
        second.wait_health(200)
        assert worker.proc.poll() is None
    finally:
        for proc in (second, head):
            if proc is not None:
                proc.stop()
        assert worker.stop() == 0


def test_dp_head_rejects_ranks_it_does_not_expect(node):
    rpc = free_port()
    head = Server(node, _dp_args(node, rpc))
    try:
        head.wait_log("Application startup complete.")
        rc, out = run_to_exit(node, _dp_args(node, rpc, "--headless", "-dpr", "0"))
        assert rc == 1
        assert "refused DP rank(s) 0-1: DP ranks 0-1 are not remote ranks of this head " \
               "(expected 2-3)" in out
        rc, out = run_to_exit(node, [node.model, "-dp", "8", "-dpl", "2", "-dpa", "127.0.0.1",
                                     "-dpp", str(rpc), "--headless", "-dpr", "2"])
        assert rc == 1
        assert "data_parallel_size mismatch: head has 4, worker has 8" in out
        assert head.health() == 503
    finally:
        assert head.stop() == 0


def test_headless_worker_checks_its_own_chips(node):
    rc, out = run_to_exit(node, _dp_args(node, free_port(), "--headless", "-dpr", "2", "-tp",
                                         "4"),
                          env=node.env(ASCEND_RT_VISIBLE_DEVICES="0,1,2,3"))
    assert rc == 1
    assert "local_world_size (8) must be less than or equal to the number of visible " \
           "devices (4)." in out


def test_an_npu_another_live_process_holds_stops_the_worker(tmp_path):
    # vllm-project/vllm-ascend issue 2698: the driver refuses a device another process uses (-8020).
    busy = Node(tmp_path / "node")
    state = sim_state.load_state(busy.state)
    state["processes"] = [{"npu_id": 0, "chip_id": 0, "pid": os.getpid(), "name": "python3", "memory_mb": 3072}]
    sim_state.save_state(state, busy.state)
    rc, out = run_to_exit(busy, [busy.model], env=busy.env(ASCEND_RT_VISIBLE_DEVICES="0"))
    assert rc == 1
    assert out.rstrip().splitlines()[-1] == (
        "RuntimeError: dcmi model initialized failed, because the device is used. ret is -8020")
    # Another NPU, or a holder that is gone: the worker starts.
    state["processes"] = [{"npu_id": 1, "chip_id": 0, "pid": os.getpid(), "name": "python3", "memory_mb": 3072},
                          {"npu_id": 0, "chip_id": 0, "pid": 2 ** 22 + 1, "name": "gone", "memory_mb": 1}]
    sim_state.save_state(state, busy.state)
    assert_serves(busy, [busy.model], env=busy.env(ASCEND_RT_VISIBLE_DEVICES="0"))


def test_the_injected_hccl_timeout_stops_only_its_release(tmp_path):
    # inject.hccl_timeout_release (a test instrument): EI0006 as vllm-project/vllm-ascend issue 5461
    # quotes it, for the named release only.
    node = Node(tmp_path / "node")
    state = sim_state.load_state(node.state)
    state["inject"]["hccl_timeout_release"] = "0.23.0"
    sim_state.save_state(state, node.state)
    tree = serving_tree(tmp_path, "vllm_ascend/_version.py", '__version__ = "0.23.0+sim"\n')
    rc, out = run_to_exit(node, [node.model], env=node.env(PYTHONPATH=tree))
    assert rc == 1
    assert re.search(r"RuntimeError: \[PID: \d+\] Get_Socket_Timeout\(EI0006\): Getting socket times out\. Reason: 1\. "
                     r"The remote does not initiate a connect request\.$", out.rstrip().splitlines()[-1])
    state["inject"]["hccl_timeout_release"] = "0.23.0.post1"
    sim_state.save_state(state, node.state)
    assert_serves(node, [node.model], env=node.env(PYTHONPATH=tree))


def _diagnosed(out):
    """The known failures (plugins/module_utils/known_failures.py) the health gate finds in ``out``."""
    return [row["id"] for row in known_failures.diagnose(out)]


def test_quantization_without_its_description_names_modelslim_from_0_23_0(node, tmp_path):
    # vllm_ascend/quantization/modelslim_config.py at v0.23.0; older releases keep the short message.
    rc, out = run_to_exit(node, [node.model, "--quantization", "ascend"])
    assert rc == 1
    assert "ERROR: ModelSlim Quantization Config Not Found" in out
    assert "You have enabled '--quantization ascend' (ModelSlim quantization),\nbut the model '%s' does not " \
        "contain the required" % node.model in out
    assert _diagnosed(out) == ["quantization_description"]
    tree = serving_tree(tmp_path, "vllm_ascend/_version.py", '__version__ = "0.13.0+sim"\n')
    rc, out = run_to_exit(node, [node.model, "--quantization", "ascend"], env=node.env(PYTHONPATH=tree))
    assert rc == 1
    assert out.rstrip().splitlines()[-1] == "ValueError: Cannot find the config file for ascend"


def test_free_memory_below_the_utilisation_stops_the_worker(tmp_path):
    # vllm_ascend/worker/worker.py NPUWorker.init_device at v0.23.0: the snapshot after set_device.
    busy = Node(tmp_path / "node")
    state = sim_state.load_state(busy.state)
    state["chips"][1]["hbm_used_mb"] = 10240
    sim_state.save_state(state, busy.state)
    rc, out = run_to_exit(busy, [busy.model], env=busy.env(ASCEND_RT_VISIBLE_DEVICES="1"))
    assert rc == 1
    assert out.rstrip().splitlines()[-1] == (
        "ValueError: Free memory on device (54.0/64.0 GiB) on startup is less than desired GPU memory utilization "
        "(0.9, 57.6 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.")
    assert _diagnosed(out) == ["npu_out_of_memory"]
    # An idle chip (3403 MB used) has 94.8 % free: 0.95 is more than it has, 0.8 of the busy one fits.
    rc, out = run_to_exit(busy, [busy.model, "--gpu-memory-utilization", "0.95"],
                          env=busy.env(ASCEND_RT_VISIBLE_DEVICES="0"))
    assert rc == 1 and "(0.95, 60.8 GiB)" in out
    assert_serves(busy, [busy.model, "--gpu-memory-utilization", "0.8"], env=busy.env(ASCEND_RT_VISIBLE_DEVICES="1"))


def test_graph_capture_on_an_hdk_older_than_25_5_1_fails_to_alloc_streams(tmp_path):
    # vllm-project/vllm-ascend issue 8393 (the message), PR 10555 (HDK 25.5.1 or later for graphs).
    old = Node(tmp_path / "node")
    state = sim_state.load_state(old.state)
    state["driver"]["running"] = "25.2.0"
    sim_state.save_state(state, old.state)
    rc, out = run_to_exit(old, [old.model])
    assert rc == 1
    assert "[SqCqManage]Alloc sq cq fail, stream_id=1984, retCode=0x7020023." in out
    assert _diagnosed(out) == ["hdk_too_old_for_graphs"]
    # Eager mode captures nothing; the driver of graph mode captures.
    for args, driver in (([old.model, "--enforce-eager"], "25.2.0"), ([old.model], "25.5.1")):
        state["driver"]["running"] = driver
        sim_state.save_state(state, old.state)
        assert_serves(old, args)


def test_more_graphs_than_streams_fail_with_207008(node):
    # vllm-project/vllm-ascend docs/source/faqs.md (17), vllm_ascend/compilation/acl_graph.py at v0.23.0:
    # 100 sizes x (28 layers + 1) piecewise graphs are more than a device's streams.
    sizes = json.dumps({"cudagraph_capture_sizes": list(range(1, 101))})
    rc, out = run_to_exit(node, [node.model, "--compilation-config", sizes])
    assert rc == 1
    assert out.rstrip().splitlines()[-1] == (
        "[PID: %s] Insufficient_Stream_Resources(EL0009): The stream resources are insufficient."
        % re.search(r"\[PID: (\d+)\] Insufficient", out).group(1))
    assert "error code is 207008" in out
    assert _diagnosed(out) == ["graph_streams_exhausted"]
    decode_only = json.dumps({"cudagraph_capture_sizes": list(range(1, 101)), "cudagraph_mode": "FULL_DECODE_ONLY"})
    assert_serves(node, [node.model, "-O", decode_only])


@pytest.mark.parametrize("code, row", [("EI0016", "tls_inconsistent"), ("EI0013", "roce_cqe_error"),
                                       ("EI0006", "hccl_socket_timeout"), ("device_ip", "device_ip_not_set")])
def test_the_injected_hccl_error_code_picks_the_message(tmp_path, code, row):
    node = Node(tmp_path / "node")
    state = sim_state.load_state(node.state)
    state["inject"].update(hccl_timeout_release="0.23.0", hccl_error_code=code)
    sim_state.save_state(state, node.state)
    rc, out = run_to_exit(node, [node.model])
    assert rc == 1
    assert out.rstrip().splitlines()[-1].startswith("RuntimeError: ")
    assert _diagnosed(out) == [row]
