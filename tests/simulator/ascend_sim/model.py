"""Small, deterministic model directories shaped like real Hugging Face checkpoints.

    python3 -m ascend_sim.model make DIR [--name DeepSeek-R1-Distill-Qwen-7B] [--size-kb 64]
    python3 -m ascend_sim.model list

The directory holds the model's real ``config.json`` and ``generation_config.json``, a
tokenizer (``tokenizer.json`` with the model's special tokens and a tiny vocabulary,
``tokenizer_config.json``), one ``model.safetensors`` of about ``--size-kb`` KiB (a valid
safetensors header followed by deterministic bytes; tensor shapes are scaled down, not
the model's) and ``SHA256SUMS`` in ``sha256sum`` format covering every other file.
Re-running with the same arguments rewrites nothing.
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


def _header_of(blob):
    (length,) = struct.unpack("<Q", blob[:8])
    return json.loads(blob[8:8 + length].decode("utf-8")), 8 + length


def make(directory, name=DEFAULT_NAME, size_kb=64):
    """Write the model directory; returns [(file, "written"|"unchanged")]."""
    files = model_files(name, size_kb)
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
    sub.add_parser("list", help="print the known model names")
    args = parser.parse_args(argv)
    if args.command == "list":
        for name in sorted(PRESETS):
            print(name)
        return 0
    if args.size_kb < 1:
        parser.error("--size-kb must be at least 1")
    for fname, status in make(args.directory, args.name, args.size_kb):
        print("%-9s %s" % (status, os.path.join(args.directory, fname)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
