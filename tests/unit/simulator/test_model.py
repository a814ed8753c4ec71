"""ascend_sim.model: small model directories shaped like Hugging Face checkpoints."""
import hashlib
import json
import os
import struct
import subprocess
import sys

import pytest

from ascend_sim import model as model_gen

SIM_DIR = os.path.dirname(os.path.dirname(model_gen.__file__))


def _read(path):
    with open(path, "rb") as handle:
        return handle.read()


def _json(directory, name):
    return json.loads(_read(os.path.join(directory, name)).decode("utf-8"))


@pytest.fixture(scope="module")
def qwen7b(tmp_path_factory):
    directory = str(tmp_path_factory.mktemp("m") / "DeepSeek-R1-Distill-Qwen-7B")
    model_gen.make(directory)
    return directory


def test_directory_holds_the_checkpoint_files(qwen7b):
    assert sorted(os.listdir(qwen7b)) == [
        "SHA256SUMS", "config.json", "generation_config.json", "model.safetensors",
        "tokenizer.json", "tokenizer_config.json"]


def test_config_is_the_qwen2_config_of_r1_distill_7b(qwen7b):
    config = _json(qwen7b, "config.json")
    assert config["architectures"] == ["Qwen2ForCausalLM"]
    assert config["model_type"] == "qwen2"
    expected = {"hidden_size": 3584, "num_hidden_layers": 28, "num_attention_heads": 28,
                "num_key_value_heads": 4, "intermediate_size": 18944,
                "max_position_embeddings": 131072, "vocab_size": 152064,
                "rope_theta": 10000, "torch_dtype": "bfloat16", "tie_word_embeddings": False}
    assert {k: config[k] for k in expected} == expected
    generation = _json(qwen7b, "generation_config.json")
    assert (generation["temperature"], generation["top_p"]) == (0.6, 0.95)
    assert generation["eos_token_id"] == config["eos_token_id"] == 151643


def test_tokenizer_files_carry_the_deepseek_special_tokens(qwen7b):
    tok_cfg = _json(qwen7b, "tokenizer_config.json")
    assert tok_cfg["bos_token"] == "<｜begin▁of▁sentence｜>"
    assert tok_cfg["eos_token"] == "<｜end▁of▁sentence｜>"
    assert tok_cfg["add_bos_token"] is True
    assert "<｜User｜>" in tok_cfg["chat_template"]
    assert "<｜Assistant｜>" in tok_cfg["chat_template"]
    tokenizer = _json(qwen7b, "tokenizer.json")
    added = {t["content"]: t["id"] for t in tokenizer["added_tokens"]}
    assert added["<｜end▁of▁sentence｜>"] == 151643
    assert added["<｜begin▁of▁sentence｜>"] == 151646
    assert added["<think>"] == 151648
    assert tokenizer["model"]["type"] == "BPE"
    vocab = tokenizer["model"]["vocab"]
    assert sorted(vocab.values()) == list(range(len(vocab)))


def test_safetensors_file_is_valid(qwen7b):
    path = os.path.join(qwen7b, "model.safetensors")
    blob = _read(path)
    (header_len,) = struct.unpack("<Q", blob[:8])
    assert header_len % 8 == 0
    header = json.loads(blob[8:8 + header_len].decode("utf-8"))
    assert header.pop("__metadata__") == {"format": "pt"}
    assert set(header) == {"model.embed_tokens.weight", "model.norm.weight", "lm_head.weight"}
    data_len = len(blob) - 8 - header_len
    spans = sorted(tuple(t["data_offsets"]) for t in header.values())
    assert spans[0][0] == 0 and spans[-1][1] == data_len
    for (_, end), (start, _) in zip(spans, spans[1:]):
        assert end == start  # contiguous, no gaps or overlaps
    for tensor in header.values():
        assert tensor["dtype"] == "BF16"
        count = 1
        for dim in tensor["shape"]:
            count *= dim
        assert tensor["data_offsets"][1] - tensor["data_offsets"][0] == 2 * count
    assert abs(len(blob) - 64 * 1024) < 4 * 1024
    assert model_gen.read_safetensors_header(path) == (dict(header, __metadata__={
        "format": "pt"}), 8 + header_len)


