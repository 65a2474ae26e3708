"""Shared fixtures for all tests."""

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def qwen35_model_path() -> Path:
    """Tiny random-weight GGUF of the real ``qwen35`` architecture (built once, cached)."""
    from tests.model_files import ensure_qwen35_test_model

    return ensure_qwen35_test_model()


@pytest.fixture(scope="session")
def gemma_model_path() -> Path:
    """Real Gemma 3 270M Q4_K_M GGUF (assembled once from its packages, cached)."""
    from tests.model_files import ensure_gemma_model

    return ensure_gemma_model()
