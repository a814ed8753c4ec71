"""Small, deterministic model directories shaped like real Hugging Face checkpoints.

    python3 -m ascend_sim.model make DIR [--name DeepSeek-R1-Distill-Qwen-7B] [--size-kb 64]
    python3 -m ascend_sim.model list

The directory holds the model's real ``config.json`` and ``generation_config.json``, a
tokenizer (``tokenizer.json`` with the model's special tokens and a tiny vocabulary,
``tokenizer_config.json``), one ``model.safetensors`` of about ``--size-kb`` KiB (a valid
safetensors header followed by deterministic bytes; tensor shapes are scaled down, not
the model's) and ``SHA256SUMS`` in ``sha256sum`` format covering every other file.
Re-running with the same arguments rewrites nothing.

    python3 -m ascend_sim.model make DIR --engine [--name DeepSeek-R1-Distill-Qwen-7B]

``--engine`` writes a checkpoint the real vLLM engine loads and runs (on CPUs): the preset's
architecture and files (Qwen2ForCausalLM, bf16, ``LlamaTokenizerFast`` with the chat template)
at the size of a test - hidden size 256, 2 layers, 4 attention heads of 64 (vLLM's CPU attention
refuses a head size of 16), 2 key/value heads - with every weight the architecture has, at its
real shape, deterministic small bf16 values, and a byte-level vocabulary (the 256 byte symbols,
a few words, the special tokens numbered after them). Only printable ASCII and the words have
non-zero ``lm_head`` rows, so greedy decoding gives visible text (``_unreachable``). About 2.6 MB.
"""
import argparse
import hashlib
import json
import os
import struct
import sys

from .paths import write_if_changed

# DeepSeek-R1 family special tokens (ids as in the released tokenizers).
_DEEPSEEK_QWEN_SPECIAL = [
    (151643, "<｜end▁of▁sentence｜>"),
    (151644, "<｜User｜>"),
    (151645, "<｜Assistant｜>"),
    (151646, "<｜begin▁of▁sentence｜>"),
    (151647, "<|EOT|>"),
    (151648, "<think>"),
    (151649, "</think>"),
    (151650, "<|quad_start|>"),
    (151651, "<|quad_end|>"),
    (151652, "<|vision_start|>"),
    (151653, "<|vision_end|>"),
    (151654, "<|vision_pad|>"),
    (151655, "<|image_pad|>"),
    (151656, "<|video_pad|>"),
    (151657, "<tool_call>"),
    (151658, "</tool_call>"),
    (151659, "<|fim_prefix|>"),
    (151660, "<|fim_middle|>"),
    (151661, "<|fim_suffix|>"),
    (151662, "<|fim_pad|>"),
    (151663, "<|repo_name|>"),
    (151664, "<|file_sep|>"),
]
_DEEPSEEK_V3_SPECIAL = [
    (0, "<｜begin▁of▁sentence｜>"),
    (1, "<｜end▁of▁sentence｜>"),
    (2, "<｜▁pad▁｜>"),
    (128798, "<think>"),
    (128799, "</think>"),
    (128803, "<｜User｜>"),
    (128804, "<｜Assistant｜>"),
]

# Abridged form of the DeepSeek-R1 chat template: same turn markers and generation prompt.
_CHAT_TEMPLATE = (
    "{% if not add_generation_prompt is defined %}{% set add_generation_prompt = false %}"
    "{% endif %}{% set ns = namespace(system_prompt='') %}{%- for message in messages %}"
    "{%- if message['role'] == 'system' %}{% set ns.system_prompt = message['content'] %}"
    "{%- endif %}{%- endfor %}{{ bos_token }}{{ ns.system_prompt }}"
    "{%- for message in messages %}{%- if message['role'] == 'user' %}"
    "{{ '<｜User｜>' + message['content'] }}{%- endif %}"
    "{%- if message['role'] == 'assistant' and message['content'] is not none %}"
    "{% set content = message['content'] %}{% if '</think>' in content %}"
    "{% set content = content.split('</think>')[-1] %}{% endif %}"
    "{{ '<｜Assistant｜>' + content + '<｜end▁of▁sentence｜>' }}{%- endif %}{%- endfor %}"
    "{% if add_generation_prompt %}{{ '<｜Assistant｜><think>\\n' }}{% endif %}"
)

