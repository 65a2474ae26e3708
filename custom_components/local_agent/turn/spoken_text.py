"""The model's answer and our own sentences as a voice satellite says them: no marks, no emoji.

A request from a satellite or another device (a Voice PE, an ESPHome or Wyoming satellite) is
answered aloud, and Home Assistant's text-to-speech reads what it is given: "asterisk asterisk
Kitchen Lights asterisk asterisk", "hash Lights", an emoji's name. There the model's text is
said as a person would say it: emphasis, headings, list bullets, quotes, links and code marks
left out (their words kept; struck-through words are taken back, not said), a line, heading or
list item ended as a sentence, lines joined. A unit after a number is said in words ("21.5 °C"
is "21.5 degrees Celsius", "3000 K" "3000 kelvin", "45 %" "45 Prozent" in German), and a minus
sign before one as "minus": text-to-speech reads "°C" or "K" as a letter or not at all and drops
the sign ("-3 °C" heard as "three"). A check or cross mark given as a value ("Back
Door locked: ❌") is said as the language's yes or no, a lock mark ("Garage 🔓") as locked or
unlocked, never dropped as an emoji. Our own
sentences (a question, "Done: …", a refusal, a hint) are said the same way without the Markdown
step (said_aloud): units, signs and durations in words, an aside in brackets as a pause,
quotation marks left out. A request without a device (the Assist dialog, the companion app's
chat, an automation) keeps the text as written, as core's agents do: a screen shows it.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
import re
from typing import Final

from custom_components.local_agent.engine.words import MINUS_WORD
from custom_components.local_agent.engine.words import NO_WORD
from custom_components.local_agent.engine.words import QUANTITY_WORDS
from custom_components.local_agent.engine.words import YES_WORD
from custom_components.local_agent.engine.words import base_language
from custom_components.local_agent.home.call_texts import ENGLISH
from custom_components.local_agent.home.call_words import ENGLISH_WORDS
from custom_components.local_agent.home.call_words import WORDS_BY_LANGUAGE

# A fenced code block's fences (its lines are kept) and an inline span's backticks.
_FENCE: Final = re.compile(r"^\s*(?:```|~~~)[^\n]*$", re.MULTILINE)
_INLINE_CODE: Final = re.compile(r"`([^`\n]*)`")
# [words](address) and ![words](address): the words.
_LINK: Final = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
# Emphasis around words, never inside one (light.kitchen_lights keeps its underscores).
_EMPHASIS: Final = (
    re.compile(r"(?<![\w*])(\*{1,3})(?=\S)(.+?)(?<=\S)\1(?![\w*])"),
    re.compile(r"(?<![\w_])(_{1,3})(?=\S)(.+?)(?<=\S)\1(?![\w_])"),
)
# Struck-through words are words taken back: never said.
_STRUCK: Final = re.compile(r"~~(?=\S).+?(?<=\S)~~")
# A line's Markdown start: a heading, a list bullet or number, a quote.
_HEADING: Final = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_ITEM: Final = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+(.*)$")
_QUOTE: Final = re.compile(r"^\s*(?:>\s?)+")
_RULE: Final = re.compile(r"^\s*(?:[-*_]\s*){3,}$")
# Emoji and pictographs, their joiners and presentation selectors; never a letter, digit,
# currency sign or the degree sign.
_EMOJI: Final = re.compile(
    "[\U0001f000-\U0001faff\u2600-\u27bf\u2b00-\u2bff\u2300-\u23ff\U0001f1e6-\U0001f1ff"
    "\ufe0f\u200d\u20e3]"
)
# A check or cross mark as a value says yes or no ("Back Door locked: ❌"): said as the word,
# never dropped. After a statement ("Das Licht ist an ✅") it is only a flourish.
_CHECK_MARKS: Final = re.compile("(?<=:)[ \t]*[\u2705\u2714\u2611\u2713]\ufe0f?")
_CROSS_MARKS: Final = re.compile("(?<=:)[ \t]*[\u274c\u274e\u2716\u2717\u2718]\ufe0f?")
# A lock mark says the lock's state ("Front Door 🔒", "Garage: 🔓", "- 🔒 Back Door"): said as
# the word, in the person's language; leading a heading ("## 🔒 Locks") it only decorates. Other
# marks a small model likes (💡, 🌡️, 🚪) stand beside words that say the state: dropped.
# (A word right after the mark is group 1: it is kept apart from the mark's word.)
_LOCKED_MARKS: Final = re.compile("[ \t]*[\U0001f512\U0001f510]\ufe0f?[ \t]*(?=(\\w)?)")
_UNLOCKED_MARKS: Final = re.compile("[ \t]*\U0001f513\ufe0f?[ \t]*(?=(\\w)?)")
# A mark that leads a line or list item names the state of what follows: said after it.
_LEADING_MARK: Final = re.compile(
    "^(\\s*(?:[-*+•]|\\d{1,3}[.)])?\\s*)([\U0001f510\U0001f512\U0001f513]\ufe0f?)\\s*(.+?)\\s*$"
)
LOCKED_WORD: Final = {
    "en": "locked", "de": "verriegelt", "fr": "verrouillé", "es": "bloqueado",
    "it": "bloccato", "nl": "vergrendeld", "pt": "trancado",
}  # fmt: skip
UNLOCKED_WORD: Final = {
    "en": "unlocked", "de": "entriegelt", "fr": "déverrouillé", "es": "desbloqueado",
    "it": "sbloccato", "nl": "ontgrendeld", "pt": "destrancado",
}  # fmt: skip
# A number with its sign and the unit a voice drops or reads as a letter ("-3 °C", "45 %",
# "21ºC", "3000 K"; any space between); never a number inside a word or a longer number
# ("light.x_2", "1.000.000"), nor a minus inside one ("2026-12-07", "5-10 %": a range), nor a
# unit that goes on ("5 W/m²"). "º" alone is an ordinal ("2º andar"); an "s" joined to its number
# is a plural ("the 90s"), only one apart a second ("2 s").
_QUANTITY: Final = re.compile(
    r"(?<![\w.,])(?P<sign>(?<![\d\-\u2212])[-\u2212](?=\d))?(?P<number>\d+(?:[.,]\d+)?)"
    r"(?![\w.,]*\d)(?:[ \t\u00a0\u202f]?(?P<unit>[°º˚][ \u00a0]?[CF](?!\w)|[℃℉]|[°˚](?!\w)|%"
    r"|(?:kWh|m³|mm|min|lx|W|K|h)(?![\w²³/])|(?<=[ \t\u00a0\u202f])s(?![\w²³/])))?"
)
# The units written another way, as the table below names them.
_UNIT_SPELLINGS: Final = {"℃": "°C", "℉": "°F", "º": "°", "˚": "°"}
# A duration's unit ("5 min", "2 s" in a transition) as the call texts say a timer's.
UNIT_WORDS: Final[Mapping[str, Mapping[str, tuple[str, str]]]] = {
    **QUANTITY_WORDS,
    **{
        mark: {
            language: (one.replace("{} ", ""), more.replace("{} ", ""))
            for language, words in {ENGLISH: ENGLISH_WORDS, **WORDS_BY_LANGUAGE}.items()
            for one, more in [words.durations[unit]]
        }
        for mark, unit in (("min", "minutes"), ("h", "hours"), ("s", "seconds"))
    },
}
# French says a quantity below two in the singular ("1,5 degré", "0,5 watt"); the others from
# any number but one.
_SINGULAR_BELOW_TWO: Final = frozenset({"fr"})
# An aside in brackets, said as a pause ("Front Door (lock.front_door)?"), and quotation marks,
# never said ("see \"Slow or no answer\""); a bracket inside a word ("light(s)") stays.
_ASIDE: Final = re.compile(r"[ \t]*(?<![^\s])[(\[][ \t]*([^()\[\]\n]*?)[ \t]*[)\]]")
_QUOTES: Final = re.compile(
    '["\u201c\u201d\u201e]|[\u00ab\u2039][ \t\u00a0\u202f]?|[ \t\u00a0\u202f]?[\u00bb\u203a]'
)
# The pauses an aside leaves: one at most, none at a line's start or beside a mark of its own.
_DOUBLE_PAUSE: Final = re.compile(r",(?:[ \t]*,)+")
_LOST_PAUSE: Final = re.compile(
    r"^[ \t]*,[ \t]*|(?<=[.!?:;\u2026])[ \t]*,|[ \t]*,[ \t]*(?=[.!?:;\u2026]|$)", re.MULTILINE
)
# A step of a menu path ("Settings > Voice assistants > Expose", "the entry → Configure"), as
# our hints and the model write one: text-to-speech says "greater than" or the arrow's name. A
# ">" beside a number compares ("above 20 > 18") and stays.
_PATH_STEP: Final = re.compile(
    r"(?<=[^\W\d])[ \t]+(?:>|→|->)[ \t]+(?=[^\W\d])|(?<=\S)[ \t]+→[ \t]+(?=\S)"
)
# What ends a sentence, or a line that introduces the next ("Lights on:").
_ENDED: Final = tuple(".!?:;,…。\uff01\uff1f")


def spoken(text: str, language: str = ENGLISH) -> str:
    """Return the model's text as a voice says it; check, cross and lock marks in words."""
    text = _FENCE.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _INLINE_CODE.sub(r"\1", text)
    text = _STRUCK.sub("", text)
    for pattern in _EMPHASIS:
        text = pattern.sub(lambda match: match[match.lastindex or 0], text)
    text = said_aloud(text, language)
    base = base_language(language)
    text = _CHECK_MARKS.sub(f" {YES_WORD.get(base, YES_WORD[ENGLISH])}", text)
    text = _CROSS_MARKS.sub(f" {NO_WORD.get(base, NO_WORD[ENGLISH])}", text)
    text = "\n".join(_lock_marks_said(line, base) for line in text.split("\n"))
    text = _EMOJI.sub("", text)
    lines: list[tuple[str, bool]] = []
    for raw in text.splitlines():
        if _RULE.match(raw):
            continue
        line = _QUOTE.sub("", raw)
        marked = _HEADING.match(line) or _ITEM.match(line)
        if line := " ".join((marked[1] if marked else line).split()):
            lines.append((line, marked is not None))
    # A line break is a pause: a line that goes on to another, or a heading or an item, ends.
    return " ".join(
        line + "." if (marked or index < len(lines) - 1) and not line.endswith(_ENDED) else line
        for index, (line, marked) in enumerate(lines)
    )


