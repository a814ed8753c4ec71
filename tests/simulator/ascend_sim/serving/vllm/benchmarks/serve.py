r"""Benchmark online serving throughput (``vllm bench serve``).

On the client side, run:
    vllm bench serve --base-url http://HOST:PORT --model NAME --tokenizer MODEL_DIR \
        --dataset-name random --random-input-len 32 --random-output-len 16 \
        --num-prompts 20 --max-concurrency 4 --save-result --result-dir DIR

Upstream's client is asyncio + aiohttp; this one sends the same streaming requests
(``POST /v1/completions``, ``stream: true``, ``stream_options.include_usage``) from threads,
at most ``--max-concurrency`` at a time (unbounded: at most MAX_IN_FLIGHT), with the
request arrival times of upstream (all at once for ``--request-rate inf``, otherwise gamma
distributed intervals rescaled to the rate). Time to first token, time per output token,
inter-token latency, throughput, the printed summary and the saved JSON keys follow
vllm/benchmarks/serve.py; percentiles use numpy's default (linear) interpolation.
Standard library only.
"""
import argparse
import http.client
import json
import math
import os
import random
import ssl
import sys
import threading
import time
import traceback
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import List, Optional
from urllib.parse import urlsplit

from vllm.benchmarks.datasets import add_dataset_parser, get_samples, get_tokenizer

MILLISECONDS_TO_SECONDS_CONVERSION = 1000
# Upstream's aiohttp session timeout.
REQUEST_TIMEOUT_SECONDS = 6 * 60 * 60
# Threads in flight when --max-concurrency is not given (upstream opens every request at once).
MAX_IN_FLIGHT = 1024
BACKENDS = ["openai", "vllm"]
_SENSITIVE_ARG_FIELDS = ("header",)


# --------------------------------------------------------------------------- statistics
def _mean(values):
    return sum(values) / len(values) if values else 0.0