_QWEN2_7B = {
    "architectures": ["Qwen2ForCausalLM"],
    "attention_dropout": 0.0,
    "bos_token_id": 151643,
    "eos_token_id": 151643,
    "hidden_act": "silu",
    "hidden_size": 3584,
    "initializer_range": 0.02,
    "intermediate_size": 18944,
    "max_position_embeddings": 131072,
    "max_window_layers": 28,
    "model_type": "qwen2",
    "num_attention_heads": 28,
    "num_hidden_layers": 28,
    "num_key_value_heads": 4,
    "rms_norm_eps": 1e-06,
    "rope_theta": 10000,
    "sliding_window": 4096,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "transformers_version": "4.44.0",
    "use_cache": True,
    "use_mrope": False,
    "use_sliding_window": False,
    "vocab_size": 152064,
}

_QWEN2_1_5B = dict(_QWEN2_7B, hidden_size=1536, intermediate_size=8960, max_window_layers=21,
                   num_attention_heads=12, num_hidden_layers=28, num_key_value_heads=2,
                   vocab_size=151936)

_DEEPSEEK_V3 = {
    "architectures": ["DeepseekV3ForCausalLM"],
    "attention_bias": False,
    "attention_dropout": 0.0,
    "auto_map": {
        "AutoConfig": "configuration_deepseek.DeepseekV3Config",
        "AutoModel": "modeling_deepseek.DeepseekV3Model",
        "AutoModelForCausalLM": "modeling_deepseek.DeepseekV3ForCausalLM",
    },
    "aux_loss_alpha": 0.001,
    "bos_token_id": 0,
    "eos_token_id": 1,
    "ep_size": 1,
    "first_k_dense_replace": 3,
    "hidden_act": "silu",
    "hidden_size": 7168,
    "initializer_range": 0.02,
    "intermediate_size": 18432,
    "kv_lora_rank": 512,
    "max_position_embeddings": 163840,
    "model_type": "deepseek_v3",
    "moe_intermediate_size": 2048,
    "moe_layer_freq": 1,
    "n_group": 8,
    "n_routed_experts": 256,
    "n_shared_experts": 1,
    "norm_topk_prob": True,
    "num_attention_heads": 128,
    "num_experts_per_tok": 8,
    "num_hidden_layers": 61,
    "num_key_value_heads": 128,
    "num_nextn_predict_layers": 1,
    "q_lora_rank": 1536,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "rms_norm_eps": 1e-06,
    "rope_scaling": {
        "beta_fast": 32,
        "beta_slow": 1,
        "factor": 40,
        "mscale": 1.0,
        "mscale_all_dim": 1.0,
        "original_max_position_embeddings": 4096,
        "type": "yarn",
    },
    "rope_theta": 10000,
    "routed_scaling_factor": 2.5,
    "scoring_func": "sigmoid",
    "seq_aux": True,
    "tie_word_embeddings": False,
    "topk_group": 4,
    "topk_method": "noaux_tc",
    "torch_dtype": "bfloat16",
    "transformers_version": "4.46.3",
    "use_cache": True,
    "v_head_dim": 128,
    "vocab_size": 129280,
}

_FP8_QUANT = {
    "activation_scheme": "dynamic",
    "fmt": "e4m3",
    "quant_method": "fp8",
    "weight_block_size": [128, 128],
}

PRESETS = {
    "DeepSeek-R1-Distill-Qwen-7B": {
        "config": _QWEN2_7B,
        "generation": {"_from_model_config": True, "bos_token_id": 151646,
                       "eos_token_id": 151643, "do_sample": True, "temperature": 0.6,
                       "top_p": 0.95, "transformers_version": "4.39.3"},
        "special": _DEEPSEEK_QWEN_SPECIAL, "model_max_length": 16384,
        "tensors": ["model.embed_tokens.weight", "model.norm.weight", "lm_head.weight"],
    },
    "DeepSeek-R1-Distill-Qwen-1.5B": {
        "config": _QWEN2_1_5B,
        "generation": {"_from_model_config": True, "bos_token_id": 151646,
                       "eos_token_id": 151643, "do_sample": True, "temperature": 0.6,
                       "top_p": 0.95, "transformers_version": "4.39.3"},
        "special": _DEEPSEEK_QWEN_SPECIAL, "model_max_length": 16384,
        "tensors": ["model.embed_tokens.weight", "model.norm.weight", "lm_head.weight"],
    },
    # The Ascend W8A8 conversion of DeepSeek-R1: served with --quantization ascend, which
    # reads quant_model_description.json.
    "DeepSeek-R1-W8A8": {
        "config": _DEEPSEEK_V3,
        "generation": {"_from_model_config": True, "bos_token_id": 0, "eos_token_id": 1,
                       "do_sample": True, "temperature": 0.6, "top_p": 0.95,
                       "transformers_version": "4.46.3"},
        "special": _DEEPSEEK_V3_SPECIAL, "model_max_length": 131072,
        "tensors": ["model.embed_tokens.weight", "model.layers.0.self_attn.q_a_proj.weight",
                    "model.norm.weight", "lm_head.weight"],
        "quant_description": True,
    },
    # The original release keeps FP8 block-quantised weights, which Ascend cannot load.
    "DeepSeek-R1": {
        "config": dict(_DEEPSEEK_V3, quantization_config=_FP8_QUANT),
        "generation": {"_from_model_config": True, "bos_token_id": 0, "eos_token_id": 1,
                       "do_sample": True, "temperature": 0.6, "top_p": 0.95,
                       "transformers_version": "4.46.3"},
        "special": _DEEPSEEK_V3_SPECIAL, "model_max_length": 131072,
        "tensors": ["model.embed_tokens.weight", "model.norm.weight", "lm_head.weight"],
    },
}
DEFAULT_NAME = "DeepSeek-R1-Distill-Qwen-7B"

