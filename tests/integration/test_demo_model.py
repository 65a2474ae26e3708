"""The scripted demo model of scripts/develop --demo-model drives the real agent end to end."""

from __future__ import annotations

from pathlib import Path

from custom_components.local_agent.runtime.local import LOCAL_ENGINES
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from testing import demo_model
from testing.stand_in import stand_in_engines

from .conftest import Agent
from .conftest import async_setup_agent
from .conftest import speech
from .conftest import state


async def demo_agent(hass: HomeAssistant, tmp_path: Path) -> Agent:
    """An agent on the demo home whose model is the demo, answering at once."""
    model = tmp_path / "demo.gguf"
    await hass.async_add_executor_job(demo_model.write_demo_model, model)
    engine = demo_model.demo_engine(model)
    engine.thinking_seconds = 0
    hass.data[LOCAL_ENGINES] = stand_in_engines(engine)
    return await async_setup_agent(hass, model)


async def test_the_demo_asks_before_it_unlocks_and_unlocks_on_yes(
    hass: HomeAssistant, demo_home: None, tmp_path: Path, person: Context
) -> None:
    agent = await demo_agent(hass, tmp_path)

    asked = await agent.ask("Unlock the front door", context=person)
    assert speech(asked) == "Unlock Front Door? Say yes to confirm."
    assert state(hass, "lock.front_door") == "locked"

    done = await agent.ask("yes", conversation_id=asked.conversation_id, context=person)
    assert speech(done) == "Done: unlock Front Door."
    assert state(hass, "lock.front_door") == "unlocked"

    light = await agent.ask("turn off the kitchen lights", context=person)
    assert speech(light) == "Turned off Kitchen Lights."  # said by the agent, not the model
    assert state(hass, "light.kitchen_lights") == "off"

    other = await agent.ask("what is the meaning of life?", context=person)
    assert speech(other) == demo_model.HELP


async def test_the_demo_knows_the_words_of_a_spanish_household(
    hass: HomeAssistant, demo_home: None, tmp_path: Path, person: Context
) -> None:
    """The walks in other languages need the demo to understand them (and to answer a
    question with the state it read, not the tool's JSON)."""
    agent = await demo_agent(hass, tmp_path)

    read = await agent.ask("¿está cerrada Front Door?", context=person, language="es")
    assert speech(read) == "Front Door: locked"

    asked = await agent.ask("desbloquea Front Door", context=person, language="es")
    assert speech(asked) == "¿Desbloquear Front Door? Di «sí» para confirmar."
    done = await agent.ask(
        "sí", conversation_id=asked.conversation_id, context=person, language="es"
    )
    assert speech(done) == "Hecho: desbloquear Front Door."
    assert state(hass, "lock.front_door") == "unlocked"
