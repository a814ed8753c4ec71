"""The stand-in ``vllm bench serve``: options, requests against a running stand-in server,
the printed summary and the saved result JSON (keys of vllm/benchmarks/serve.py).

Servers and clients run from the source tree on 127.0.0.1; every server started here is
stopped by PID in a finally.
"""
import json
import os
import random
import subprocess
import sys

import pytest

from test_serving import SERVING, Node, Server

KEY = "bench-key-42"
RESULT_KEYS = {
    "date", "endpoint_type", "backend", "label", "model_id", "tokenizer_id", "num_prompts",
    "request_rate", "burstiness", "max_concurrency", "duration", "completed", "failed",
    "total_input_tokens", "total_output_tokens", "request_throughput", "request_goodput",
    "output_throughput", "total_token_throughput", "latencies", "queue_times",
    "max_output_tokens_per_s", "max_concurrent_requests", "rtfx",
    "mean_ttft_ms", "median_ttft_ms", "std_ttft_ms", "p99_ttft_ms",
    "mean_tpot_ms", "median_tpot_ms", "std_tpot_ms", "p99_tpot_ms",
    "mean_itl_ms", "median_itl_ms", "std_itl_ms", "p99_itl_ms",
}
SUMMARY_LABELS = [
    "Successful requests:", "Failed requests:", "Maximum request concurrency:",
    "Benchmark duration (s):", "Total input tokens:", "Total generated tokens:",
    "Request throughput (req/s):", "Output token throughput (tok/s):",
    "Peak output token throughput (tok/s):", "Peak concurrent requests:",
    "Total token throughput (tok/s):",
    "Mean TTFT (ms):", "Median TTFT (ms):", "P99 TTFT (ms):",
    "Mean TPOT (ms):", "Median TPOT (ms):", "P99 TPOT (ms):",
    "Mean ITL (ms):", "Median ITL (ms):", "P99 ITL (ms):",
]


def bench(args, env=None, cwd=None, timeout=120):
    full_env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    # The stand-ins share one source tree, torch-npu's among them, and vLLM imports torch-npu
    # when it is installed: the client runs in a CANN environment, as the node runner does (a
    # controller's vLLM has no torch-npu). The toolkit only has to be an existing directory.
    full_env.update({"PYTHONPATH": SERVING, "PYTHONUNBUFFERED": "1", "ASCEND_TOOLKIT_HOME": SERVING})
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "vllm.entrypoints.cli.main", "bench", "serve"]
                          + list(args), env=full_env, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    node = Node(tmp_path_factory.mktemp("bench-node"))
    srv = Server(node, [node.model, "--served-model-name", "ds-7b", "--api-key", KEY,
                        "--max-num-seqs", "8"],
                 env=node.env(ASCEND_SIM_TOKEN_SECONDS="0.01"))
    try:
        srv.wait_health()
        yield node, srv
    finally:
        srv.proc.terminate()
        srv.proc.wait(timeout=30)
        srv.log.close()


def run_args(node, srv, tmp_path, *extra, prompts=12):
    return ["--backend", "openai", "--base-url", srv.url, "--endpoint", "/v1/completions",
            "--model", "ds-7b", "--tokenizer", node.model, "--dataset-name", "random",
            "--random-input-len", "16", "--random-output-len", "8", "--num-prompts", str(prompts),
            "--request-rate", "inf", "--seed", "3", "--disable-tqdm", "--save-result",
            "--result-dir", str(tmp_path / "out"), "--result-filename", "r.json"] + list(extra)


def test_serve_measures_the_endpoint_and_saves_the_real_keys(server, tmp_path):
    node, srv = server
    proc = bench(run_args(node, srv, tmp_path, "--max-concurrency", "3"),
                 env={"OPENAI_API_KEY": KEY})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert KEY not in proc.stdout + proc.stderr
    out = proc.stdout
    assert "Traffic request rate: inf" in out and "Maximum request concurrency: 3" in out
    block = out[out.index("============ Serving Benchmark Result ============"):]
    labels = [line[:40].strip() for line in block.splitlines()[1:]
              if line and not line.startswith(("-", "="))]
    assert labels == SUMMARY_LABELS
    assert "---------------Time to First Token----------------" in block
    assert "-----Time per Output Token (excl. 1st token)------" in block
    assert block.rstrip().endswith("=" * 50)

    with open(tmp_path / "out" / "r.json") as handle:
        result = json.load(handle)
    assert RESULT_KEYS <= set(result), RESULT_KEYS - set(result)
    assert "ttfts" not in result and "generated_texts" not in result  # only with --save-detailed
    assert result["num_prompts"] == result["completed"] == 12 and result["failed"] == 0
    assert result["request_rate"] == "inf" and result["max_concurrency"] == 3
    assert result["model_id"] == "ds-7b" and result["tokenizer_id"] == node.model
    # ignore_eos (random dataset): every request generates exactly --random-output-len tokens;
    # the server's usage counts 16 prompt words plus BOS.
    assert result["total_output_tokens"] == 12 * 8
    assert result["total_input_tokens"] == 12 * 17
    assert result["output_throughput"] == pytest.approx(96 / result["duration"])
    assert result["request_throughput"] == pytest.approx(12 / result["duration"])
    # 10 ms per token on the server: the first token and every later one take at least that.
    assert result["median_ttft_ms"] >= 10 and result["p99_ttft_ms"] >= result["median_ttft_ms"]
    assert 9 <= result["median_tpot_ms"] < 200 and 9 <= result["median_itl_ms"] < 200
    # Requests active in the busiest second (vLLM's one-second buckets), not in flight at once: 12
    # requests of ~80 ms, 3 at a time, mostly within the first second.
    assert 3 <= result["max_concurrent_requests"] <= 12
    assert result["duration"] >= 4 * 8 * 0.01


