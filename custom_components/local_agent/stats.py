"""Figures about the loaded models and their agents, for diagnostics and system health."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, is_dataclass
from typing import Any

from homeassistant.components.conversation.const import DATA_COMPONENT
from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import entity_registry as er


@dataclass(frozen=True, slots=True)
class AgentTurn:
    """The last turn of one agent (a TurnReport of agent.py, as a dict)."""

    entity_id: str
    report: dict[str, Any]

    @property
    def generated_tokens(self) -> int:
        """Tokens the model wrote in the turn."""
        return int(self.report.get("generated_tokens", 0))

    @property
    def generation_seconds(self) -> float:
        """Seconds spent writing them."""
        return float(self.report.get("generation_seconds", 0.0))


@callback
def async_last_turns(hass: HomeAssistant, entry: ConfigEntry) -> list[AgentTurn]:
    """Return the last turn report of each agent of the entry that answered at least once."""
    component = hass.data.get(DATA_COMPONENT)
    if component is None:
        return []
    turns: list[AgentTurn] = []
    for registered in er.async_entries_for_config_entry(er.async_get(hass), entry.entry_id):
        entity = component.get_entity(registered.entity_id)
        report = getattr(getattr(entity, "agent", None), "last_report", None)
        if report is None:
            continue
        data = asdict(report) if is_dataclass(report) and not isinstance(report, type) else {}
        turns.append(AgentTurn(registered.entity_id, data))
    return turns


def tokens_per_second(turns: list[AgentTurn]) -> float | None:
    """Return the generation speed over these turns, None when they wrote nothing."""
    seconds = sum(turn.generation_seconds for turn in turns)
    if seconds <= 0:
        return None
    return sum(turn.generated_tokens for turn in turns) / seconds


def model_metadata(metadata: Mapping[str, str]) -> dict[str, str]:
    """Keep the descriptive GGUF keys (general.*, sizes), not the tokenizer or the template."""
    return {
        key: value
        for key, value in sorted(metadata.items())
        if key.startswith("general.") or key.endswith((".context_length", ".block_count"))
    }
