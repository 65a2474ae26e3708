"""Developer scripts (benchmarks live in scripts.benchmarks)."""
