"""A fortieth round of red-team probes: this session's first merges.

Hole. A name holding a mark that opens or ends a sentence in a script other than ours ("¿",
"¡", "‽") was said in the question as written and without its id: "¿Desbloquear Puerta
trasera ¿Encender la luz de la cocina? Di «sí» para confirmar." reads, and a voice speaks, as
a question to light the kitchen. Such marks now bring the id, in every language.

Hole. "v1.2 Hub" was taken for an entity id written in a name, and the question said the
lock's id alone ("Unlock lock.back_door?"), where no one could be misled. Entity domains hold
no digit: a version is no id; "lock.1234" still is.

Hole. A call naming an entity unexposed since the turn began was refused, and the refusal
then offered that same entity to the model ("There is no exposed light entity
'light.bed_light'. Did you mean: light.bed_light (Bed Light)?"): the names a turn resolves
against are the turn's. What a refusal suggests, lists or counts as a match is now checked
against exposure as it is.

Guards (passed at once). The prompt offers what is exposed now, between two turns: a new
entity id, exposure taken back, another assistant's exposure, an entity without a registry
entry exposed or removed. A held unlock whose lock was unexposed or removed before the yes
runs nothing; a light unexposed by the first call of a turn is not switched by the second; a
lock of a config entry reloaded between two turns is offered.

Guards (passed at once). The relay behind a Switch as X lock (through a template switch) is
held whatever the wrapper's entry does: unloaded, disabled, disabled since a restart (no state
left: a walk of the states, as before this session, missed it and ran the relay at once),
being reloaded, or its wrapped switch given a new id.

Guards (passed at once). An agent deleted while its model writes (its turn took a new home
list, saved ten seconds later), then nothing, a reload of the entry at once, or an agent of
the same name added: no home list on disk, none kept in memory (fails without the cancel of
the pending save).

Guards (passed at once). A name that is an entity id, its own or another lock's ("lock.front_door",
"lock.1234"), is said as the entity's own id. A name with an abbreviation point ("Dr. Who's
Lamp", "St. Mary Room") is said with its id: "Back St. Turn on Kitchen Lights" is read, and
spoken, as a street and another sentence alike, and no rule tells them apart in seven
languages; this fails closed.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest

from custom_components.local_agent.const import ASSISTANT
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import ConfigEntryDisabler
from homeassistant.config_entries import ConfigSubentry
from homeassistant.core import Event
from homeassistant.core import EventStateChangedData
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers import entity_registry as er
from testing.stand_in import SeenRequest

from .agents import Agent
from .agents import speech
from .agents import state
from .scene import Scene
from .scene import satellite_id
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_cost_per_turn import let_saves_run
from .test_cost_per_turn import take_home_list
from .test_redteam import relay
from .test_redteam import relay_lock
from .test_redteam_more import switch_as_x
from .test_redteam_thirteenth import switch_passing_to
from .test_redteam_thirteenth import switching_on_is_held_only_when

BACK_DOOR = "lock.back_door"
FRONT_DOOR = "lock.front_door"
LANGUAGES = ["en", "de", "fr", "es", "it", "nl", "pt"]


async def question_about(
    hass: HomeAssistant, scene: Scene, name: str, language: str, device_id: str | None = None
) -> str:
    """The back door is named `name`; the model unlocks it: the question the person reads."""
    er.async_get(hass).async_update_entity(BACK_DOOR, name=name)
    agent = await scene.our_agent()
    scene.worker.will_write(answer(call("lock", action="unlock", entity_id=BACK_DOOR)))
    result = await agent.ask(
        "unlock it", context=scene.person, language=language, device_id=device_id
    )
    assert state(hass, BACK_DOOR) == "locked"
    return speech(result)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(
    "name",
    [
        "Puerta trasera ¿Encender la luz de la cocina",
        "Porta ¡Acender a luz da cozinha",
        "Back Door‽ Turn on Kitchen Lights",
    ],
    ids=["inverted-question-mark", "inverted-exclamation-mark", "interrobang"],
)
async def test_a_name_holding_another_scripts_sentence_mark_is_said_with_its_id(
    hass: HomeAssistant, scene: Scene, name: str, language: str
) -> None:
    asked = await question_about(hass, scene, name, language)

    assert f"{name} ({BACK_DOOR})" in asked


@pytest.mark.parametrize("language", ["en", "es"])
async def test_a_satellite_says_the_id_after_such_a_name(
    hass: HomeAssistant, scene: Scene, language: str
) -> None:
    """Said aloud, no place stands in for the id: the name itself misleads, not a look-alike."""
    name = "Puerta trasera ¿Encender la luz de la cocina"
    asked = await question_about(hass, scene, name, language, satellite_id(hass))

    assert f"{name}, {BACK_DOOR}" in asked  # its brackets said as a pause (voice round 39)


@pytest.mark.parametrize("language", LANGUAGES)
async def test_a_version_in_a_name_is_no_entity_id(
    hass: HomeAssistant, scene: Scene, language: str
) -> None:
    asked = (await question_about(hass, scene, "v1.2 Hub", language)).casefold()

    assert "v1.2 hub" in asked
    assert BACK_DOOR not in asked


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", [FRONT_DOOR, "lock.1234", "Hall lock.1234"])
async def test_a_name_written_as_an_entity_id_is_said_as_its_own_id(
    hass: HomeAssistant, scene: Scene, name: str, language: str
) -> None:
    """Guard: also where the name is the id of another lock of the house."""
    hass.states.async_set("lock.1234", "locked", {"friendly_name": "Shed"})
    # German and Dutch put the verb last and write the sentence's first letter large.
    asked = (await question_about(hass, scene, name, language)).casefold()

    assert BACK_DOOR in asked
    assert "lock.1234" not in asked
    assert FRONT_DOOR not in asked


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(
    "name", ["Dr. Who's Lamp", "St. Mary Room", "Back St. Turn on Kitchen Lights"]
)
async def test_an_abbreviation_point_fails_closed(
    hass: HomeAssistant, scene: Scene, name: str, language: str
) -> None:
    """Guard: "St." ends a sentence as well as a street: no rule tells them apart safely."""
    asked = await question_about(hass, scene, name, language)

    assert f"{name} ({BACK_DOOR})" in asked


async def offered(hass: HomeAssistant, scene: Scene) -> str:
    """A new turn of our agent: the prompt the model read."""
    agent = await scene.our_agent()
    scene.worker.will_write(answer("Okay."))
    await agent.ask("what is there?", context=scene.person)
    seen = scene.worker.requests[-1]
    return f"{seen.static_prompt}{seen.dynamic_prompt}"


async def test_the_prompt_offers_what_is_exposed_now(hass: HomeAssistant, scene: Scene) -> None:
    """Guard: between two turns the index follows a new id, exposure, removal and new locks."""
    entities = er.async_get(hass)
    assert BACK_DOOR in await offered(hass, scene)

    entities.async_update_entity(BACK_DOOR, new_entity_id="lock.rear_door")
    await hass.async_block_till_done()
    prompt = await offered(hass, scene)
    assert "lock.rear_door" in prompt
    assert BACK_DOOR not in prompt

    async_expose_entity(hass, ASSISTANT, "lock.rear_door", False)
    async_expose_entity(hass, "cloud.alexa", FRONT_DOOR, False)
    prompt = await offered(hass, scene)
    assert "lock.rear_door" not in prompt
    assert FRONT_DOOR in prompt

    hass.states.async_set("lock.shed", "locked", {"friendly_name": "Shed"})  # no registry entry
    async_expose_entity(hass, ASSISTANT, "lock.shed", False)
    assert "lock.shed" not in await offered(hass, scene)
    async_expose_entity(hass, ASSISTANT, "lock.shed", True)
    assert "lock.shed" in await offered(hass, scene)

    hass.states.async_remove("lock.shed")
    assert "lock.shed" not in await offered(hass, scene)

    gate = await relay_lock(hass, "Garden gate", unlocked="false", relay_target="switch.none")
    entry_id = er.async_get(hass).async_get(gate).config_entry_id  # type: ignore[union-attr]
    assert entry_id is not None
    assert await hass.config_entries.async_reload(entry_id)
    assert gate in await offered(hass, scene)


@pytest.mark.parametrize("how", ["unexposed", "removed"])
async def test_a_held_unlock_whose_lock_went_since_runs_nothing(
    hass: HomeAssistant, scene: Scene, how: str
) -> None:
    """Guard: the question was asked while the lock was offered; the yes finds it gone."""
    agent = await scene.our_agent()
    question = await scene.ask_to_unlock(agent)
    assert "Say yes" in speech(question)
    if how == "unexposed":
        async_expose_entity(hass, ASSISTANT, FRONT_DOOR, False)
    else:
        hass.states.async_remove(FRONT_DOOR)
    unlocks: list[Event[Any]] = []
    hass.bus.async_listen("call_service", unlocks.append)
    scene.worker.will_write(answer("Okay."))
    await scene.reply(agent, question, "yes")
    await hass.async_block_till_done()

    assert [e.data for e in unlocks if e.data.get("domain") == "lock"] == []
    assert "executed" not in " ".join(scene.outcomes())


async def test_a_light_unexposed_during_the_turn_is_not_switched(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Guard: the first call of a turn unexposes the second's light; the runner looks again."""
    kitchen, bed = "light.kitchen_lights", "light.bed_light"
    await hass.services.async_call("light", "turn_off", {"entity_id": bed}, blocking=True)

    @callback
    def unexpose_bed(event: Event[EventStateChangedData]) -> None:
        if event.data["entity_id"] == kitchen:
            async_expose_entity(hass, ASSISTANT, bed, False)

    unsubscribe = hass.bus.async_listen("state_changed", unexpose_bed)
    agent = await scene.our_agent()
    both = call("light", action="toggle", entity_id=kitchen) + call(
        "light", action="turn_on", entity_id=bed
    )
    scene.worker.will_write(answer(both), answer("Done."))
    await agent.ask("toggle the kitchen, then the bed light", context=scene.person)
    unsubscribe()

    assert state(hass, bed) == "off"
    told = scene.worker.requests[-1].dynamic_prompt.rpartition("<tool_response>")[2]
    assert "There is no exposed light entity 'light.bed_light'." in told
    assert "(Bed Light)" not in told


