"""The calls a turn can make: a planned call of our own tools, or a call of an LLM API tool."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from types import MappingProxyType
from typing import Any

from homeassistant.helpers import llm


@dataclass(frozen=True, slots=True)
class ToolFailure:
    """A call refused before anything happened; the message is for the model."""

    message: str


@dataclass(frozen=True, slots=True)
class PlannedAction:
    """A validated call, exactly as it will be executed; `data` excludes entity_id.

    `domain` and `service` are None for the read-only `get_state` tool.
    """

    tool_name: str
    domain: str | None
    service: str | None
    entity_ids: tuple[str, ...]
    data: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Freeze the data so a stored (pending) action cannot be altered."""
        object.__setattr__(self, "data", MappingProxyType(dict(self.data)))

    @property
    def read_only(self) -> bool:
        """Return whether this action only reads states."""
        return self.service is None

    @property
    def targets(self) -> tuple[str, ...]:
        """The entities the call acts on."""
        return self.entity_ids


@dataclass(frozen=True, slots=True)
class ApiCall:
    """A call of a Home Assistant LLM API tool, with what the safety gate found it changes.

    `targets` are the entities it changes, resolved as Home Assistant's own handler resolves
    them; None when they cannot be known (a tool of unknown effect). `intent_type` is the
    intent it runs, if it is an intent tool.
    """

    tool: llm.Tool
    arguments: Mapping[str, Any]
    targets: tuple[str, ...] | None = None
    intent_type: str | None = None
    read_only: bool = False

    def __post_init__(self) -> None:
        """Freeze the arguments so a stored (pending) call cannot be altered."""
        object.__setattr__(self, "arguments", MappingProxyType(dict(self.arguments)))

    @property
    def tool_name(self) -> str:
        """The tool's name as the API offers it."""
        return self.tool.name


type Call = PlannedAction | ApiCall
