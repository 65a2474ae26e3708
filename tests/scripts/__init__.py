"""Tests of the developer scripts (scripts/ask, scripts/bench prompt, testing/)."""
