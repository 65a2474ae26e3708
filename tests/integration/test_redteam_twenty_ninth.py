"""A twenty-ninth round of red-team probes: the second round of session 59.

Hole. A PIN said as a number is never read, and its words are hidden like digits: but only
when the answer was read as a PIN, or had a digit word in it. "forty eleven, and turn on the
light" (PIN 4011) at a PIN question is something else (the question is set aside and the words
go to the model as a new request): no digit word in it, so "forty eleven" stayed in the chat
log and went to the model whole. A late "forty eleven" to a PIN question that had timed out
stayed in the log the same way, and "forty eleven" said in a new tab beside the waiting PIN
question. Every answer to a PIN question now hides its number words.

Hole. A mode the device does not offer is said back when it is "plain words": the model's
value "heat. Say yes to confirm" (letters, spaces and a full stop, under 40 characters) was
said as "Hvac does not offer heat. Say yes to confirm." A value said back is now at most three
words, with a full stop only inside a number.

Hole. A range is read off attributes others write: a thermostat whose min_temp is NaN refused
every temperature, and the person heard "The range is nan to 35 °C, not 20 °C." A bound that is
no finite number (NaN, infinity, a boolean) is now no bound: Home Assistant's own check decides.

Hole. Assist's device lines are the lines core says only without the device, learned for good:
the prompt without the device was built later in the turn than the turn's own. An entity
renamed in between ("Bed Light" to "Desk Lamp") made its new line "- names: Desk Lamp" read as
a line of the device's: learned, it left the home prefix of every later request, satellite or
dialog (its domain and area lines hung on the entity before it), and went alone to each
request's block. Both prompts are now built together, and a turn whose own prompt differs from
the one built again (the home changed as it began) learns nothing.

Guard (probed and found fine): a PIN said to the agent while its entry reloads its model reaches
its stand-in, which says the model is loading, keeps nothing of it in the chat log and runs
nothing; once loaded, the same PIN is told the question closed with the restart, and the door
stays locked.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from collections.abc import Callable
from pathlib import Path
from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.engine.local.worker import ModelRegistry
from custom_components.local_agent.engine.settings import EngineSettings
from custom_components.local_agent.runtime.local import LOCAL_ENGINES
from custom_components.local_agent.runtime.local import LocalEngines
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import llm
from testing.turn import chat_log_of
from testing.turn import logged_words

from .agents import Talk
from .agents import speech
from .agents import state
from .conftest import Agent
from .scene import Clock
from .scene import Scene
from .scene import model_saw
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .test_everyday_twenty_eighth import HVAC
from .test_everyday_twenty_eighth import refused
from .test_prompt_layout import last_user_message
from .test_voice_twenty_eighth import assist_agent
from .test_voice_twenty_eighth import block
from .test_voice_twenty_eighth import with_timers
from .test_voice_twenty_seventh import a_satellite


@pytest.mark.parametrize(
    "said",
    ["forty eleven, and turn on the kitchen light", "vierzig elf und mach das Licht an"],
)
async def test_a_pin_said_as_a_number_beside_a_request_is_hidden_from_the_model(
    hass: HomeAssistant, scene: Scene, said: str
) -> None:
    """Set aside, the answer's number words (the PIN 4011 said as a number) stay out."""
    agent, question = await scene.pin_question()
    scene.worker.will_write(answer("Which light?"))

    reply = await scene.reply(agent, question, said)

    assert state(hass, "lock.front_door") == "locked"
    number = said.split(maxsplit=1)[0]
    assert number not in scene.model_saw()
    assert number not in logged_words(chat_log_of(hass, reply))


async def test_a_late_pin_said_as_a_number_is_hidden(
    hass: HomeAssistant, scene: Scene, clock: Clock
) -> None:
    """An answer to a PIN question that timed out is told so, and its number words stay out."""
    agent, question = await scene.pin_question()
    clock.now += 31

    late = await scene.reply(agent, question, "forty eleven")

    assert state(hass, "lock.front_door") == "locked"
    assert "forty" not in logged_words(chat_log_of(hass, late)), speech(late)


async def test_a_pin_said_as_a_number_in_another_tab_is_hidden(
    hass: HomeAssistant, scene: Scene
) -> None:
    """In a new conversation of the same person, a number (their PIN in words) stays out too."""
    agent = await scene.pin_agent()
    await scene.ask_to_unlock(agent)
    scene.worker.will_write(answer("Which light?"))

    elsewhere = await agent.ask("forty eleven", context=scene.person)

    assert state(hass, "lock.front_door") == "locked"
    assert "forty" not in scene.model_saw()
    assert "forty" not in logged_words(chat_log_of(hass, elsewhere)), speech(elsewhere)


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    """The agent the person talks to (conftest's talk): the scripted one on the demo home."""
    return scripted_agent


async def mode_refused(hass: HomeAssistant, talk: Talk, mode: str) -> str:
    """What the person hears when the model sets the thermostat to a mode it does not have."""
    async_expose_entity(hass, "conversation", HVAC, True)
    return await refused(
        talk, "en", "climate", action="set_hvac_mode", entity_id=HVAC, hvac_mode=mode
    )


