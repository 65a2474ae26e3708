"""8-bit keys in the attention cache: where the engine uses them, what they cost, and that a
restored 8-bit prefix is read back instead of evaluated again."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
import threading

import llama_cpp
import pytest

from custom_components.local_agent.engine.generation import GenerationRequest
from custom_components.local_agent.engine.local.context_size import (
    keys_quantizable,
    kv_bytes_per_token,
)
from custom_components.local_agent.engine.local.llama import key_cache_type
from custom_components.local_agent.engine.local.prefix_store import SUFFIX
from custom_components.local_agent.engine.types import Conversation, Message

from .runtime_support import GREEDY, STATIC_SYSTEM, TEST_SETTINGS, TOOLS, RecordingModel

# BotPsy-0.8B's attention as its GGUF states it (Qwen3.5: attention in every 4th layer).
BOTPSY = {
    "general.architecture": "qwen35",
    "qwen35.block_count": "24",
    "qwen35.full_attention_interval": "4",
    "qwen35.attention.head_count": "8",
    "qwen35.attention.head_count_kv": "2",
    "qwen35.attention.key_length": "256",
    "qwen35.attention.value_length": "256",
    "qwen35.embedding_length": "1024",
}
DISABLED = int(llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED)


def test_eight_bit_keys_take_a_quarter_less_of_the_cache() -> None:
    # 6 attention layers x 2 KV heads x (key + value): 256 x 2 bytes each at 16 bits,
    # the key as 8 blocks of 34 bytes at 8 bits.
    assert kv_bytes_per_token(BOTPSY) == 6 * 2 * (512 + 512) == 12_288
    assert kv_bytes_per_token(BOTPSY, quantized_keys=True) == 6 * 2 * (272 + 512) == 9_408


@pytest.mark.parametrize(
    ("changes", "quantizable"),
    [
        ({}, True),
        ({"qwen35.attention.key_length": "16"}, False),  # half a block per head
        ({"qwen35.attention.key_length": "80"}, False),
        ({"qwen35.attention.key_length": None, "qwen35.embedding_length": "1024"}, True),
        ({"qwen35.attention.head_count": None}, False),  # the file does not say enough
    ],
)
def test_keys_are_quantized_only_where_each_head_is_whole_blocks(
    changes: dict[str, str | None], quantizable: bool
) -> None:
    metadata = {**BOTPSY, **changes}
    metadata = {key: value for key, value in metadata.items() if value is not None}
    assert keys_quantizable(metadata) is quantizable
    expected = llama_cpp.GGML_TYPE_Q8_0 if quantizable else llama_cpp.GGML_TYPE_F16
    assert key_cache_type(llama_cpp, True, DISABLED, metadata) == expected


def test_keys_stay_sixteen_bit_with_flash_attention_or_when_not_wanted() -> None:
    enabled = int(llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED)
    automatic = int(llama_cpp.LLAMA_FLASH_ATTN_TYPE_AUTO)
    assert key_cache_type(llama_cpp, True, enabled, BOTPSY) == llama_cpp.GGML_TYPE_F16
    assert key_cache_type(llama_cpp, True, automatic, BOTPSY) == llama_cpp.GGML_TYPE_F16
    assert key_cache_type(llama_cpp, False, DISABLED, BOTPSY) == llama_cpp.GGML_TYPE_F16


# --- Gemma 3 270M (256-value heads): real 8-bit keys ---------------------------------------

HOME = Conversation(
    system=STATIC_SYSTEM
    + "\nHome:\n"
    + "\n".join(f"light.room_{number} 'Room {number} Light': off" for number in range(40))
)


def _turn() -> GenerationRequest:
    asked = replace(HOME, messages=(Message("user", "Turn on the room 3 light"),))
    return GenerationRequest(asked, tools=TOOLS, sampling=GREEDY, max_tokens=16)


def _open(path: Path, store: Path | None, quantized: bool) -> RecordingModel:
    settings = replace(TEST_SETTINGS, prefix_store=store, quantized_key_cache=quantized)
    model = RecordingModel(path, settings)
    return model


def test_a_saved_prefix_with_eight_bit_keys_is_smaller_and_is_restored(
    gemma_model_path: Path, tmp_path: Path
) -> None:
    sizes: dict[bool, int] = {}
    for quantized in (False, True):
        folder = tmp_path / str(quantized)
        model = _open(gemma_model_path, folder, quantized)
        try:
            assert model.info.key_cache == ("q8_0" if quantized else "f16")
            model.warm(HOME, TOOLS, threading.Event(), room=64)
        finally:
            model.close()
        (saved,) = folder.glob(f"*{SUFFIX}")
        sizes[quantized] = saved.stat().st_size
    # Gemma's attention cache is most of its saved state; its keys shrink by 47 %.
    assert sizes[True] < sizes[False] * 0.85

    restarted = _open(gemma_model_path, tmp_path / "True", True)
    try:
        restored = restarted.generate(_turn())
    finally:
        restarted.close()
    # Read back from disk, not evaluated again. (Gemma's logits depend on how the prompt was
    # split into batches, so bit-identity with a fresh evaluation is the qwen35 model's test.)
    assert restored.stats.prefix_from_disk
    assert restored.stats.cached_tokens > restored.stats.prompt_tokens // 2
    assert restored.stats.generated_tokens > 0
