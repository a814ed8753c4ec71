"""``vllm bench`` benchmarks (only ``serve`` in this build)."""
