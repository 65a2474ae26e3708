"""Engine and sampling settings with the model card's defaults."""

from __future__ import annotations

from dataclasses import dataclass
import os
from pathlib import Path

import psutil

# An automatic context (n_ctx 0) starts with this many tokens and grows with the prompts.
AUTOMATIC_CONTEXT_START = 8192


def physical_cores() -> int:
    """Return the number of physical CPU cores (llama.cpp runs best with one thread each)."""
    return psutil.cpu_count(logical=False) or os.cpu_count() or 1


@dataclass(frozen=True, slots=True)
class EngineSettings:
    """How a model is loaded and its context created."""

    # 0: automatic (engine/local/context_size.py), as large as the prompts need.
    n_ctx: int = 8192
    n_threads: int | None = None
    n_batch: int = 512
    flash_attention: bool | None = None
    # How the attention cache stores keys: "auto", "f16" or "q8_0" (probe.key_cache_type).
    key_cache: str = "auto"
    use_mmap: bool = True
    # Bytes of saved prefix states (recurrent parts only), least recently used dropped first.
    # BotPsy-0.8B's recurrent state is about 19 MiB whatever the prompt length.
    checkpoint_memory: int = 160 * 2**20
    checkpoint_full_prompt: bool = True
    # Where evaluated prompt prefixes are saved for the next start (None: nowhere), and the
    # most bytes they may take there (engine/local/prefix_store.py).
    prefix_store: Path | None = None
    prefix_store_bytes: int = 2 * 2**30

    @property
    def automatic_context(self) -> bool:
        """Whether the context is sized by the prompts."""
        return self.n_ctx <= 0

    @property
    def initial_n_ctx(self) -> int:
        """The context created at load."""
        return AUTOMATIC_CONTEXT_START if self.automatic_context else self.n_ctx

    @property
    def threads(self) -> int:
        """Threads to use: the configured number or one per physical core."""
        return self.n_threads or physical_cores()


@dataclass(frozen=True, slots=True)
class SamplingSettings:
    """Sampling parameters; defaults are BotPsy-0.8B's model card values."""

    temperature: float = 0.3
    top_p: float = 0.95
    top_k: int = 20
    min_p: float = 0.0
    presence_penalty: float = 1.5
    seed: int | None = None

    @property
    def greedy(self) -> bool:
        """Whether sampling reduces to taking the most likely token."""
        return self.temperature <= 0.0
