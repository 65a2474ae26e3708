"""A turn's work follows the command, not the house.

- Every turn walked every state of the house twice: the tools listed the exposed entities by
  asking each state whether it is exposed, and each safety question looked at every state for
  a Switch as X entity. A house of 5,000 entities read 15,000 states for a read and 42,768 for
  a held unlock. Now the exposed entities are an index that entity and registry events drop,
  and the Switch as X entities come from the registry's index by config entry.
- A held unlock still read every lock and cover: the question's words looked for the entities
  the policy names sensitive by walking them (416 states at 200 entities, 3,056 at 5,000).
  Now the policy is asked about the entities the question names, one at a time, and the
  names a question compares (a lock heard like another is said with its id) are an index by
  domain that a new, gone or renamed entity of the domain drops.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any
from typing import Final

import pytest
from pytest_homeassistant_custom_component.common import async_fire_time_changed

from custom_components.local_agent.const import DOMAIN
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import EVENT_STATE_CHANGED
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
from .test_redteam_thirty_first import asked_to_unlock

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


def add_unexposed_entities(hass: HomeAssistant, domain: str, count: int) -> None:
    """Grow the house by count entities of the domain nobody exposed (covers: garage doors)."""
    attributes = {"device_class": "garage"} if domain == "cover" else {}
    for number in range(count):
        entity_id = f"{domain}.extra_{number}"
        async_expose_entity(hass, "conversation", entity_id, False)
        hass.states.async_set(entity_id, "closed", attributes)


async def reads_of_turns(
    hass: HomeAssistant,
    agent: Agent,
    worker: ScriptedWorker,
    person: Context,
    turns: tuple[tuple[str, ...], ...] = TURNS,
) -> list[StateReads]:
    """The states each turn reads, after the same turn once (indexes built for this house)."""
    found: list[StateReads] = []
    for sentence, *outputs in turns:
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


@pytest.mark.parametrize("domain", ["cover", "lock"])
async def test_a_held_unlock_reads_no_more_in_a_house_of_more_locks_and_covers(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    domain: str,
) -> None:
    """Before: the question of a held unlock read every cover (and every lock) of the house."""
    unlock = (TURNS[1],)
    (small,) = await reads_of_turns(hass, scripted_agent, scripted_worker, person, unlock)
    add_unexposed_entities(hass, domain, EXTRA)
    (large,) = await reads_of_turns(hass, scripted_agent, scripted_worker, person, unlock)

    assert state(hass, "lock.front_door") == "locked"
    assert large.walks == {}
    assert large.count - small.count < EXTRA / 20, (small.count, large.count)


def add_a_lock_named_back_door(hass: HomeAssistant) -> None:
    hass.states.async_set("lock.decoy", "locked", {"friendly_name": "Back Door"})


def rename_the_front_door_as_the_back_door(hass: HomeAssistant) -> None:
    front_door = hass.states.get("lock.front_door")
    assert front_door is not None
    hass.states.async_set(
        "lock.front_door", front_door.state, {**front_door.attributes, "friendly_name": "Back Door"}
    )


@pytest.mark.parametrize(
    "change", [add_a_lock_named_back_door, rename_the_front_door_as_the_back_door]
)
async def test_a_name_made_alike_after_a_question_is_asked_about_with_its_id(
    hass: HomeAssistant,
    house: None,
    scripted_worker: ScriptedWorker,
    person: Context,
    change: Callable[[HomeAssistant], None],
) -> None:
    """The names the first question compared are kept; the change drops them."""
    first = await asked_to_unlock(hass, scripted_worker, person, "lock.back_door")
    change(hass)
    await hass.async_block_till_done()

    second = await asked_to_unlock(hass, scripted_worker, person, "lock.back_door")

    assert first == "Unlock Back Door? Say yes to confirm."
    assert second.endswith(" (lock.back_door)? Say yes to confirm."), second


async def test_the_heard_names_stop_listening_when_the_last_entry_unloads(
    hass: HomeAssistant, house: None, scripted_worker: ScriptedWorker, person: Context
) -> None:
    """A held unlock keeps the locks' names; once no entry of ours is loaded nothing listens."""
    listening_before = hass.bus.async_listeners().get(EVENT_STATE_CHANGED, 0)
    await asked_to_unlock(hass, scripted_worker, person, "lock.back_door")
    assert hass.bus.async_listeners()[EVENT_STATE_CHANGED] > listening_before

    for entry in hass.config_entries.async_entries(DOMAIN):
        assert await hass.config_entries.async_unload(entry.entry_id)
    await hass.async_block_till_done()

    assert hass.bus.async_listeners().get(EVENT_STATE_CHANGED, 0) == listening_before


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