_VOCAB_WORDS = (
    "the", "model", "answer", "reason", "step", "first", "then", "value", "so", "we",
    "find", "that", "result", "is", "number", "check", "again", "because", "sum", "each",
)


def _dumps(obj):
    return (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _tokenizer_json(special):
    vocab = {}
    for i, ch in enumerate("!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                           "[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~"):
        vocab[ch] = i
    for word in _VOCAB_WORDS:
        vocab.setdefault(word, len(vocab))
        vocab.setdefault("\u0120" + word, len(vocab))
    return _dumps({
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [
            {"id": tid, "content": text, "single_word": False, "lstrip": False,
             "rstrip": False, "normalized": False, "special": True}
            for tid, text in special],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True,
                          "use_regex": True},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False,
                           "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True,
                    "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None,
                  "continuing_subword_prefix": None, "end_of_word_suffix": None,
                  "fuse_unk": False, "byte_fallback": False, "vocab": vocab, "merges": []},
    })


def _tokenizer_config(special, model_max_length):
    by_text = {text: tid for tid, text in special}
    bos = "<｜begin▁of▁sentence｜>"
    eos = "<｜end▁of▁sentence｜>"
    return _dumps({
        "add_bos_token": True,
        "add_eos_token": False,
        "added_tokens_decoder": {
            str(tid): {"content": text, "lstrip": False, "normalized": False,
                       "rstrip": False, "single_word": False, "special": True}
            for tid, text in special},
        "bos_token": bos,
        "chat_template": _CHAT_TEMPLATE,
        "clean_up_tokenization_spaces": False,
        "eos_token": eos,
        "legacy": True,
        "model_max_length": model_max_length,
        "pad_token": eos if eos in by_text else None,
        "sp_model_kwargs": {},
        "tokenizer_class": "LlamaTokenizerFast",
        "unk_token": None,
        "use_default_system_prompt": False,
    })


def _deterministic_bytes(seed, size):
    out = bytearray()
    counter = 0
    while len(out) < size:
        out += hashlib.sha256(seed + counter.to_bytes(8, "little")).digest()
        counter += 1
    return bytes(out[:size])


def safetensors_bytes(name, tensor_names, size_kb):
    """A valid safetensors file of about *size_kb* KiB holding BF16 tensors."""
    cols = 64
    norms = [t for t in tensor_names if t.endswith("norm.weight")]
    matrices = [t for t in tensor_names if t not in norms]
    # The header takes a few hundred bytes; the matrices share what the norms leave.
    budget = max(0, int(size_kb) * 1024 - 512 - len(norms) * cols * 2)
    rows = max(1, budget // max(1, len(matrices)) // (cols * 2))
    header = {"__metadata__": {"format": "pt"}}
    offset = 0
    for tensor in tensor_names:
        shape = [cols] if tensor in norms else [rows, cols]
        nbytes = 2
        for dim in shape:
            nbytes *= dim
        header[tensor] = {"dtype": "BF16", "shape": shape,
                          "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    raw += b" " * (-len(raw) % 8)  # keep the data section 8-byte aligned
    data = _deterministic_bytes(("%s|%d" % (name, size_kb)).encode("utf-8"), offset)
    return struct.pack("<Q", len(raw)) + raw + data


def read_safetensors_header(path):
    with open(path, "rb") as handle:
        (length,) = struct.unpack("<Q", handle.read(8))
        return json.loads(handle.read(length).decode("utf-8")), 8 + length


def model_files(name=DEFAULT_NAME, size_kb=64):
    """{relative file name: bytes} of the model directory, SHA256SUMS included."""
    if name not in PRESETS:
        raise KeyError(name)
    preset = PRESETS[name]
    files = {
        "config.json": _dumps(preset["config"]),
        "generation_config.json": _dumps(preset["generation"]),
        "tokenizer.json": _tokenizer_json(preset["special"]),
        "tokenizer_config.json": _tokenizer_config(preset["special"],
                                                   preset["model_max_length"]),
        "model.safetensors": safetensors_bytes(name, preset["tensors"], size_kb),
    }
    if preset.get("quant_description"):
        description = {"model_quant_type": "W8A8"}
        header, _ = _header_of(files["model.safetensors"])
        for tensor in sorted(k for k in header if k != "__metadata__"):
            description[tensor] = "W8A8" if "proj" in tensor else "FLOAT"
        files["quant_model_description.json"] = _dumps(description)
    files["SHA256SUMS"] = "".join(
        "%s  %s\n" % (hashlib.sha256(data).hexdigest(), fname)
        for fname, data in sorted(files.items())).encode("utf-8")
    return files


# The test size of an --engine checkpoint (head size 64: hidden 256 / 4 heads).
ENGINE_SHAPE = {"hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2,
                "num_attention_heads": 4, "num_key_value_heads": 2, "max_window_layers": 2}


def _byte_symbols():
    """The 256 symbols of a byte-level BPE alphabet (GPT-2's bytes_to_unicode), in byte order."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    symbols = {}
    extra = 0
    for byte in range(256):
        if byte in printable:
            symbols[byte] = chr(byte)
        else:
            symbols[byte] = chr(256 + extra)
            extra += 1
    return [symbols[byte] for byte in range(256)]


def _engine_vocab(special):
    """Byte symbols, then words, then the special tokens renumbered after them."""
    vocab = {}
    for symbol in _byte_symbols():
        vocab.setdefault(symbol, len(vocab))
    for word in _VOCAB_WORDS:
        vocab.setdefault("\u0120" + word, len(vocab))
    renumbered = [(len(vocab) + index, text) for index, (_, text) in enumerate(special)]
    return vocab, renumbered


def _unreachable(vocab, vocab_size):
    """Token ids greedy decoding must never pick: every id but printable ASCII and the words.

    A byte symbol of 0x80 and above is part of a multi-byte UTF-8 character, which vLLM's
    detokenizer holds back until the character is complete (a model repeating one gives an
    empty text); control bytes, the special tokens and the padding decode to nothing visible.
    """
    reachable = set(vocab[chr(byte)] for byte in range(0x21, 0x7F))
    reachable.update(tid for token, tid in vocab.items() if len(token) > 1)
    return [tid for tid in range(vocab_size) if tid not in reachable]


def _bf16_values(seed, count, norm=False):
    """``count`` bf16 values: 1.0 for norms, else small signed values (|x| in [2^-8, 2^-4))."""
    if norm:
        return struct.pack("<H", 0x3F80) * count
    raw = _deterministic_bytes(seed, count * 2)
    out = bytearray(count * 2)
    for index in range(count):
        low, high = raw[2 * index], raw[2 * index + 1]
        exponent = 119 + (high & 0x03)  # 2^-8 .. 2^-5, times a mantissa below 2
        bits = ((high & 0x80) << 8) | (exponent << 7) | (low & 0x7F)
        out[2 * index] = bits & 0xFF
        out[2 * index + 1] = bits >> 8
    return bytes(out)


def _qwen2_tensors(config):
    hidden, inter = config["hidden_size"], config["intermediate_size"]
    head = hidden // config["num_attention_heads"]
    q_out, kv_out = config["num_attention_heads"] * head, config["num_key_value_heads"] * head
    vocab = config["vocab_size"]
    tensors = [("model.embed_tokens.weight", [vocab, hidden])]
    for layer in range(config["num_hidden_layers"]):
        prefix = "model.layers.%d." % layer
        tensors += [
            (prefix + "input_layernorm.weight", [hidden]),
            (prefix + "post_attention_layernorm.weight", [hidden]),
            (prefix + "self_attn.q_proj.weight", [q_out, hidden]), (prefix + "self_attn.q_proj.bias", [q_out]),
            (prefix + "self_attn.k_proj.weight", [kv_out, hidden]), (prefix + "self_attn.k_proj.bias", [kv_out]),
            (prefix + "self_attn.v_proj.weight", [kv_out, hidden]), (prefix + "self_attn.v_proj.bias", [kv_out]),
            (prefix + "self_attn.o_proj.weight", [hidden, q_out]),
            (prefix + "mlp.gate_proj.weight", [inter, hidden]), (prefix + "mlp.up_proj.weight", [inter, hidden]),
            (prefix + "mlp.down_proj.weight", [hidden, inter]),
        ]
    return tensors + [("model.norm.weight", [hidden]), ("lm_head.weight", [vocab, hidden])]


def _engine_safetensors(name, tensors, unreachable=()):
    header = {"__metadata__": {"format": "pt"}}
    chunks = []
    offset = 0
    for tensor, shape in tensors:
        count = 1
        for dim in shape:
            count *= dim
        header[tensor] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + 2 * count]}
        values = _bf16_values(("%s|%s" % (name, tensor)).encode("utf-8"), count, tensor.endswith("norm.weight"))
        if tensor == "lm_head.weight" and unreachable:
            # Zero rows give those tokens a logit of exactly 0 while about half of the others
            # are above it: greedy decoding never picks one, so a completion is visible text
            # that runs to max_tokens.
            row = 2 * shape[1]
            values = bytearray(values)
            for token in unreachable:
                values[token * row:(token + 1) * row] = bytes(row)
            values = bytes(values)
        chunks.append(values)
        offset += 2 * count
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    raw += b" " * (-len(raw) % 8)
    return struct.pack("<Q", len(raw)) + raw + b"".join(chunks)


def engine_model_files(name=DEFAULT_NAME):
    """{file: bytes} of a checkpoint of the preset's architecture that vLLM runs (Qwen2 presets)."""
    preset = PRESETS[name]
    if preset["config"]["architectures"] != ["Qwen2ForCausalLM"]:
        raise ValueError("--engine makes Qwen2 checkpoints only; %s is %s"
                         % (name, ", ".join(preset["config"]["architectures"])))
    vocab, special = _engine_vocab(preset["special"])
    ids = dict((text, tid) for tid, text in special)
    size = len(vocab) + len(special)
    config = dict(preset["config"], vocab_size=size + (-size % 64), **ENGINE_SHAPE)
    bos, eos = ids["<｜begin▁of▁sentence｜>"], ids["<｜end▁of▁sentence｜>"]
    config.update(bos_token_id=bos, eos_token_id=eos)
    tokenizer = json.loads(_tokenizer_json(special).decode("utf-8"))
    tokenizer["model"]["vocab"] = vocab
    files = {
        "config.json": _dumps(config),
        "generation_config.json": _dumps(dict(preset["generation"], bos_token_id=bos, eos_token_id=eos)),
        "tokenizer.json": _dumps(tokenizer),
        "tokenizer_config.json": _tokenizer_config(special, preset["model_max_length"]),
        "model.safetensors": _engine_safetensors(name, _qwen2_tensors(config), _unreachable(vocab, config["vocab_size"])),
    }
    files["SHA256SUMS"] = "".join(
        "%s  %s\n" % (hashlib.sha256(data).hexdigest(), fname)
        for fname, data in sorted(files.items())).encode("utf-8")
    return files


def _header_of(blob):
    (length,) = struct.unpack("<Q", blob[:8])
    return json.loads(blob[8:8 + length].decode("utf-8")), 8 + length


def make(directory, name=DEFAULT_NAME, size_kb=64, engine=False):
    """Write the model directory; returns [(file, "written"|"unchanged")]."""
    files = engine_model_files(name) if engine else model_files(name, size_kb)
    os.makedirs(directory, exist_ok=True)
    report = []
    # SHA256SUMS goes last so an interrupted run never leaves a manifest that
    # vouches for files not yet written.
    for fname, data in sorted(files.items(), key=lambda kv: (kv[0] == "SHA256SUMS", kv[0])):
        report.append((fname, write_if_changed(os.path.join(directory, fname), data)))
    return report


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m ascend_sim.model",
                                     description="Generate small model directories.")
    sub = parser.add_subparsers(dest="command", required=True)
    make_p = sub.add_parser("make", help="write a model directory")
    make_p.add_argument("directory")
    make_p.add_argument("--name", default=DEFAULT_NAME, choices=sorted(PRESETS))
    make_p.add_argument("--size-kb", type=int, default=64,
                        help="approximate size of model.safetensors in KiB (default 64)")
    make_p.add_argument("--engine", action="store_true",
                        help="a small checkpoint the real vLLM engine loads and runs (Qwen2 presets)")
    sub.add_parser("list", help="print the known model names")
    args = parser.parse_args(argv)
    if args.command == "list":
        for name in sorted(PRESETS):
            print(name)
        return 0
    if args.size_kb < 1:
        parser.error("--size-kb must be at least 1")
    try:
        report = make(args.directory, args.name, args.size_kb, args.engine)
    except ValueError as exc:
        parser.error(str(exc))
    for fname, status in report:
        print("%-9s %s" % (status, os.path.join(args.directory, fname)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
