"""Models are named after what their GGUF header says, not after their file."""

from __future__ import annotations

from pathlib import Path

import pytest

from custom_components.local_agent.engine.gguf_file import GgufHeader
from custom_components.local_agent.engine.gguf_file import read_gguf_header
from custom_components.local_agent.flows.model import file_title

Q8_0, Q4_K_M, F32 = 7, 15, 0


@pytest.mark.parametrize(
    ("name", "size_label", "file_type", "title"),
    [
        ("Gemma 3 270m", "270M", Q4_K_M, "Gemma 3 270M Q4_K_M"),
        ("BotPsy-0.8B", "0.8B", Q8_0, "BotPsy-0.8B Q8_0"),
        ("Qwen3.5", "0.8B", Q8_0, "Qwen3.5 0.8B Q8_0"),
        ("botpsy 0.8b q8_0", "0.8B", Q8_0, "botpsy 0.8B Q8_0"),
        ("  Tiny   model ", None, F32, "Tiny model F32"),
        ("Odd", None, 1234, "Odd"),
        ("Qwen3.5-0.8B", "0.8", None, "Qwen3.5-0.8B 0.8"),
        ("", "0.8B", Q8_0, None),
        (None, "0.8B", Q8_0, None),
    ],
)
def test_title_is_name_size_and_quantization(
    name: str | None, size_label: str | None, file_type: int | None, title: str | None
) -> None:
    header = GgufHeader(3, 1, "qwen35", name, size_label, file_type)
    assert header.title() == title


def test_real_files_are_named_by_their_metadata(
    gemma_model_path: Path, qwen35_model_path: Path
) -> None:
    gemma = read_gguf_header(gemma_model_path)
    assert (gemma.name, gemma.size_label, gemma.quantization) == ("Gemma 3 270m", "270M", "Q4_K_M")
    assert file_title(gemma_model_path) == "Gemma 3 270M Q4_K_M"
    assert file_title(qwen35_model_path) == (
        "Local Agent tiny Qwen3.5 test model (random weights) F32"
    )


def test_a_file_without_a_name_is_named_after_the_file(tmp_path: Path) -> None:
    nameless = tmp_path / "my-model.Q4_K_M.gguf"
    nameless.write_bytes(b"GGUF" + bytes(60))
    assert file_title(nameless) == "my-model.Q4_K_M"


def test_the_header_says_the_context_the_model_was_trained_for(
    qwen35_model_path: Path, tmp_path: Path
) -> None:
    """The engine options refuse a fixed context past it (flows/model.py)."""
    assert read_gguf_header(qwen35_model_path).context_length == 32768
    nameless = tmp_path / "empty.gguf"
    nameless.write_bytes(b"GGUF" + bytes(60))
    assert read_gguf_header(nameless).context_length is None
