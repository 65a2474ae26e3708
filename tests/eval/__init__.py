"""Tests of the evaluation harness (scripts/eval) and its datasets (eval/homes)."""
