"""An automatic context size: as large as the home's prompt needs, as small as memory asks.

The context's memory is the attention cache: per token, for each layer with attention, a key
and a value per KV head (16-bit). Qwen3.5 has attention only in every 4th layer (the others
are Gated DeltaNet, whose recurrent state does not grow with the context), so BotPsy-0.8B
needs 12 KiB per token: a 32k-token context costs about 400 MB.
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


def _number(metadata: Mapping[str, str], key: str) -> int | None:
    value = metadata.get(key)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        return None


def kv_bytes_per_token(metadata: Mapping[str, str]) -> int:
    """Bytes of attention cache per context token, from the model's GGUF metadata."""
    architecture = metadata.get("general.architecture", "")
    layers = _number(metadata, f"{architecture}.block_count")
    heads = _number(metadata, f"{architecture}.attention.head_count")
    kv_heads = _number(metadata, f"{architecture}.attention.head_count_kv") or heads
    embedding = _number(metadata, f"{architecture}.embedding_length")
    if not layers or not kv_heads or not heads or not embedding:
        return FALLBACK_BYTES_PER_TOKEN
    key_length = _number(metadata, f"{architecture}.attention.key_length") or embedding // heads
    value_length = _number(metadata, f"{architecture}.attention.value_length") or key_length
    interval = _number(metadata, f"{architecture}.full_attention_interval") or 1
    attention_layers = max(layers // interval, 1)
    return attention_layers * kv_heads * (key_length + value_length) * _F16_BYTES


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
