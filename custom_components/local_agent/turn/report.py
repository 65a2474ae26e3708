"""What one turn did and how it ended: the per-turn report diagnostics, scripts and tests read."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from custom_components.local_agent.engine.generation import GenerationCounts
from custom_components.local_agent.engine.generation import GenerationStats


class TurnEnd(Enum):
    """How a turn ended."""

    ANSWERED = "answered"
    ROUND_LIMIT = "round_limit"
    CONFIRMATION_ASKED = "confirmation_asked"
    REFUSED = "refused"
    FAILED = "failed"  # the model or its server failed
    TIMED_OUT = "timed_out"  # stopped at the turn's time limit


@dataclass(slots=True)
class TurnReport(GenerationCounts):
    """What one turn did: rounds, calls, tokens and seconds (the agent's last_report).

    Its token and generation counts are the sums over its rounds' generations.
    """

    rounds: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    last_finish_reason: str | None = None
    # The agent said what its plain actions did instead of another model round.
    plain_answer: bool = False
    tool_seconds: float = 0.0
    build_seconds: float = 0.0
    last: GenerationStats | None = None

    def add(self, stats: GenerationStats) -> None:
        """Add one generation's figures."""
        self.last = stats
        self.rounds += 1
        self.last_finish_reason = stats.finish_reason
        self.add_counts(stats)
