"""What the agent says itself: fixed translated sentences, and every text describing a call.

The fixed sentences (errors, confirmations) live in translations/<language>.json under
"exceptions", like every other message of the integration.

Our own tools name a service ("lock.unlock"); Home Assistant's intents name a generic one
("HassTurnOff" on a lock calls lock.unlock). Both read through the same table, so a call reads
the same whichever tool the model picked. A call that runs other things (a script's steps, a
scene's states, a group's members) also names what it does to the sensitive entities inside.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Container
from collections.abc import Iterable
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
import re
from typing import Any
from typing import Final
import unicodedata

from custom_components.local_agent.compat import device_action_call
from custom_components.local_agent.compat import entity_service_steps
from custom_components.local_agent.compat import scene_states
from custom_components.local_agent.compat import script_sequence
from custom_components.local_agent.compat import target_entities
from custom_components.local_agent.const import ASSISTANT
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.engine.words import BOOLEAN_WORDS
from custom_components.local_agent.engine.words import fold
from custom_components.local_agent.safety.intents import ASSIST_INTENTS
from custom_components.local_agent.safety.intents import AssistIntent
from homeassistant.components.homeassistant.exposed_entities import async_should_expose
from homeassistant.const import ATTR_ENTITY_ID
from homeassistant.const import ATTR_UNIT_OF_MEASUREMENT
from homeassistant.core import HomeAssistant
from homeassistant.core import split_entity_id
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers.translation import async_get_cached_translations
from homeassistant.helpers.translation import async_get_translations

from .actions import Call
from .actions import PlannedAction
from .call_words import ENGLISH_WORDS
from .call_words import WORDS_BY_LANGUAGE
from .call_words import CallWords
from .call_words import date_words
from .colours import COLOUR_FIELD
from .colours import async_colour_words
from .colours import colour_words
from .entity_view import MAX_NAME_CHARS
from .entity_view import entities_heard_as
from .entity_view import heard
from .entity_view import hides_its_meaning
from .entity_view import holds_our_marks
from .entity_view import one_line
from .entity_view import writes_an_entity_id
from .service_catalog import AREA_FIELD
from .service_catalog import SECRET_FIELDS
from .service_catalog import Mode
from .service_catalog import Quantity
from .twin_names import places_of
from .twin_names import shares_a_name
from .twin_names import told_apart


async def async_phrase(hass: HomeAssistant, language: str, key: str, **placeholders: str) -> str:
    """Return the translated sentence `key` with its placeholders filled in.

    The sentences live in translations/<language>.json under "exceptions", so they are
    translated like every other message of the integration; English is the fallback.
    """
    translation_key = f"component.{DOMAIN}.exceptions.{key}.message"
    english = (await async_get_translations(hass, "en", "exceptions", [DOMAIN])).get(
        translation_key
    )
    # Home Assistant answers a language we have no file for ("de-CH") with the English text.
    for lang in dict.fromkeys((language, language.split("-", maxsplit=1)[0])):
        strings = await async_get_translations(hass, lang, "exceptions", [DOMAIN])
        if (template := strings.get(translation_key)) and template != english:
            return _one_sentence_end(fill(template, call_words(lang), **_trimmed(placeholders)))
    return _one_sentence_end(english.format(**_trimmed(placeholders))) if english else key


def _trimmed(placeholders: Mapping[str, str]) -> dict[str, str]:
    """Drop the spaces a value ends with: "Jammed. " before our full stop would read ". ."."""
    return {name: value.rstrip() for name, value in placeholders.items()}


def inside_sentence(text: str) -> str:
    """Return a text someone else wrote, to go inside a sentence of ours ("{action} - {reason}.").

    Its full stops and spaces at the end go ("Jammed. " reads "Jammed"), since our sentence
    ends it; its own "!", "?" or "…" stay. A text of only a full stop is left empty.
    """
    return text.rstrip().rstrip(".").rstrip()


# A sentence's full stop right after a placeholder that already ended one ("… and …", a
# name the model wrote with its own full stop).
_DOUBLE_END: Final = re.compile(r"(?<=[.!?…])\.(?=\s|$)")


def _one_sentence_end(text: str) -> str:
    """Drop a full stop that follows the end of a sentence: "… entity.." reads "… entity."."""
    return _DOUBLE_END.sub("", text)


@dataclass(frozen=True, slots=True)
class StateWord:
    """An entity's state, said in the words Home Assistant's own frontend shows for it."""

    domain: str
    state: str
    # Said alone after a name ("Heizung: Kühlbetrieb"): a language that writes its nouns with
    # a capital keeps Home Assistant's; else lower case, as inside a sentence.
    alone: bool = False


@dataclass(frozen=True, slots=True)
class Names:
    """Names said together, joined with the conversation language's "and": a few (join_few_names).

    A voice reads every name, and a house may hold hundreds.
    """

    names: tuple[str, ...]
    # The names' entities, by their order: twins are told apart by place (twin_names).
    entity_ids: tuple[str, ...] = ()
    # Names of the house, written as they are at a sentence start ("iPhone", "bed light"); not
    # what the model wrote that names nothing ("the user's entity": "The user's entity: …").
    as_written: bool = True


@dataclass(frozen=True, slots=True)
class Phrase:
    """A fixed sentence (a key of "exceptions") and its placeholders, to be said later."""

    key: str
    placeholders: Mapping[str, str | StateWord | Names | Quantity | Mode] = field(
        default_factory=dict
    )


@dataclass(frozen=True, slots=True)
class IntegrationReason:
    """Why an integration refused a call, as its own "exceptions" translations say it."""

    domain: str
    key: str
    placeholders: Mapping[str, str] = field(default_factory=dict)


# What the user hears about a call: fixed sentences, an integration's own reason, or a text as
# another part reported it.
type Said = Phrase | IntegrationReason | str


async def async_said(hass: HomeAssistant, language: str, parts: Sequence[Said]) -> str:
    """Return the parts in the conversation's language, joined with its "and"."""
    texts = []
    for part in parts:
        if isinstance(part, str):
            if text := inside_sentence(part):
                texts.append(text)
            continue
        if isinstance(part, IntegrationReason):
            texts.append(await _async_integration_reason(hass, language, part))
            continue
        # A state said of several names agrees with them: "Lamp et Lamp : déjà éteints".
        many = any(isinstance(v, Names) and len(v.names) > 1 for v in part.placeholders.values())
        values = {
            name: await _async_placeholder(hass, language, value, many=many)
            for name, value in part.placeholders.items()
        }
        texts.append(inside_sentence(await async_phrase(hass, language, part.key, **values)))
    if parts and not texts:  # nothing but full stops: why is not known
        texts.append(await async_phrase(hass, language, "reason_failed"))
    return join_names(texts, language)


async def _async_placeholder(
    hass: HomeAssistant,
    language: str,
    value: str | StateWord | Names | Quantity | Mode,
    *,
    many: bool = False,
) -> str:
    """Return a phrase's placeholder as the conversation's language says it."""
    if isinstance(value, Quantity):
        return quantity_words(value, call_words(language))
    if isinstance(value, Mode):
        if speaks_only_english(language):
            return str(value)
        await async_load_value_words(hass, language, [value.domain])
        said = said_value(hass, language, value.domain, value.field, value.value)
        return str(value) if said == value.value else str(said)
    if isinstance(value, StateWord):
        said = await _async_state_word(hass, language, value)
        return _plural_state(said, call_words(language)) if many and not value.alone else said
    if isinstance(value, Names):
        names = value.names
        if shares_a_name(names) and len(value.entity_ids) == len(names):
            places = [places_of(hass, entity_id) for entity_id in value.entity_ids]
            names = told_apart(names, value.entity_ids, places)
        return join_few_names(names, language)
    return value


# The most of an integration's reason said: a sentence or two.
MAX_REASON: Final = 300


async def _async_integration_reason(
    hass: HomeAssistant, language: str, reason: IntegrationReason
) -> str:
    """Return the integration's reason in the language, else in English, else our own words."""
    key = f"component.{reason.domain}.exceptions.{reason.key}.message"
    for lang in dict.fromkeys((language, language.split("-", maxsplit=1)[0], ENGLISH)):
        strings = await async_get_translations(hass, lang, "exceptions", [reason.domain])
        if template := strings.get(key):
            try:
                # A custom integration's own translation is written by others too; the
                # sentence that says it ends it.
                said = one_line(template.format(**reason.placeholders), MAX_REASON)
            except KeyError, IndexError, ValueError:
                continue  # a translation that names a placeholder the error does not carry
            if said := inside_sentence(said):
                return said
    return await async_phrase(hass, language, "reason_failed")


