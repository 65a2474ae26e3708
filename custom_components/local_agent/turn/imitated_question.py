"""The model's answer that reads as our confirmation question, and the yes that follows it.

Only the safety gate asks "Unlock Front Door? Say yes to confirm." and holds the call for the
answer. A model that writes those words itself (in any of our languages, with or without a
PIN) holds nothing: the person would say yes to a question nobody asked. The agent says after
such an answer that nothing waits for a yes, and a yes right after it hears so instead of
reaching the model.
"""

from __future__ import annotations

import re
from typing import Final

from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.engine.words import LANGUAGES
from homeassistant.core import HomeAssistant
from homeassistant.helpers.translation import async_get_translations

_QUESTIONS: Final = ("confirm_question", "confirm_with_pin")
# Letters and digits only: quotes, spaces and punctuation differ from one model answer to the next.
_NOT_WORDS: Final = re.compile(r"[\W_]+")
# The conversations remembered at most (one per person talking: a handful).
_KEPT: Final = 100


def _words(text: str) -> str:
    return _NOT_WORDS.sub(" ", text.casefold()).strip()


async def async_imitates_our_question(hass: HomeAssistant, text: str) -> bool:
    """Whether `text` asks for a yes (or a PIN) to confirm in the words of our question."""
    said = f" {_words(text)} "
    for language in LANGUAGES:
        strings = await async_get_translations(hass, language, "exceptions", [DOMAIN])
        for key in _QUESTIONS:
            template = strings.get(f"component.{DOMAIN}.exceptions.{key}.message", "")
            ask = _words(template.partition("{actions}")[2])
            if ask and f" {ask} " in said:
                return True
    return False


def remember_imitation(conversations: set[str], conversation_id: str) -> None:
    """Note in `conversations` that this one's answer just now imitated our question.

    Each is forgotten at its next message; at most _KEPT are kept for conversations that
    ended there.
    """
    if len(conversations) >= _KEPT:
        conversations.clear()
    conversations.add(conversation_id)
