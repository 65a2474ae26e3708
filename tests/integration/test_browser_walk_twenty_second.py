"""What a twenty-second walk in a real browser found wrong (a Spanish and then an Italian
household in a house with rooms on two floors typing into the Assist dialog: everything
downstairs, the blinds upstairs, two rooms' lights, a light gone, the thermostat, the front
door, a request while the model still loads, the vacuum)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Final

from custom_components.local_agent.const import ASSISTANT
from custom_components.local_agent.engine.interface import GenerationEngine
from custom_components.local_agent.engine.local.worker import ModelRegistry
from custom_components.local_agent.engine.settings import EngineSettings
from custom_components.local_agent.runtime.local import LOCAL_ENGINES
from custom_components.local_agent.runtime.local import LocalEngines
from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import STATE_UNAVAILABLE
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent
from testing import develop_house
from testing.stand_in import StandInWorker
from testing.stand_in import answer
from testing.stand_in import call

from .conftest import entry_state
from .conftest import speech
from .conftest import state
from .test_demo_model import demo_agent

KITCHEN: Final = "light.kitchen_lights"
LIVING_ROOM: Final = "light.living_room_rgbww_lights"


async def test_a_request_while_the_model_still_loads_is_told_so(
    hass: HomeAssistant, demo_home: None, tmp_path: Path, person: Context
) -> None:
    """Right after Home Assistant restarted, the Spanish walk typed "enciende las luces de la
    cocina" while the model still loaded: the dialog showed core's "¡Vaya! Se ha producido un
    error." (the agent's entity did not exist until the model had loaded). The agent now says,
    in the dialog's language, that its model is still loading and to ask again in a minute;
    nothing is run, and once the model has loaded the agent is its own again."""
    agent = await demo_agent(hass, tmp_path)
    engine: GenerationEngine = agent.entry.runtime_data.worker
    loaded = asyncio.Event()
    started = asyncio.Event()

    async def slow_load(_path: Path, _settings: EngineSettings) -> GenerationEngine:
        started.set()
        await loaded.wait()
        return engine

    hass.data[LOCAL_ENGINES] = LocalEngines(
        registry=ModelRegistry(slow_load), check=hass.data[LOCAL_ENGINES].check
    )
    reload = hass.async_create_task(hass.config_entries.async_reload(agent.entry.entry_id))
    await started.wait()
    assert entry_state(agent.entry) is ConfigEntryState.SETUP_IN_PROGRESS

    result = await conversation.async_converse(
        hass, "enciende las luces de la cocina", None, person, "es", agent_id=agent.entity_id
    )

    assert result.response.response_type is intent.IntentResponseType.ERROR
    assert speech(result) == (
        f"Aún no puedo responder: el modelo {agent.entry.title} todavía se está cargando. "
        "Vuelve a preguntar en un minuto."
    )
    assert state(hass, "light.kitchen_lights") == "on"
    loaded.set()
    await reload
    await hass.async_block_till_done()
    assert entry_state(agent.entry) is ConfigEntryState.LOADED
    done = await agent.ask("turn off the kitchen lights", context=person)
    assert speech(done) == "Turned off Kitchen Lights."


async def test_a_light_gone_unavailable_is_said_beside_the_call_that_failed(
    hass: HomeAssistant, demo_home: None, tmp_path: Path, person: Context
) -> None:
    """With the living room's light unavailable, "apaga las luces de la cocina y del salón"
    had the walk hear "No he podido apagar Kitchen Lights y Living Room RGBWW Lights. No ha
    funcionado.": nothing said which light was the trouble (the model read it, the person did
    not). The agent now says it itself, in the dialog's language; nothing was switched."""
    agent = await demo_agent(hass, tmp_path)
    async_expose_entity(hass, ASSISTANT, LIVING_ROOM, True)
    hass.states.async_set(LIVING_ROOM, STATE_UNAVAILABLE, {"friendly_name": "Living Room Lights"})
    engine = agent.entry.runtime_data.worker
    assert isinstance(engine, StandInWorker)
    both = [KITCHEN, LIVING_ROOM]
    engine.will_write(answer(call("light", action="turn_off", entity_id=both)), answer("No."))

    result = await agent.ask(
        "apaga las luces de la cocina y del salón", context=person, language="es"
    )

    assert speech(result) == (
        "No he podido apagar Kitchen Lights y Living Room Lights. "
        "Living Room Lights: no disponible ahora mismo. No."
    )
    assert state(hass, KITCHEN) == "on"


async def test_a_temperature_out_of_range_is_said_with_the_range(
    hass: HomeAssistant, demo_home: None, tmp_path: Path, person: Context
) -> None:
    """ "imposta Hvac a 40 gradi" (the demo's thermostat takes 7 to 35) had the Italian walk
    hear "Non è stato possibile impostare la temperatura di Hvac. Non ha funzionato.": the
    range the model read was never said. The agent now says it, in the dialog's language."""
    agent = await demo_agent(hass, tmp_path)

    result = await agent.ask("imposta Hvac a 40 gradi", context=person, language="it")

    assert speech(result) == (
        "Non è stato possibile impostare la temperatura di Hvac. L'intervallo va da 7 a 35 °C, "
        "non 40 °C. Non ha funzionato."
    )
    assert hass.states.get("climate.hvac").attributes["temperature"] == 21  # type: ignore[union-attr]


async def test_the_develop_house_has_floors_the_demo_model_acts_on(
    hass: HomeAssistant, demo_home: None, tmp_path: Path, person: Context
) -> None:
    """The walk needed a house with rooms on two floors (scripts/develop's had none): the
    develop house now places the demo's devices on a ground and a first floor, and the demo
    model turns off "everything downstairs" and the lights of two rooms said in Italian."""
    develop_house.furnish(hass)
    for entity_ids in develop_house.HOUSE[develop_house.GROUND_FLOOR].values():
        for entity_id in entity_ids:
            async_expose_entity(hass, ASSISTANT, entity_id, True)
    agent = await demo_agent(hass, tmp_path)
    # On, so that everything downstairs is turned off (one already off is said as it was).
    await hass.services.async_call(
        "fan", "turn_on", {"entity_id": "fan.living_room_fan"}, blocking=True
    )

    downstairs = await agent.ask("spegni tutto di sotto", context=person, language="it")
    rooms = await agent.ask(
        "accendi le luci della cucina e del soggiorno", context=person, language="it"
    )

    assert speech(downstairs) == "Fatto: spegnere 4 luci e 1 ventilatore (Ground floor)."
    assert speech(rooms) == "Fatto: accendere Kitchen Lights e Living Room RGBWW Lights."
    assert state(hass, "light.ceiling_lights") == "off"
    assert state(hass, KITCHEN) == "on"