async def _async_state_word(hass: HomeAssistant, language: str, word: StateWord) -> str:
    key = f"component.{word.domain}.entity_component._.state.{word.state}"
    for lang in dict.fromkeys((language, language.split("-", maxsplit=1)[0], ENGLISH)):
        strings = await async_get_translations(hass, lang, "entity_component", [word.domain])
        if text := strings.get(key):
            if not word.alone and (said := call_words(lang).state_in_sentence.get(word.state)):
                return said
            if word.alone and lang.split("-")[0] in _CAPITAL_NOUNS:
                return text
            return text[:1].lower() + text[1:]
    return _read_quantity_words(word.state, call_words(language)) or word.state


def _plural_state(word: str, words: CallWords) -> str:
    """Return a one-word state as said of several things ("éteint": "éteints")."""
    if " " in word or not word.isalpha():
        return word
    for end, plural in words.plural_states:
        if word.endswith(end):
            return word.removesuffix(end) + plural if end else word + plural
    return word


# Fields whose values are the entity's states (a thermostat's mode is its state); the values of
# the others are named by the domain's words for that attribute (a preset, a fan mode).
_STATE_FIELDS: Final = frozenset({"hvac_mode", "operation_mode"})
# Languages that write a mode's name, a noun, with a capital letter mid-sentence.
_CAPITAL_NOUNS: Final = frozenset({"de"})


def _languages(language: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys((language, language.split("-", maxsplit=1)[0])))


async def async_load_value_words(
    hass: HomeAssistant, language: str, domains: Iterable[str]
) -> None:
    """Load Home Assistant's words for the domains' modes in the language, for said_value.

    Its translation files are read in the executor the first time, then kept by Home Assistant.
    """
    if speaks_only_english(language):
        return
    for lang in _languages(language):
        await async_get_translations(hass, lang, "entity_component", set(domains))


async def async_load_option_words(
    hass: HomeAssistant, language: str, entity_ids: Sequence[str]
) -> None:
    """Load the words of the one target's integration for its options, for describe_action.

    In English too: the question is kept in English as well as in the person's language.
    """
    if (found := _option_key(hass, entity_ids, "")) is not None:
        for lang in dict.fromkeys((*_languages(language), ENGLISH)):
            await async_get_translations(hass, lang, "entity", [found[0]])


def said_value(hass: HomeAssistant, language: str, domain: str, key: str, value: Any) -> Any:
    """Return a mode as Home Assistant's frontend names it in the language ("heat": "Heizbetrieb").

    From the words async_load_value_words loaded; a value it has no words for stays as it is.
    """
    if not isinstance(value, str) or key == COLOUR_FIELD:
        return value
    prefix = f"component.{domain}.entity_component._"
    keys = [f"{prefix}.state_attributes.{key}.state.{value}"]
    if key in _STATE_FIELDS:
        keys.append(f"{prefix}.state.{value}")
    for lang in _languages(language):
        strings = async_get_cached_translations(hass, lang, "entity_component", domain)
        if text := next((strings[k] for k in keys if strings.get(k)), None):
            return text if lang.split("-")[0] in _CAPITAL_NOUNS else text[:1].lower() + text[1:]
    return value


async def async_value_word(
    hass: HomeAssistant,
    language: str,
    key: str,
    value: Any,
    *,
    domain: str,
    entity_ids: Sequence[str],
) -> Any:
    """Return a value of a call as Home Assistant names it in the language; else as it is.

    The one path for a value's words: a select's option in its integration's words
    ("Ridiculous speed" for "ridiculous_speed", in every language); in another language the
    agent speaks, a light's colour as its own sentences name it ("rot") and a mode as the
    frontend shows it (said_value: "Heizen").
    """
    if not isinstance(value, str):
        return value
    if key == OPTION_FIELD and (
        word := await _async_option_word(hass, language, entity_ids, value)
    ):
        return word
    if speaks_only_english(language):
        return value
    if key == COLOUR_FIELD:
        colours = await async_colour_words(hass, language)
        return colours.word(colours.css_name(value))
    await async_load_value_words(hass, language, [domain])
    return said_value(hass, language, domain, key, value)


# The field a select or an input_select is set to one of its options by.
OPTION_FIELD: Final = "option"


async def _async_option_word(
    hass: HomeAssistant, language: str, entity_ids: Sequence[str], option: str
) -> str | None:
    """Return a select's option as its integration names it in the language, if it does.

    Only where the targets are that one entity: an input_select's options are the user's own.
    """
    if (found := _option_key(hass, entity_ids, option)) is None:
        return None
    platform, key = found
    for lang in _languages(language):
        strings = await async_get_translations(hass, lang, "entity", [platform])
        if text := strings.get(key):
            return str(text)
    return None


def _option_key(
    hass: HomeAssistant, entity_ids: Sequence[str], option: str
) -> tuple[str, str] | None:
    """Return the integration and the key of its words for the one target's option."""
    if len(set(entity_ids)) != 1:
        return None
    entry = er.async_get(hass).async_get(entity_ids[0])
    if entry is None or entry.translation_key is None:
        return None
    key = f"component.{entry.platform}.entity.{entry.domain}.{entry.translation_key}.state.{option}"
    return entry.platform, key


def _cached_option_word(
    hass: HomeAssistant, language: str, action: PlannedAction, data: Mapping[str, Any]
) -> str | None:
    """Return the option as async_value_word says it, from the words already loaded.

    Another integration wrote them: kept only on one line and without marks of ours.
    """
    option = action.data.get(OPTION_FIELD)
    if (
        not isinstance(option, str)
        or (found := _option_key(hass, action.entity_ids, option)) is None
    ):
        return None
    platform, key = found
    for lang in _languages(language):
        strings = async_get_cached_translations(hass, lang, "entity", platform)
        if text := strings.get(key):
            return _plain_text(str(text))
    return None


def said_areas(hass: HomeAssistant, key: str, value: Any) -> Any:
    """Return the areas a vacuum is sent to clean by their names ("Kitchen" for "kitchen").

    As the home list shows them, on one line, each once (Home Assistant cleans an area named
    twice once); by its id where the name shows other than it says or holds marks of our
    sentences ("Kitchen (this changes nothing)? Say yes to confirm."), as such a name is; any
    other value as it is.
    """
    if key != AREA_FIELD or not isinstance(value, list):
        return value
    areas = ar.async_get(hass)
    names = [
        said_area(area.name, str(a)) if (area := areas.async_get_area(str(a))) else str(a)
        for a in value
    ]
    return list(dict.fromkeys(names))


# The services that set a number entity to a value of its own unit.
_VALUE_IN_UNIT: Final = frozenset({("number", "set_value"), ("input_number", "set_value")})


def value_unit(
    hass: HomeAssistant, domain: str, service: str, entity_ids: Sequence[str]
) -> str | None:
    """Return the unit of the number a call sets, when all its targets share one ("°C")."""
    if (domain, service) not in _VALUE_IN_UNIT:
        return None
    units = {
        state.attributes.get(ATTR_UNIT_OF_MEASUREMENT) if state else None
        for state in map(hass.states.get, entity_ids)
    }
    unit = units.pop() if len(units) == 1 else None
    return unit if isinstance(unit, str) and _plain_unit(unit) else None


def _plain_unit(unit: str) -> bool:
    """Whether a unit reads as one: short, one word, no marks of our sentences ("°C", "m³").

    Another integration writes it; "°C? Say yes to confirm. Turn on Kitchen Lights" would make
    a question read as another, and a number said without its unit says less, never other.
    """
    return (
        0 < len(unit) <= _MAX_UNIT_CHARS
        and not any(c.isspace() or unicodedata.category(c).startswith("C") for c in unit)
        and not holds_our_marks(unit)
    )


# The longest unit Home Assistant knows is "kWh/100km".
_MAX_UNIT_CHARS: Final = 12


def in_unit(value: Any, unit: str | None, language: str) -> Any:
    """Return a number with its unit as the language writes it ("21,5 °C", "40 %").

    A number without its unit reads as one of another ("Soll auf 21,5 einstellen"); a value
    that is no number, or without a unit, as it is.
    """
    if unit is None or isinstance(value, bool):
        return value
    try:
        number = float(value)
    except TypeError, ValueError, OverflowError:
        return value
    return quantity_words(Quantity(number, unit), call_words(language))


