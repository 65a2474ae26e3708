"""How a person's reply to a confirmation question is read: yes, no, something else; a PIN.

A reply confirms when it is a yes with nothing but politeness or assent around it ("Yes, go
ahead", "yes please, do it", "OK, do it"), in the conversation's language or English; a no
with politeness cancels; anything that asks for more ("yes, and turn on the light"), mixes yes
and no, or carries digits is something else. The words are engine/words.py's, the one table.

A PIN is read from digits in any script (full-width, Arabic-Indic, ...) whatever separates
them ("1-2-3-4", "1 2 3 4") and from number words of every language the table knows; every
such form is what `mask_digits` hides.
"""

from __future__ import annotations

from enum import Enum
import hmac
import unicodedata

from custom_components.local_agent.engine.words import (
    DIGIT_WORDS,
    RIGHT_QUOTE,
    courtesy_phrases,
    fold,
    no_phrases,
    words,
    yes_phrases,
)

APOSTROPHES = ("'", RIGHT_QUOTE)
# Longest phrase of the tables, in words.
_LONGEST_PHRASE = 4


class Reply(Enum):
    """How a user answered a confirmation question."""

    YES = "yes"
    NO = "no"
    OTHER = "other"


def classify_reply(text: str, language: str) -> Reply:
    """Read a yes/no reply; anything that asks for more, or says both, is something else."""
    kinds = _phrase_kinds(words(text), language)
    for answer in (Reply.YES, Reply.NO):
        if kinds in ({answer}, {answer, None}):
            return answer
    return Reply.OTHER


def _phrase_kinds(said: list[str], language: str) -> set[Reply | None]:
    """Kinds of the phrases the words split into (None: courtesy); {OTHER} if they do not."""
    tables: list[tuple[frozenset[str], Reply | None]] = []
    for lang in dict.fromkeys((language, "en")):
        tables += [
            (yes_phrases(lang), Reply.YES),
            (no_phrases(lang), Reply.NO),
            (courtesy_phrases(lang), None),
        ]
    # best[i]: the kinds of the shortest split of the first i words (None: no split).
    best: list[tuple[int, frozenset[Reply | None]] | None] = [None] * (len(said) + 1)
    best[0] = (0, frozenset())
    for end in range(1, len(said) + 1):
        for start in range(max(0, end - _LONGEST_PHRASE), end):
            before = best[start]
            if before is None:
                continue
            phrase = " ".join(said[start:end])
            for table, kind in tables:
                if phrase in table:
                    candidate = (before[0] + 1, before[1] | {kind})
                    current = best[end]
                    if current is None or candidate[0] < current[0]:
                        best[end] = candidate
    found = best[-1]
    if not said or found is None:
        return {Reply.OTHER}
    return set(found[1])


def spoken_pin(text: str) -> str:
    """Digits in a reply, number words included ("one two 3-4" -> "1234"; full-width too)."""
    return "".join(
        word if word.isdigit() else DIGIT_WORDS[word]
        for word in words(text)
        if word.isdigit() or word in DIGIT_WORDS
    )


def pin_matches(text: str, pin: str) -> bool:
    """Compare the spoken PIN in constant time."""
    expected = spoken_pin(pin)
    return bool(expected) and hmac.compare_digest(spoken_pin(text).encode(), expected.encode())


def contains_pin(text: str, pin: str) -> bool:
    """Whether the digits said anywhere in a message contain the PIN."""
    expected = spoken_pin(pin)
    return bool(expected) and expected in spoken_pin(text)


def mask_digits(text: str) -> str:
    """Replace every digit (any script) and every number word of a message by asterisks."""
    out: list[str] = []
    word = ""
    for ch in [*text, ""]:
        letter = bool(ch) and ch.isalpha() and unicodedata.digit(ch, None) is None
        if letter or (ch in APOSTROPHES and word):
            word += ch
            continue
        if word:
            out.append("*" * len(word) if fold(word).strip("'") in DIGIT_WORDS else word)
            word = ""
        out.append("*" if ch and unicodedata.digit(ch, None) is not None else ch)
    return "".join(out)
