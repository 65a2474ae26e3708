"""A turn that must leave a house's sensitive entities as they were, whatever the model writes."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from collections.abc import Iterator
from typing import Any

import pytest

from custom_components.local_agent.safety.confirmation import CONFIRMATIONS
from custom_components.local_agent.turn.agent import ConversationAgent
from homeassistant.components import conversation
from homeassistant.core import Context
from homeassistant.core import HomeAssistant

from .agents import Agent
from .agents import Talk
from .agents import state
from .scripted_model import Script
from .scripted_model import ScriptedWorker
from .scripted_model import answer


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


@pytest.fixture
def turn_held_at_question(monkeypatch: pytest.MonkeyPatch) -> Iterator[asyncio.Event]:
    """Every turn stops after its question is held, before it is said, until the event is set."""
    said = asyncio.Event()
    original = ConversationAgent._async_done_so_far

    async def not_yet(self: ConversationAgent, *args: Any) -> str | None:
        await said.wait()
        return await original(self, *args)

    monkeypatch.setattr(ConversationAgent, "_async_done_so_far", not_yet)
    yield said
    said.set()


async def ask_until_held(
    hass: HomeAssistant, agent: Agent, person: Context, conversation_id: str, language: str
) -> asyncio.Task[Any]:
    """Start the unlock request; return its turn once its question is held (not yet said)."""
    task = hass.async_create_task(
        agent.ask(
            "Unlock the Front Door",
            conversation_id=conversation_id,
            context=person,
            language=language,
        )
    )
    store = hass.data[CONFIRMATIONS]
    for _ in range(500):
        await asyncio.sleep(0)
        if store.async_peek(agent.entity_id, conversation_id):
            return task
    raise AssertionError("the question was never held")


async def conversation_with(agent: Agent, worker: ScriptedWorker, person: Context) -> str:
    """Return the id of a conversation the person opened with a hello."""
    worker.will_write(answer("Hello."))
    conversation_id = (await agent.ask("Hello", context=person)).conversation_id
    assert conversation_id is not None
    return conversation_id
