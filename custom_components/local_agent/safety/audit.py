"""Audit trail: every proposed, confirmed, refused, expired, executed or failed action.

Each proposed action ends once: confirmed, cancelled, refused, expired or moved (asked again
in another conversation). A record names who asked or answered in the turn it was written
for: the user, the device (`device_id`) and the voice satellite (`satellite_id`), each as
Home Assistant gave it, never one in the other's place.
"""

from __future__ import annotations

from collections import deque
from dataclasses import asdict
from dataclasses import dataclass
from dataclasses import field
from enum import StrEnum
from typing import Any

from custom_components.local_agent.const import AUDIT_RECORDS_KEPT
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import EVENT_ACTION
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.util import dt as dt_util
from homeassistant.util.hass_dict import HassKey

AUDIT_LOG: HassKey[AuditLog] = HassKey(f"{DOMAIN}_audit")


class Outcome(StrEnum):
    """What happened to an action."""

    PROPOSED = "proposed"
    CONFIRMED = "confirmed"
    CANCELLED = "cancelled"
    REFUSED = "refused"
    EXPIRED = "expired"
    EXECUTED = "executed"
    FAILED = "failed"
    # Asked again in another conversation of the same person (a second tab): it ends here.
    MOVED = "moved"
    # Asked for what every target already was (lock a locked door): nothing ran, none asked.
    ALREADY = "already"
    # An answer that does not count (another person's, one sent before the question was said):
    # the question still waits, so this ends nothing.
    ANSWER_REFUSED = "answer_refused"


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """One step in the life of an action, as fired on the bus."""

    agent_id: str
    conversation_id: str
    user_id: str | None
    device_id: str | None
    satellite_id: str | None
    service: str
    targets: list[str]
    description: str
    outcome: Outcome
    reason: str | None = None
    time: str = field(default_factory=lambda: dt_util.utcnow().isoformat())
    # The action as the person was told it, in `language` (empty: English, the description).
    said: str = ""
    language: str = "en"

    def as_event_data(self) -> dict[str, Any]:
        """Event payload (plain JSON types).

        `entity_id` is the (first) target: the entity the logbook shows the entry on.
        """
        data = asdict(self)
        data["outcome"] = self.outcome.value
        if self.targets:
            data["entity_id"] = self.targets[0]
        return data


class AuditLog:
    """Fires the audit events and keeps the most recent records for diagnostics."""

    def __init__(self) -> None:
        """Start empty."""
        self.records: deque[AuditRecord] = deque(maxlen=AUDIT_RECORDS_KEPT)

    @callback
    def async_record(
        self, hass: HomeAssistant, record: AuditRecord, context: Context | None = None
    ) -> None:
        """Keep the record and fire it as a `local_agent_action` event (shown in the logbook)."""
        self.records.append(record)
        hass.bus.async_fire(EVENT_ACTION, record.as_event_data(), context=context)

    def for_agents(self, agent_ids: set[str]) -> list[AuditRecord]:
        """Return the records of the given agents, oldest first."""
        return [record for record in self.records if record.agent_id in agent_ids]


@callback
def async_get_audit_log(hass: HomeAssistant) -> AuditLog:
    """Return the audit log shared by every agent."""
    return hass.data.setdefault(AUDIT_LOG, AuditLog())
