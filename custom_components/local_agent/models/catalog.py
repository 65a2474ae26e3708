"""The models offered when adding Local Agent: all speak the Qwen3.5 tool-calling format."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final
from typing import Literal


@dataclass(frozen=True, slots=True)
class KnownModel:
    """A model offered in the setup list (size is indicative; the Hub's metadata decides)."""

    key: str
    repo_id: str
    filename: str
    approx_size: int
    title: str
    group: Literal["recommended", "other"]


# BotPsy's authors recommend Q8_0. The Qwen3.5 entries are other Qwen3.5-format models: same
# chat template and tool-call format, not tuned for tool calling. Their repository and file
# names follow the usual community GGUF naming and could not be checked from here (no network);
# a wrong name shows "file not found" and "Any Hugging Face file" remains.
KNOWN_MODELS: Final = (
    KnownModel(
        "botpsy_q8_0",
        "qvac/BotPsy-0.8B-GGUFs",
        "botpsy-0.8b-q8_0.gguf",
        810_000_000,
        "BotPsy-0.8B Q8_0",
        "recommended",
    ),
    KnownModel(
        "botpsy_q4_k_m",
        "qvac/BotPsy-0.8B-GGUFs",
        "botpsy-0.8b-q4_k_m.gguf",
        530_000_000,
        "BotPsy-0.8B Q4_K_M",
        "recommended",
    ),
    KnownModel(
        "qwen35_0_8b_q8_0",
        "unsloth/Qwen3.5-0.8B-GGUF",
        "Qwen3.5-0.8B-Q8_0.gguf",
        810_000_000,
        "Qwen3.5-0.8B Q8_0",
        "other",
    ),
    KnownModel(
        "qwen35_2b_q4_k_m",
        "unsloth/Qwen3.5-2B-GGUF",
        "Qwen3.5-2B-Q4_K_M.gguf",
        1_280_000_000,
        "Qwen3.5-2B Q4_K_M",
        "other",
    ),
)
DEFAULT_MODEL: Final = KNOWN_MODELS[0]


def known_model(key: str) -> KnownModel | None:
    """Return the known model with this key."""
    return next((model for model in KNOWN_MODELS if model.key == key), None)