def test_sha256sums_covers_every_other_file(qwen7b):
    lines = _read(os.path.join(qwen7b, "SHA256SUMS")).decode().splitlines()
    listed = {}
    for line in lines:
        digest, name = line.split("  ", 1)
        listed[name] = digest
    assert sorted(listed) == sorted(f for f in os.listdir(qwen7b) if f != "SHA256SUMS")
    for name, digest in listed.items():
        assert hashlib.sha256(_read(os.path.join(qwen7b, name))).hexdigest() == digest


def test_content_is_deterministic(tmp_path):
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    model_gen.make(a)
    model_gen.make(b)
    for name in os.listdir(a):
        assert _read(os.path.join(a, name)) == _read(os.path.join(b, name)), name


def test_rerun_rewrites_nothing_and_size_change_rewrites_only_weights(tmp_path):
    directory = str(tmp_path / "m")
    first = model_gen.make(directory, size_kb=32)
    assert {status for _, status in first} == {"written"}
    mtimes = {n: os.stat(os.path.join(directory, n)).st_mtime_ns for n in os.listdir(directory)}
    again = model_gen.make(directory, size_kb=32)
    assert {status for _, status in again} == {"unchanged"}
    assert mtimes == {n: os.stat(os.path.join(directory, n)).st_mtime_ns
                      for n in os.listdir(directory)}
    bigger = dict(model_gen.make(directory, size_kb=96))
    assert {n for n, s in bigger.items() if s == "written"} == {"model.safetensors", "SHA256SUMS"}
    assert abs(os.path.getsize(os.path.join(directory, "model.safetensors")) - 96 * 1024) < 4096


def test_w8a8_preset_adds_the_ascend_quantization_description(tmp_path):
    directory = str(tmp_path / "w8a8")
    model_gen.make(directory, name="DeepSeek-R1-W8A8")
    config = _json(directory, "config.json")
    assert config["architectures"] == ["DeepseekV3ForCausalLM"]
    assert "quantization_config" not in config
    description = _json(directory, "quant_model_description.json")
    assert description["model_quant_type"] == "W8A8"
    header, _ = model_gen.read_safetensors_header(os.path.join(directory, "model.safetensors"))
    assert set(description) - {"model_quant_type"} == set(header) - {"__metadata__"}
    assert "quant_model_description.json" in _read(os.path.join(directory, "SHA256SUMS")).decode()
    fp8 = str(tmp_path / "fp8")
    model_gen.make(fp8, name="DeepSeek-R1")
    assert _json(fp8, "config.json")["quantization_config"]["quant_method"] == "fp8"


def _cli(*args):
    env = dict(os.environ, PYTHONPATH=SIM_DIR)
    return subprocess.run([sys.executable, "-m", "ascend_sim.model"] + list(args), env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)


def test_cli_make_and_list(tmp_path):
    directory = str(tmp_path / "small")
    result = _cli("make", directory, "--name", "DeepSeek-R1-Distill-Qwen-1.5B", "--size-kb", "16")
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode().splitlines()
    assert len(out) == 6 and all(line.startswith("written ") for line in out)
    assert _json(directory, "config.json")["hidden_size"] == 1536
    assert abs(os.path.getsize(os.path.join(directory, "model.safetensors")) - 16384) < 4096
    result = _cli("make", directory, "--name", "DeepSeek-R1-Distill-Qwen-1.5B", "--size-kb", "16")
    assert all(line.startswith("unchanged ") for line in result.stdout.decode().splitlines())
    listed = _cli("list").stdout.decode().split()
    assert "DeepSeek-R1-Distill-Qwen-7B" in listed and "DeepSeek-R1-W8A8" in listed


@pytest.mark.parametrize("args", [["--name", "Llama-2"], ["--size-kb", "0"]])
def test_cli_rejects_bad_arguments(tmp_path, args):
    result = _cli("make", str(tmp_path / "x"), *args)
    assert result.returncode == 2
    assert not os.path.exists(str(tmp_path / "x"))


@pytest.fixture(scope="module")
def engine_model(tmp_path_factory):
    directory = str(tmp_path_factory.mktemp("e") / "DeepSeek-R1-Distill-Qwen-7B")
    model_gen.make(directory, engine=True)
    return directory