def said_aloud(text: str, language: str = ENGLISH) -> str:
    """Return a sentence as a voice says it: units, signs and asides in words and pauses.

    A path's steps are said as pauses, a unit and a sign in words, an aside in brackets as a
    pause; quotation marks are left out. Our own sentences go through this alone (a name in
    them keeps its marks: it is not Markdown), the model's after its Markdown is read.
    """
    text = paths_said(text)
    text = _QUANTITY.sub(partial(_quantity_said, base_language(language)), text)
    text = _QUOTES.sub("", text)
    text = _ASIDE.sub(lambda aside: f", {aside[1]}," if aside[1] else "", text)
    return _LOST_PAUSE.sub("", _DOUBLE_PAUSE.sub(",", text))


def paths_said(text: str) -> str:
    """Return the text with a menu path's steps said as pauses: "Settings, Repairs"."""
    return _PATH_STEP.sub(", ", text)


def _lock_marks_said(line: str, language: str) -> str:
    """Return the line with its lock marks said as words (a heading's are left to drop)."""
    if _HEADING.match(line):
        return line
    line = _LEADING_MARK.sub(r"\1\3 \2", line)
    for marks, words in ((_LOCKED_MARKS, LOCKED_WORD), (_UNLOCKED_MARKS, UNLOCKED_WORD)):
        line = marks.sub(partial(_mark_said, words.get(language, words[ENGLISH])), line)
    return line


def _mark_said(word: str, match: re.Match[str]) -> str:
    """Return a mark's word, kept apart from a word right after it."""
    return f" {word} " if match[1] else f" {word}"


def _quantity_said(language: str, match: re.Match[str]) -> str:
    """Return a number as a voice says it, sign and unit in words: "minus 3 degrees Celsius"."""
    number, unit = match["number"], match["unit"]
    said = f"{MINUS_WORD.get(language, MINUS_WORD[ENGLISH])} {number}" if match["sign"] else number
    if unit is None:
        return said
    unit = "".join(_UNIT_SPELLINGS.get(mark, mark) for mark in unit if not mark.isspace())
    one, more = (words := UNIT_WORDS[unit]).get(language, words[ENGLISH])
    return f"{said} {one if _is_singular(number, language) else more}"


def _is_singular(number: str, language: str) -> bool:
    """Whether a unit after this number is said in the singular: "1 degree", "1,5 degré"."""
    if language in _SINGULAR_BELOW_TWO:
        return float(number.replace(",", ".")) < 2
    return number == "1"