def test_serve_without_the_key_records_failures(server, tmp_path):
    node, srv = server
    proc = bench(run_args(node, srv, tmp_path, prompts=4))
    assert proc.returncode == 0, proc.stderr
    assert "Failed requests during benchmark run detected (capping to 10):" in proc.stdout
    assert "Error 0: Unauthorized" in proc.stdout
    with open(tmp_path / "out" / "r.json") as handle:
        result = json.load(handle)
    assert result["completed"] == 0 and result["failed"] == 4
    assert result["output_throughput"] == 0 and result["p99_ttft_ms"] == 0


def test_serve_with_a_finite_rate_and_detailed_results(server, tmp_path):
    node, srv = server
    proc = bench(run_args(node, srv, tmp_path, "--save-detailed", prompts=5)
                 + ["--request-rate", "50", "--metric-percentiles", "50,90"],
                 env={"OPENAI_API_KEY": KEY})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Request rate configured (RPS):" in proc.stdout
    assert "P90 TTFT (ms):" in proc.stdout and "P99 TTFT (ms):" not in proc.stdout
    with open(tmp_path / "out" / "r.json") as handle:
        result = json.load(handle)
    assert result["request_rate"] == 50.0
    assert {"p50_ttft_ms", "p90_ttft_ms", "ttfts", "itls", "output_lens"} <= set(result)
    assert result["output_lens"] == [8] * 5 and all(len(itl) == 7 for itl in result["itls"])


@pytest.mark.parametrize("args, message", [
    (["--no-such-option"], "unrecognized arguments: --no-such-option"),
    (["--request-rate", "fast"], "argument --request-rate: invalid float value: 'fast'"),
    (["--backend", "tgi"], "argument --backend: invalid choice: 'tgi'"),
    (["--dataset-name", "random", "--dataset-path", "x.json"],
     "Cannot use 'random' dataset with --dataset-path."),
])
def test_bad_options_exit_2(args, message):
    proc = bench(args)
    assert proc.returncode == 2
    # Unknown options are reported by the top-level parser (usage: vllm ...), as upstream.
    assert proc.stderr.startswith("usage: vllm") and message in proc.stderr


def test_bench_needs_a_benchmark_name():
    proc = subprocess.run([sys.executable, "-m", "vllm.entrypoints.cli.main", "bench"],
                          env=dict(os.environ, PYTHONPATH=SERVING, ASCEND_TOOLKIT_HOME=SERVING), capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and "the following arguments are required: bench_type" in proc.stderr


def test_tokenizer_that_is_not_a_local_directory_fails(tmp_path):
    proc = bench(["--base-url", "http://127.0.0.1:9", "--model", "deepseek-ai/DeepSeek-R1",
                  "--num-prompts", "1"], cwd=str(tmp_path))
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1].startswith(
        "OSError: Can't load tokenizer for 'deepseek-ai/DeepSeek-R1'.")


def test_unreachable_server_fails_every_request(tmp_path):
    node = Node(tmp_path / "node")
    proc = bench(["--base-url", "http://127.0.0.1:9", "--model", "m", "--tokenizer", node.model,
                  "--num-prompts", "2", "--random-input-len", "4", "--random-output-len", "2",
                  "--disable-tqdm"], cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "Successful requests:                     0" in proc.stdout
    assert "ConnectionRefusedError" in proc.stdout


def test_request_delays_and_percentiles():
    sys.path.insert(0, SERVING)
    try:
        from vllm.benchmarks.serve import _percentile, request_delays
    finally:
        sys.path.remove(SERVING)
    assert request_delays(3, float("inf"), 1.0, random.Random(0)) == [0.0, 0.0, 0.0]
    delays = request_delays(10, 5.0, 1.0, random.Random(0))
    assert delays == sorted(delays) and delays[-1] == pytest.approx(2.0)
    assert request_delays(4, 2.0, float("inf"), random.Random(0)) == pytest.approx(
        [0.5, 1.0, 1.5, 2.0])
    # numpy.percentile's default (linear) interpolation.
    assert _percentile([1, 2, 3, 4], 99) == pytest.approx(3.97)
    assert _percentile([4, 1, 3, 2], 50) == 2.5
    assert _percentile([], 99) == 0.0


def test_peak_concurrency_counts_the_requests_of_each_second():
    """vllm/benchmarks/serve.py at v0.23.0 counts a request in every one-second bucket from its start
    to its end: four requests one after the other within a second are 4, not 1 in flight."""
    code = (
        "from vllm.benchmarks.serve import RequestFuncOutput, calculate_metrics\n"
        "outs = [RequestFuncOutput(success=True, start_time=0.2 * i, latency=0.1, ttft=0.05, output_tokens=2,\n"
        "                          itl=[0.05], prompt_len=4) for i in range(4)]\n"
        "outs.append(RequestFuncOutput(success=True, start_time=1.5, latency=1.0, ttft=0.5, output_tokens=2,\n"
        "                              itl=[0.5], prompt_len=4))\n"
        "print(calculate_metrics(outs, 2.5, None, [99], {})[0]['max_concurrent_requests'])\n")
    run = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=SERVING),
                         capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[-1] == "4"