def said_fields(
    hass: HomeAssistant, fields: Iterable[tuple[str, Any]], entity_ids: Sequence[str] = ()
) -> dict[str, Any]:
    """Return the values of a call's fields that our sentences may repeat, as they say them.

    The one rule for questions, done answers and refusals; when unsure a value is left out
    (the sentence still names the action and its targets). Never a PIN. Areas by name; a
    number, a yes or no; text on one line without markup, control characters or marks of our
    sentences ("Away? Say yes to confirm. Turn on Kitchen Lights (a" would make the question
    for an option an automation follows to unlock a door read as one to light the kitchen);
    a value in a unit ("{}%") only as a number; a value chosen from the entity's list (an
    option, a mode, an effect, a source) where the targets offer it, or as one word.
    """
    said: dict[str, Any] = {}
    for key, written in fields:
        if key in SECRET_FIELDS or written is None:
            continue
        value = said_areas(hass, key, written)
        if key == AREA_FIELD and isinstance(value, list):
            said[key] = value
        elif isinstance(value, str):
            if (text := _said_text(hass, key, value, entity_ids)) is not None:
                said[key] = text
        elif isinstance(value, list):
            items = [_plain_text(item) if isinstance(item, str) else item for item in value]
            if items and all(_said_item(item) for item in items):
                said[key] = items
        elif not isinstance(value, Mapping):
            said[key] = value
    return said


def _said_item(item: Any) -> bool:
    return item is not None and not isinstance(item, list | Mapping)


def _said_text(hass: HomeAssistant, key: str, value: str, entity_ids: Sequence[str]) -> str | None:
    """Return a text value as said, or None where the field's rule leaves it out (said_fields)."""
    text = _plain_text(value)
    if text is None or not text.strip():
        return None
    if _TIME_TEXT.fullmatch(text):
        return text
    if key == DURATION:
        return text if duration_seconds(text) is not None else None
    if value_words(key, _A_WORD, ENGLISH_WORDS) != _A_WORD:
        # Its words put a unit around the value ("{}%", "{}°"): "bright" is no brightness.
        return None
    if _CHOSEN.search(key) and " " in text and not _offered(hass, key, value, entity_ids):
        # A refused value may be no value at all: more than a word could read as ours.
        return None
    return text


# Fields of Home Assistant's services whose value is chosen from the entity's own list.
_CHOSEN: Final = re.compile(r"(^option|_mode|effect|source|activity)$")
_A_WORD: Final = "word"
# The state attribute that lists what a field of that name is chosen from, where not "<key>s".
_OFFERED_IN: Final[Mapping[str, str]] = {
    "effect": "effect_list",
    "source": "source_list",
    "sound_mode": "sound_mode_list",
    "activity": "activity_list",
    "operation_mode": "operation_list",
    "mode": "available_modes",
}


def _offered(hass: HomeAssistant, key: str, value: str, entity_ids: Sequence[str]) -> bool:
    """Whether every target offers the value in its state's list for the field (its options)."""
    attribute = _OFFERED_IN.get(key, f"{key}s")
    states = [hass.states.get(entity_id) for entity_id in entity_ids]
    return bool(states) and all(
        state is not None
        and isinstance(offered := state.attributes.get(attribute), list)
        and value in offered
        for state in states
    )


def _plain_text(value: str) -> str | None:
    """Return a text on one line, or None where it hides its meaning (hides_its_meaning).

    A time, a date or a length of time ("07:30", "-00:05:00", "2026-12-24T18:00") is no name.
    """
    text = one_line(value)
    if _MARKUP.search(text):
        return None
    return None if hides_its_meaning(text) and not _TIME_TEXT.fullmatch(text) else text


# Marks of markup a program writes (a template, JSON, a tag): no value a person would say.
_MARKUP: Final = re.compile(r"[\[\]{}<>\"\\]")


# A number, a time of day, a date or a length of time, as Home Assistant takes them.
_TIME_TEXT: Final = re.compile(r"[+-]?\d[\d:.T +-]*")


def said_area(name: str, area_id: str) -> str:
    """Return an area's name on one line, or its id where the name misleads (said_areas)."""
    said = one_line(name)
    return area_id if hides_its_meaning(said) else said


# A generic service on a domain with services of its own, as a script's step, a scene or a
# group's member reads it (an intent's calls are in safety/intents.py).
_DOMAIN_SERVICES: Final[Mapping[tuple[str, str], str]] = {
    ("lock", "turn_on"): "lock",
    ("lock", "turn_off"): "unlock",
    ("cover", "turn_on"): "open_cover",
    ("cover", "turn_off"): "close_cover",
    ("valve", "turn_on"): "open_valve",
    ("valve", "turn_off"): "close_valve",
}

# A state a scene sets, as the service that reaches it; (None, state) holds for every domain.
_STATE_SERVICES: Final[Mapping[tuple[str | None, str], str]] = {
    ("lock", "locked"): "lock",
    ("lock", "unlocked"): "unlock",
    ("lock", "open"): "open",
    (None, "open"): "turn_on",
    (None, "closed"): "turn_off",
    (None, "on"): "turn_on",
    (None, "off"): "turn_off",
    (None, "disarmed"): "alarm_disarm",
    (None, "armed_away"): "alarm_arm_away",
    (None, "armed_home"): "alarm_arm_home",
    (None, "armed_night"): "alarm_arm_night",
    (None, "armed_vacation"): "alarm_arm_vacation",
}

# Scripts calling scripts, scenes in groups ...: followed this deep.
MAX_DEPTH: Final = 5


def service_of(domain: str, service: str) -> str:
    """Return the service a call really makes on a `domain` entity (turn_off on a lock: unlock)."""
    return _DOMAIN_SERVICES.get((domain, service), service)


def _intent_call(intent_type: str | None, domain: str) -> tuple[AssistIntent, str, str] | None:
    """Return an intent and the (domain, service) it reads as on a `domain` target."""
    assist_intent = ASSIST_INTENTS.get(intent_type or "")
    if assist_intent is None:
        return None
    if (called := assist_intent.called_service(domain)) is not None:
        return assist_intent, *called
    if assist_intent.service_in_words is not None:
        return assist_intent, domain, assist_intent.service_in_words
    return None


def intent_service(intent_type: str | None, domain: str) -> str | None:
    """Return the service an intent calls on a `domain` entity, when that says all it does.

    HassTurnOff on a lock: unlock. None for an intent whose slots change what its service
    does (HassLightSet at brightness 0 turns a light off) and for one that calls no known
    service.
    """
    call = _intent_call(intent_type, domain)
    if call is None or call[0].slots or call[0].fields:
        return None
    return call[2]


def said_intent(
    intent_type: str | None,
    domain: str,
    names: str,
    arguments: Mapping[str, Any],
    words: CallWords,
) -> tuple[str, dict[str, Any]] | None:
    """Say an intent's call on targets named `names`, as the service it calls says it.

    "Bed Light einschalten" and the fields it does not say, by their fields' names
    ({"brightness_pct": 40}); arguments that are no slot of its service are left out. None
    for an intent that calls no known service.
    """
    call = _intent_call(intent_type, domain)
    if call is None:
        return None
    assist_intent, service_domain, service = call
    fields = _slot_fields(assist_intent, arguments)
    return said_action(service_domain, service, names, {**fields, **assist_intent.fields}, words)


