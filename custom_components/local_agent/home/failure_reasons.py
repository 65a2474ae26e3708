"""Why Home Assistant refused an action, in words the person hears in their language.

Home Assistant's own error may be English only (a timer's "Not possible to change timer
timer.pasta beyond duration" has no translation): the reason is decided again from what the
call asked and the state of its target, never from the error's text. A call our own tools
refused before it ran carries its reason from what the entity reports (refused_result).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from typing import Final

from home_assistant_intents import get_intents
from home_assistant_intents import get_languages

from custom_components.local_agent.const import DOMAIN
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm
from homeassistant.util.hass_dict import HassKey
from homeassistant.util.json import JsonValueType

from .actions import PlannedAction
from .actions import ToolFailure
from .call_texts import IntegrationReason
from .call_texts import Phrase
from .call_texts import Said
from .call_texts import duration_seconds
from .call_texts import entity_name
from .entity_view import one_line


@dataclass(slots=True)
class ReasonedFailure(llm.ToolResult):
    """A failed call whose reason the agent can say itself (told by its class, not its data).

    Its data is what the model reads ({"error": Home Assistant's message}).
    """

    reason: tuple[Said, ...] = ()


@dataclass(slots=True)
class CoreRefusal(ReasonedFailure):
    """A call core refuses with a sentence of its own (told by its class).

    Said alone in place of ours, as core's agent says it: "Sorry, timers are not supported on
    this device".
    """


# Core's intents' error sentences ("no_timer_support"), by language, read once each.
_CORE_ERRORS: HassKey[dict[str, dict[str, str]]] = HassKey("local_agent_core_errors")
ENGLISH: Final = "en"
# The key of core's refusal of a timer to a device that cannot start timers (intent/timers.py).
NO_TIMER_SUPPORT: Final = "no_timer_support"


async def async_core_error(hass: HomeAssistant, language: str, key: str) -> str | None:
    """Return core's error sentence `key` in the language ("pt-BR", else "pt", else English)."""
    cache = hass.data.setdefault(_CORE_ERRORS, {})
    for name in dict.fromkeys((language, language.split("-", maxsplit=1)[0], ENGLISH)):
        # Only a language core's intents ship is read: the name is a file name ("../x").
        if name not in _INTENT_LANGUAGES:
            continue
        if (errors := cache.get(name)) is None:
            errors = cache[name] = await hass.async_add_executor_job(_core_errors, name)
        if sentence := errors.get(key):
            return one_line(sentence, MAX_CORE_ERROR)
    return None


async def async_refused_by_core(
    hass: HomeAssistant, language: str, key: str, message: str
) -> CoreRefusal | None:
    """Return a call core refused with its error sentence `key`, or None when core has none.

    The model reads `message`; the person hears core's sentence in their language.
    """
    if sentence := await async_core_error(hass, language, key):
        return CoreRefusal(data={"error": message}, error=True, reason=(sentence,))
    return None


MAX_CORE_ERROR: Final = 300
_INTENT_LANGUAGES: Final = frozenset(get_languages())


def _core_errors(language: str) -> dict[str, str]:
    """Read the error sentences of core's intents in the language (none for one without)."""
    errors = ((get_intents(language) or {}).get("responses") or {}).get("errors") or {}
    # A sentence core renders with the failed match's words ("{{ entity }}") is none to say
    # without them.
    return {
        key: text
        for key, text in errors.items()
        if isinstance(text, str) and "{{" not in text and "{%" not in text
    }


@dataclass(slots=True)
class RefusedByName(llm.ToolResult):
    """A refused call whose targets, written as names, name these exposed entities (by class).

    Said by the house's names ("iPhone Charger"), not as the model wrote them ("iphone
    charger"); nothing of it ran. Its data is what the model reads ({"error": ...}).
    """

    entity_ids: tuple[str, ...] = ()


@dataclass(slots=True)
class PartlyDone(llm.ToolResult):
    """A call that some of its targets took and others did not (told by its class).

    Its data is what the model reads ({"error": which targets missed, "entities": those that
    took it}); `took`: the targets that did, as a successful call's result lists them
    ({"entity_id", "name", "state", ...}).
    """

    took: tuple[dict[str, Any], ...] = ()
    # The call as it ran on them (TargetStates.ran).
    ran: Ran | None = None


@dataclass(frozen=True, slots=True)
class Ran:
    """A service call of our tools as it ran: its data as the tools planned it, less a PIN."""

    domain: str
    service: str
    fields: tuple[tuple[str, Any], ...]


def refused_result(failure: ToolFailure) -> llm.ToolResult:
    """Return a call our tools refused: the model reads the message, the person hears why."""
    if failure.reason:
        data: dict[str, JsonValueType] = {"error": failure.message}
        return ReasonedFailure(data=data, error=True, reason=failure.reason)
    return llm.ToolResult(data={"error": failure.message}, error=True)


def failure_reason(hass: HomeAssistant, action: PlannedAction) -> tuple[Said, ...]:
    """Return why Home Assistant refused the action, when its target's state says it; else ()."""
    if (action.domain, action.service) != ("timer", "change") or len(action.entity_ids) != 1:
        return ()
    [entity_id] = action.entity_ids
    state = hass.states.get(entity_id)
    seconds = duration_seconds(action.data.get("duration"))
    if state is None or seconds is None:
        return ()
    name = {"name": entity_name(hass, entity_id)}
    # Home Assistant changes only a running timer, and only within its duration and above zero.
    if state.state != "active":
        return (Phrase("timer_not_running", name),)
    return (Phrase("timer_beyond_duration" if seconds > 0 else "timer_below_zero", name),)


def integration_reason(err: HomeAssistantError) -> tuple[Said, ...]:
    """Return the reason an integration gave with a translation key ("temp_out_of_range").

    Said from that integration's own "exceptions" translations in the person's language. Not
    one that claims to be ours: our sentences (a question, "say yes") are never an error's.
    """
    if not err.translation_domain or not err.translation_key or err.translation_domain == DOMAIN:
        return ()
    # Written by the integration (a mode, a device's answer): each said on one line, bounded.
    placeholders = {
        key: one_line(str(value)) for key, value in (err.translation_placeholders or {}).items()
    }
    return (IntegrationReason(err.translation_domain, err.translation_key, placeholders),)
