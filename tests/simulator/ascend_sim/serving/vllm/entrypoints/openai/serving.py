"""/v1/completions and /v1/chat/completions.

Requests are validated as vLLM validates them (model name, sampling parameters, context
length); the answer is deterministic text derived from the prompt and the seed, with
usage counted by the documented tokenizer rule (see vllm.transformers_utils.tokenizer).
"""
import contextlib
import json
import re
import threading
import time

from vllm import envs
from vllm.entrypoints.openai.protocol import (RequestError, usage, validation_error)
from vllm.transformers_utils.tokenizer import Tokenizer, generate_words
from vllm.utils import random_uuid

_PIECE_RE = re.compile(r"\s*\S+")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _split_pieces(text):
    """Stream pieces (one per token, leading whitespace attached) that join to *text*."""
    pieces = _PIECE_RE.findall(text)
    rest = text[len("".join(pieces)):]
    if rest:
        if pieces:
            pieces[-1] += rest
        else:
            pieces = [rest]
    return pieces


def sse(obj):
    return "data: " + json.dumps(obj, ensure_ascii=False) + "\n\n"


SSE_DONE = "data: [DONE]\n\n"


class _Plan:
    """One choice to produce: its text split in pieces and the counts it reports."""

    def __init__(self, index, text, completion_tokens, finish_reason, stop_reason):
        self.index = index
        self.text = text
        self.pieces = _split_pieces(text)
        self.completion_tokens = completion_tokens
        self.finish_reason = finish_reason
        self.stop_reason = stop_reason


