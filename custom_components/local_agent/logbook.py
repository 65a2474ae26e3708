"""Describe Local Agent's audit events in the logbook.

Each entry is in the language the person was asked in (the action as they were told it, and
the outcome in the same language), and shows the entity it concerns (its name and icon, a
link to it); the logbook names the user whose turn it was (the event's context). Filtered by
an entity, Home Assistant's logbook keeps only that entity's own integration's events, so
the entity's dialog does not list these. Events of earlier versions (no `said`, no
`entity_id`) still read.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from homeassistant.components.logbook.const import LOGBOOK_ENTRY_ENTITY_ID
from homeassistant.components.logbook.const import LOGBOOK_ENTRY_MESSAGE
from homeassistant.components.logbook.const import LOGBOOK_ENTRY_NAME
from homeassistant.core import Event
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers.translation import async_get_cached_translations
from homeassistant.helpers.translation import async_get_translations

from .const import DOMAIN
from .const import EVENT_ACTION

_TRANSLATIONS = Path(__file__).parent / "translations"
_ENGLISH = "en"


def _languages() -> list[str]:
    """Return the languages this integration has a file for (file IO: in the executor)."""
    return sorted(path.stem for path in _TRANSLATIONS.glob("*.json"))


async def async_load_words(hass: HomeAssistant) -> None:
    """Load the logbook's words of every language we speak, so `describe` reads them at once."""
    for language in await hass.async_add_executor_job(_languages):
        await async_get_translations(hass, language, "exceptions", [DOMAIN])


@callback
def _message(hass: HomeAssistant, data: Mapping[str, Any]) -> str:
    """'proposed: unlock Front Door', in the language the action was said in."""
    outcome = str(data.get("outcome", ""))
    said = str(data.get("said") or "")
    language = str(data.get("language") or _ENGLISH) if said else _ENGLISH
    action = said or str(data.get("description", ""))
    key = f"component.{DOMAIN}.exceptions.logbook_{outcome}.message"
    english = async_get_cached_translations(hass, _ENGLISH, "exceptions", DOMAIN).get(key)
    # Home Assistant fills a language's missing texts (and a language without a file, "pt-BR")
    # with English: that is no translation.
    for lang in dict.fromkeys((language, language.split("-", maxsplit=1)[0])):
        template = async_get_cached_translations(hass, lang, "exceptions", DOMAIN).get(key)
        if template and (lang == _ENGLISH or template != english):
            return template.format(action=action)
    if english and language == _ENGLISH:
        return english.format(action=action)
    return f"{outcome}: {action}"


@callback
def async_describe_events(
    hass: HomeAssistant,
    async_describe_event: Callable[[str, str, Callable[[Event], dict[str, Any]]], None],
) -> None:
    """Describe `local_agent_action` events."""
    hass.async_create_background_task(async_load_words(hass), f"{DOMAIN} logbook words")

    @callback
    def describe(event: Event) -> dict[str, Any]:
        data = event.data
        entry = {LOGBOOK_ENTRY_NAME: "Local Agent", LOGBOOK_ENTRY_MESSAGE: _message(hass, data)}
        if targets := data.get("targets"):
            entry[LOGBOOK_ENTRY_ENTITY_ID] = targets[0]
        return entry

    async_describe_event(DOMAIN, EVENT_ACTION, describe)
