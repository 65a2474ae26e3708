"""The model's answer that reads as our confirmation question, and the yes that follows it.

Only the safety gate asks "Unlock Front Door? Say yes to confirm." and holds the call for the
answer. A model that writes those words itself (in any of our languages, with or without a
PIN) holds nothing: the person would say yes to a question nobody asked. Such an answer is
said without its imitating tail (never shown or streamed), the agent says instead that nothing
waits for a yes, and a yes right after it hears so instead of reaching the model.
"""

from __future__ import annotations

import html
import re
from typing import Final
import unicodedata

from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.engine.words import LANGUAGES
from custom_components.local_agent.engine.words import fold
from homeassistant.core import HomeAssistant
from homeassistant.helpers.translation import async_get_translations

_QUESTIONS: Final = ("confirm_question", "confirm_with_pin")
# Letters and digits only: quotes, spaces and punctuation differ from one model answer to the next.
_NOT_WORDS: Final = re.compile(r"[\W_]+")
# What a screen shows of Markdown and HTML but never as a letter: a link's address ("[Say
# yes](#)" shows "Say yes"), a tag ("<b>yes</b>"), an emphasis mark, even inside a word
# ("y**e**s"). Whether such a mark parts two words or none, both readings are compared.
_LINK: Final = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
_MARKUP: Final = re.compile(r"<[^<>\n]*>|[*_~`]+")
# The conversations remembered at most (one per person talking: a handful).
_KEPT: Final = 100


# Where a sentence ends: after its mark, before the spaces that lead to the next.
_SENTENCE_END: Final = re.compile(r"(?<=[.!?…])\s+")


def _words(text: str) -> str:
    return _NOT_WORDS.sub(" ", text).strip()


def _readings(text: str) -> set[str]:
    """Return the words the text shows, as a person reads them (or a voice says them).

    Neither case, accents, compatibility forms (full-width letters), characters that show
    nothing (a zero-width space, a soft hyphen), HTML entities nor markup are part of what is
    read: "Di si para confirmar" and "Say y\u200bes to confirm" ask as ours do.
    """
    shown = html.unescape(_LINK.sub(r"\1", text))
    seen = fold("".join(c for c in shown if unicodedata.category(c) != "Cf"))
    return {_words(_MARKUP.sub(gap, seen)) for gap in ("", " ")}


async def _async_asks(hass: HomeAssistant) -> list[str]:
    """Return the words our questions ask with, in every language ("say yes to confirm")."""
    asks: list[str] = []
    for language in LANGUAGES:
        strings = await async_get_translations(hass, language, "exceptions", [DOMAIN])
        for key in _QUESTIONS:
            template = strings.get(f"component.{DOMAIN}.exceptions.{key}.message", "")
            asks.extend(f" {ask} " for ask in _readings(template.partition("{actions}")[2]) if ask)
    return asks


async def async_without_imitated_question(hass: HomeAssistant, text: str) -> str | None:
    """Return `text` without its tail that asks for a yes (or a PIN) in our question's words.

    The tail starts at the sentence the asking words start in, or at the question just before
    it ("Unlock Front Door? Say yes to confirm."), and runs to the end. None when nothing in
    `text` asks so.
    """
    asks = await _async_asks(hass)
    starts = [0, *(end.end() for end in _SENTENCE_END.finditer(text))]
    for index in reversed(range(len(starts))):
        tails = [f" {words} " for words in _readings(text[starts[index] :])]
        if not any(ask in tail for ask in asks for tail in tails):
            continue
        before = text[: starts[index]].rstrip()
        if index and before.endswith("?"):
            before = text[: starts[index - 1]].rstrip()
        return before
    return None


def remember_imitation(conversations: set[str], conversation_id: str) -> None:
    """Note in `conversations` that this one's answer just now imitated our question.

    Each is forgotten at its next message; at most _KEPT are kept for conversations that
    ended there.
    """
    if len(conversations) >= _KEPT:
        conversations.clear()
    conversations.add(conversation_id)
