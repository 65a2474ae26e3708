"""The scripted model of the behaviour tests: the one stand-in engine (testing/stand_in.py).

Only for deterministic behaviour tests; end-to-end tests load a real GGUF.
"""

from __future__ import annotations

from pathlib import Path

from custom_components.local_agent.engine.settings import EngineSettings
from testing.stand_in import Script
from testing.stand_in import SeenRequest
from testing.stand_in import StandInWorker
from testing.stand_in import answer
from testing.stand_in import call

__all__ = ["Script", "ScriptedWorker", "SeenRequest", "answer", "call"]


class ScriptedWorker(StandInWorker):
    """Answers each generation with the next queued output (by default: nothing more to say)."""

    def __init__(self, model_path: Path, settings: EngineSettings) -> None:
        """A model named "Scripted" on the bundled Qwen3.5 template."""
        super().__init__(
            model_path,
            settings,
            output=answer("I have nothing more to say."),
            name="Scripted",
            approximate_tokens=True,
        )