class OpenAIServing:
    def __init__(self, vllm_config, metrics, ready=lambda: (True, None)):
        self.model_config = vllm_config.model_config
        self.served = list(self.model_config.served_model_name)
        self.max_model_len = self.model_config.max_model_len
        self.default_seed = self.model_config.seed
        self.tokenizer = Tokenizer(self.model_config.tokenizer)
        self.metrics = metrics
        self.slots = threading.BoundedSemaphore(vllm_config.scheduler_config.max_num_seqs)
        self.ready = ready

    # ----------------------------------------------------------------- validation
    def check_model(self, body):
        model = body.get("model")
        if model is None:
            return self.served[0]
        if not isinstance(model, str) or model not in self.served:
            raise RequestError(f"The model `{model}` does not exist.",
                               err_type="NotFoundError", code=404, param="model")
        return model

    def _check_ready(self):
        ok, reason = self.ready()
        if not ok:
            raise RequestError(reason or "The engine is not ready.",
                               err_type="ServiceUnavailableError", code=503)

    @staticmethod
    def _sampling(body, chat):
        params = {}
        max_tokens = body.get("max_completion_tokens") if chat else None
        if max_tokens is None:
            max_tokens = body.get("max_tokens")
        if max_tokens is not None:
            if not _is_int(max_tokens):
                raise validation_error(["max_tokens"], "Input should be a valid integer",
                                       "int_type", max_tokens)
            if max_tokens < 1:
                raise RequestError(f"max_tokens must be at least 1, got {max_tokens}.",
                                   param="max_tokens")
        params["max_tokens"] = max_tokens
        n = body.get("n", 1)
        if n is None:
            n = 1
        if not _is_int(n):
            raise validation_error(["n"], "Input should be a valid integer", "int_type", n)
        if n < 1:
            raise RequestError(f"n must be at least 1, got {n}.", param="n")
        params["n"] = n
        temperature = body.get("temperature")
        if temperature is not None:
            if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
                raise validation_error(["temperature"], "Input should be a valid number",
                                       "float_type", temperature)
            if temperature < 0:
                raise RequestError(
                    f"temperature must be non-negative, got {float(temperature)}.",
                    param="temperature")
        top_p = body.get("top_p")
        if top_p is not None and (isinstance(top_p, bool)
                                  or not isinstance(top_p, (int, float))
                                  or not 0 < top_p <= 1):
            raise RequestError(f"top_p must be in (0, 1], got {top_p}.", param="top_p")
        seed = body.get("seed")
        if seed is not None and not _is_int(seed):
            raise validation_error(["seed"], "Input should be a valid integer", "int_type", seed)
        params["seed"] = seed
        stop = body.get("stop")
        if stop is None:
            stop = []
        elif isinstance(stop, str):
            stop = [stop]
        elif not (isinstance(stop, list) and all(isinstance(s, str) for s in stop)):
            raise validation_error(["stop"], "Input should be a valid string or list",
                                   "string_type", stop)
        params["stop"] = [s for s in stop if s]
        params["ignore_eos"] = bool(body.get("ignore_eos", False))
        stream = body.get("stream", False)
        if not isinstance(stream, bool) and stream is not None:
            raise validation_error(["stream"], "Input should be a valid boolean",
                                   "bool_type", stream)
        params["stream"] = bool(stream)
        options = body.get("stream_options") or {}
        if not isinstance(options, dict):
            raise validation_error(["stream_options"], "Input should be a valid dictionary",
                                   "dict_type", options)
        if options and not params["stream"]:
            raise RequestError("Stream options can only be defined when `stream=True`.")
        params["include_usage"] = bool(options.get("include_usage", False))
        return params

    def _check_length(self, token_num, max_tokens):
        limit = self.max_model_len
        if token_num >= limit:
            raise RequestError(
                f"This model's maximum context length is {limit} tokens. However, "
                f"your request has {token_num} input tokens. Please reduce the length "
                "of the input messages.", param="input_tokens")
        if max_tokens is not None and token_num + max_tokens > limit:
            raise RequestError(
                "'max_tokens' or 'max_completion_tokens' is too large: "
                f"{max_tokens}. This model's maximum context length is "
                f"{limit} tokens and your request has "
                f"{token_num} input tokens ({max_tokens} > {limit}"
                f" - {token_num}).", param="max_tokens")

    # ----------------------------------------------------------------- generation
    def _plan(self, key, seed, index, max_tokens, params, leading_space):
        words, reason = generate_words(f"{seed}|{index}|{key}", max_tokens,
                                       params["ignore_eos"])
        text = (" " if leading_space else "") + " ".join(words)
        stop_reason = None
        cut = None
        for stop in params["stop"]:
            pos = text.find(stop)
            if pos != -1 and (cut is None or pos < cut[0]):
                cut = (pos, stop)
        if cut is not None:
            text, reason, stop_reason = text[:cut[0]], "stop", cut[1]
        return _Plan(index, text, self.tokenizer.count(text), reason, stop_reason)

    @contextlib.contextmanager
    def _admitted(self, engine):
        """Hold one of --max-num-seqs slots; queued requests count as waiting."""
        self.metrics.waiting(engine, 1)
        try:
            self.slots.acquire()
        finally:
            self.metrics.waiting(engine, -1)
        self.metrics.running(engine, 1)
        try:
            yield
        finally:
            self.metrics.running(engine, -1)
            self.slots.release()

    def _emit(self, plans, prompt_tokens, engine, began):
        """Yield (plan, piece_index) as tokens are produced; records metrics at the end."""
        delay = envs.ASCEND_SIM_TOKEN_SECONDS
        first = None
        with self._admitted(engine):
            for plan in plans:
                for i in range(len(plan.pieces)):
                    if delay:
                        time.sleep(delay)
                    if first is None:
                        first = time.monotonic()
                    yield plan, i
        now = time.monotonic()
        generated = sum(p.completion_tokens for p in plans)
        self.metrics.finished(engine, prompt_tokens, generated,
                              (first or now) - began, now - began,
                              plans[0].finish_reason if plans else "stop")

    def _run(self, plans, prompt_tokens):
        engine = self.metrics.pick_engine()
        for _ in self._emit(plans, prompt_tokens, engine, time.monotonic()):
            pass

    # ----------------------------------------------------------------- completions
    def _prompts(self, body):
        if "prompt" not in body or body["prompt"] is None:
            raise validation_error(["prompt"], "Field required", "missing", body)
        prompt = body["prompt"]
        if isinstance(prompt, str):
            return [prompt]
        if isinstance(prompt, list) and prompt:
            if all(isinstance(p, str) for p in prompt):
                return list(prompt)
            if all(_is_int(t) for t in prompt):
                return [prompt]
            if all(isinstance(p, list) and p and all(_is_int(t) for t in p) for p in prompt):
                return list(prompt)
        raise validation_error(["prompt"], "Input should be a valid string or a list of "
                               "strings or token ids", "string_type", prompt)

    def completions(self, body):
        model = self.check_model(body)
        params = self._sampling(body, chat=False)
        prompts = self._prompts(body)
        self._check_ready()
        requests = []
        for prompt in prompts:
            if isinstance(prompt, str):
                token_num, key = self.tokenizer.prompt_tokens(prompt), prompt
            else:
                token_num, key = len(prompt), ",".join(str(t) for t in prompt)
            self._check_length(token_num, params["max_tokens"])
            max_tokens = params["max_tokens"] or min(16, self.max_model_len - token_num)
            requests.append((token_num, key, max_tokens))
        seed = self.default_seed if params["seed"] is None else params["seed"]
        request_id = f"cmpl-{random_uuid()}"
        created = int(time.time())
        batches = []
        for i, (token_num, key, max_tokens) in enumerate(requests):
            plans = [self._plan(key, seed, i * params["n"] + j, max_tokens, params, True)
                     for j in range(params["n"])]
            for j, plan in enumerate(plans):
                plan.index = i * params["n"] + j
            batches.append((token_num, plans))
        if params["stream"]:
            return "stream", self._stream_completions(request_id, created, model, batches,
                                                      params)
        choices, prompt_total, completion_total = [], 0, 0
        for token_num, plans in batches:
            self._run(plans, token_num)
            prompt_total += token_num
            for plan in plans:
                completion_total += plan.completion_tokens
                choices.append({"index": plan.index, "text": plan.text, "logprobs": None,
                                "finish_reason": plan.finish_reason,
                                "stop_reason": plan.stop_reason, "prompt_logprobs": None})
        return "json", {
            "id": request_id, "object": "text_completion", "created": created,
            "model": model, "choices": choices, "service_tier": None,
            "system_fingerprint": None, "usage": usage(prompt_total, completion_total),
            "kv_transfer_params": None,
        }

    def _stream_completions(self, request_id, created, model, batches, params):
        prompt_total = completion_total = 0
        for token_num, plans in batches:
            prompt_total += token_num
            engine = self.metrics.pick_engine()
            for plan in plans:
                completion_total += plan.completion_tokens
            for plan, i in self._emit(plans, token_num, engine, time.monotonic()):
                last = i == len(plan.pieces) - 1
                yield sse({"id": request_id, "object": "text_completion", "created": created,
                           "model": model, "choices": [{
                               "index": plan.index, "text": plan.pieces[i], "logprobs": None,
                               "finish_reason": plan.finish_reason if last else None,
                               "stop_reason": plan.stop_reason if last else None}]})
            for plan in plans:
                if not plan.pieces:
                    yield sse({"id": request_id, "object": "text_completion",
                               "created": created, "model": model, "choices": [{
                                   "index": plan.index, "text": "", "logprobs": None,
                                   "finish_reason": plan.finish_reason,
                                   "stop_reason": plan.stop_reason}]})
        if params["include_usage"]:
            yield sse({"id": request_id, "object": "text_completion", "created": created,
                       "model": model, "choices": [],
                       "usage": usage(prompt_total, completion_total)})
        yield SSE_DONE

    # ----------------------------------------------------------------- chat
    @staticmethod
    def _messages(body):
        messages = body.get("messages")
        if messages is None:
            raise validation_error(["messages"], "Field required", "missing", body)
        if not isinstance(messages, list) or not messages:
            raise validation_error(["messages"], "Input should be a non-empty list",
                                   "list_type", messages)
        result = []
        for i, message in enumerate(messages):
            if not isinstance(message, dict) or not isinstance(message.get("role"), str):
                raise validation_error(["messages", i, "role"], "Field required",
                                       "missing", message)
            content = message.get("content")
            if content is None:
                content = ""
            elif isinstance(content, list):
                texts = []
                for part in content:
                    if isinstance(part, dict) and part.get("type") == "text":
                        texts.append(str(part.get("text", "")))
                    elif isinstance(part, str):
                        texts.append(part)
                content = "\n".join(texts)
            elif not isinstance(content, str):
                raise validation_error(["messages", i, "content"],
                                       "Input should be a valid string", "string_type",
                                       content)
            result.append({"role": message["role"], "content": content})
        return result

    def chat(self, body):
        model = self.check_model(body)
        params = self._sampling(body, chat=True)
        messages = self._messages(body)
        self._check_ready()
        rendered = self.tokenizer.render_chat(messages)
        token_num = self.tokenizer.count(rendered)
        self._check_length(token_num, params["max_tokens"])
        max_tokens = params["max_tokens"] or (self.max_model_len - token_num)
        seed = self.default_seed if params["seed"] is None else params["seed"]
        plans = [self._plan(rendered, seed, j, max_tokens, params, False)
                 for j in range(params["n"])]
        request_id = f"chatcmpl-{random_uuid()}"
        created = int(time.time())
        if params["stream"]:
            return "stream", self._stream_chat(request_id, created, model, token_num, plans,
                                               params)
        self._run(plans, token_num)
        choices = [{
            "index": plan.index,
            "message": {"role": "assistant", "content": plan.text, "refusal": None,
                        "annotations": None, "audio": None, "function_call": None,
                        "tool_calls": [], "reasoning_content": None},
            "logprobs": None, "finish_reason": plan.finish_reason,
            "stop_reason": plan.stop_reason,
        } for plan in plans]
        return "json", {
            "id": request_id, "object": "chat.completion", "created": created,
            "model": model, "choices": choices, "service_tier": None,
            "system_fingerprint": None,
            "usage": usage(token_num, sum(p.completion_tokens for p in plans)),
            "prompt_logprobs": None, "kv_transfer_params": None,
        }

    def _stream_chat(self, request_id, created, model, token_num, plans, params):
        def chunk(index, delta, finish=None, stop_reason=None):
            return sse({"id": request_id, "object": "chat.completion.chunk",
                        "created": created, "model": model, "choices": [{
                            "index": index, "delta": delta, "logprobs": None,
                            "finish_reason": finish, "stop_reason": stop_reason}]})

        for plan in plans:
            yield chunk(plan.index, {"role": "assistant", "content": ""})
        engine = self.metrics.pick_engine()
        for plan, i in self._emit(plans, token_num, engine, time.monotonic()):
            last = i == len(plan.pieces) - 1
            yield chunk(plan.index, {"content": plan.pieces[i]},
                        plan.finish_reason if last else None,
                        plan.stop_reason if last else None)
        for plan in plans:
            if not plan.pieces:
                yield chunk(plan.index, {"content": ""}, plan.finish_reason, plan.stop_reason)
        if params["include_usage"]:
            yield sse({"id": request_id, "object": "chat.completion.chunk",
                       "created": created, "model": model, "choices": [],
                       "usage": usage(token_num, sum(p.completion_tokens for p in plans))})
        yield SSE_DONE
