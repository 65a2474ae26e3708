"""Typed engine errors, each with a message a user can act on."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""

    # Whether a turn that fails with it logs a warning: False where the user's settings are the
    # cause or where the backend has logged it already.
    warn_in_turn: ClassVar[bool] = True


class ModelFileMissingError(EngineError):
    """The model file does not exist."""

    def __init__(self, path: Path) -> None:
        """Name the missing file."""
        super().__init__(f"Model file not found: {path}")
        self.path = path


class NotAGgufError(EngineError):
    """The file is not a GGUF model."""

    def __init__(self, path: Path) -> None:
        """Name the file."""
        super().__init__(f"{path} is not a GGUF model file (wrong magic bytes)")
        self.path = path


class UnsupportedArchitectureError(EngineError):
    """llama.cpp does not know the model's architecture, or the file is damaged."""

    def __init__(self, path: Path, architecture: str | None) -> None:
        """Name the file and the architecture it declares."""
        arch = architecture or "unknown"
        super().__init__(
            f"llama.cpp could not load {path.name} (architecture '{arch}'): the architecture is "
            "unsupported by this llama-cpp-python build or the file is damaged"
        )
        self.path = path
        self.architecture = architecture


class ContextTooSmallError(EngineError):
    """The prompt does not fit in the context window."""

    warn_in_turn = False

    def __init__(self, prompt_tokens: int, n_ctx: int, reserve: int) -> None:
        """Name the sizes involved."""
        super().__init__(
            f"The prompt needs {prompt_tokens} tokens plus {reserve} for the answer, but the "
            f"context window holds {n_ctx}: raise the context size or expose fewer entities"
        )
        self.prompt_tokens = prompt_tokens
        self.n_ctx = n_ctx
        self.reserve = reserve


class EngineOutOfMemoryError(EngineError):
    """llama.cpp could not allocate memory for the model or a batch."""

    def __init__(self, what: str) -> None:
        """Say what could not be allocated."""
        super().__init__(
            f"Out of memory while {what}: choose a smaller model or context size, or free memory"
        )


class GenerationCancelledError(EngineError):
    """The caller cancelled the generation."""

    def __init__(self) -> None:
        """Use a fixed message."""
        super().__init__("Generation cancelled")


class ModelUnloadedError(EngineError):
    """The model was unloaded (its entry reloaded or removed) before or while it answered."""

    # Home Assistant logs the reload or removal itself; the turn says what happened.
    warn_in_turn = False

    def __init__(self) -> None:
        """Use a fixed message."""
        super().__init__("The model was unloaded")


class GrammarError(EngineError):
    """llama.cpp rejected the tool-call grammar."""

    def __init__(self, reason: str) -> None:
        """Say why."""
        super().__init__(f"The tool-call grammar was rejected by llama.cpp: {reason}")
