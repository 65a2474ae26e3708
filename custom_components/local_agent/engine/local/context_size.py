"""An automatic context size: as large as the home's prompt needs, as small as memory asks.

The context's memory is the attention cache: per token, for each layer with attention, a key
and a value per KV head (values 16-bit, keys 16-bit or q8_0). Qwen3.5 has attention only in
every 4th layer (the others are Gated DeltaNet, whose recurrent state does not grow with the
context), so BotPsy-0.8B needs 12 KiB per token with 16-bit keys, 9 KiB with q8_0 keys: a
32k-token context costs about 400 or 300 MB.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

# Granularity of the automatic size, and room on top of what is needed now, so that a home
# growing by a few entities does not make the context grow again at once.
STEP_TOKENS: Final = 4096
HEADROOM_TOKENS: Final = 2048
# Memory left to everything else when the context is sized.
KEEP_FREE_BYTES: Final = 512 * 2**20
# When the model file does not say enough: the README's rule of thumb.
FALLBACK_BYTES_PER_TOKEN: Final = 32 * 2**10
_F16_BYTES: Final = 2
# Bytes a stored value takes by the cache's type (q8_0: blocks of 32 values in 34 bytes).
_VALUE_BYTES: Final[Mapping[str, float]] = {"f16": 2.0, "q8_0": 34 / 32}


def _number(metadata: Mapping[str, str], key: str) -> int | None:
    value = metadata.get(key)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return None


def key_length(metadata: Mapping[str, str]) -> int | None:
    """Return the attention's key length per head from GGUF metadata; None if it is unsaid."""
    architecture = metadata.get("general.architecture", "")
    if found := _number(metadata, f"{architecture}.attention.key_length"):
        return found
    heads = _number(metadata, f"{architecture}.attention.head_count")
    embedding = _number(metadata, f"{architecture}.embedding_length")
    return embedding // heads if heads and embedding else None


def kv_bytes_per_token(metadata: Mapping[str, str], key_cache: str = "f16") -> int:
    """Bytes of attention cache per context token, from the model's GGUF metadata.

    key_cache: how the keys are stored ("f16" or "q8_0"); values are 16-bit.
    """
    architecture = metadata.get("general.architecture", "")
    layers = _number(metadata, f"{architecture}.block_count")
    heads = _number(metadata, f"{architecture}.attention.head_count")
    kv_heads = _number(metadata, f"{architecture}.attention.head_count_kv") or heads
    keys = key_length(metadata)
    if not layers or not kv_heads or not heads or not keys:
        return FALLBACK_BYTES_PER_TOKEN
    value_length = _number(metadata, f"{architecture}.attention.value_length") or keys
    interval = _number(metadata, f"{architecture}.full_attention_interval") or 1
    attention_layers = max(layers // interval, 1)
    per_head = keys * _VALUE_BYTES[key_cache] + value_length * _F16_BYTES
    return int(attention_layers * kv_heads * per_head)


def automatic_context_size(
    needed: int, *, bytes_per_token: int, available: int, trained: int
) -> int:
    """Return the context for `needed` tokens: rounded up, within memory and training.

    available: bytes free for the context (the current context's own included).
    """
    wanted = -(-(needed + HEADROOM_TOKENS) // STEP_TOKENS) * STEP_TOKENS
    affordable = max(available - KEEP_FREE_BYTES, 0) // max(bytes_per_token, 1)
    limit = min(affordable, trained) if trained > 0 else affordable
    return max(min(wanted, limit // 256 * 256), 256)
