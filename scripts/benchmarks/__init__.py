"""Benchmarks run by scripts/bench; kept apart from the tests."""
