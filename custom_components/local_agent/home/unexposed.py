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

Both hints look up the runs of words a text says in an index of every entity's names, built
once and again only after an entity came, went or may have been renamed: a turn costs what
its words name, not what the house holds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
import re
from typing import Any
from typing import Final

from custom_components.local_agent.const import ASSISTANT
from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.const import EVENT_STATE_CHANGED
from homeassistant.core import CALLBACK_TYPE
from homeassistant.core import Event
from homeassistant.core import EventStateChangedData
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.util.hass_dict import HassKey

from .entity_view import entity_info
from .service_catalog import CURATED_SERVICES

# Shorter names ("TV" aside) match too much of everyday speech.
MIN_NAME_LENGTH: Final = 3
_NOT_A_WORD: Final = re.compile(r"[\W_]+")
_CURATED_ORDER: Final = {domain: order for order, domain in enumerate(CURATED_SERVICES)}


def _words(text: str) -> str:
    """Casefold and reduce to words separated by single spaces, with a space on each side."""
    return f" {_NOT_A_WORD.sub(' ', text.casefold()).strip()} "


@dataclass(frozen=True, slots=True)
class _Named:
    """What the hints read of one entity, each name as _words gives it."""

    entity_id: str
    position: int  # in the order Home Assistant lists its states
    name: str  # as Home Assistant names it (entity_info)
    names: tuple[str, ...]  # its name and aliases
    # An entity with a registry entry and no name: its state's name and its own aliases.
    nameless: str | None
    aliases: tuple[str, ...]


@dataclass(slots=True)
class _NameIndex:
    """Every entity by each name it answers to; rebuilt only after a name can have changed."""

    by_words: dict[str, list[_Named]]
    longest: int  # the most words a name has

    def said_in(self, text: str) -> list[_Named]:
        """Return the entities a name of which the text says as whole words, in state order.

        Looks up each run of the text's words: the cost follows the text, not the house.
        """
        words = text.split()
        found: dict[str, _Named] = {}
        for start in range(len(words)):
            for end in range(start + 1, min(len(words), start + self.longest) + 1):
                for named in self.by_words.get(f" {' '.join(words[start:end])} ", ()):
                    found[named.entity_id] = named
        return sorted(found.values(), key=lambda named: named.position)


_INDEX: HassKey[_NameIndex | None] = HassKey("local_agent_name_index")
_UNLISTEN: HassKey[list[CALLBACK_TYPE]] = HassKey("local_agent_name_index_listeners")


def _index(hass: HomeAssistant) -> _NameIndex:
    """Return the house's name index, built once and again after a name may have changed."""
    if _INDEX not in hass.data:
        _listen_for_renames(hass)
    if (index := hass.data.get(_INDEX)) is None:
        index = hass.data[_INDEX] = _build_index(hass)
    return index


def _build_index(hass: HomeAssistant) -> _NameIndex:
    registry = er.async_get(hass)
    by_words: dict[str, list[_Named]] = {}
    for position, state in enumerate(hass.states.async_all()):
        info = entity_info(hass, state)
        entry = registry.async_get(state.entity_id)
        nameless = entry is not None and not er.async_get_full_entity_name(hass, entry)
        named = _Named(
            entity_id=state.entity_id,
            position=position,
            name=info.name,
            names=tuple(_words(name) for name in (info.name, *info.aliases)),
            nameless=_words(state.name) if nameless else None,
            aliases=tuple(_words(a) for a in er.async_get_entity_aliases(hass, entry))
            if entry is not None and nameless
            else (),
        )
        for words in dict.fromkeys((*named.names, *named.aliases, named.nameless or " ")):
            if words.strip():
                by_words.setdefault(words, []).append(named)
    longest = max((len(words.split()) for words in by_words), default=0)
    return _NameIndex(by_words, longest)


@callback
def _listen_for_renames(hass: HomeAssistant) -> None:
    """Drop the index when an entity comes or goes, or a name or alias may have changed."""
    hass.data[_INDEX] = None

    @callback
    def forget(_event: Event[Any]) -> None:
        hass.data[_INDEX] = None

    @callback
    def renamed(event_data: EventStateChangedData) -> bool:
        old, new = event_data["old_state"], event_data["new_state"]
        return old is None or new is None or old.name != new.name

    hass.data[_UNLISTEN] = [
        hass.bus.async_listen(EVENT_STATE_CHANGED, forget, event_filter=renamed),
        hass.bus.async_listen(er.EVENT_ENTITY_REGISTRY_UPDATED, forget),
        hass.bus.async_listen(dr.EVENT_DEVICE_REGISTRY_UPDATED, forget),
    ]


@callback
def forget_name_index(hass: HomeAssistant) -> None:
    """Drop the index and stop listening (no entry of ours is loaded any more)."""
    for unlisten in hass.data.pop(_UNLISTEN, ()):
        unlisten()
    hass.data.pop(_INDEX, None)


def _said(names: Iterable[str], said: str) -> list[str]:
    return [n for n in names if len(n.strip()) >= MIN_NAME_LENGTH and n in said]


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
    found = [
        named
        for named in _index(hass).said_in(said)
        if named.entity_id.partition(".")[0] in _CURATED_ORDER
    ]
    found.sort(key=lambda named: _CURATED_ORDER[named.entity_id.partition(".")[0]])
    for named in found:
        if not (matches := _said(named.names, said)):
            continue
        if async_should_expose(hass, assistant, named.entity_id):
            exposed_matches.extend(matches)
        else:
            unexposed.setdefault(max(matches, key=len), named.name)
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
    index = _index(hass)
    found = {named.entity_id: named for text in said for named in index.said_in(text)}
    nameless: dict[str, str] = {}
    named_said: list[str] = []
    for named in sorted(found.values(), key=lambda named: named.position):
        if not async_should_expose(hass, assistant, named.entity_id):
            continue
        if named.nameless is None:
            named_said.extend(n for n in named.names if n.strip() and any(n in t for t in said))
            continue
        words = named.nameless
        named_said.extend(n for n in named.aliases if n.strip() and any(n in t for t in said))
        if (
            len(words.strip()) >= MIN_NAME_LENGTH
            and words not in named.aliases
            and any(words in text for text in said)
        ):
            nameless.setdefault(words, named.name)
    return [
        name
        for words, name in nameless.items()
        if not any(words in longer and words != longer for longer in named_said)
    ]
