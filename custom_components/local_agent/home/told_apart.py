"""Whether a name, said in a question, could be taken for another entity's.

A question before a sensitive action names its targets ("Unlock Front Door? Say yes to
confirm."). A name is text anyone who can name an entity chose, and what the person reads or a
satellite speaks is not all of it: a zero-width space, a soft hyphen or a bidi control is not
seen, an emoji is not spoken, "Front" with a full-width "F" or a Cyrillic "o" looks like
"Front", and a name may carry words of ours: "Garage Light (lock.front_door)" or "Back Door?
Say yes to confirm. Front Door". Such a name, or one heard like another entity's of its
domain, is said with its entity id, so the person can always tell which thing it means; a name that
holds an entity id itself is said as its entity id alone.
"""

from __future__ import annotations

import re
from typing import Final
import unicodedata

from homeassistant.core import HomeAssistant
from homeassistant.core import split_entity_id

# Marks our own sentences and asides are made of: a name holding one reads as part of them.
_OUR_MARKS: Final = re.compile(r"[?!()\[\]:;]|[a-z_][a-z0-9_]*\.[a-z0-9_]+", re.IGNORECASE)
# Unicode categories of characters that are neither seen nor spoken as letters: format
# characters (zero-width, soft hyphen, bidi), symbols (emoji), private use and unassigned ones.
_UNHEARD: Final = frozenset({"Cf", "Co", "Cn", "Cs", "So", "Sk"})
# An entity id written in a name ("Garage Light (lock.front_door)"), as Home Assistant writes one.
_ENTITY_ID: Final = re.compile(r"(?<![\w.])[a-z_][a-z0-9_]*\.[a-z0-9_]+(?![\w.])")
# The first word of a letter's Unicode name is its script ("LATIN", "CYRILLIC", "GREEK").
_SCRIPT_WORD: Final = re.compile(r"\w+")


def heard(name: str) -> str:
    """Return the name as a voice says it and an eye compares it: its words, folded."""
    kept = "".join(c for c in unicodedata.normalize("NFKC", name) if not _unheard(c))
    return " ".join(re.findall(r"\w+", kept.casefold()))


def writes_an_entity_id(name: str) -> bool:
    """Whether a name holds an entity id: said after it, ours would be one of two to pick from."""
    return _ENTITY_ID.search(name) is not None


def hides_its_meaning(name: str) -> bool:
    """Whether the name shows other than it says, mixes scripts or holds marks of ours."""
    if _OUR_MARKS.search(name):
        return True
    if unicodedata.normalize("NFKC", name) != name or any(_unheard(c) for c in name):
        return True
    return len({_script(c) for c in name if c.isalpha()}) > 1


def heard_like_another(hass: HomeAssistant, entity_id: str, name: str) -> bool:
    """Whether another entity of the domain is heard by the same name.

    Only the domain's entities are compared: the question's verb says the domain ("unlock" is
    a lock's), and a domain a question names holds few.
    """
    said = heard(name)
    return any(
        state.entity_id != entity_id and heard(state.name) == said
        for state in hass.states.async_all(split_entity_id(entity_id)[0])
    )


def _unheard(char: str) -> bool:
    return unicodedata.category(char) in _UNHEARD


def _script(letter: str) -> str:
    words = _SCRIPT_WORD.match(unicodedata.name(letter, "UNKNOWN"))
    return words.group(0) if words else "UNKNOWN"
