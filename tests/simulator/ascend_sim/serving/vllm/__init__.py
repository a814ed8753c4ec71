"""vLLM: a high-throughput and memory-efficient inference engine for LLMs.

This is the stand-in build used by the collection's tests: the OpenAI-compatible server,
its command line and its start-up checks behave like the release named by
``__version__``; generation is deterministic text, not a model.
"""
from vllm.version import __version__, __version_tuple__  # noqa: F401