def test_engine_checkpoint_has_every_qwen2_weight_at_its_shape(engine_model):
    config = _json(engine_model, "config.json")
    assert config["architectures"] == ["Qwen2ForCausalLM"] and config["torch_dtype"] == "bfloat16"
    hidden, heads, kv = config["hidden_size"], config["num_attention_heads"], config["num_key_value_heads"]
    assert (hidden, heads, kv, config["num_hidden_layers"]) == (256, 4, 2, 2)
    assert hidden // heads == 64  # vLLM's CPU attention refuses a head size of 16
    header, start = model_gen.read_safetensors_header(os.path.join(engine_model, "model.safetensors"))
    assert header["model.layers.1.self_attn.k_proj.weight"]["shape"] == [kv * 64, hidden]
    assert header["model.layers.0.self_attn.q_proj.bias"]["shape"] == [heads * 64]
    assert header["model.layers.0.mlp.down_proj.weight"]["shape"] == [hidden, config["intermediate_size"]]
    assert header["lm_head.weight"]["shape"] == header["model.embed_tokens.weight"]["shape"] == [config["vocab_size"], hidden]
    assert len(header) - 1 == 2 + 2 * 12 + 1  # embed, lm_head, 12 per layer, final norm
    # The data section holds exactly the tensors, back to back.
    end = max(entry["data_offsets"][1] for name, entry in header.items() if name != "__metadata__")
    assert os.path.getsize(os.path.join(engine_model, "model.safetensors")) == start + end


def test_engine_checkpoint_values_are_small_finite_bf16(engine_model):
    path = os.path.join(engine_model, "model.safetensors")
    header, start = model_gen.read_safetensors_header(path)
    blob = _read(path)
    begin, finish = header["model.layers.0.self_attn.q_proj.weight"]["data_offsets"]
    for (bits,) in struct.iter_unpack("<H", blob[start + begin:start + finish]):
        value = struct.unpack("<f", struct.pack("<I", bits << 16))[0]
        assert 2 ** -8 <= abs(value) < 2 ** -4
    begin, finish = header["model.norm.weight"]["data_offsets"]
    assert set(struct.iter_unpack("<H", blob[start + begin:start + finish])) == {(0x3F80,)}  # 1.0


def test_engine_tokenizer_covers_every_byte_and_numbers_the_special_tokens_after(engine_model):
    tokenizer = _json(engine_model, "tokenizer.json")
    config = _json(engine_model, "config.json")
    vocab = tokenizer["model"]["vocab"]
    assert len({token for token in vocab if len(token) == 1}) == 256
    ids = {entry["content"]: entry["id"] for entry in tokenizer["added_tokens"]}
    assert min(ids.values()) == len(vocab) and max(ids.values()) < config["vocab_size"]
    assert config["eos_token_id"] == ids["<｜end▁of▁sentence｜>"]
    assert _json(engine_model, "generation_config.json")["bos_token_id"] == ids["<｜begin▁of▁sentence｜>"]
    assert "<｜Assistant｜>" in _json(engine_model, "tokenizer_config.json")["chat_template"]


def test_engine_checkpoint_manifest_and_refusal(engine_model, tmp_path):
    lines = _read(os.path.join(engine_model, "SHA256SUMS")).decode().splitlines()
    for line in lines:
        digest, name = line.split("  ")
        assert hashlib.sha256(_read(os.path.join(engine_model, name))).hexdigest() == digest
    with pytest.raises(ValueError, match="Qwen2 checkpoints only; DeepSeek-R1-W8A8 is DeepseekV3ForCausalLM"):
        model_gen.make(str(tmp_path / "v3"), name="DeepSeek-R1-W8A8", engine=True)


def test_engine_only_printable_tokens_have_output_rows(engine_model):
    path = os.path.join(engine_model, "model.safetensors")
    header, start = model_gen.read_safetensors_header(path)
    blob = _read(path)
    vocab = _json(engine_model, "tokenizer.json")["model"]["vocab"]
    rows, cols = header["lm_head.weight"]["shape"]
    begin = start + header["lm_head.weight"]["data_offsets"][0]
    zero = bytes(cols * 2)
    output_rows = [blob[begin + index * cols * 2:begin + (index + 1) * cols * 2] for index in range(rows)]
    live = {index for index in range(rows) if output_rows[index] != zero}
    # "!" .. "~" and the words; not a UTF-8 continuation byte, a control byte or a special token.
    assert live == {vocab[chr(byte)] for byte in range(0x21, 0x7F)} | {
        tid for token, tid in vocab.items() if len(token) > 1}