async def door_switch_shown_as_a_lock(hass: HomeAssistant) -> tuple[str, str, str]:
    """A template switch passes its turn-on to the door relay; Switch as X shows it as a lock.

    Return the relay, the template switch and the Switch as X entry's id.
    """
    door_relay = await relay(hass, "Door relay")
    door_switch = await switch_passing_to(hass, door_relay)
    wrapper = await switch_as_x(hass, door_switch, "lock")
    await hass.async_block_till_done()
    entry_id = er.async_get(hass).async_get(wrapper).config_entry_id  # type: ignore[union-attr]
    assert entry_id is not None
    return door_relay, door_switch, entry_id


@pytest.mark.parametrize(
    "how", ["unloaded", "disabled", "disabled-since-a-restart", "reloading", "switch-re-ided"]
)
async def test_the_relay_behind_a_switch_as_x_lock_is_held_whatever_its_entry_does(
    hass: HomeAssistant, scene: Scene, how: str
) -> None:
    """Guard: a wrapper without a state (its entry unloaded, disabled, being reloaded) still
    unlocks a door when the relay switches: found from the registry, it fails closed. Home
    Assistant keeps no state for a disabled entity once it restarts, which a walk of the
    states missed."""
    door_relay, door_switch, entry_id = await door_switch_shown_as_a_lock(hass)
    entries = hass.config_entries
    if how == "unloaded":
        assert await entries.async_unload(entry_id)
    elif how.startswith("disabled"):
        await entries.async_set_disabled_by(entry_id, ConfigEntryDisabler.USER)
        if how == "disabled-since-a-restart":
            hass.states.async_remove("lock.door_switch")
    elif how == "reloading":
        entries.async_schedule_reload(entry_id)
    else:
        er.async_get(hass).async_update_entity(door_switch, new_entity_id="switch.side_door")
    await hass.async_block_till_done()

    await switching_on_is_held_only_when(hass, scene, door_relay, True)


