"""Numbers said in words as one word, in each language: what a PIN said as a number is made of.

**Hole.** German numbers beginning with "ein" ("einundzwanzig", "einhundert"), every number of
three parts ("zweihundertvierzig", "tweehonderdvijftig", "duecentoquaranta"), the Italian
tens before a vowel ("ventuno", "quarantotto") and the Spanish and Portuguese hundreds
("doscientos", "quinhentos") were no number words: a PIN said so was read as plain words, so
the gate did not ask for its digits, and "PIN einundzwanzig einundvierzig" reached the prompt
and the audit whole.
**Found.** A number written as one word is read as two or more of one language's number
pieces, a joiner maybe between two; pieces of two languages never make one: "seiten" (Italian
"sei", English "ten") was a number before, and a PIN answer with it was not read.
**Guards (passed at once).** Words that only begin like numbers stay words ("eine", "tresen").
"""

from __future__ import annotations

import pytest

from custom_components.local_agent.engine.words import fold
from custom_components.local_agent.engine.words import is_number_word
from custom_components.local_agent.safety.confirmation import mask_possible_pins
from custom_components.local_agent.safety.confirmation import said_pin_words

# Two numbers in each language, each one word, that together say a four-digit PIN.
PIN_SAID_AS_NUMBERS = {
    "en": ("pin", "eleven", "twelve"),
    "de": ("PIN", "einundzwanzig", "einundvierzig"),
    "fr": ("code", "quatrevingt", "soixante"),
    "es": ("código", "veintiuno", "doscientos"),
    "it": ("codice", "ventuno", "quarantotto"),
    "nl": ("pincode", "eenentwintig", "tweehonderdvijftig"),
    "pt": ("código", "quinhentos", "quatrocentos"),
}

NUMBERS = (
    "einundzwanzig",
    "einhundert",
    "eintausend",
    "zweihundertvierzig",
    "ventuno",
    "ventotto",
    "duecentoquaranta",
    "duemila",
    "doscientos",
    "quinientos",
    "veintiún",
    "quatrocentos",
    "quinhentos",
    "tweehonderdvijftig",
    "tweeëntwintig",
)

WORDS = ("ein", "eine", "eins", "einer", "seiten", "seine", "tresen", "achten", "uno", "mila")


@pytest.mark.parametrize("number", NUMBERS)
def test_a_number_written_as_one_word_is_a_number(number: str) -> None:
    assert is_number_word(fold(number))


@pytest.mark.parametrize("word", WORDS)
def test_a_word_that_only_begins_like_a_number_is_none(word: str) -> None:
    assert not is_number_word(fold(word))


@pytest.mark.parametrize("language", sorted(PIN_SAID_AS_NUMBERS))
def test_a_pin_said_as_numbers_is_hidden_in_every_language(language: str) -> None:
    code, first, second = PIN_SAID_AS_NUMBERS[language]
    said = f"{code} {first} {second}"
    assert said_pin_words(said)
    masked = mask_possible_pins(said)
    assert first not in masked
    assert second not in masked
    assert masked.startswith(code)


def test_a_very_long_word_is_no_number() -> None:
    assert not is_number_word("zwei" * 100)
