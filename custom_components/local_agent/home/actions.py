"""Planned actions: how they read, who may run them, and running them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

import probatio
from probatio.humanize import humanize_error

from custom_components.local_agent.compat import registered_service, service_handler_facts
from custom_components.local_agent.const import LOGGER
from homeassistant.auth.permissions.const import POLICY_CONTROL, POLICY_READ
from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.const import ATTR_ENTITY_ID
from homeassistant.core import Context, HomeAssistant
from homeassistant.exceptions import HomeAssistantError, ServiceNotFound, Unauthorized

from .entity_view import state_summary
from .service_catalog import SECRET_FIELDS, redacted

_VERBS: Final[Mapping[str, str]] = {
    "alarm_arm_away": "arm (away)",
    "alarm_arm_home": "arm (home)",
    "alarm_arm_night": "arm (night)",
    "alarm_arm_vacation": "arm (vacation)",
    "alarm_disarm": "disarm",
    "close_cover": "close",
    "close_cover_tilt": "close the tilt of",
    "close_valve": "close",
    "media_next_track": "skip to the next track on",
    "media_pause": "pause",
    "media_play": "play",
    "media_previous_track": "go back a track on",
    "media_stop": "stop",
    "open_cover": "open",
    "open_cover_tilt": "open the tilt of",
    "open_valve": "open",
    "return_to_base": "send back to base",
    "set_cover_position": "set the position of",
    "set_cover_tilt_position": "set the tilt of",
    "set_valve_position": "set the position of",
    "start_mowing": "start",
    "stop_cover": "stop",
    "stop_valve": "stop",
    "volume_set": "set the volume of",
}


@dataclass(frozen=True, slots=True)
class ToolFailure:
    """A call refused before anything happened; the message is for the model."""

    message: str


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What a call did: new states on success, or `{"error": ...}`."""

    success: bool
    data: dict[str, Any]


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

    def describe(self, hass: HomeAssistant) -> str:
        """Return e.g. "unlock Front Door" or "turn on Kitchen (brightness_pct 50)"."""
        names = join_names(entity_name(hass, entity_id) for entity_id in self.entity_ids)
        if self.service is None:
            return f"read the state of {names}"
        verb = _VERBS.get(self.service, self.service.replace("_", " "))
        shown = [f"{key} {value}" for key, value in self.data.items() if key not in SECRET_FIELDS]
        return f"{verb} {names}" + (f" ({', '.join(shown)})" if shown else "")


def entity_name(hass: HomeAssistant, entity_id: str) -> str:
    """Return the friendly name of an entity, or its id when it has no state."""
    state = hass.states.get(entity_id)
    return state.name if state is not None else entity_id


def join_names(names: Iterable[str]) -> str:
    """Join names as "A", "A and B" or "A, B and C"."""
    items = list(names)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} and {items[-1]}"


def check_exposure(
    hass: HomeAssistant, action: PlannedAction, assistant: str = "conversation"
) -> str | None:
    """Return why the action's entities may no longer be targeted, if they may not."""
    for entity_id in action.entity_ids:
        if hass.states.get(entity_id) is None or not async_should_expose(
            hass, assistant, entity_id
        ):
            return f"{entity_id} is no longer exposed to the assistant."
    return None


async def async_check_permission(
    hass: HomeAssistant, action: PlannedAction, user_id: str | None
) -> str | None:
    """Return why the user may not run the action, or None when they may.

    Mirrors what Home Assistant enforces at call time: no user (automations) or an
    admin may do anything; otherwise admin-only services are refused and every
    targeted entity needs the control permission (read permission for get_state).
    """
    if user_id is None:
        return None
    user = await hass.auth.async_get_user(user_id)
    if user is None:
        return "The requesting user is unknown, so nothing was done."
    if user.is_admin:
        return None
    if action.domain and action.service and _is_admin_only(hass, action.domain, action.service):
        return (
            f"You are not allowed to {action.describe(hass)}: "
            f"only administrators may use {action.domain}.{action.service}."
        )
    policy = POLICY_READ if action.read_only else POLICY_CONTROL
    if denied := [e for e in action.entity_ids if not user.permissions.check_entity(e, policy)]:
        verb = "read" if action.read_only else "control"
        names = join_names(entity_name(hass, entity_id) for entity_id in denied)
        return f"You are not allowed to {verb} {names}."
    return None


def _is_admin_only(hass: HomeAssistant, domain: str, service: str) -> bool:
    handler = registered_service(hass, domain, service)
    return handler is not None and service_handler_facts(handler)[1]


async def async_execute(
    hass: HomeAssistant, action: PlannedAction, context: Context
) -> ToolOutcome:
    """Run a planned action with the user's context; never raises."""
    if action.domain is not None and action.service is not None:
        payload = {**action.data, ATTR_ENTITY_ID: list(action.entity_ids)}
        error = await _async_call(
            hass, action, payload, context, domain=action.domain, service=action.service
        )
        if error is not None:
            return ToolOutcome(success=False, data={"error": error})
    states = (hass.states.get(entity_id) for entity_id in action.entity_ids)
    summaries = [state_summary(hass, state) for state in states if state is not None]
    if action.read_only:
        for summary in summaries:
            if summary["entity_id"].startswith("todo."):
                summary["items"] = await _async_todo_items(hass, summary["entity_id"], context)
    return ToolOutcome(success=True, data={"entities": summaries})


# A to-do list's state is only its count; reading it means listing what is still to do.
TODO_ITEMS_SHOWN: Final = 20


async def _async_todo_items(hass: HomeAssistant, entity_id: str, context: Context) -> list[str]:
    try:
        response = await hass.services.async_call(
            "todo",
            "get_items",
            {ATTR_ENTITY_ID: entity_id, "status": ["needs_action"]},
            blocking=True,
            context=context,
            return_response=True,
        )
    except HomeAssistantError:
        return []
    listing = (response or {}).get(entity_id)
    items = listing.get("items") if isinstance(listing, dict) else None
    if not isinstance(items, list):
        return []
    summaries = [item.get("summary") for item in items if isinstance(item, dict)]
    return [str(summary) for summary in summaries if summary][:TODO_ITEMS_SHOWN]


async def _async_call(
    hass: HomeAssistant,
    action: PlannedAction,
    payload: dict[str, Any],
    context: Context,
    *,
    domain: str,
    service: str,
) -> str | None:
    """Call the service; return a message for the model when it fails."""
    try:
        await hass.services.async_call(domain, service, payload, blocking=True, context=context)
    except Unauthorized:
        return f"You are not allowed to {action.describe(hass)}."
    except ServiceNotFound:
        return f"The action {domain}.{service} does not exist."
    except probatio.Invalid as err:
        return f"Invalid arguments for {service}: {humanize_error(redacted(payload), err)}"
    except HomeAssistantError as err:
        return str(err) or f"Could not {action.describe(hass)}."
    except Exception:
        LOGGER.exception("Unexpected error from %s.%s", domain, service)
        return f"Could not {action.describe(hass)}: unexpected error."
    return None
