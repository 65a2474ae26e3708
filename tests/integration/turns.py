"""A turn that must leave a house's sensitive entities as they were, whatever the model writes."""

from __future__ import annotations

from collections.abc import Iterable

from homeassistant.components import conversation

from .agents import Talk
from .agents import state
from .scripted_model import Script


async def ask_changing_nothing(
    talk: Talk, sensitive: Iterable[str], *writes: Script
) -> conversation.ConversationResult:
    """The person makes a request and the model writes `writes`: none of the `sensitive`
    entities has changed once the turn is over. (Not a bare "do it": as the first words of a
    new conversation, a yes moves the person's one waiting question there.)"""
    hass = talk.agent.hass
    watched = tuple(sensitive)
    before = {entity_id: state(hass, entity_id) for entity_id in watched}
    result = await talk.say("the next request", "en", *writes)
    assert {entity_id: state(hass, entity_id) for entity_id in watched} == before
    return result