def _slot_fields(assist_intent: AssistIntent, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """Return the arguments that are slots of the intent's service, by their fields' names."""
    return {
        assist_intent.slots[key]: value
        for key, value in arguments.items()
        if key in assist_intent.slots and value not in (None, "", [])
    }


def intent_call(
    intent_type: str | None, domain: str, arguments: Mapping[str, Any]
) -> tuple[str, str, dict[str, Any]] | None:
    """Return the (domain, service, fields) an intent's call made on a `domain` target.

    What a call that ran did, as our own tools' call would say it: the fields by their
    service's names ({"brightness_pct": 40}); arguments that are no slot of its service are
    left out, but for HassSetPosition's position, which its handler passes as it is (the
    table names no slot for it). None for an intent that calls no known service.
    """
    call = _intent_call(intent_type, domain)
    if call is None:
        return None
    assist_intent, service_domain, service = call
    fields = _slot_fields(assist_intent, arguments)
    if intent_type == "HassSetPosition" and arguments.get("position") not in (None, ""):
        fields["position"] = arguments["position"]
    return service_domain, service, {**fields, **assist_intent.fields}


ENGLISH: Final = "en"


def call_words(language: str) -> CallWords:
    """Return the words of a conversation language ("de-CH": German); English for the others."""
    return WORDS_BY_LANGUAGE.get(language.split("-", maxsplit=1)[0].lower(), ENGLISH_WORDS)


def speaks_only_english(language: str) -> bool:
    """Whether calls read in English in this conversation language."""
    return call_words(language) is ENGLISH_WORDS


def verb(domain: str, service: str, words: CallWords) -> str:
    """How a service reads with its targets: a pattern with "{names}" where their names go."""
    return (
        words.verbs.get((domain, service))
        or words.verbs.get((None, service))
        or words.other_service.format(names="{names}", service=_literal(service.replace("_", " ")))
    )


# Services whose words depend on a yes/no field (call_words "switched"): that field.
SWITCH_FIELDS: Final[Mapping[str, str]] = {
    "oscillate": "oscillating",
    "volume_mute": "is_volume_muted",
    "update_item": "status",
    "set_away_mode": "away_mode",
    "shuffle_set": "shuffle",
}
# A to-do item's status is a two-valued field too: "completed", else "needs_action".
_TODO_DONE: Final = "completed"
_PLACEHOLDER: Final = re.compile(r"\{(\w+)\}")


# A step down is said by its own words and size ("lower … by 20%"), never as "by -20%".
STEPS_DOWN: Final[Mapping[str, str]] = {"brightness_step_pct": "brightness_down_pct"}


def with_steps_down(fields: Mapping[str, Any]) -> dict[str, Any]:
    """Return the fields to say, each negative step as its step down."""
    said = dict(fields)
    for step, down in STEPS_DOWN.items():
        value = said.get(step)
        if isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
            del said[step]
            said[down] = -value
    return said


def said_action(
    domain: str, service: str, names: str, fields: Mapping[str, Any], words: CallWords
) -> tuple[str, dict[str, Any]]:
    """Say a call on targets named `names`: the text, and the fields it does not say.

    "mute Kitchen Speaker", "Milch zu Shopping List hinzufügen"; a field the words do not
    name is left for the caller to show.
    """
    rest = with_steps_down(fields)
    # Patterns that say fields, each with the switch field it says by its choice of words.
    candidates: list[tuple[str, str | None]] = []
    switch = SWITCH_FIELDS.get(service)
    if switch is not None and switch in rest and (pair := words.switched.get(service)):
        candidates.append((pair[0 if is_yes(rest[switch]) else 1], switch))
    with_fields = words.with_fields.get((domain, service)) or words.with_fields.get(
        (None, service), ()
    )
    candidates.extend((pattern, None) for pattern in with_fields)
    for pattern, said_switch in candidates:
        wanted = set(_PLACEHOLDER.findall(pattern)) - {"names"}
        if wanted <= rest.keys() - {said_switch}:
            values = {key: _in_pattern(key, rest.pop(key), words) for key in wanted}
            if said_switch is not None:
                del rest[said_switch]
            return fill(pattern, words, names=names, **values), rest
    return fill(verb(domain, service, words), words, names=names), rest


def _in_pattern(key: str, value: Any, words: CallWords) -> str:
    """Return a field's value as the words say it: "21.5°", "30%", "5 minutes" ("21,5°")."""
    value = clock_words(key, value, words)
    if key in _FIELD_WORDS or key in _FRACTIONS or key == DURATION:
        return value_words(key, value, words, in_pattern=True)
    if isinstance(value, list | tuple):  # areas to clean: "Kitchen and Living Room"
        return _joined([str(item) for item in value], words)
    return _number(value, words) if isinstance(value, float) else str(value)


def is_yes(value: Any) -> bool:
    """Whether a two-valued field says yes: a boolean's true, a to-do item's "completed"."""
    if isinstance(value, bool):
        return value
    text = fold(str(value))
    return text == _TODO_DONE or BOOLEAN_WORDS.get(text) is True


# How a field's value is said ("{}" is the value); others read "<field name> <value>".
_FIELD_WORDS: Final[Mapping[str, str]] = {
    "brightness_pct": "brightness {}%",
    # An intent's volume, in percent (a service's volume_level is a fraction of one).
    "volume_pct": "volume {}%",
    "brightness_step_pct": "brightness by {}%",
    "brightness_down_pct": "brightness down by {}%",
    "color_temp_kelvin": "{} K",
    "color_name": "{}",
    "duration": "for {}",
    "fan_mode": "{}",
    "fan_speed": "{}",
    "hvac_mode": "{}",
    "humidity": "{}%",
    "option": "{}",
    "percentage": "{}%",
    "position": "{}%",
    "preset_mode": "{}",
    "rename": "to {}",
    "source": "{}",
    "target_temp_high": "high {}°",
    "target_temp_low": "low {}°",
    "temperature": "{}°",
    "tilt_position": "tilt {}%",
}
# A percentage as _FIELD_WORDS writes it; said in the language's way (CallWords.percent).
_PERCENT: Final = "{}%"
# Fields given as a fraction of one, said as a percentage.
_FRACTIONS: Final[Mapping[str, str]] = {"volume_level": "volume {}%"}


# The fields that hold a time of day ("07:30:00"), a date ("2026-12-24"), or both.
_CLOCK_FIELDS: Final = frozenset({"time"})
_DATE_FIELDS: Final = frozenset({"date", "due_date"})
_DATE_TIME_FIELDS: Final = frozenset({"datetime", "due_datetime"})
_TIME_OF_DAY: Final = re.compile(r"\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?")
_ZERO_SECONDS: Final = re.compile(r"(\d{1,2}:\d{2}):00(?:\.0+)?$")


def clock_words(key: str, value: Any, words: CallWords = ENGLISH_WORDS) -> Any:
    """Say a time and a date as people say them: "07:30", "24. Dezember 2026 um 07:15".

    Not "07:30:00" (seconds only when they are not zero), nor "2026-12-24 07:15:00".

    A value that is no plain date or time of day (one with its time zone) stays as written.
    """
    if not isinstance(value, str):
        return value
    text = value.strip()
    if key in _CLOCK_FIELDS:
        return _ZERO_SECONDS.sub(r"\1", text)
    if key in _DATE_FIELDS:
        return date_words(text, words) or value
    if key in _DATE_TIME_FIELDS:
        day, _, time = text.replace("T", " ", 1).partition(" ")
        said = date_words(day, words)
        if said is not None and not time:
            return said
        if said is not None and _TIME_OF_DAY.fullmatch(time):
            return words.date_at.format(date=said, time=_ZERO_SECONDS.sub(r"\1", time))
    return value


def field_words(key: str, value: Any) -> str:
    """Say one field of a call: "brightness 40%", "2700 K", "volume 30%", "for 5 minutes"."""
    value = clock_words(key, value)
    if key in _FRACTIONS and isinstance(value, int | float) and not isinstance(value, bool):
        return _FRACTIONS[key].format(f"{value * 100:g}")
    if key == DURATION and (length := duration_words(value, ENGLISH_WORDS)) is not None:
        return ENGLISH_WORDS.fields[DURATION].format(length)
    if isinstance(value, float):
        value = f"{value:g}"  # 21.0 is "21"
    if key in _FIELD_WORDS:
        return _FIELD_WORDS[key].format(value)
    if isinstance(value, str) and not value.isdigit():
        return value  # a word says itself, as the question says it: "(Watch TV)", "(eco)"
    return f"{key.replace('_', ' ')} {value}"


def value_words(key: str, value: Any, words: CallWords, *, in_pattern: bool = False) -> str:
    """Say a field's value without the field's English name: "40%", "2700 K", "21,5°", "red".

    With the language's decimal mark (a comma in all but English). A length of time in its
    words ("für 5 Minuten"; inside a pattern that says "für" itself, "5 Minuten").
    """
    value = clock_words(key, value, words)
    number = isinstance(value, int | float) and not isinstance(value, bool)
    if key in _FRACTIONS and number:
        return words.percent.format(_number(value * 100, words))
    if key == DURATION and (length := duration_words(value, words)) is not None:
        return length if in_pattern else words.fields[DURATION].format(length)
    if isinstance(value, float):
        value = _number(value, words)
    if (unit := _FIELD_WORDS.get(key)) is not None:
        # The value and its unit, without the English words in front ("brightness {}%").
        with_unit = unit[unit.index("{}") :]
        if with_unit == _PERCENT:
            return words.percent.format(value)
        if with_unit.startswith("{} "):  # a unit apart from its number ("2700 K")
            return words.quantity.format(number=value, unit=with_unit.removeprefix("{} "))
        return with_unit.format(value)
    # A word or a list alone, without the English field name ("(reverse)", "(Rock, Jazz)"); a
    # number alone says nothing: with the language's words for the field ("Übergang 5 s"),
    # else with its name ("transition 5").
    if isinstance(value, list | tuple):
        return ", ".join(map(str, value))
    if number or (isinstance(value, str) and value.isdigit()):
        if (said := words.fields.get(key)) is not None:
            return said.format(value)
        return f"{key.replace('_', ' ')} {value}"
    return str(value)


# The field that holds a length of time (a timer's, a siren's), and its units in seconds.
DURATION: Final = "duration"
_UNITS: Final = (("hours", 3600), ("minutes", 60), ("seconds", 1))


def duration_words(value: Any, words: CallWords) -> str | None:
    """Say a length of time: "5 Minuten", "1 hour and 30 minutes"; None when unreadable.

    As Home Assistant takes it: seconds, "HH:MM" or "HH:MM:SS", or {"minutes": 5, ...}; a
    negative one (time a timer's change takes off: "-00:05:00") is said with its sign.
    """
    seconds = duration_seconds(value)
    if seconds is None:
        return None
    if seconds < 0:
        return f"-{duration_words(-seconds, words)}"
    parts = []
    for unit, size in _UNITS:
        count, seconds = divmod(seconds, size)
        if count:
            one, more = words.durations[unit]
            parts.append((one if count == 1 else more).format(f"{count:g}"))
    if not parts:
        return words.durations["seconds"][1].format(0)
    if len(parts) == 1:
        return parts[0]
    return f"{', '.join(parts[:-1])} {words.and_} {parts[-1]}"


def duration_seconds(value: Any) -> float | None:
    """Return a length of time as Home Assistant takes it, in seconds; None if unreadable."""
    try:
        if isinstance(value, Mapping):
            return sum(
                float(value.get(unit, 0)) * size
                for unit, size in (*_UNITS, ("days", 86400), ("milliseconds", 0.001))
            )
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            # The sign is the whole length's, as Home Assistant reads it ("-00:05:00").
            text = value.strip()
            sign = -1 if text.startswith("-") else 1
            numbers = [float(part) for part in text.lstrip("+-").split(":")]
            if len(numbers) == 1:
                return sign * numbers[0]
            if len(numbers) in (2, 3):
                return sign * sum(n * s for n, s in zip(numbers, (3600, 60, 1), strict=False))
    except TypeError, ValueError, OverflowError:
        return None
    return None


def quantity_words(quantity: Quantity, words: CallWords) -> str:
    """Say a number and its unit: "21,5 °C" in German, "100%" in English, "100 %" in French."""
    return _with_unit(_number(quantity.number, words), quantity.unit, words)


def _with_unit(number: str, unit: str, words: CallWords) -> str:
    """Join a written number and its unit as the language does (CallWords.percent, .quantity)."""
    if not unit:
        return number
    if unit == _PERCENT_UNIT:
        return words.percent.format(number)
    return words.quantity.format(number=number, unit=unit)


# A state read with its unit, as the entity view shows it ("21.5 °C", "-3 W").
_READ_QUANTITY: Final = re.compile(r"(-?\d+(?:\.\d+)?) (\S+)")


def _read_quantity_words(state: str, words: CallWords) -> str | None:
    """Say a state read with its unit in the language's way ("21,5 °C"); None for another.

    The number as it was read, its decimal mark the language's: never rounded again.
    """
    if (match := _READ_QUANTITY.fullmatch(state)) is None:
        return None
    number = match[1] if words is ENGLISH_WORDS else match[1].replace(".", ",")
    return _with_unit(number, match[2], words)


_PERCENT_UNIT: Final = "%"


def _number(number: float, words: CallWords) -> str:
    """Write a number as the language does: "21.5" in English, "21,5" in the others."""
    written = f"{number:g}"
    return written if words is ENGLISH_WORDS else written.replace(".", ",")


def intent_verb(intent_type: str | None, domain: str, words: CallWords) -> str:
    """How an intent reads on a domain's entities ("HassTurnOff" on a lock unlocks it)."""
    if intent_type is None:
        return words.run
    if (said := said_intent(intent_type, domain, "{names}", {}, words)) is not None:
        return said[0]
    return words.run_intent.format(names="{names}", intent=_literal(intent_type))


def _literal(text: str) -> str:
    """Text put into a pattern that is formatted again later: its braces stay braces."""
    return text.replace("{", "{{").replace("}", "}}")


def entity_name(hass: HomeAssistant, entity_id: str) -> str:
    """Return an entity's friendly name as our questions say it, or its id when it has no state.

    As said_name says it, with its entity id when the name could be taken for another's
    (hides_its_meaning, heard_like_another): one that shows other than it says, holds marks of
    our sentences or is heard like another entity's of its domain.
    """
    state = hass.states.get(entity_id)
    if state is None:
        return entity_id
    return told_name(hass, entity_id, state.name)


def told_name(hass: HomeAssistant, entity_id: str, name: str) -> str:
    """Return a name of the entity as entity_name says it: with its id where it is unclear."""
    said = said_name(name, entity_id)
    # A cut name already ends with its id, whose brackets are marks of ours: said once.
    if said in (entity_id, f"{one_line(name)} ({entity_id})") or not (
        hides_its_meaning(said) or heard_like_another(hass, entity_id, name)
    ):
        return said
    return f"{said} ({entity_id})"


def said_name(name: str, entity_id: str) -> str:
    """Return an entity's name as every answer and question of ours says it.

    On one line and cut at the bound the home list cuts it (entity_view.one_line); a cut name
    is followed by its entity id ("Smart lock of the house … (lock.back_door)"): two names
    alike up to the cut, or one whose end says which door it is, are told apart. A name that
    holds an entity id is said as its own id alone (writes_an_entity_id).
    """
    shown = one_line(name)
    if writes_an_entity_id(shown):
        return entity_id
    # A name a tool's result already cut (as the home list cuts it) is cut too. Told by its
    # form: every cut name ends so at the bound; a name that really does is said with its id,
    # which only adds to what is said.
    cut_before = shown.endswith("…") and len(shown) == MAX_NAME_CHARS
    if not cut_before and len(one_line(name, len(name))) <= len(shown):
        return shown
    return f"{shown} ({entity_id})"


# An entity id written as a word of a text ("light.kitchen_lights"), not part of a longer
# dotted word nor a number ("21.5"), nor quoted as code (JSON's "lock.front_door", `...`).
_ENTITY_ID_WORD: Final = re.compile(r"(?<![\w.\"`])[a-z_][a-z0-9_]*\.[a-z0-9_]+(?!\w|\.\w|[\"`])")
# Code in a text: a fenced block or an inline span (Markdown's backticks), kept as written.
_CODE: Final = re.compile(r"```.*?(?:```|$)|`[^`\n]*`", re.DOTALL)
# A request for an entity id, in the languages we speak: "entity id", "ID" ("Entitäts-ID",
# "entiteit-ID", "ID entità", "ID da entidade"), "identifiant", "identificador",
# "identificativo", "identifier", "Kennung", "entity_id".
_ASKS_FOR_IDS: Final = re.compile(
    r"\b(?:ids?|entity_ids?|identifiants?|identificador(?:es)?|identificativ[oi]"
    r"|identifiers?|kennung(?:en)?)\b",
    re.IGNORECASE,
)


def with_entity_names(hass: HomeAssistant, text: str, asked: str = "") -> str:
    """Return the text with each exposed entity's id said as its name.

    The model reads our tools' entity ids and may write one in its answer ("light.kitchen_
    lights is on"): the person hears "Kitchen Lights is on". An id of an entity that is not
    exposed (or does not exist) stays as the model wrote it: its name is not the model's to
    say. So does an id the person asked for (`asked`, what they said: it asks for an entity
    id or names the id itself) and one written as code (a code block, `...`).
    """
    if _ASKS_FOR_IDS.search(asked):
        return text
    said_ids = set(_ENTITY_ID_WORD.findall(asked.casefold()))

    def named(match: re.Match[str]) -> str:
        entity_id = match[0]
        state = hass.states.get(entity_id)
        if (
            entity_id in said_ids
            or state is None
            or not async_should_expose(hass, ASSISTANT, entity_id)
        ):
            return entity_id
        return said_name(state.name, entity_id)

    parts: list[str] = []
    start = 0
    for code in _CODE.finditer(text):
        parts += [_ENTITY_ID_WORD.sub(named, text[start : code.start()]), code[0]]
        start = code.end()
    return "".join([*parts, _ENTITY_ID_WORD.sub(named, text[start:])])


def join_names(names: Sequence[str], language: str = ENGLISH) -> str:
    """Join names as "A", "A and B" or "A, B and C" (the conversation language's "and")."""
    return _joined(list(names), call_words(language))


# A done answer names this many targets at most; a longer list is said with the count of the
# others ("Bed Light, Ceiling Lights, Desk Lamp and 9 more"): a voice reads every name.
MAX_NAMED: Final = 4


def join_few_names(names: Sequence[str], language: str = ENGLISH) -> str:
    """Join names as join_names does, at most MAX_NAMED of them: then three and "N more"."""
    words = call_words(language)
    if len(names) <= MAX_NAMED:
        return _joined(list(names), words)
    said = MAX_NAMED - 1
    return _joined([*names[:said], words.more.format(count=len(names) - said)], words)


def _joined(items: Sequence[str], words: CallWords) -> str:
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {words.and_} {items[-1]}"


def as_sentence(text: str, names: Collection[str] = ()) -> str:
    """Return the words as a sentence of their own: capitalized, with a full stop."""
    return _one_sentence_end(f"{capitalized(text, names)}.")


def capitalized(text: str, names: Collection[str] = ()) -> str:
    """Return the sentence with its first letter upper case ("¿desbloquear ...?" too).

    A name or an id it starts with is written as it is: one of `names` (the names the
    sentence says), an entity id, a word with a digit, a dot or an upper case letter inside
    ("iPhone-Ladegerät aufschließen?", "lock.back_door", "V1.2 Hub", "0 ground floor").
    """
    for index, character in enumerate(text):
        if character.isalnum():
            start = text[index:]
            if any(name and start.startswith(name) for name in names):
                return text
            if _name_shaped(start):
                return text
            return text[:index] + character.upper() + text[index + 1 :]
    return text


def _name_shaped(text: str) -> bool:
    """Tell whether the first word is none a sentence of ours starts with.

    It has a digit, a dot or an underscore inside, or an upper case letter after its first.
    """
    word = text.split(maxsplit=1)[0].rstrip(".:,;!?")
    return any(c.isdigit() or c in "._" for c in word) or any(c.isupper() for c in word[1:])


def names_in(parts: Iterable[Said]) -> list[str]:
    """Return the names the parts say (their Names placeholders), to be written as they are."""
    return [
        name
        for part in parts
        if isinstance(part, Phrase)
        for value in part.placeholders.values()
        if isinstance(value, Names) and value.as_written
        for name in value.names
    ]


type IsSensitive = Callable[[str], bool]
# The actions of the automations a change of an entity may set off (SafetyPolicy.setting_off).
type SetsOff = Callable[[str, str], list[list[Any]]]


def describe_action(
    hass: HomeAssistant,
    action: PlannedAction,
    is_sensitive: IsSensitive | None = None,
    language: str = ENGLISH,
    by_name: Container[str] | None = None,
    *,
    driving: Sequence[tuple[str, str]] = (),
    sets_off: SetsOff | None = None,
    kept: str = "",
) -> str:
    """Return e.g. "unlock Front Door" or "turn on Kitchen (brightness_pct 50)".

    With `is_sensitive`, what the call does to sensitive entities inside its targets follows
    ("run Open up (this will unlock Front Door)"); with `by_name` (the entities the policy
    names sensitive itself: a lock), also what an entity not among them runs of its own
    ("press Porch (this will unlock Front Door)"). In the conversation `language` when the agent
    speaks it (home/call_words.py), else in English. `driving`: what the call does through
    the sensitive entities whose own actions make it (a template lock's relay switched on:
    ("lock.side_door", "unlock")), said the same way ("turn on Door relay (this will unlock
    Side Door)"); `sets_off`: what automations a change of an entity may set off, said as
    what the call may do ("run Welcome (this may unlock Front Door)"); `kept`: what the
    programs the call stops will not do (kept_text), in the same brackets.
    """
    words = call_words(language)
    names = join_names([entity_name(hass, entity_id) for entity_id in action.entity_ids], language)
    if action.domain is None or action.service is None:
        return words.read_state.format(names=names)
    data = said_fields(hass, action.data.items(), action.entity_ids)
    if OPTION_FIELD in data and (word := _cached_option_word(hass, language, action, data)):
        # As the done answer says it ("Ridiculous speed"), from the words the gate loaded.
        data[OPTION_FIELD] = word
    if words is not ENGLISH_WORDS:
        data = _said_colours(hass, language, data, {COLOUR_FIELD: COLOUR_FIELD})
        data = {key: said_value(hass, language, action.domain, key, v) for key, v in data.items()}
    text, rest = said_action(action.domain, action.service, names, data, words)
    # The values the words have no place for, with their units ("(2700 K)"), no field names.
    shown = [value_words(key, value, words) for key, value in rest.items()]
    text += f" ({', '.join(shown)})" if shown else ""
    if is_sensitive is None:
        return text + kept
    inside = _inside_text(
        hass,
        [(entity_id, action.service) for entity_id in action.entity_ids],
        is_sensitive,
        language,
        by_name,
        driving=[Effect(entity_id, service) for entity_id, service in driving],
        sets_off=sets_off,
    )
    return text + one_aside((inside, kept))


def describe_api_call(
    hass: HomeAssistant,
    *,
    label: str,
    intent_type: str | None,
    outcome: Mapping[str, Any],
    sensitive: Sequence[str],
    is_sensitive: IsSensitive,
    language: str = ENGLISH,
    by_name: Container[str] | None = None,
) -> str:
    """Say what a held call of an LLM API tool does to its sensitive targets.

    `outcome` holds every argument that changes what happens ("set the position of Hall
    Window to 30%"); without known sensitive targets the tool is named by its label.
    """
    words = call_words(language)
    outcome = dict(outcome)
    # Another integration wrote the label: on one line and bounded, as a name.
    label = one_line(label)
    if not sensitive:
        if outcome:
            return words.use_with.format(label=label, arguments=_arguments_text(outcome, language))
        return words.use.format(label=label)
    by_verb: dict[str, list[str]] = {}
    for entity_id in sensitive:
        by_verb.setdefault(intent_verb(intent_type, _domain(entity_id), words), []).append(
            entity_name(hass, entity_id)
        )
    assist_intent = ASSIST_INTENTS.get(intent_type or "")
    slots = assist_intent.slots if assist_intent is not None else {}
    if words is not ENGLISH_WORDS:
        outcome = _said_colours(hass, language, outcome, slots)
    text = f" {words.and_} ".join(
        pattern.format(names=join_names(sorted(names), language))
        for pattern, names in by_verb.items()
    )
    # The values go inside the words where they have a place ("set the volume of Kitchen to
    # 50%", "die Position von Garage Door auf 50 % einstellen"), as for our own tools' calls.
    if len(by_verb) == 1 and outcome:
        names = join_names(sorted(next(iter(by_verb.values()))), language)
        said = said_intent(intent_type, _domain(sensitive[0]), names, outcome, words)
        if said is not None:
            unsaid = {
                key: v for key, v in outcome.items() if key not in slots or slots[key] in said[1]
            }
            if unsaid != outcome:
                text, outcome = said[0], unsaid
    if intent_type == "HassSetPosition" and "position" in outcome:
        text += words.to_position.format(position=outcome.pop("position"))
    if outcome:
        text += f" ({_arguments_text(outcome, language, slots)})"
    services = [
        (entity_id, intent_service(intent_type, _domain(entity_id)) or "turn_on")
        for entity_id in sensitive
    ]
    return text + _inside_text(hass, services, is_sensitive, language, by_name)


# Pronouns a person may say an action again with: "unlock it", "turn them off".
_PRONOUNS: Final = ("it", "them", "that", "those", "this", "these")
_PARTICLE_VERB: Final = re.compile(r"^(\w+) (on|off|up|down) \{names\}$")


def restatements(calls: Sequence[Call], language: str = ENGLISH) -> frozenset[str]:
    """Ways to say these calls again: "unlock it", "turn it off", or just "unlock".

    In English with a pronoun or the verb alone; in the conversation's other language the verb
    alone ("aufschließen", "déverrouiller") or as its words say it with a pronoun ("schließ
    sie auf", "déverrouille-la"). Only when every call reads with the same one verb (a reply
    must never pick among them), and never with names: an echo of the question says those.
    """
    phrases: set[str] = set()
    if english := _one_pattern(calls, ENGLISH_WORDS):
        phrases |= {english.format(names=pronoun) for pronoun in _PRONOUNS}
        phrases |= _bare(english)
        if particle := _PARTICLE_VERB.match(english):
            phrases |= {f"{particle[1]} {pronoun} {particle[2]}" for pronoun in _PRONOUNS}
    words = call_words(language)
    if words is not ENGLISH_WORDS and (own := _one_pattern(calls, words)):
        phrases |= _bare(own)
        phrases |= _restated(calls, words)
    return frozenset(phrases)


def _restated(calls: Sequence[Call], words: CallWords) -> set[str]:
    """Return how the words say every one of the calls again with a pronoun, if the same."""
    said: set[frozenset[str]] = set()
    for call in calls:
        if isinstance(call, PlannedAction):
            keys = [(call.domain, call.service)]
        else:
            keys = [
                (_domain(target), intent_service(call.intent_type, _domain(target)))
                for target in call.targets or ()
            ]
        if not keys:
            return set()
        for domain, service in keys:
            if domain is None or service is None:
                return set()
            # The words of the verb it reads with: a scene's own ("aktivieren"), else the
            # service's.
            key = (domain, service) if (domain, service) in words.verbs else (None, service)
            said.add(frozenset(words.restated.get(key, ())))
    return set(said.pop()) if len(said) == 1 else set()


def _one_pattern(calls: Sequence[Call], words: CallWords) -> str | None:
    """Return the one verb pattern every call reads with in these words, or None."""
    patterns: set[str] = set()
    for call in calls:
        if isinstance(call, PlannedAction):
            if call.domain is None or call.service is None:
                return None
            patterns.add(verb(call.domain, call.service, words))
        else:
            own = {intent_verb(call.intent_type, _domain(t), words) for t in call.targets or ()}
            if len(own) != 1:
                return None
            patterns |= own
    return patterns.pop() if len(patterns) == 1 else None


def _bare(pattern: str) -> set[str]:
    """Return the verb without its targets, when they stand at either end ("unlock {names}")."""
    if not (pattern.startswith("{names}") or pattern.endswith("{names}")):
        return set()
    return {" ".join(pattern.format(names="").split())}


def _said_colours(
    hass: HomeAssistant, language: str, arguments: dict[str, Any], slots: Mapping[str, str]
) -> dict[str, Any]:
    """Return the arguments with a colour in the language's words ("blue": "blau")."""
    colours = colour_words(hass, language)
    return {
        key: colours.word(colours.css_name(value))
        if slots.get(key) == COLOUR_FIELD and isinstance(value, str)
        else value
        for key, value in arguments.items()
    }


def _arguments_text(
    arguments: Mapping[str, Any], language: str, slots: Mapping[str, str] | None = None
) -> str:
    """Say a tool's arguments; `slots`: the service field an intent's slot sets.

    The values with their units, read as the fields they set ("brightness": 40 is "40%", an
    intent's "volume_level" 50 is "50%"); a number no unit explains with its name. In English
    another tool's arguments keep their names: they are all it says of what it will do.
    """
    # Values a model wrote: each on one line and bounded, as a name is (a tool's free text
    # could fill the question with lines of its own, "… Unlock Back Door? Say yes to confirm.").
    arguments = {key: _one_line_value(value) for key, value in arguments.items()}

    def value_text(value: Any) -> str:
        if isinstance(value, list):
            return join_names([str(item) for item in value], language)
        return str(value)

    if slots is None and speaks_only_english(language):
        return ", ".join(f"{key.replace('_', ' ')} {value_text(v)}" for key, v in arguments.items())
    fields = slots or {}
    words = call_words(language)
    return ", ".join(
        value_words(fields.get(key, key), value_text(v) if isinstance(v, list) else v, words)
        for key, v in arguments.items()
    )


def _one_line_value(value: Any) -> Any:
    if isinstance(value, str):
        return one_line(value)
    if isinstance(value, list):
        return [one_line(item) if isinstance(item, str) else item for item in value]
    return value


def _domain(entity_id: str) -> str:
    return split_entity_id(entity_id)[0]


# What runs inside a target -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Effect:
    """What a call does to one sensitive entity inside one of its targets."""

    entity_id: str
    service: str | None  # None: a state a scene sets that no service names
    state: str | None = None
    maybe: bool = False  # done by an automation the call's change may set off


def inner_effects(
    hass: HomeAssistant,
    entity_id: str,
    service: str,
    is_sensitive: IsSensitive,
    by_name: Container[str] | None = None,
    *,
    sets_off: SetsOff | None = None,
) -> list[Effect]:
    """Return what a call of `service` on `entity_id` does to sensitive entities inside it.

    A script's steps, the states a scene sets, a group's members and, with `by_name` (the
    entities the policy names sensitive itself), the action an entity runs of its own for
    the service (a template button's press) unless it is one of them (a template lock: its
    unlock is how it unlocks): followed MAX_DEPTH deep.
    """
    found: list[Effect] = []
    for effect in _effects(
        hass,
        entity_id,
        service,
        is_sensitive,
        by_name,
        depth=0,
        seen={(entity_id, service)},
        sets_off=sets_off,
    ):
        if effect not in found:
            found.append(effect)
    return found


def _inside_text(
    hass: HomeAssistant,
    calls: Iterable[tuple[str, str]],
    is_sensitive: IsSensitive,
    language: str,
    by_name: Container[str] | None = None,
    *,
    driving: Sequence[Effect] = (),
    sets_off: SetsOff | None = None,
) -> str:
    calls = list(calls)
    named = {entity_id for entity_id, _ in calls}
    # What runs now, what an automation the call enables will do when it runs, and what an
    # automation the call's change sets off may do.
    now: list[Effect] = [effect for effect in driving if effect.entity_id not in named]
    later: list[Effect] = []
    maybe: list[Effect] = []
    for entity_id, service in calls:
        for effect in inner_effects(
            hass, entity_id, service, is_sensitive, by_name, sets_off=sets_off
        ):
            found = maybe if effect.maybe else later if _enables(entity_id, service) else now
            if effect not in found and effect.entity_id not in named:
                found.append(effect)
    maybe = [e for e in maybe if replace(e, maybe=False) not in (*now, *later)]
    words = call_words(language)
    return one_aside(
        pattern.format(effects=_effects_words(hass, effects, words, language))
        for pattern, effects in (
            (words.this_will, now),
            (words.when_it_runs, later),
            (words.this_may, maybe),
        )
        if effects
    )


def one_aside(asides: Iterable[str]) -> str:
    """Put asides said in brackets into one bracket: " (this will X, then Y will not Z)".

    Each is a call_words pattern said (" (this will X)", " (then Y will not Z)") or empty.
    """
    said = [aside.removeprefix(" (").removesuffix(")") for aside in asides if aside]
    return f" ({', '.join(said)})" if said else ""


def _enables(entity_id: str, service: str) -> bool:
    """Whether the call switches an automation on: that runs none of its actions now."""
    return _domain(entity_id) == "automation" and service in {"turn_on", "toggle"}


def kept_text(
    hass: HomeAssistant,
    programs: Iterable[tuple[str | None, list[Any]]],
    is_sensitive: IsSensitive,
    language: str,
    skip: Collection[str],
) -> str:
    """Say what the programs a call stops would have done to sensitive entities.

    "Cancel Re-lock timer (then Re-lock will not lock Front Door)"; `skip`: the services
    (`domain.service`) the call keeps from running that open up, which a stopped program not
    doing keeps the house as it is. A program with nothing readable left: "(then Re-lock will
    not run)".
    """
    words = call_words(language)
    parts: list[str] = []
    for program, steps in programs:
        if program is None:
            continue
        effects: list[Effect] = []
        for step_service, targets in _script_calls(hass, steps):
            for target in targets:
                effect = Effect(target, service_of(_domain(target), step_service))
                if (
                    f"{_domain(target)}.{effect.service}" not in skip
                    and effect not in effects
                    and is_sensitive(target)
                ):
                    effects.append(effect)
        name = entity_name(hass, program)
        parts.append(
            words.kept_from.format(
                program=name, effects=_effects_words(hass, effects, words, language)
            )
            if effects
            else words.kept_from_any.format(program=name)
        )
    return one_aside(parts)


def _effects_words(
    hass: HomeAssistant, effects: Sequence[Effect], words: CallWords, language: str
) -> str:
    """Say the effects joined: "lock Front Door and set Hall to on"."""
    # A pattern and what fills it: the names of the targets, or the states a scene sets one to.
    by_pattern: dict[str, list[str]] = {}
    for effect in effects:
        name = entity_name(hass, effect.entity_id)
        if effect.service is None:
            pattern = words.set_to.format(names=_literal(name), state="{names}")
            by_pattern.setdefault(pattern, []).append(str(effect.state))
        else:
            pattern = verb(_domain(effect.entity_id), effect.service, words)
            by_pattern.setdefault(pattern, []).append(name)
    parts = [
        pattern.format(names=join_names(values, language)) for pattern, values in by_pattern.items()
    ]
    return f" {words.and_} ".join(parts)


def _effects(
    hass: HomeAssistant,
    entity_id: str,
    service: str,
    is_sensitive: IsSensitive,
    by_name: Container[str] | None,
    *,
    depth: int,
    seen: set[tuple[str, str]],
    sets_off: SetsOff | None = None,
) -> Iterator[Effect]:
    if depth >= MAX_DEPTH:
        return
    domain = _domain(entity_id)
    if domain in _PROGRAM_DOMAINS and service == "turn_off":
        return  # stopping or switching off a program runs none of its steps
    if domain == "script" and service in {"turn_on", "toggle"}:
        steps = script_sequence(hass, entity_id) or []
        calls = [
            (target, service_of(_domain(target), step_service))
            for step_service, targets in _script_calls(hass, steps)
            for target in targets
        ]
    elif domain == "scene" and service == "turn_on":
        calls = []
        for member, state in (scene_states(hass, entity_id) or {}).items():
            member_domain = _domain(member)
            target_service = _STATE_SERVICES.get((member_domain, state)) or _STATE_SERVICES.get(
                (None, state)
            )
            if target_service is None:
                if is_sensitive(member):
                    yield Effect(member, None, state)
                continue
            calls.append((member, service_of(member_domain, target_service)))
    elif (
        by_name is not None
        and entity_id not in by_name
        and (own := entity_service_steps(hass, entity_id, service)) is not None
    ):
        calls = [
            (target, service_of(_domain(target), step_service))
            for step_service, targets in _script_calls(hass, own)
            for target in targets
        ]
    else:
        calls = [(m, service_of(_domain(m), service)) for m in _members(hass, entity_id)]
    # What the change of an entity the policy does not name itself sets off (an automation
    # on the bed light that unlocks): what the call may do.
    set_off = (
        [
            (target, service_of(_domain(target), step_service))
            for steps in sets_off(entity_id, service)
            for step_service, targets in _script_calls(hass, steps)
            for target in targets
        ]
        if sets_off is not None and by_name is not None and entity_id not in by_name
        else []
    )
    # An entity met again is followed again only for another service: a program that turns
    # back off the light whose turn-on set it off may set off what the light's going off does.
    for index, (member, member_service) in enumerate([*calls, *set_off]):
        if (member, member_service) in seen:
            continue
        nested = list(
            _effects(
                hass,
                member,
                member_service,
                is_sensitive,
                by_name,
                depth=depth + 1,
                seen={*seen, (member, member_service)},
                sets_off=sets_off,
            )
        )
        if not nested and is_sensitive(member):
            nested = [Effect(member, member_service)]
        for effect in nested:
            yield replace(effect, maybe=True) if index >= len(calls) else effect


def _members(hass: HomeAssistant, entity_id: str) -> list[str]:
    """Members of a group-like entity (old-style groups, light/cover/lock groups)."""
    state = hass.states.get(entity_id)
    members = state.attributes.get(ATTR_ENTITY_ID) if state is not None else None
    if isinstance(members, str):
        return [members]
    if isinstance(members, list | tuple):
        return [member for member in members if isinstance(member, str)]
    return []


_NESTED_STEPS: Final = ("sequence", "then", "else", "default")
_PROGRAM_DOMAINS: Final = frozenset({"automation", "script"})


def _script_calls(hass: HomeAssistant, steps: Iterable[Any]) -> Iterator[tuple[str, list[str]]]:
    """Every service a script's steps call, with its entity targets (templates are skipped)."""
    for step in steps:
        if not isinstance(step, Mapping):
            continue
        action = step.get("action", step.get("service"))
        if isinstance(action, str) and "." in action:
            domain, service = action.split(".", 1)
            # A `data` or `target` written whole as a template names nothing readable.
            parts = (step.get("data"), step.get("target"))
            target = {k: v for part in parts if isinstance(part, Mapping) for k, v in part.items()}
            targets = target_entities(hass, target, (domain, service))
            if domain == "script" and service not in {"turn_on", "turn_off", "toggle", "reload"}:
                targets, service = [f"script.{service}"], "turn_on"
            yield service, targets
        if isinstance(scene := step.get("scene"), str):
            yield "turn_on", [scene]
        if "device_id" in step and (call := device_action_call(hass, step)) is not None:
            yield call[1], [call[0]]
        for key in _NESTED_STEPS:
            if isinstance(nested := step.get(key), list):
                yield from _script_calls(hass, nested)
        for option in step.get("choose") or ():
            if isinstance(option, Mapping) and isinstance(option.get("sequence"), list):
                yield from _script_calls(hass, option["sequence"])
        if isinstance(repeat := step.get("repeat"), Mapping):
            yield from _script_calls(hass, repeat.get("sequence") or ())
        for branch in step.get("parallel") or ():
            yield from _script_calls(hass, [branch])


def heard_like_another(hass: HomeAssistant, entity_id: str, name: str) -> bool:
    """Whether another entity of the domain, or of a domain its verbs share, has that name."""
    return bool(look_alikes(hass, entity_id, name))


def look_alikes(hass: HomeAssistant, entity_id: str, name: str) -> set[str]:
    """Return the other entities of the domain, or of a domain its verbs share, heard so.

    Only those domains' entities are compared: the question's verb says which ("unlock" is a
    lock's), and a domain a question names holds few. "Open" is a lock's, a cover's and a
    valve's: a lock named "Garage Door" is asked about as the garage door is. An entity is
    heard by its name and by each of its aliases.
    """
    said = heard(name)
    domain = split_entity_id(entity_id)[0]
    domains = _SHARING_VERBS if domain in _SHARING_VERBS else (domain,)
    return {
        other
        for each in domains
        for other in entities_heard_as(hass, each, said)
        if other != entity_id
    }


# Domains whose questions say some of their actions in the same words ("open", "close").
_SHARING_VERBS: Final = ("cover", "lock", "valve")


# A pattern's word before a value is joined to it as the language writes it: French elides
# before a vowel ("de Entrée": "d'Entrée"); French, Italian, Spanish and Portuguese contract a
# preposition with the article a value begins with ("de Le Salon": "du Salon", "di Il
# Salotto": "del Salotto", "de O Quarto": "do Quarto"). The words live in call_words.json
# ("elisions", "contractions").
# A placeholder and the word right before it in a pattern ("de {names}").
_WORD_BEFORE: Final = re.compile(r"(?<![\w'])(\w+) \{(\w+)\}")
# The article a value begins with: a word and a space, or a word and an apostrophe ("L'Entrée").
_ARTICLE: Final = re.compile(r"(\w+)( |'|\u2019)(?=\w)")
# Letters a word is elided before. Never "h" or "y": whether a name's "h" is mute is not known.
_VOWELS: Final = frozenset("aeiouàâäáéèêëíîïóôöúùûüœæ")


def fill(pattern: str, words: CallWords, **values: Any) -> str:
    """Return the pattern formatted with the values, each joined to the word before it."""
    said = dict(values)

    def joined(match: re.Match[str]) -> str:
        word, key = match[1], match[2]
        value = said.get(key)
        if not isinstance(value, str):
            return match[0]
        if (article := _ARTICLE.match(value)) and (
            contracted := words.contractions.get(_together(word, article))
        ):
            said[key] = value[article.end() :]
            space = "" if contracted.endswith("'") else " "
            return f"{contracted}{space}{{{key}}}"
        if value[:1].casefold() in _VOWELS and (elided := words.elisions.get(word.casefold())):
            return f"{_as_written(elided, word)}{{{key}}}"
        return match[0]

    return _WORD_BEFORE.sub(joined, pattern).format(**said)


def without_article(text: str) -> str:
    """Return the text as a contraction leaves it, its first article gone ("Le Salon": "Salon")."""
    return text[article.end() :] if (article := _ARTICLE.match(text)) else text


def _together(word: str, article: re.Match[str]) -> str:
    """Return a word and the article after it as contractions holds them ("di l'")."""
    elided = "" if article[2] == " " else "'"
    return f"{word} {article[1]}{elided}".casefold()


def _as_written(elided: str, word: str) -> str:
    """Keep a capital the pattern's word began with ("De {names}": "D'…")."""
    return elided[:1].upper() + elided[1:] if word[:1].isupper() else elided
