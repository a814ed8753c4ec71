"""Prometheus metrics with vLLM's names, help texts, buckets and labels.

Rendered in the text exposition format of prometheus_client: counters carry the
``_total`` suffix and a ``_created`` sample, histograms ``_bucket``/``_count``/``_sum``;
every series has the labels ``model_name`` and ``engine`` (the data-parallel engine).
"""
import math
import threading
import time

from vllm.version import at_least

TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0,
                2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
TPOT_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5,
                5.0, 7.5, 10.0, 20.0, 40.0, 80.0]
LATENCY_BUCKETS = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0,
                   50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
FINISH_REASONS = ("stop", "length", "abort")


def _fmt(value):
    if value == math.inf:
        return "+Inf"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return "%.1f" % value
    return repr(float(value))


def _labels(pairs):
    return "{" + ",".join('%s="%s"' % (k, str(v).replace('"', '\\"')) for k, v in pairs) + "}"


def _build_1_2_5_buckets(max_value):
    buckets, exponent = [], 0
    while True:
        for mantissa in (1, 2, 5):
            value = mantissa * 10 ** exponent
            if value <= max_value:
                buckets.append(value)
            else:
                return [float(b) for b in buckets]
        exponent += 1


class _Histogram:
    def __init__(self, buckets):
        self.bounds = list(buckets) + [math.inf]
        self.counts = [0] * len(self.bounds)
        self.total = 0.0
        self.created = time.time()

    def observe(self, value):
        for i, bound in enumerate(self.bounds):
            if value <= bound:
                self.counts[i] += 1
        self.total += value


class _Engine:
    def __init__(self, max_model_len):
        now = time.time()
        self.running = 0
        self.waiting = 0
        self.prompt_tokens = 0.0
        self.generation_tokens = 0.0
        self.counter_created = now
        self.success = {reason: 0.0 for reason in FINISH_REASONS}
        self.ttft = _Histogram(TTFT_BUCKETS)
        self.tpot = _Histogram(TPOT_BUCKETS)
        self.e2e = _Histogram(LATENCY_BUCKETS)
        self.prompt_hist = _Histogram(_build_1_2_5_buckets(max_model_len))
        self.generation_hist = _Histogram(_build_1_2_5_buckets(max_model_len))


class Metrics:
    def __init__(self, model_name, engine_count=1, max_model_len=2048):
        self.model_name = model_name
        self.lock = threading.Lock()
        self.engines = [_Engine(max_model_len) for _ in range(max(1, engine_count))]
        self._next = 0

    def pick_engine(self):
        with self.lock:
            index = self._next % len(self.engines)
            self._next += 1
            return index

    def waiting(self, engine, delta):
        with self.lock:
            self.engines[engine].waiting += delta

    def running(self, engine, delta):
        with self.lock:
            self.engines[engine].running += delta

    def finished(self, engine, prompt_tokens, generation_tokens, ttft, e2e, finish_reason):
        with self.lock:
            e = self.engines[engine]
            e.prompt_tokens += prompt_tokens
            e.generation_tokens += generation_tokens
            e.success[finish_reason if finish_reason in e.success else "stop"] += 1
            e.ttft.observe(ttft)
            if generation_tokens > 1:
                e.tpot.observe(max(0.0, e2e - ttft) / (generation_tokens - 1))
            e.e2e.observe(e2e)
            e.prompt_hist.observe(prompt_tokens)
            e.generation_hist.observe(generation_tokens)

    # ------------------------------------------------------------------ rendering
    def render(self):
        with self.lock:
            return self._render()

    def _series(self, index):
        return [("model_name", self.model_name), ("engine", str(index))]

    def _render(self):
        out = []

        def gauge(name, doc, getter):
            out.append(f"# HELP {name} {doc}")
            out.append(f"# TYPE {name} gauge")
            for i, e in enumerate(self.engines):
                out.append(f"{name}{_labels(self._series(i))} {_fmt(float(getter(e)))}")

        def counter(name, doc, getter, extra=None):
            out.append(f"# HELP {name}_total {doc}")
            out.append(f"# TYPE {name}_total counter")
            rows = []
            for i, e in enumerate(self.engines):
                for extra_labels, value in (extra(e) if extra else [([], getter(e))]):
                    labels = _labels(self._series(i) + extra_labels)
                    out.append(f"{name}_total{labels} {_fmt(float(value))}")
                    rows.append((labels, e.counter_created))
            out.append(f"# HELP {name}_created {doc}")
            out.append(f"# TYPE {name}_created gauge")
            for labels, created in rows:
                out.append(f"{name}_created{labels} {_fmt(created)}")

        def histogram(name, doc, getter):
            out.append(f"# HELP {name} {doc}")
            out.append(f"# TYPE {name} histogram")
            for i, e in enumerate(self.engines):
                h = getter(e)
                series = self._series(i)
                for bound, count in zip(h.bounds, h.counts):
                    labels = _labels(series + [("le", _fmt(float(bound)))])
                    out.append(f"{name}_bucket{labels} {_fmt(float(count))}")
                out.append(f"{name}_count{_labels(series)} {_fmt(float(h.counts[-1]))}")
                out.append(f"{name}_sum{_labels(series)} {_fmt(h.total)}")
            out.append(f"# HELP {name}_created {doc}")
            out.append(f"# TYPE {name}_created gauge")
            for i, e in enumerate(self.engines):
                out.append(f"{name}_created{_labels(self._series(i))} {_fmt(getter(e).created)}")

        gauge("vllm:num_requests_running",
              "Number of requests in model execution batches.", lambda e: e.running)
        gauge("vllm:num_requests_waiting",
              "Number of requests waiting to be processed.", lambda e: e.waiting)
        if at_least(0, 10, 0):
            gauge("vllm:kv_cache_usage_perc",
                  "KV-cache usage. 1 means 100 percent usage.", lambda e: 0.0)
        else:
            gauge("vllm:gpu_cache_usage_perc",
                  "GPU KV-cache usage. 1 means 100 percent usage.", lambda e: 0.0)
        counter("vllm:prompt_tokens", "Number of prefill tokens processed.",
                lambda e: e.prompt_tokens)
        counter("vllm:generation_tokens", "Number of generation tokens processed.",
                lambda e: e.generation_tokens)
        counter("vllm:request_success", "Count of successfully processed requests.", None,
                extra=lambda e: [([("finished_reason", r)], v) for r, v in e.success.items()])
        histogram("vllm:request_prompt_tokens", "Number of prefill tokens processed.",
                  lambda e: e.prompt_hist)
        histogram("vllm:request_generation_tokens", "Number of generation tokens processed.",
                  lambda e: e.generation_hist)
        histogram("vllm:time_to_first_token_seconds",
                  "Histogram of time to first token in seconds.", lambda e: e.ttft)
        histogram("vllm:time_per_output_token_seconds",
                  "Histogram of time per output token in seconds.", lambda e: e.tpot)
        histogram("vllm:e2e_request_latency_seconds",
                  "Histogram of e2e request latency in seconds.", lambda e: e.e2e)
        return "\n".join(out) + "\n"
