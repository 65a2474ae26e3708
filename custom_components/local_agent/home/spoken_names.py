"""Look-alike names as a voice tells them apart: by where the thing is, not by its id.

Our texts name an entity whose name is heard like another's with its entity id ("Unlock Front
Door (lock.front_door)?"), which a satellite's text-to-speech reads as "lock dot front
underscore door". Said aloud, the name is followed instead by the first of its area, floor or
device that no look-alike of its domain shares ("Front Door in the Hall"), read from the
registries, never from a name. A spoken form that is itself heard like another entity's name (a
lock someone named "Front Door in the Hall") tells nothing apart and is not used; when nothing
spoken tells them apart, the id stays: it is exact, and it is what the person finds in the app.
A name said with its id because it holds marks of ours ("Front Door: main") keeps the id and
is followed by its place the same way ("Front Door: main (lock.front_door) in the Hall"); one
said as its id alone because it holds an entity id ("Garage (lock.other)") is too
("lock.front_door in the Hall").
"""

from __future__ import annotations

import re
from typing import Final

from homeassistant.core import HomeAssistant
from homeassistant.core import split_entity_id
from homeassistant.helpers import entity_registry as er

from .call_texts import call_words
from .call_texts import look_alikes
from .call_texts import told_name
from .call_texts import without_article
from .call_words import CallWords
from .entity_view import heard
from .entity_view import hides_its_meaning
from .entity_view import one_line
from .entity_view import writes_an_entity_id
from .twin_names import places_of

# An entity id as entity_name writes it: in the brackets after a look-alike name, or alone
# for a name that holds one; never part of a longer id or dotted word.
_WRITTEN_ID: Final = re.compile(r"(?<![\w.])[a-z_][a-z0-9_]*\.[a-z0-9_]+(?![\w.])")


def _patterns(words: CallWords) -> tuple[str, str, str]:
    """Return the patterns that say a name by its area, floor and device (places_of's order)."""
    return (words.in_area, words.on_floor, words.of_device)


def spoken_name(hass: HomeAssistant, entity_id: str, language: str) -> str:
    """Return the entity's name as our texts say it aloud (entity_name, told apart by place)."""
    full, written = _written_name(hass, entity_id)
    name = one_line(full)
    entry = er.async_get(hass).async_get(entity_id)
    # A name said with its id because another is heard alike is said by its place instead.
    # One said with its id because it holds marks of ours keeps the id (the name is not to be
    # trusted) and is followed by the place too: an id read aloud letter by letter is no way
    # to tell two doors apart; so is one said as its id alone because it holds an id. A name
    # cut short keeps its id alone.
    cut = name != one_line(full, len(full))
    posing = written == entity_id and writes_an_entity_id(name)
    if entry is None or not (posing or (not cut and written == f"{name} ({entity_id})")):
        return written
    marked = posing or hides_its_meaning(name)
    others = [
        other
        for other in hass.states.async_all(split_entity_id(entity_id)[0])
        if other.entity_id != entity_id
    ]
    # A look-alike is any entity its question's words could name: one of a domain that shares
    # the verb ("Open Garage Door" is the garage door's too) or one called so by an alias.
    alike = sorted(look_alikes(hass, entity_id, name))
    names_heard = {_as_voiced(other.name) for other in others}
    # Every place a look-alike is said by, of any kind: "in the Upstairs" and "on the
    # Upstairs" sound alike, so a floor named like a look-alike's area tells nothing apart.
    # A look-alike without a registry entry is in no place: told from one that is.
    there = [where for other in alike for where in places_of(hass, other) if where]
    # One that shows other than it says ("Hall" with a Cyrillic H and a) may look like any.
    if any(hides_its_meaning(where) for where in there):
        return written
    voiced = {_as_voiced(one_line(where)) for where in there}
    words = call_words(language)
    patterns = _patterns(words)
    # And every way a look-alike could be said by its place: a place's own article stands for
    # the pattern's, and "in The Hall" is heard as "in the Hall".
    taken = names_heard | {
        _as_voiced(placed_name(pattern, name, one_line(where), words))
        for where in there
        for pattern in patterns
    }
    for pattern, here in zip(patterns, places_of(hass, entity_id), strict=True):
        if not here or hides_its_meaning(here) or _as_voiced(one_line(here)) in voiced:
            continue
        told = placed_name(pattern, written if marked else name, one_line(here), words)
        if _as_voiced(told) not in taken:
            return told
    return written


def _written_name(hass: HomeAssistant, entity_id: str) -> tuple[str, str]:
    """Return the entity's name and how our texts write it (entity_name).

    One gone since (disabled) keeps the registry's name, as "… gone" says it.
    """
    if (state := hass.states.get(entity_id)) is not None:
        full = state.name
    elif entry := er.async_get(hass).async_get(entity_id):
        full = er.async_get_full_entity_name(hass, entry) or ""
    else:
        full = ""
    return full, told_name(hass, entity_id, full) if full else entity_id


def _without_article(name: str, language: str) -> str:
    """Return the name as a contraction leaves it: its article gone ("Le Garage": "Garage")."""
    contracted = without_article(name)
    first = name[: len(name) - len(contracted)].rstrip(" ").casefold()
    return contracted if first and first in call_words(language).articles else name


def placed_name(pattern: str, name: str, place: str, words: CallWords) -> str:
    """Return the name said by its place with the pattern, as the place's own name reads there.

    A place that names where a thing is ("Upstairs", "Oben") follows the name alone: "Lamp
    upstairs", not "Lamp on the Upstairs"; one whose name has its own article ("The Hall")
    takes none of the pattern's: "Lamp in The Hall", not "Lamp in the The Hall".
    """
    if place.casefold() in words.place_adverbs:
        return f"{name} {place.casefold()}"
    if _begins_with_article(place, words):
        before, _, after = pattern.partition("{place}")
        head, _, last = before.rstrip().rpartition(" ")
        if last.casefold() in words.articles:
            pattern = f"{head} {{place}}{after}"
    return pattern.format(name=name, place=place)


def _begins_with_article(place: str, words: CallWords) -> bool:
    """Whether the place's name begins with an article of the language ("The", "L'")."""
    first = place.split(" ", maxsplit=1)[0].casefold()
    if any(a.endswith("'") and first.startswith(a) for a in words.articles):
        return True
    return first in words.articles and " " in place


def _as_voiced(text: str) -> str:
    """Return the text as a voice says it: its words folded, the gaps between them unheard.

    "Hallway" and "Hall way" are one word aloud; a place is compared as it is said, on one
    line and cut, so two long names alike up to the cut are alike.
    """
    return heard(text)


def aloud(hass: HomeAssistant, text: str, language: str) -> str:
    """Return our text with each look-alike name said by its place instead of its id."""
    for entity_id in dict.fromkeys(_WRITTEN_ID.findall(text)):
        written = _written_name(hass, entity_id)[1]
        # A contraction took the name's article: "de Le Garage (…)" is written "du Garage (…)".
        contracted = _without_article(written, language)
        if contracted not in text or (told := spoken_name(hass, entity_id, language)) == written:
            continue
        if written == entity_id:  # alone: never the start of a longer id ("lock.door_2")
            text = re.sub(rf"(?<![\w.]){re.escape(written)}(?![\w.])", lambda _: told, text)
            continue
        # The told name begins with the written one's words, its article too.
        article = written[: len(written) - len(contracted)]
        forms = {written: told, contracted: told[len(article) :]}
        either = "|".join(re.escape(form) for form in forms)  # the whole name first
        text = re.sub(either, lambda found: forms[found[0]], text)  # noqa: B023 (used at once)
    return text
