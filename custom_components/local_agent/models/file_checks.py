"""Checks on a GGUF model file the user points us at."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from custom_components.local_agent.engine.gguf_file import has_gguf_magic


class ModelFileProblem(StrEnum):
    """Why a path cannot be used as a model; values are translation keys."""

    NOT_FOUND = "model_not_found"
    NOT_A_FILE = "model_not_a_file"
    NOT_GGUF = "model_not_gguf"
    UNREADABLE = "model_unreadable"


def check_model_file(path: Path) -> ModelFileProblem | None:
    """Return what is wrong with the file at path, or None when it looks like a GGUF model.

    Blocking: call it from an executor.
    """
    if not path.exists():
        return ModelFileProblem.NOT_FOUND
    if not path.is_file():
        return ModelFileProblem.NOT_A_FILE
    try:
        is_gguf = has_gguf_magic(path)
    except OSError:
        return ModelFileProblem.UNREADABLE
    return None if is_gguf else ModelFileProblem.NOT_GGUF
