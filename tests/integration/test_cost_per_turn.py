"""A turn's work follows the command, not the house.

- Every turn walked every state of the house twice: the tools listed the exposed entities by
  asking each state whether it is exposed, and each safety question looked at every state for
  a Switch as X entity. A house of 5,000 entities read 15,000 states for a read and 42,768 for
  a held unlock. Now the exposed entities are an index that entity and registry events drop,
  and the Switch as X entities come from the registry's index by config entry.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from typing import Final

import pytest
from pytest_homeassistant_custom_component.common import async_fire_time_changed

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.util import dt as dt_util
from testing.state_reads import StateReads
from testing.state_reads import counting_state_reads

from .agents import Agent
from .agents import state
from .home import NOT_EXPOSED
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call

EXTRA: Final = 2000

# Sentence, then what the model writes: a light on, an unlock (held), a read, a refused call.
TURNS: Final = (
    (
        "turn on the kitchen lights",
        answer(call("light", action="turn_on", entity_id="light.kitchen_lights")),
        answer("Done."),
    ),
    ("unlock the front door", answer(call("lock", action="unlock", entity_id="lock.front_door"))),
    ("is the door locked", answer(call("get_state", entity_id="lock.front_door")), answer("Yes.")),
    (
        "turn on the shed light",
        answer(call("light", action="turn_on", entity_id="light.shed")),
        answer("I cannot."),
    ),
)


def add_unexposed_states(hass: HomeAssistant, count: int) -> None:
    """Grow the house by count sensors nobody exposed."""
    for number in range(count):
        hass.states.async_set(f"sensor.extra_{number}", str(number))


async def reads_of_turns(
    hass: HomeAssistant, agent: Agent, worker: ScriptedWorker, person: Context
) -> list[StateReads]:
    """The states each turn reads, after the same turn once (indexes built for this house)."""
    found: list[StateReads] = []
    for sentence, *outputs in TURNS:
        worker.will_write(*outputs)
        await agent.ask(sentence, context=person)
        worker.will_write(*outputs)
        with counting_state_reads() as reads:
            await agent.ask(sentence, context=person)
            await hass.async_block_till_done()
        found.append(reads)
    return found


async def test_the_states_a_turn_reads_do_not_grow_with_the_house(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """Before: each turn read every state of the house, 2,000 more with 2,000 more sensors."""
    small = await reads_of_turns(hass, scripted_agent, scripted_worker, person)
    add_unexposed_states(hass, EXTRA)
    large = await reads_of_turns(hass, scripted_agent, scripted_worker, person)

    assert state(hass, "light.kitchen_lights") == "on"
    assert state(hass, "lock.front_door") == "locked"
    assert [reads.walks for reads in large] == [{}, {}, {}, {}]
    for before, after in zip(small, large, strict=True):
        assert after.count - before.count < EXTRA / 20, (before.count, after.count)


async def test_a_new_exposed_entity_is_offered_at_the_next_turn(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """The index is dropped when an entity comes: the next turn's prompt lists it."""
    scripted_worker.will_write(answer("Hello."), answer("Hello."))
    await scripted_agent.ask("hello", context=person)
    hass.states.async_set("light.shed", "off", {"friendly_name": "Shed light"})

    await scripted_agent.ask("hello", context=person)

    first, second = scripted_worker.requests[-2:]
    assert "light.shed" not in first.static_prompt
    assert "light.shed" in second.static_prompt


async def test_an_entity_exposed_between_turns_is_offered_at_the_next_turn(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """The index is dropped when exposure changes: the next turn's prompt lists it."""
    scripted_worker.will_write(answer("Hello."), answer("Hello."))
    await scripted_agent.ask("hello", context=person)
    async_expose_entity(hass, "conversation", NOT_EXPOSED, True)

    await scripted_agent.ask("hello", context=person)

    first, second = scripted_worker.requests[-2:]
    assert NOT_EXPOSED not in first.static_prompt
    assert NOT_EXPOSED in second.static_prompt


def subentry_of(hass: HomeAssistant, agent: Agent) -> str:
    """The id of the agent's subentry."""
    entry = er.async_get(hass).async_get(agent.entity_id)
    assert entry is not None
    assert entry.config_subentry_id is not None
    return entry.config_subentry_id


async def delete_agent(hass: HomeAssistant, agent: Agent) -> str:
    """Delete the agent's subentry (its entity goes with it); return its home list's key."""
    subentry_id = subentry_of(hass, agent)
    assert hass.config_entries.async_remove_subentry(agent.entry, subentry_id)
    await hass.async_block_till_done()
    assert hass.states.get(agent.entity_id) is None
    return f"local_agent.home_list.{subentry_id}"


async def take_home_list(agent: Agent, worker: ScriptedWorker) -> str:
    """A turn (the agent takes its home list, saved ten seconds later); return its key."""
    worker.will_write(answer("Hello."))
    await agent.ask("hello")
    await agent.hass.async_block_till_done(wait_background_tasks=True)
    return f"local_agent.home_list.{subentry_of(agent.hass, agent)}"


async def let_saves_run(hass: HomeAssistant) -> None:
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(minutes=5))
    await hass.async_block_till_done(wait_background_tasks=True)


@pytest.mark.parametrize("saved", [True, False], ids=["saved", "save pending"])
async def test_a_deleted_agent_leaves_no_home_list(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    hass_storage: dict[str, Any],
    saved: bool,
) -> None:
    """Before: .storage/local_agent.home_list.<subentry id> stayed after the agent was deleted,
    and a save pending at the delete wrote it seconds later."""
    key = await take_home_list(scripted_agent, scripted_worker)
    if saved:
        await let_saves_run(hass)
    assert (key in hass_storage) is saved

    assert await delete_agent(hass, scripted_agent) == key
    await let_saves_run(hass)

    assert key not in hass_storage
