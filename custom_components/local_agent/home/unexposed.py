"""Entities the user named that are not exposed, or that Assist cannot find by name.

Home Assistant exposes no locks, alarms or garage doors to Assist by default, so "unlock the
front door" reaches a model that has never heard of a front door. The agent can then tell the
user what to expose, without the model learning the name: the user's own words are matched
here against the names and aliases of the unexposed entities, and the answer goes to the user
alone (turn/notices.py).

A helper written in YAML without a name ("input_boolean: guest_mode:") has a registry entry
and no name at all: Home Assistant's intents match names and aliases only, so "turn on guest
mode" through Assist's tools matches nothing, and Assist's overview lists it with no name.
The agent then tells the user to give it one.
"""

from __future__ import annotations

import re
from typing import Final

from custom_components.local_agent.const import ASSISTANT
from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from .entity_view import entity_info
from .service_catalog import CURATED_SERVICES

# Shorter names ("TV" aside) match too much of everyday speech.
MIN_NAME_LENGTH: Final = 3
_NOT_A_WORD: Final = re.compile(r"[\W_]+")


def _words(text: str) -> str:
    """Casefold and reduce to words separated by single spaces, with a space on each side."""
    return f" {_NOT_A_WORD.sub(' ', text.casefold()).strip()} "


def unexposed_names_in(hass: HomeAssistant, text: str, assistant: str = ASSISTANT) -> list[str]:
    """Return the names of entities `text` names that are not exposed to `assistant`.

    A name matches as whole words. One that is part of an exposed entity's name the text also
    says ("front door" in "front door light") is the exposed entity's, so it does not count.
    Only entities of domains the agent's tools could control count: exposing the sun or a zone
    ("is the sun up", "at home") would not let the agent do anything.
    """
    said = _words(text)
    exposed_matches: list[str] = []
    unexposed: dict[str, str] = {}
    for state in hass.states.async_all(CURATED_SERVICES.keys()):
        info = entity_info(hass, state)
        names = [_words(name) for name in (info.name, *info.aliases)]
        matches = [n for n in names if len(n.strip()) >= MIN_NAME_LENGTH and n in said]
        if not matches:
            continue
        if async_should_expose(hass, assistant, state.entity_id):
            exposed_matches.extend(matches)
        else:
            unexposed.setdefault(max(matches, key=len), info.name)
    return [
        name
        for words, name in unexposed.items()
        if not any(words in longer for longer in exposed_matches)
    ]


def nameless_names_in(
    hass: HomeAssistant, texts: list[str], assistant: str = ASSISTANT
) -> list[str]:
    """Return the names of exposed entities `texts` name that have no name Assist can match.

    Such an entity has a registry entry without any name (neither its own nor its device's):
    Home Assistant calls it by its object id's words ("guest mode"), which no intent matches
    unless the user made them an alias. A text names it when it says those words whole, and
    not as part of a longer name of an exposed entity it also says ("guest mode lamp").
    """
    said = [_words(text) for text in texts]
    registry = er.async_get(hass)
    nameless: dict[str, str] = {}
    named: list[str] = []
    for state in hass.states.async_all():
        if not async_should_expose(hass, assistant, state.entity_id):
            continue
        entry = registry.async_get(state.entity_id)
        if entry is None or er.async_get_full_entity_name(hass, entry):
            info = entity_info(hass, state)
            names = [_words(name) for name in (info.name, *info.aliases)]
            named.extend(n for n in names if n.strip() and any(n in text for text in said))
            continue
        words = _words(state.name)
        aliases = [_words(alias) for alias in er.async_get_entity_aliases(hass, entry)]
        named.extend(n for n in aliases if n.strip() and any(n in text for text in said))
        if (
            len(words.strip()) >= MIN_NAME_LENGTH
            and words not in aliases
            and any(words in text for text in said)
        ):
            nameless.setdefault(words, state.name)
    return [
        name
        for words, name in nameless.items()
        if not any(words in longer and words != longer for longer in named)
    ]