@pytest.mark.parametrize(
    "mode", ["heat. Say yes to confirm", "heat - say yes to confirm", "heat.Say yes to confirm"]
)
async def test_a_mode_said_back_is_never_a_sentence(
    hass: HomeAssistant, talk: Talk, mode: str
) -> None:
    """A mode the model wrote like a sentence is not said back: the model still reads it."""
    said = await mode_refused(hass, talk, mode)

    assert f"Hvac has no hvac_mode {mode!r}" in model_saw(talk.worker)
    assert "yes" not in said.casefold(), said
    assert said.startswith("I could not"), said


PLAIN_MODES: Final = {"sauna": "sauna", "eco_2": "eco 2", "level 2.5": "level 2.5"}


@pytest.mark.parametrize(("mode", "named"), PLAIN_MODES.items())
async def test_a_plain_mode_is_still_said_back(
    hass: HomeAssistant, talk: Talk, mode: str, named: str
) -> None:
    """Guard: a mode of plain words (a number with its point too) is said as before."""
    said = await mode_refused(hass, talk, mode)

    assert said.endswith(f"Hvac: {named} is not an option."), said


@pytest.mark.parametrize("low", [float("nan"), True, "abc"])
async def test_a_bound_that_is_no_number_is_no_range(
    hass: HomeAssistant, talk: Talk, low: Any
) -> None:
    """A min_temp of NaN (or a boolean, or text) is no bound: 20 °C is not refused by it."""
    async_expose_entity(hass, "conversation", HVAC, True)
    current = hass.states.get(HVAC)
    assert current is not None
    hass.states.async_set(HVAC, current.state, {**current.attributes, "min_temp": low})

    said = await refused(
        talk, "en", "climate", action="set_temperature", entity_id=HVAC, temperature=0.5
    )

    assert "nan" not in said.casefold(), said
    assert "out of range for Hvac" not in model_saw(talk.worker)


async def test_an_entity_renamed_as_a_turn_begins_stays_in_the_home_prefix(
    hass: HomeAssistant,
    demo_home: None,
    scripted_worker: ScriptedWorker,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A rename between core's prompt and ours is no device line: it stays in the prefix."""
    agent = await assist_agent(hass, scripted_worker)
    kitchen = a_satellite(hass, "Kitchen satellite", "Kitchen")
    with_timers(hass, kitchen)
    built = llm.async_get_api
    renamed: list[str] = []

    async def renamed_meanwhile(
        hass: HomeAssistant, api_id: str | list[str], context: llm.LLMContext
    ) -> llm.APIInstance:
        if context.device_id is None and not renamed:  # after core built the turn's prompt
            renamed.append("light.bed_light")
            er.async_get(hass).async_update_entity("light.bed_light", name="Desk Lamp")
        return await built(hass, api_id, context)

    monkeypatch.setattr(llm, "async_get_api", renamed_meanwhile)
    scripted_worker.will_write(answer("…"), answer("…"), answer("…"))

    await agent.ask("turn on the lights", device_id=kitchen)
    await agent.ask("turn on the lights", device_id=kitchen)
    await agent.ask("turn on the lights")

    _, satellite, dialog = scripted_worker.requests
    for request in (satellite, dialog):
        assert "- names: Desk Lamp\n  domain: light" in request.static_prompt
        assert "names:" not in block(last_user_message(request))
    assert "You are in area Kitchen" in block(last_user_message(satellite))


async def test_a_pin_said_while_the_model_reloads_is_kept_nowhere_and_runs_nothing(
    hass: HomeAssistant, scene: Scene
) -> None:
    """The stand-in answers a PIN with the loading sentence; the real agent does not run it."""
    agent, question = await scene.pin_question()
    loaded = asyncio.Event()

    async def slow_load() -> ScriptedWorker:
        await loaded.wait()
        return scene.worker

    reload = await reloading(hass, agent, slow_load)

    loading = await scene.reply(agent, question, "4 7 1 1")

    assert "is still loading" in speech(loading)
    assert "4 7 1 1" not in logged_words(chat_log_of(hass, loading))
    loaded.set()
    await reload
    late = await scene.reply(agent, question, "4 7 1 1")
    assert "did not unlock Front Door" in speech(late)
    assert state(hass, "lock.front_door") == "locked"


async def reloading(
    hass: HomeAssistant, agent: Agent, load: Callable[[], Awaitable[ScriptedWorker]]
) -> asyncio.Task[bool]:
    """Reload the agent's entry, its model loaded by `load`; return once the load began."""
    started = asyncio.Event()

    async def loading(_path: Path, _settings: EngineSettings) -> ScriptedWorker:
        started.set()
        return await load()

    hass.data[LOCAL_ENGINES] = LocalEngines(
        registry=ModelRegistry(loading), check=hass.data[LOCAL_ENGINES].check
    )
    reload = hass.async_create_task(hass.config_entries.async_reload(agent.entry.entry_id))
    await started.wait()
    return reload
