"""A thirty-sixth round of red-team probes: nothing of a deleted agent stays; one place decides
"already".

Hole. The context blocks of an agent's conversations were kept by its entity id and never
forgotten: each deleted agent left up to 64 conversations behind, and a new agent that got the
same entity id continued an old conversation with the deleted agent's blocks (its pipeline's
extra prompt among them). They are kept by subentry and forgotten with it.

Hole. Whether "already" may be said was decided per call on the confirmed path and by the
key "entities" of any result on the plain one. Now one function decides over the whole turn
or the whole yes, by our runner's result classes:
- our own get_state in the same turn counted as a change and hid "already": a read changes
  nothing;
- two held actions on one door, the first unlocking it, said "Done: unlock X. X: already
  unlocked";
- a target whose state left and came back during the call was said "already" so.

Guard. "…" at the bound as the sign of a cut name (said_name): every name a result cut ends
so, and a name that really ends so is said with its entity id, which errs towards the id.
"""

from __future__ import annotations

from typing import Any

from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from custom_components.local_agent.home.call_texts import said_name
from custom_components.local_agent.home.entity_view import MAX_NAME_CHARS
from custom_components.local_agent.home.entity_view import one_line
from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import EVENT_CALL_SERVICE
from homeassistant.core import Context
from homeassistant.core import Event
from homeassistant.core import HomeAssistant
from homeassistant.core import callback

from .agents import Agent
from .agents import entity_of
from .conftest import async_remove_subentry
from .conftest import speech
from .conftest import state
from .scene import Scene
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call

KITCHEN_LIGHTS = "light.kitchen_lights"

# Where the integration keeps what outlives a reload of its entry, by agent.
_KEPT_BY_AGENT = (f"{DOMAIN}_context_blocks", f"{DOMAIN}_home_lists")


async def _converse(
    hass: HomeAssistant, agent: Agent, text: str, person: Context, **kwargs: Any
) -> conversation.ConversationResult:
    return await conversation.async_converse(
        hass, text, kwargs.pop("conversation_id", None), person, agent_id=agent.entity_id, **kwargs
    )


async def agent_again(hass: HomeAssistant, agent: Agent) -> Agent:
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

    again = await agent_again(hass, agent)
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
        agent = await agent_again(hass, agent)

    (live,) = agent.entry.subentries
    for key in _KEPT_BY_AGENT:
        assert set(hass.data.get(key, {})) <= {live}, key

    assert await hass.config_entries.async_remove(agent.entry.entry_id)
    await hass.async_block_till_done()
    for key in _KEPT_BY_AGENT:
        assert not hass.data.get(key), key


async def test_a_read_in_the_same_turn_does_not_hide_already(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    assert state(hass, KITCHEN_LIGHTS) == "on"
    scripted_worker.will_write(
        answer(call("get_state", entity_id=KITCHEN_LIGHTS)),
        answer(call("light", action="turn_on", entity_id=KITCHEN_LIGHTS)),
    )

    result = await scripted_agent.ask("turn on the kitchen lights", context=person)

    assert speech(result) == "Kitchen Lights: already on."


async def test_two_held_actions_on_one_door_are_both_done(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """The first unlocks the door, the second finds it as asked: the yes changed it."""
    async_expose_entity(hass, "conversation", "lock.kitchen_door", True)
    assert state(hass, "lock.front_door") == "locked"
    scripted_worker.will_write(
        answer(
            call("lock", action="unlock", entity_id=["lock.front_door", "lock.kitchen_door"])
            + call("lock", action="unlock", entity_id="lock.front_door")
        )
    )
    question = await scripted_agent.ask("unlock the front door", context=person)
    assert question.continue_conversation is True, speech(question)

    done = await scripted_agent.ask("yes", conversation_id=question.conversation_id, context=person)

    assert state(hass, "lock.front_door") == "unlocked"
    assert "already" not in speech(done), speech(done)


async def test_a_state_that_left_and_came_back_during_the_call_is_not_already(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """Something turned the lights off and on again while the call ran."""
    lights = hass.states.get(KITCHEN_LIGHTS)
    assert lights is not None
    assert lights.state == "on"

    @callback
    def flicker(event: Event) -> None:
        if event.data.get("service_data", {}).get("entity_id") == [KITCHEN_LIGHTS]:
            hass.states.async_set(KITCHEN_LIGHTS, "off", lights.attributes)
            hass.states.async_set(KITCHEN_LIGHTS, "on", lights.attributes)

    hass.bus.async_listen(EVENT_CALL_SERVICE, flicker)
    scripted_worker.will_write(answer(call("light", action="turn_on", entity_id=KITCHEN_LIGHTS)))

    result = await scripted_agent.ask("turn on the kitchen lights", context=person)

    assert "already" not in speech(result), speech(result)


def test_a_name_ending_in_an_ellipsis_at_the_bound_errs_towards_its_id() -> None:
    long = "Smart lock of the house by the garden door " * 3
    ending_so = "x" * (MAX_NAME_CHARS - 1) + "…"

    assert said_name(one_line(long), "lock.back_door").endswith("(lock.back_door)")
    assert said_name(long, "lock.back_door").endswith("(lock.back_door)")
    assert said_name(ending_so, "lock.side_door") == f"{ending_so} (lock.side_door)"
    assert said_name("Side Door…", "lock.side_door") == "Side Door…"