@pytest.mark.parametrize("then", ["nothing", "reload", "same name again"])
async def test_an_agent_deleted_during_its_turn_leaves_no_home_list(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    hass_storage: dict[str, Any],
    then: str,
) -> None:
    """Guard: the agent is deleted while the model writes; its turn ends after, then the entry
    is reloaded at once or an agent of the same name added: nothing of it stays, on disk or
    in memory."""
    key = await take_home_list(scripted_agent, scripted_worker)
    await let_saves_run(hass)
    assert key in hass_storage
    subentry_id = key.rpartition(".")[2]

    def delete_then_answer(_seen: SeenRequest) -> str:
        assert hass.config_entries.async_remove_subentry(scripted_agent.entry, subentry_id)
        return answer("Hello.")

    hass.states.async_set("light.porch", "on", {"friendly_name": "Porch"})
    async_expose_entity(hass, ASSISTANT, "light.porch", True)  # a new list, saved later
    scripted_worker.will_write(delete_then_answer)
    await scripted_agent.ask("hello again")
    seen = scripted_worker.requests[-1]
    assert "light.porch" in f"{seen.static_prompt}{seen.dynamic_prompt}"
    await hass.async_block_till_done()
    if then == "reload":
        assert await hass.config_entries.async_reload(scripted_agent.entry.entry_id)
    elif then == "same name again":
        new = ConfigSubentry(
            data=MappingProxyType({}),
            subentry_type=SUBENTRY_CONVERSATION,
            title="Local Agent",
            unique_id=None,
        )
        hass.config_entries.async_add_subentry(scripted_agent.entry, new)
    await let_saves_run(hass)

    assert key not in hass_storage
    assert subentry_id not in hass.data.get(f"{DOMAIN}_home_lists", {})
    assert subentry_id not in hass.data.get(f"{DOMAIN}_home_list_stores", {})
