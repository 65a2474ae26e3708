"""A thirty-sixth round of red-team probes: nothing of a deleted agent stays; one place decides
"already".

Hole. The context blocks of an agent's conversations were kept by its entity id and never
forgotten: each deleted agent left up to 64 conversations behind, and a new agent that got the
same entity id continued an old conversation with the deleted agent's blocks (its pipeline's
extra prompt among them). They are kept by subentry and forgotten with it.
"""

from __future__ import annotations

from typing import Any

from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentry
from homeassistant.core import Context
from homeassistant.core import HomeAssistant

from .agents import Agent
from .agents import entity_of
from .conftest import async_remove_subentry
from .scene import Scene
from .scripted_model import answer

# Where the integration keeps what outlives a reload of its entry, by agent.
_KEPT_BY_AGENT = (f"{DOMAIN}_context_blocks", f"{DOMAIN}_home_lists")


async def _converse(
    hass: HomeAssistant, agent: Agent, text: str, person: Context, **kwargs: Any
) -> conversation.ConversationResult:
    return await conversation.async_converse(
        hass, text, kwargs.pop("conversation_id", None), person, agent_id=agent.entity_id, **kwargs
    )


async def _agent_again(hass: HomeAssistant, agent: Agent) -> Agent:
    """Delete the agent's subentry and add one with the same name and settings."""
    (old,) = agent.entry.subentries.values()
    await async_remove_subentry(hass, agent.entry, old.subentry_id, agent.entity_id)
    new = ConfigSubentry(
        data=old.data, subentry_type=SUBENTRY_CONVERSATION, title=old.title, unique_id=None
    )
    hass.config_entries.async_add_subentry(agent.entry, new)
    await hass.async_block_till_done()
    return Agent(hass, agent.entry, entity_of(hass, "conversation", new.subentry_id))


async def test_a_new_agent_with_a_deleted_ones_name_does_not_read_its_blocks(
    hass: HomeAssistant, scene: Scene
) -> None:
    agent = await scene.our_agent()
    scene.worker.will_write(answer("Arr."))
    first = await _converse(
        hass, agent, "hello", scene.person, extra_system_prompt="Speak like a pirate."
    )

    again = await _agent_again(hass, agent)
    assert again.entity_id == agent.entity_id
    scene.worker.will_write(answer("Hello."))
    await _converse(hass, again, "and now?", scene.person, conversation_id=first.conversation_id)

    prompt = scene.worker.requests[-1].dynamic_prompt
    assert "hello" in prompt, prompt  # the chat session went on
    assert "pirate" not in prompt, prompt


async def test_deleted_agents_leave_nothing_kept(hass: HomeAssistant, scene: Scene) -> None:
    agent = await scene.our_agent()
    for _ in range(50):
        scene.worker.will_write(answer("Hi."))
        await _converse(hass, agent, "hello", scene.person)
        agent = await _agent_again(hass, agent)

    (live,) = agent.entry.subentries
    for key in _KEPT_BY_AGENT:
        assert set(hass.data.get(key, {})) <= {live}, key

    assert await hass.config_entries.async_remove(agent.entry.entry_id)
    await hass.async_block_till_done()
    for key in _KEPT_BY_AGENT:
        assert not hass.data.get(key), key
