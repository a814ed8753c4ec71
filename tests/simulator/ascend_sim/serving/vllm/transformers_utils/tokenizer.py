"""A deterministic stand-in tokenizer.

Counting rule (documented in SERVING.md): a token is a special token of the model
(``<｜User｜>``, ``<think>`` ...), a run of word characters (letters, digits, ``_``), or a
single other non-space character. Completions prepend the BOS token when the model's
tokenizer_config.json sets ``add_bos_token`` (DeepSeek-R1-Distill does). Generated text
is made of plain words, so re-counting an answer gives its ``completion_tokens``.
"""
import hashlib
import re

from vllm.transformers_utils.config import read_json_if_present

DEFAULT_BOS = "<｜begin▁of▁sentence｜>"
DEFAULT_EOS = "<｜end▁of▁sentence｜>"
SPECIAL_TOKENS = (
    DEFAULT_BOS, DEFAULT_EOS, "<｜User｜>", "<｜Assistant｜>", "<｜▁pad▁｜>",
    "<think>", "</think>", "<|im_start|>", "<|im_end|>", "<|endoftext|>",
)
_TOKEN_RE = re.compile(
    "|".join(re.escape(t) for t in SPECIAL_TOKENS) + r"|\w+|[^\w\s]", re.UNICODE)

WORDS = (
    "the", "model", "answer", "reason", "step", "first", "then", "value", "so", "we",
    "find", "that", "result", "is", "number", "check", "again", "because", "sum", "each",
    "term", "gives", "total", "next", "consider", "case", "when", "equal", "two", "three",
    "four", "five", "thus", "final", "solution", "write", "simple", "form", "it", "holds",
    "for", "all", "inputs", "note", "also", "this", "means", "after", "compute", "part",
    "order", "point", "line", "set", "rule", "same", "way", "other", "side", "both",
    "hence", "done", "clear", "true",
)


def _text_of(token):
    if isinstance(token, dict):
        return token.get("content") or ""
    return token or ""


class Tokenizer:
    def __init__(self, model_dir=None):
        cfg = read_json_if_present(model_dir, "tokenizer_config.json") if model_dir else None
        cfg = cfg or {}
        self.bos_token = _text_of(cfg.get("bos_token")) or DEFAULT_BOS
        self.eos_token = _text_of(cfg.get("eos_token")) or DEFAULT_EOS
        self.add_bos_token = bool(cfg.get("add_bos_token", True))

    @staticmethod
    def tokenize(text):
        return _TOKEN_RE.findall(text)

    def count(self, text):
        return len(self.tokenize(text))

    def prompt_tokens(self, text):
        return self.count(text) + (1 if self.add_bos_token else 0)

    def render_chat(self, messages):
        """DeepSeek-R1 chat layout: BOS, system text, then User/Assistant turns."""
        system = "".join(m["content"] for m in messages if m["role"] == "system")
        parts = [self.bos_token, system]
        for message in messages:
            role, content = message["role"], message["content"]
            if role == "system":
                continue
            if role == "assistant":
                parts.append("<｜Assistant｜>" + content + self.eos_token)
            else:
                parts.append("<｜User｜>" + content)
        parts.append("<｜Assistant｜>")
        return "".join(parts)


def generate_words(key, max_tokens, ignore_eos=False):
    """Deterministic continuation for *key*: (words, finish_reason).

    The natural answer length is 8..47 words, derived from the key; ``max_tokens``
    cuts it short with finish_reason ``length``.
    """
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    natural = 8 + digest[0] % 40
    if ignore_eos or natural >= max_tokens:
        count, reason = max_tokens, "length"
    else:
        count, reason = natural, "stop"
    words = []
    block = 0
    while len(words) < count:
        chunk = hashlib.sha256(digest + block.to_bytes(4, "big")).digest()
        for byte in chunk:
            words.append(WORDS[byte % len(WORDS)])
            if len(words) == count:
                break
        block += 1
    return words, reason