def _std(values):
    if not values:
        return 0.0
    mean = _mean(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def _percentile(values, p):
    """numpy.percentile(values or 0, p) with linear interpolation."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = (len(ordered) - 1) * p / 100.0
    low = math.floor(rank)
    high = math.ceil(rank)
    if low == high:
        return float(ordered[int(rank)])
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


# --------------------------------------------------------------------------- requests
@dataclass
class RequestFuncInput:
    prompt: str
    api_url: str
    prompt_len: int
    output_len: int
    model: str
    model_name: Optional[str] = None
    logprobs: Optional[int] = None
    extra_headers: Optional[dict] = None
    extra_body: Optional[dict] = None
    ignore_eos: bool = False
    request_id: Optional[str] = None


@dataclass
class RequestFuncOutput:
    generated_text: str = ""
    success: bool = False
    latency: float = 0.0
    output_tokens: int = 0
    ttft: float = 0.0
    itl: List[float] = field(default_factory=list)
    tpot: float = 0.0
    prompt_len: int = 0
    error: str = ""
    start_time: float = 0.0
    client_queue_time: float = 0.0


def _connection(url, insecure):
    parts = urlsplit(url)
    if parts.scheme == "https":
        context = ssl.create_default_context()
        if insecure:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        return http.client.HTTPSConnection(parts.hostname, parts.port or 443,
                                           timeout=REQUEST_TIMEOUT_SECONDS, context=context)
    return http.client.HTTPConnection(parts.hostname, parts.port or 80,
                                      timeout=REQUEST_TIMEOUT_SECONDS)


def _path(url):
    parts = urlsplit(url)
    return (parts.path or "/") + ("?" + parts.query if parts.query else "")


def _get_headers():
    headers = {"Content-Type": "application/json"}
    api_key = os.environ.get("OPENAI_API_KEY")
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return headers


def request_openai_completions(inp, insecure=False):
    """One streaming completion; the timing rules of upstream's async_request_openai_completions."""
    api_url = inp.api_url
    if not api_url.endswith(("completions", "profile")):
        raise ValueError("OpenAI Completions API URL must end with one of: "
                         "{'completions', 'profile'}.")
    payload = {
        "model": inp.model_name if inp.model_name else inp.model,
        "prompt": inp.prompt,
        "repetition_penalty": 1.0,
        "max_tokens": inp.output_len,
        "logprobs": inp.logprobs,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if inp.ignore_eos:
        payload["ignore_eos"] = inp.ignore_eos
    if inp.extra_body:
        payload.update(inp.extra_body)
    headers = _get_headers()
    if inp.extra_headers:
        headers.update(inp.extra_headers)
    if inp.request_id:
        headers["x-request-id"] = inp.request_id

    output = RequestFuncOutput(prompt_len=inp.prompt_len)
    generated_text = ""
    st = time.perf_counter()
    output.start_time = st
    most_recent_timestamp = st
    conn = None
    try:
        conn = _connection(api_url, insecure)
        conn.request("POST", _path(api_url), body=json.dumps(payload).encode("utf-8"),
                     headers=headers)
        response = conn.getresponse()
        if response.status == 200:
            first_chunk_received = False
            while True:
                line = response.readline()
                if not line:
                    break
                message = line.decode("utf-8").strip()
                # SSE comments (pings) start with a colon.
                if not message or message.startswith(":"):
                    continue
                chunk = message[len("data: "):] if message.startswith("data: ") else message
                if chunk == "[DONE]":
                    continue
                data = json.loads(chunk)
                choices = data.get("choices")
                if choices:
                    text = choices[0].get("text")
                    timestamp = time.perf_counter()
                    if not first_chunk_received:
                        first_chunk_received = True
                        output.ttft = timestamp - st
                    else:
                        output.itl.append(timestamp - most_recent_timestamp)
                    most_recent_timestamp = timestamp
                    generated_text += text or ""
                elif data.get("usage"):
                    usage = data["usage"]
                    output.output_tokens = usage.get("completion_tokens")
                    if usage.get("prompt_tokens") is not None:
                        output.prompt_len = usage["prompt_tokens"]
            if first_chunk_received:
                output.success = True
            else:
                output.success = False
                output.error = ("Never received a valid chunk to calculate TTFT."
                                "This response will be marked as failed!")
            output.generated_text = generated_text
            output.latency = most_recent_timestamp - st
        else:
            response.read()
            output.error = response.reason or ""
            output.success = False
    except Exception:  # upstream records any failure as the request's error
        output.success = False
        output.error = "".join(traceback.format_exception(*sys.exc_info()))
    finally:
        if conn is not None:
            conn.close()
    return output


def get_first_model_from_server(base_url, headers=None, insecure=False):
    models_url = f"{base_url}/v1/models"
    conn = _connection(models_url, insecure)
    try:
        request_headers = dict(_get_headers())
        request_headers.update(headers or {})
        conn.request("GET", _path(models_url), headers=request_headers)
        response = conn.getresponse()
        body = response.read()
        if response.status != 200:
            raise RuntimeError(
                f"Failed to fetch models from server at {models_url}. Check that:\n"
                "1. The server is running\n2. The server URL is correct\n"
                f"Error: {response.status}, message='{response.reason}', url='{models_url}'")
        data = json.loads(body)
    except (OSError, ValueError) as exc:
        raise RuntimeError(
            f"Failed to fetch models from server at {models_url}. Check that:\n"
            "1. The server is running\n2. The server URL is correct\n"
            f"Error: {exc}") from exc
    finally:
        conn.close()
    if "data" in data and len(data["data"]) > 0:
        return data["data"][0]["id"], data["data"][0]["root"]
    raise ValueError(f"No models found on the server at {base_url}. "
                     "Make sure the server is running and has models loaded.")


def _align_prompts_to_server_tokenizer(base_url, model_id, input_requests, insecure):
    """Upstream asks /tokenize whether the server counts prompts like the client; a server
    without that route (this one) is skipped with upstream's warning."""
    if not input_requests:
        return input_requests
    url = f"{base_url}/tokenize"
    conn = _connection(url, insecure)
    try:
        conn.request("POST", _path(url), headers=_get_headers(), body=json.dumps({
            "model": model_id, "prompt": input_requests[0].prompt,
            "add_special_tokens": False}).encode("utf-8"))
        response = conn.getresponse()
        body = response.read()
        if response.status != 200:
            raise RuntimeError(response.reason)
        tokens = json.loads(body)["tokens"]
    except Exception:
        print("WARNING: /tokenize unavailable, skipping alignment.")
        return input_requests
    finally:
        conn.close()
    if len(tokens) != input_requests[0].prompt_len:
        print(f"WARNING: tokenizer mismatch (server={len(tokens)}, "
              f"expected={input_requests[0].prompt_len}), re-aligning prompts.")
    return input_requests


# --------------------------------------------------------------------------- load shape
def request_delays(total_requests, request_rate, burstiness, rng):
    """Send times (seconds after the start) of upstream's get_request."""
    assert burstiness > 0, (
        f"A positive burstiness factor is expected, but given {burstiness}.")
    assert request_rate > 0.0, f"Obtained non-positive request rate {request_rate}."
    delays = []
    for _ in range(total_requests):
        if request_rate == float("inf"):
            delays.append(0.0)
        elif burstiness == float("inf"):
            delays.append(1.0 / request_rate)
        else:
            theta = 1.0 / (request_rate * burstiness)
            delays.append(rng.gammavariate(burstiness, theta))
    for i in range(1, len(delays)):
        delays[i] += delays[i - 1]
    if delays and delays[-1] != 0:
        # Rescale so the requests span exactly total_requests / request_rate seconds.
        target_total_delay_s = total_requests / request_rate
        factor = target_total_delay_s / delays[-1]
        delays = [d * factor for d in delays]
    return delays


# --------------------------------------------------------------------------- metrics
def calculate_metrics(outputs, dur_s, tokenizer, selected_percentiles, goodput_config_dict):
    actual_output_lens = []
    total_input = completed = good_completed = 0
    itls, tpots, all_tpots, ttfts, e2els = [], [], [], [], []
    for out in outputs:
        if out.success:
            output_len = out.output_tokens
            if not output_len:
                output_len = tokenizer.count(out.generated_text) if tokenizer else 1
            actual_output_lens.append(output_len)
            total_input += out.prompt_len
            tpot = 0.0
            if output_len > 1:
                tpot = (out.latency - out.ttft) / (output_len - 1)
                tpots.append(tpot)
            all_tpots.append(tpot)
            itls += out.itl
            ttfts.append(out.ttft)
            e2els.append(out.latency)
            completed += 1
        else:
            actual_output_lens.append(0)

    if goodput_config_dict:
        valid_metrics, slo_values = [], []
        for name, values in (("ttft", ttfts), ("tpot", all_tpots), ("e2el", e2els)):
            if name in goodput_config_dict:
                valid_metrics.append(values)
                slo_values.append(goodput_config_dict[name] / MILLISECONDS_TO_SECONDS_CONVERSION)
        for req_metric in zip(*valid_metrics):
            if all(s >= r for s, r in zip(slo_values, req_metric)):
                good_completed += 1

    if completed == 0:
        print("WARNING: All requests failed. This is likely due to a misconfiguration "
              "on the benchmark arguments.", file=sys.stderr)

    successful = [o for o in outputs if o.success]
    failed = [o for o in outputs if not o.success]
    if failed:
        print("Failed requests during benchmark run detected (capping to 10):")
        for i, out in enumerate(failed[:10]):
            print(f"Error {i}: {out.error}")

    max_output_tokens_per_s = 0.0
    max_concurrent_requests = 0
    if successful:
        min_start = min(o.start_time for o in successful)
        max_end = max(o.start_time + o.latency for o in successful)
        buckets = [0] * (int(math.ceil(max_end - min_start)) + 1)
        for out in successful:
            token_time = out.start_time + out.ttft
            times = [token_time]
            for gap in out.itl:
                token_time += gap
                times.append(token_time)
            for t in times:
                index = int(t - min_start)
                if 0 <= index < len(buckets):
                    buckets[index] += 1
        # As vllm/benchmarks/serve.py at v0.23.0: the requests active in each one-second bucket (a
        # request counts in every second from its start to its end), not those in flight at once.
        concurrent = [0] * len(buckets)
        for out in successful:
            first, last = int(out.start_time - min_start), int(out.start_time + out.latency - min_start)
            for second in range(first, last + 1):
                if 0 <= second < len(concurrent):
                    concurrent[second] += 1
        max_concurrent_requests = max(concurrent)
        max_output_tokens_per_s = float(max(buckets))
        print("tip: install termplotlib and gnuplot to plot the metrics")

    def stats(values):
        return (_mean(values) * 1000, _std(values) * 1000, _percentile(values, 50) * 1000,
                [(p, _percentile(values, p) * 1000) for p in selected_percentiles])

    metrics = {
        "completed": completed, "failed": len(failed), "total_input": total_input,
        "total_output": sum(actual_output_lens),
        "request_throughput": completed / dur_s,
        "request_goodput": good_completed / dur_s,
        "output_throughput": sum(actual_output_lens) / dur_s,
        "total_token_throughput": (total_input + sum(actual_output_lens)) / dur_s,
        "max_output_tokens_per_s": max_output_tokens_per_s,
        "max_concurrent_requests": max_concurrent_requests,
    }
    for name, values in (("ttft", ttfts), ("tpot", tpots), ("itl", itls), ("e2el", e2els)):
        mean, std, median, percentiles = stats(values)
        metrics[f"mean_{name}_ms"] = mean
        metrics[f"std_{name}_ms"] = std
        metrics[f"median_{name}_ms"] = median
        metrics[f"percentiles_{name}_ms"] = percentiles
    return metrics, actual_output_lens


def _line(label, value, fmt="{:<10}"):
    print(("{:<40} " + fmt).format(label, value))


def benchmark(api_url, base_url, model_id, model_name, tokenizer, input_requests, logprobs,
              request_rate, burstiness, disable_tqdm, num_warmups, selected_percentile_metrics,
              selected_percentiles, ignore_eos, goodput_config_dict, max_concurrency,
              extra_headers, extra_body, ready_check_timeout_sec, insecure, seed):
    def make_input(request):
        return RequestFuncInput(
            model=model_id, model_name=model_name, prompt=request.prompt, api_url=api_url,
            prompt_len=request.prompt_len, output_len=request.expected_output_len,
            logprobs=logprobs, ignore_eos=ignore_eos, extra_headers=extra_headers,
            extra_body=extra_body, request_id=request.request_id)

    test_input = make_input(input_requests[0])
    test_input.request_id = None
    if ready_check_timeout_sec > 0:
        print("Starting initial single prompt test run...")
        deadline = time.monotonic() + ready_check_timeout_sec
        while True:
            test_output = request_openai_completions(test_input, insecure)
            if test_output.success or time.monotonic() >= deadline:
                break
            time.sleep(5)
        if not test_output.success:
            raise ValueError("Initial test run failed - Please make sure benchmark arguments "
                             f"are correctly specified. Error: {test_output.error}")
        print("Initial test run completed.")
    else:
        print("Skipping endpoint ready check.")

    if num_warmups > 0:
        print(f"Warming up with {num_warmups} requests...")
        _run_all([test_input] * num_warmups, [0.0] * num_warmups, max_concurrency, insecure,
                 True)
        print("Warmup run completed.")

    print("Starting main benchmark run...")
    distribution = "Poisson process" if burstiness == 1.0 else "Gamma distribution"
    print(f"Traffic request rate: {request_rate}")
    print(f"Burstiness factor: {burstiness} ({distribution})")
    print(f"Maximum request concurrency: {max_concurrency}")

    delays = request_delays(len(input_requests), request_rate, burstiness, random.Random(seed))
    start = time.perf_counter()
    outputs = _run_all([make_input(r) for r in input_requests], delays, max_concurrency,
                       insecure, disable_tqdm, start)
    benchmark_duration = time.perf_counter() - start

    metrics, actual_output_lens = calculate_metrics(
        outputs, benchmark_duration, tokenizer, selected_percentiles, goodput_config_dict)

    print("{s:{c}^{n}}".format(s=" Serving Benchmark Result ", n=50, c="="))
    _line("Successful requests:", metrics["completed"])
    _line("Failed requests:", metrics["failed"])
    if max_concurrency is not None:
        _line("Maximum request concurrency:", max_concurrency)
    if request_rate != float("inf"):
        _line("Request rate configured (RPS):", request_rate, "{:<10.2f}")
    _line("Benchmark duration (s):", benchmark_duration, "{:<10.2f}")
    _line("Total input tokens:", metrics["total_input"])
    if tokenizer:
        _line("Total generated tokens:", metrics["total_output"])
    _line("Request throughput (req/s):", metrics["request_throughput"], "{:<10.2f}")
    if goodput_config_dict:
        _line("Request goodput (req/s):", metrics["request_goodput"], "{:<10.2f}")
    if tokenizer:
        _line("Output token throughput (tok/s):", metrics["output_throughput"], "{:<10.2f}")
        _line("Peak output token throughput (tok/s):", metrics["max_output_tokens_per_s"],
              "{:<10.2f}")
    _line("Peak concurrent requests:", metrics["max_concurrent_requests"], "{:<10.2f}")
    if tokenizer:
        _line("Total token throughput (tok/s):", metrics["total_token_throughput"],
              "{:<10.2f}")

    result = {
        "duration": benchmark_duration,
        "completed": metrics["completed"],
        "failed": metrics["failed"],
        "total_input_tokens": metrics["total_input"],
        "total_output_tokens": metrics["total_output"],
        "request_throughput": metrics["request_throughput"],
        "request_goodput": metrics["request_goodput"] if goodput_config_dict else None,
        "output_throughput": metrics["output_throughput"],
        "total_token_throughput": metrics["total_token_throughput"],
        "input_lens": [o.prompt_len for o in outputs],
        "output_lens": actual_output_lens,
        "ttfts": [o.ttft for o in outputs],
        "itls": [o.itl for o in outputs],
        "latencies": [o.latency for o in outputs],
        "start_times": [o.start_time for o in outputs],
        "queue_times": [o.client_queue_time for o in outputs],
        "generated_texts": [o.generated_text for o in outputs],
        "errors": [o.error for o in outputs],
        "max_output_tokens_per_s": metrics["max_output_tokens_per_s"],
        "max_concurrent_requests": metrics["max_concurrent_requests"],
        "rtfx": 0.0,
    }

    def process_one_metric(attr, name, header):
        if attr not in selected_percentile_metrics:
            return
        print("{s:{c}^{n}}".format(s=header, n=50, c="-"))
        _line(f"Mean {name} (ms):", metrics[f"mean_{attr}_ms"], "{:<10.2f}")
        _line(f"Median {name} (ms):", metrics[f"median_{attr}_ms"], "{:<10.2f}")
        result[f"mean_{attr}_ms"] = metrics[f"mean_{attr}_ms"]
        result[f"median_{attr}_ms"] = metrics[f"median_{attr}_ms"]
        result[f"std_{attr}_ms"] = metrics[f"std_{attr}_ms"]
        for p, value in metrics[f"percentiles_{attr}_ms"]:
            p_word = str(int(p)) if int(p) == p else str(p)
            _line(f"P{p_word} {name} (ms):", value, "{:<10.2f}")
            result[f"p{p_word}_{attr}_ms"] = value

    if tokenizer:
        process_one_metric("ttft", "TTFT", "Time to First Token")
        process_one_metric("tpot", "TPOT", "Time per Output Token (excl. 1st token)")
        process_one_metric("itl", "ITL", "Inter-token Latency")
    process_one_metric("e2el", "E2EL", "End-to-end Latency")
    print("=" * 50)
    return result


def _run_all(inputs, delays, max_concurrency, insecure, disable_tqdm, start=None):
    """Send inputs[i] at start + delays[i], at most max_concurrency (or MAX_IN_FLIGHT) at once."""
    slots = threading.BoundedSemaphore(max_concurrency or MAX_IN_FLIGHT)
    outputs = [None] * len(inputs)
    done = [0]
    lock = threading.Lock()
    start = time.perf_counter() if start is None else start

    def worker(index, arrival):
        try:
            output = request_openai_completions(inputs[index], insecure)
            output.client_queue_time = output.start_time - arrival
            outputs[index] = output
        finally:
            slots.release()
            if not disable_tqdm:
                with lock:
                    done[0] += 1
                    print(f"{done[0]}/{len(inputs)} requests", file=sys.stderr, flush=True)

    threads = []
    for index, delay in enumerate(delays):
        arrival = start + delay
        wait = arrival - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        slots.acquire()
        thread = threading.Thread(target=worker, args=(index, arrival), daemon=True)
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    return outputs


# --------------------------------------------------------------------------- options
def parse_goodput(slo_pairs):
    goodput_config_dict = {}
    try:
        for slo_pair in slo_pairs:
            slo_name, slo_val = slo_pair.split(":")
            goodput_config_dict[slo_name] = float(slo_val)
    except ValueError as err:
        raise argparse.ArgumentTypeError(
            "Invalid format found for service level objectives. "
            'Specify service level objectives for goodput as "KEY:VALUE" '
            "pairs, where the key is a metric name, and the value is a "
            "number in milliseconds.") from err
    return goodput_config_dict


def check_goodput_args(args):
    goodput_config_dict = {}
    valid_names = ["ttft", "tpot", "e2el"]
    if args.goodput:
        goodput_config_dict = parse_goodput(args.goodput)
        for slo_name, slo_val in goodput_config_dict.items():
            if slo_name not in valid_names:
                raise ValueError(
                    f"Invalid metric name found, {slo_name}: {slo_val}. "
                    "The service level objective name should be one of "
                    f"{str(valid_names)}. ")
            if slo_val < 0:
                raise ValueError(
                    f"Invalid value found, {slo_name}: {slo_val}. "
                    "The service level objective value should be non-negative.")
    return goodput_config_dict


def add_cli_args(parser):
    add_dataset_parser(parser)
    parser.add_argument("--label", type=str, default=None)
    parser.add_argument("--backend", type=str, default="openai", choices=BACKENDS)
    parser.add_argument("--base-url", type=str, default=None)
    parser.add_argument("--host", type=str, default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--endpoint", type=str, default="/v1/completions")
    parser.add_argument("--header", metavar="KEY=VALUE", nargs="*")
    parser.add_argument("--max-concurrency", type=int, default=None)
    parser.add_argument("--model", type=str, required=False, default=None)
    parser.add_argument("--input-len", type=int, default=None)
    parser.add_argument("--output-len", type=int, default=None)
    parser.add_argument("--tokenizer", type=str)
    parser.add_argument("--tokenizer-mode", type=str, default="auto")
    parser.add_argument("--trust-remote-code", action="store_true")
    parser.add_argument("--logprobs", type=int, default=None)
    parser.add_argument("--request-rate", type=float, default=float("inf"))
    parser.add_argument("--burstiness", type=float, default=1.0)
    parser.add_argument("--disable-tqdm", action="store_true")
    parser.add_argument("--num-warmups", type=int, default=0)
    parser.add_argument("--save-result", action="store_true")
    parser.add_argument("--save-detailed", action="store_true")
    parser.add_argument("--append-result", action="store_true")
    parser.add_argument("--metadata", metavar="KEY=VALUE", nargs="*")
    parser.add_argument("--result-dir", type=str, default=None)
    parser.add_argument("--result-filename", type=str, default=None)
    parser.add_argument("--ignore-eos", action="store_true")
    parser.add_argument("--percentile-metrics", type=str, default=None)
    parser.add_argument("--metric-percentiles", type=str, default="99")
    parser.add_argument("--goodput", nargs="+", required=False)
    parser.add_argument("--request-id-prefix", type=str, required=False,
                        default=f"bench-{uuid.uuid4().hex[:8]}-")
    sampling = parser.add_argument_group("sampling parameters")
    sampling.add_argument("--top-p", type=float, default=None)
    sampling.add_argument("--top-k", type=int, default=None)
    sampling.add_argument("--min-p", type=float, default=None)
    sampling.add_argument("--temperature", type=float, default=None)
    sampling.add_argument("--frequency-penalty", type=float, default=None)
    sampling.add_argument("--presence-penalty", type=float, default=None)
    sampling.add_argument("--repetition-penalty", type=float, default=None)
    parser.add_argument("--served-model-name", type=str, default=None)
    parser.add_argument("--ready-check-timeout-sec", type=int, default=0)
    parser.add_argument("--extra-body", type=json.loads, default=None)
    parser.add_argument("--skip-tokenizer-init", action="store_true", default=False)
    parser.add_argument("--insecure", action="store_true", default=False)


def _redacted(args):
    shown = argparse.Namespace(**vars(args))
    for name in _SENSITIVE_ARG_FIELDS:
        if getattr(shown, name, None):
            setattr(shown, name, "<redacted>")
    return shown


def main(args):
    print(_redacted(args))
    if args.max_concurrency is not None and args.max_concurrency <= 0:
        raise ValueError("--max-concurrency must be greater than 0")
    random.seed(args.seed)

    label = args.label
    if args.base_url is not None:
        api_url = f"{args.base_url}{args.endpoint}"
        base_url = f"{args.base_url}"
    else:
        host = f"[{args.host}]" if ":" in args.host else args.host
        api_url = f"http://{host}:{args.port}{args.endpoint}"
        base_url = f"http://{host}:{args.port}"

    headers = None
    if args.header:
        headers = {}
        for item in args.header:
            if "=" not in item:
                raise ValueError("Invalid header format. Please use KEY=VALUE format.")
            key, value = item.split("=", 1)
            headers[key.strip()] = value.strip()

    if args.model is None:
        print("Model not specified, fetching first model from server...")
        model_name, model_id = get_first_model_from_server(base_url, headers, args.insecure)
        print(f"First model name: {model_name}, first model id: {model_id}")
    else:
        model_name = args.served_model_name
        model_id = args.model

    if args.skip_tokenizer_init:
        tokenizer_id = None
        tokenizer = None
    else:
        tokenizer_id = args.tokenizer if args.tokenizer is not None else model_id
        tokenizer = get_tokenizer(tokenizer_id)

    if args.dataset_name is None:
        raise ValueError("Please specify '--dataset-name' and the corresponding "
                         "'--dataset-path' if required.")
    if args.input_len is not None:
        args.random_input_len = args.input_len
    if args.output_len is not None:
        args.random_output_len = args.output_len
    # Random datasets ignore EOS so generation runs to the requested length.
    if args.dataset_name == "random":
        args.ignore_eos = True

    input_requests = get_samples(args, tokenizer)
    input_requests = _align_prompts_to_server_tokenizer(base_url, model_id, input_requests,
                                                        args.insecure)
    goodput_config_dict = check_goodput_args(args)

    sampling_params = {k: v for k, v in {
        "top_p": args.top_p, "top_k": args.top_k, "min_p": args.min_p,
        "temperature": args.temperature, "frequency_penalty": args.frequency_penalty,
        "presence_penalty": args.presence_penalty,
        "repetition_penalty": args.repetition_penalty}.items() if v is not None}
    if "temperature" not in sampling_params:
        print("WARNING: vllm bench serve no longer sets temperature==0 (greedy) in requests by "
              "default. The default will be determined on the server side and can be "
              "model/API specific. For the old behavior, include --temperature=0.")
    extra_body = {**sampling_params, **(args.extra_body or {})}
    percentile_metrics = args.percentile_metrics or "ttft,tpot,itl"

    benchmark_result = benchmark(
        api_url=api_url, base_url=base_url, model_id=model_id, model_name=model_name,
        tokenizer=tokenizer, input_requests=input_requests, logprobs=args.logprobs,
        request_rate=args.request_rate, burstiness=args.burstiness,
        disable_tqdm=args.disable_tqdm, num_warmups=args.num_warmups,
        selected_percentile_metrics=percentile_metrics.split(","),
        selected_percentiles=[float(p) for p in args.metric_percentiles.split(",")],
        ignore_eos=args.ignore_eos, goodput_config_dict=goodput_config_dict,
        max_concurrency=args.max_concurrency, extra_headers=headers, extra_body=extra_body,
        ready_check_timeout_sec=args.ready_check_timeout_sec, insecure=args.insecure,
        seed=args.seed)

    current_dt = datetime.now().strftime("%Y%m%d-%H%M%S")
    result_json = {
        "date": current_dt,
        "endpoint_type": args.backend,
        "backend": args.backend,
        "label": label,
        "model_id": model_id,
        "tokenizer_id": tokenizer_id,
        "num_prompts": args.num_prompts,
    }
    if args.metadata:
        for item in args.metadata:
            if "=" not in item:
                raise ValueError("Invalid metadata format. Please use KEY=VALUE format.")
            key, value = item.split("=", 1)
            result_json[key.strip()] = value.strip()
    result_json["request_rate"] = (args.request_rate if args.request_rate < float("inf")
                                   else "inf")
    result_json["burstiness"] = args.burstiness
    result_json["max_concurrency"] = args.max_concurrency
    result_json = {**result_json, **benchmark_result}

    if not args.save_detailed:
        for name in ("input_lens", "output_lens", "start_times", "ttfts", "itls",
                     "generated_texts", "errors"):
            result_json.pop(name, None)

    if args.save_result or args.append_result:
        base_model_id = model_id.split("/")[-1]
        concurrency = (f"-concurrency{args.max_concurrency}"
                       if args.max_concurrency is not None else "")
        file_name = (f"{label or args.backend}-{args.request_rate}qps{concurrency}"
                     f"-{base_model_id}-{current_dt}.json")
        if args.result_filename:
            file_name = args.result_filename
        if args.result_dir:
            os.makedirs(args.result_dir, exist_ok=True)
            file_name = os.path.join(args.result_dir, file_name)
        with open(file_name, mode="a+" if args.append_result else "w",
                  encoding="utf-8") as outfile:
            if args.append_result and outfile.tell() != 0:
                outfile.write("\n")
            json.dump(result_json, outfile)
    return result_json
