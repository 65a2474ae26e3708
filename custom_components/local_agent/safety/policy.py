"""Which actions are sensitive: resolved in code from the real targets, never from the model."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from custom_components.local_agent.const import (
    CONF_ALLOW_UNATTENDED,
    CONF_CONFIRMATION_PIN,
    CONF_CONFIRMATION_TIMEOUT,
    CONF_EXEMPT_ENTITIES,
    CONF_EXEMPT_TOOLS,
    CONF_SENSITIVE_COVER_CLASSES,
    CONF_SENSITIVE_DOMAINS,
    CONF_SENSITIVE_ENTITIES,
)
from custom_components.local_agent.home.tools import PlannedAction
from custom_components.local_agent.turn.defaults import agent_data
from homeassistant.const import ATTR_DEVICE_CLASS, ATTR_ENTITY_ID
from homeassistant.core import HomeAssistant, State, split_entity_id

# Groups of groups are followed this deep; deeper nesting is treated as sensitive.
MAX_GROUP_DEPTH = 5
# Entities that run programs of their own: what running (or enabling) them changes is unknown,
# so they are treated as sensitive unless the user exempts them.
UNKNOWN_EFFECT_DOMAINS = frozenset({"automation", "script"})


@dataclass(frozen=True, slots=True)
class SafetyPolicy:
    """An agent's rules for sensitive actions."""

    domains: frozenset[str]
    cover_classes: frozenset[str]
    entities: frozenset[str]
    exempt: frozenset[str]
    exempt_tools: frozenset[str]
    pin: str | None
    allow_unattended: bool
    timeout_seconds: float

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> SafetyPolicy:
        """Read an agent subentry's safety options; missing keys take AGENT_DEFAULTS."""
        data = agent_data(data)
        pin = str(data.get(CONF_CONFIRMATION_PIN) or "").strip()
        return cls(
            domains=frozenset(data[CONF_SENSITIVE_DOMAINS]),
            cover_classes=frozenset(data[CONF_SENSITIVE_COVER_CLASSES]),
            entities=frozenset(data[CONF_SENSITIVE_ENTITIES]),
            exempt=frozenset(data[CONF_EXEMPT_ENTITIES]),
            exempt_tools=frozenset(data[CONF_EXEMPT_TOOLS]),
            pin=pin or None,
            allow_unattended=bool(data[CONF_ALLOW_UNATTENDED]),
            timeout_seconds=float(data[CONF_CONFIRMATION_TIMEOUT]),
        )

    def sensitive_entities(self, hass: HomeAssistant, entity_ids: Iterable[str]) -> list[str]:
        """Return the targets (groups expanded) whose change needs a person's confirmation."""
        found: list[str] = []
        for entity_id in entity_ids:
            if self._is_sensitive(hass, entity_id, depth=0) and entity_id not in found:
                found.append(entity_id)
        return found

    def is_sensitive(self, hass: HomeAssistant, entity_id: str) -> bool:
        """Whether changing this one entity (a group: any member) needs confirmation."""
        return self._is_sensitive(hass, entity_id, depth=0)

    def _is_sensitive(self, hass: HomeAssistant, entity_id: str, depth: int) -> bool:
        if entity_id in self.exempt:
            return False
        if entity_id in self.entities:
            return True
        domain = split_entity_id(entity_id)[0]
        if domain in self.domains or domain in UNKNOWN_EFFECT_DOMAINS:
            return True
        state = hass.states.get(entity_id)
        if state is None:
            return False
        if domain == "cover" and state.attributes.get(ATTR_DEVICE_CLASS) in self.cover_classes:
            return True
        members = _group_members(state)
        if not members:
            return False
        if depth >= MAX_GROUP_DEPTH:
            return True
        return any(
            member != entity_id and self._is_sensitive(hass, member, depth + 1)
            for member in members
        )


def _group_members(state: State) -> list[str]:
    """Members of a group-like entity (old-style groups, light/cover/lock groups)."""
    members = state.attributes.get(ATTR_ENTITY_ID)
    if isinstance(members, str):
        return [members]
    if isinstance(members, Collection):
        return [member for member in members if isinstance(member, str)]
    return []


def sensitive_targets_of_action(
    hass: HomeAssistant, policy: SafetyPolicy, action: PlannedAction
) -> list[str]:
    """Sensitive entities a planned call of our own tools would change."""
    if action.read_only:
        return []
    return policy.sensitive_entities(hass, action.entity_ids)
