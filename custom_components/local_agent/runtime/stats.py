"""Figures about the loaded models and their agents, for diagnostics and system health."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from dataclasses import dataclass
from typing import Any

from custom_components.local_agent.engine.generation import GenerationCounts
from custom_components.local_agent.turn.report import TurnReport
from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers import entity_registry as er


@dataclass(slots=True)
class AgentStats(GenerationCounts):
    """One agent's figures since its model entry was set up (kept in the entry's runtime data).

    Its token and generation counts are the sums over its turns' reports.
    """

    turns: int = 0
    failed_turns: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    last_turn: TurnReport | None = None

    def record(self, report: TurnReport, *, failed: bool) -> None:
        """Count one turn from its report."""
        self.turns += 1
        self.failed_turns += int(failed)
        self.tool_calls += report.tool_calls
        self.tool_errors += report.tool_errors
        self.add_counts(report)
        self.last_turn = report

    def totals(self) -> dict[str, Any]:
        """Return the counters, without the last turn."""
        return {key: value for key, value in asdict(self).items() if key != "last_turn"}


@dataclass(frozen=True, slots=True)
class AgentTurn:
    """The last turn of one agent."""

    entity_id: str
    report: TurnReport


@callback
def async_agent_stats(hass: HomeAssistant, entry: ConfigEntry) -> dict[str, AgentStats]:
    """Return the figures of each agent of a loaded entry that answered, by entity id."""
    held: Mapping[str, AgentStats] = getattr(
        getattr(entry, "runtime_data", None), "agent_stats", {}
    )
    found: dict[str, AgentStats] = {}
    for registered in er.async_entries_for_config_entry(er.async_get(hass), entry.entry_id):
        stats = held.get(registered.config_subentry_id or "")
        if stats is not None and stats.turns:
            found[registered.entity_id] = stats
    return found


@callback
def async_last_turns(hass: HomeAssistant, entry: ConfigEntry) -> list[AgentTurn]:
    """Return the last turn report of each agent of the entry that answered at least once."""
    return [
        AgentTurn(entity_id, stats.last_turn)
        for entity_id, stats in async_agent_stats(hass, entry).items()
        if stats.last_turn is not None
    ]


def tokens_per_second(stats: list[AgentStats]) -> float | None:
    """Return the generation speed over these agents' turns, None when they wrote nothing."""
    seconds = sum(agent.generation_seconds for agent in stats)
    if seconds <= 0:
        return None
    return sum(agent.generated_tokens for agent in stats) / seconds


def model_metadata(metadata: Mapping[str, str]) -> dict[str, str]:
    """Keep the descriptive GGUF keys (general.*, sizes), not the tokenizer or the template."""
    return {
        key: value
        for key, value in sorted(metadata.items())
        if key.startswith("general.") or key.endswith((".context_length", ".block_count"))
    }
