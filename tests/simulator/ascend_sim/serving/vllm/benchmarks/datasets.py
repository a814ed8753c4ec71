"""Dataset options of ``vllm bench serve`` and the ``random`` dataset.

Upstream (vllm/benchmarks/datasets) samples random token ids and decodes them with the model's
tokenizer; here a prompt is a run of the stand-in tokenizer's plain words, one token each, so
the server counts exactly the requested length (plus its BOS token). Only ``random`` can be
sampled; the other upstream names are accepted by the parser and refused when sampled.
"""
import argparse
import math
import os
import random
from dataclasses import dataclass
from typing import Optional

from vllm.transformers_utils.tokenizer import WORDS, Tokenizer

DATASET_NAMES = [
    "sharegpt", "burstgpt", "sonnet", "random", "random-mm", "random-rerank", "hf", "custom",
    "prefix_repetition", "spec_bench", "txt-slices",
]


@dataclass
class SampleRequest:
    prompt: str
    prompt_len: int
    expected_output_len: int
    request_id: Optional[str] = None


class _ValidateDatasetArgs(argparse.Action):
    """Upstream's check: the random dataset takes no --dataset-path."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, values)
        dataset_name = getattr(namespace, "dataset_name", "random")
        dataset_path = getattr(namespace, "dataset_path", None)
        if dataset_name == "random" and dataset_path is not None:
            parser.error(
                "Cannot use 'random' dataset with --dataset-path. "
                "Please specify the appropriate --dataset-name (e.g., "
                "'sharegpt', 'custom', 'sonnet') for your dataset file: "
                f"{dataset_path}")


def add_dataset_parser(parser):
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--num-prompts", type=int, default=1000,
                        help="Number of prompts to process.")
    parser.add_argument("--dataset-name", type=str, default="random",
                        action=_ValidateDatasetArgs, choices=DATASET_NAMES,
                        help="Name of the dataset to benchmark on.")
    parser.add_argument("--dataset-path", type=str, default=None, action=_ValidateDatasetArgs,
                        help="Path to the dataset file.")
    parser.add_argument("--no-stream", action="store_true")
    parser.add_argument("--no-oversample", action="store_true")
    parser.add_argument("--skip-chat-template", action="store_true")
    parser.add_argument("--disable-shuffle", action="store_true")
    group = parser.add_argument_group("random dataset options")
    group.add_argument("--random-input-len", type=int, default=1024,
                       help="Number of input tokens per request.")
    group.add_argument("--random-output-len", type=int, default=128,
                       help="Number of output tokens per request.")
    group.add_argument("--random-range-ratio", type=float, default=0.0,
                       help="Range ratio for sampling input/output length, in [0, 1).")
    group.add_argument("--random-prefix-len", type=int, default=0,
                       help="Number of fixed prefix tokens before the random context.")


def get_tokenizer(tokenizer_id):
    """The stand-in tokenizer of a local model directory. Nothing is downloaded: an id that is
    not a directory holding tokenizer files fails the way an unreachable hub id does."""
    if os.path.isdir(tokenizer_id) and any(
            os.path.isfile(os.path.join(tokenizer_id, name))
            for name in ("tokenizer_config.json", "tokenizer.json")):
        return Tokenizer(tokenizer_id)
    raise OSError(
        f"Can't load tokenizer for '{tokenizer_id}'. If you were trying to load it from "
        "the Hugging Face Hub, make sure you don't have a local directory with the "
        f"same name. Otherwise, make sure '{tokenizer_id}' is the correct path to a directory "
        "containing all relevant files for a LlamaTokenizerFast tokenizer.")


def _lengths(rng, base, ratio, count):
    if not 0 <= ratio < 1:
        raise ValueError("random_range_ratio must be in [0, 1).")
    low = math.floor(base * (1 - ratio))
    high = math.ceil(base * (1 + ratio))
    return [rng.randint(low, high) for _ in range(count)]


def sample_random(args, tokenizer):
    """``num_prompts`` prompts of ``random_prefix_len`` + ~``random_input_len`` tokens."""
    if args.num_prompts < 1:
        raise ValueError("num_prompts must be at least 1.")
    if args.random_input_len < 1 or args.random_output_len < 1:
        raise ValueError("random_input_len and random_output_len must be at least 1.")
    rng = random.Random(args.seed)
    prefix = [rng.choice(WORDS) for _ in range(args.random_prefix_len)]
    input_lens = _lengths(rng, args.random_input_len, args.random_range_ratio, args.num_prompts)
    output_lens = _lengths(rng, args.random_output_len, args.random_range_ratio, args.num_prompts)
    requests = []
    for i in range(args.num_prompts):
        words = prefix + [rng.choice(WORDS) for _ in range(input_lens[i])]
        prompt = " ".join(words)
        requests.append(SampleRequest(
            prompt=prompt, prompt_len=tokenizer.count(prompt) if tokenizer else len(words),
            expected_output_len=max(1, output_lens[i]),
            request_id=f"{args.request_id_prefix}{i}"))
    return requests


def get_samples(args, tokenizer):
    if args.dataset_name == "random":
        return sample_random(args, tokenizer)
    raise ValueError(f"Dataset {args.dataset_name!r} is not available in this build; "
                     "use --dataset-name random.")
