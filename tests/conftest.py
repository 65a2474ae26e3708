"""Shared fixtures for all tests."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from testing.hub_server import FakeHub
from testing.hub_server import serve_hub
from testing.tokenizer import Tokenizer


@pytest.fixture(scope="session")
def qwen35_model_path() -> Path:
    """Tiny random-weight GGUF of the real ``qwen35`` architecture (built once, cached)."""
    from testing.model_files import ensure_qwen35_test_model

    return ensure_qwen35_test_model()


@pytest.fixture(scope="module")
def qwen35_tokenizer(qwen35_model_path: Path) -> Iterator[Tokenizer]:
    """The qwen35 test model's tokenizer (special tokens parsed, as the engine does)."""
    tokenizer = Tokenizer(qwen35_model_path)
    yield tokenizer
    tokenizer.close()


@pytest.fixture(scope="session")
def gemma_model_path() -> Path:
    """Real Gemma 3 270M Q4_K_M GGUF (assembled once from its packages, cached)."""
    from testing.model_files import ensure_gemma_model

    return ensure_gemma_model()


@pytest.fixture
def fake_hub(monkeypatch: pytest.MonkeyPatch, socket_enabled: None) -> Iterator[FakeHub]:
    """A local server that answers like the Hugging Face Hub; HF_ENDPOINT points at it.

    Sockets stay limited to 127.0.0.1 (pytest-socket's allow list): no test reaches the Hub.
    """
    from huggingface_hub import constants

    from custom_components.local_agent.models import store as model_store

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(model_store, "RETRY_WAIT", 0.0)
    with serve_hub() as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        yield hub
