"""Session 65's sentences through a satellite (round 38).

**Hole.** The model's answer to a satellite kept its units as marks: "Living Room is at 21.5 °C,
outside -3°C, humidity 45 %". Text-to-speech reads what it is given: "°C" as a letter or not
at all, the minus sign not at all ("outside three"), "%" as the mark's name where the engine
does not know it; Home Assistant's own answers say "degrees" in words for this reason.
**Found.** Said to a satellite or another device, a number's unit is said in words in the
person's language ("21.5 degrees Celsius", "45 Prozent", "moins 3 degrés Celsius"), and a minus
sign before a number as the language's "minus"; a minus inside a date or a range, a number in
an entity id, an ordinal ("2º andar") and the Assist dialog's text are left as written.

**Hole.** Our own sentences that tell where to change a setting were said to a satellite with
their menu path's marks: "change that under Settings > Voice assistants > Expose" (a lock the
person asked for that is not exposed), "Einstellungen > Geräte & Dienste > Local Agent";
text-to-speech says "greater than" (or the arrow's name for "→") between the steps.
**Found.** Said to a satellite or another device, a path's steps are said as pauses ("Settings,
Voice assistants, Expose"), ours and the model's alike; a ">" beside a number compares and
stays, and the Assist dialog keeps the path as written.

**Guards (passed at once).** A "yes" said on another satellite in the conversation of the
question runs nothing (and the asking satellite's own yes then does); a satellite moved to
another area while its conversation is open says its new area in the next request; a question
the model asks on a satellite keeps the conversation open, and the answer said there after a
pause reaches the model in the same conversation, after the question.
"""

from __future__ import annotations

from typing import Final

import pytest

from custom_components.local_agent.turn.spoken_text import spoken
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import device_registry as dr
from testing.home_builder import async_area

from .agents import speech
from .agents import state
from .conftest import Agent
from .conftest import Assist
from .flow_helpers import translation
from .scene import Scene
from .scene import unlock
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .test_prompt_layout import last_user_message
from .test_voice_thirty_second import a_hall_satellite
from .test_voice_thirty_third import YES
from .test_voice_twenty_ninth import StreamingVoice
from .test_voice_twenty_ninth import Voice
from .test_voice_twenty_ninth import heard_in_the_bedroom
from .test_voice_twenty_ninth import own_config_dir  # noqa: F401 (a fixture)
from .test_voice_twenty_seventh import a_satellite

LANGUAGES: Final = ["en", "de", "fr", "es", "it", "nl", "pt"]
# Long enough for a streaming voice to say the stream as it comes.
LONG_ANSWER: Final = "I do not see a front door here, nor any other door I could unlock for you."

# The model's answer with temperatures and a percentage, and what a satellite says of it.
WITH_UNITS: Final = {
    "en": (
        "Living Room: 21.5 °C, outside -3°C, humidity 45 %.",
        "Living Room: 21.5 degrees Celsius, outside minus 3 degrees Celsius, humidity 45 percent.",
    ),
    "de": (
        "Wohnzimmer: 21,5 °C, draußen -3 °C, Luftfeuchtigkeit 45 %.",
        "Wohnzimmer: 21,5 Grad Celsius, draußen minus 3 Grad Celsius, Luftfeuchtigkeit 45 Prozent.",
    ),
    "fr": (
        "Salon : 21,5 °C, dehors \u22123 °C, humidité 45 %.",
        "Salon : 21,5 degrés Celsius, dehors moins 3 degrés Celsius, humidité 45 pour cent.",
    ),
    "es": (
        "Salón: 21,5 ºC, fuera -3 °C, humedad 45%.",
        "Salón: 21,5 grados Celsius, fuera menos 3 grados Celsius, humedad 45 por ciento.",
    ),
    "it": (
        "Soggiorno: 21,5 °C, fuori -3 °C, umidità 45%.",
        "Soggiorno: 21,5 gradi Celsius, fuori meno 3 gradi Celsius, umidità 45 per cento.",
    ),
    "nl": (
        "Woonkamer: 21,5 °C, buiten -3 °C, vochtigheid 45%.",
        "Woonkamer: 21,5 graden Celsius, buiten min 3 graden Celsius, vochtigheid 45 procent.",
    ),
    "pt": (
        "Sala: 21,5 °C, lá fora -3 °C, humidade 45%.",
        "Sala: 21,5 graus Celsius, lá fora menos 3 graus Celsius, humidade 45 por cento.",
    ),
}


@pytest.mark.parametrize("language", LANGUAGES)
async def test_a_satellite_says_units_and_signs_in_words(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, language: str
) -> None:
    """Before: "21.5 °C", "-3°C" and "45 %" given to text-to-speech as marks."""
    written, said = WITH_UNITS[language]
    kitchen = a_satellite(hass, "Kitchen satellite", "Kitchen")
    scripted_worker.will_write(answer(written))

    result = await scripted_agent.ask("how warm is it", device_id=kitchen, language=language)

    assert speech(result) == said


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("At 1 °C, set to 68 °F.", "At 1 degree Celsius, set to 68 degrees Fahrenheit."),
        ("Heating set to 22°.", "Heating set to 22 degrees."),
        ("(\u22122 ℃)", "minus 2 degrees Celsius"),
        ("On 2026-12-07 at 10:30, 5-10 % more.", "On 2026-12-07 at 10:30, 5-10 percent more."),
        ("sensor.room_2 reads -4.", "sensor.room_2 reads minus 4."),
        ("- 3 lights are on", "3 lights are on."),
        ("1.000.000 steps", "1.000.000 steps"),
    ],
)  # fmt: skip
def test_what_is_said_of_a_number_and_what_is_left(written: str, said: str) -> None:
    """A unit or sign is said only where it belongs to the number; dates, ranges and ids stay."""
    assert spoken(written) == said


@pytest.mark.parametrize("language", LANGUAGES)
async def test_a_satellite_says_a_settings_path_as_pauses(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, language: str
) -> None:
    """Before: "change that under Settings > Voice assistants > Expose" given to
    text-to-speech, which says "greater than" between the steps."""
    async_expose_entity(hass, "conversation", "lock.front_door", False)
    kitchen = a_satellite(hass, "Kitchen satellite", "Kitchen")
    scripted_worker.will_write(answer("OK."))

    result = await scripted_agent.ask("unlock the front door", device_id=kitchen, language=language)

    hint = translation(language)["exceptions"]["not_exposed_hint"]["message"]
    path = hint[hint.rindex(" ", 0, hint.index(" > ")) + 1 :].rstrip(".")
    assert " > " in path
    said = speech(result)
    assert ">" not in said
    assert path.replace(" > ", ", ") in said
    assert state(hass, "lock.front_door") == "locked"


@pytest.mark.usefixtures("own_config_dir")
@pytest.mark.parametrize("engine", [Voice, StreamingVoice])
async def test_a_satellites_voice_hears_the_path_as_pauses(
    hass: HomeAssistant,
    assist: Assist,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    engine: type[Voice],
) -> None:
    """Through a real pipeline's text-to-speech, one that says the final answer and one that
    says the stream as it comes (our hint then streamed after the model's long answer)."""
    async_expose_entity(hass, "conversation", "lock.front_door", False)
    scripted_worker.will_write(answer(LONG_ANSWER))

    heard = await heard_in_the_bedroom(
        hass, assist, scripted_agent, engine, "unlock the front door"
    )

    assert heard.count(LONG_ANSWER) == 1
    assert "under Settings, Voice assistants, Expose." in heard
    assert ">" not in heard


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("Open Settings > Repairs.", "Open Settings, Repairs."),
        ("Choose it (the model entry → Configure).", "Choose it, the model entry, Configure."),
        ("It is 21 > 18 and x > 5.", "It is 21 > 18 and x > 5."),
        ("> quoted", "quoted"),
    ],
)
def test_what_is_said_of_a_path_and_what_is_left(written: str, said: str) -> None:
    """A step between words is a pause; a ">" beside a number compares, a line's ">" quotes."""
    assert spoken(written) == said


def test_an_ordinal_mark_is_no_degree() -> None:
    """Guard: "2º andar" (second floor) is an ordinal, never "2 graus andar"."""
    assert spoken("No 2º andar.", "pt") == "No 2º andar."


async def test_the_assist_dialog_keeps_units_as_written(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """Guard: the dialog shows the text: "21.5 °C" is what a screen should show."""
    written = WITH_UNITS["en"][0]
    scripted_worker.will_write(answer(written))

    result = await scripted_agent.ask("how warm is it")

    assert speech(result) == written


@pytest.mark.parametrize("language", LANGUAGES)
async def test_a_yes_from_another_satellite_runs_nothing(
    hass: HomeAssistant, scene: Scene, assist: Assist, language: str
) -> None:
    """Guard: asked in the hall, a "yes" from the kitchen's satellite in that conversation
    leaves the door locked; the hall's own yes then unlocks it."""
    agent = await scene.our_agent()
    hall = await a_hall_satellite(hass, assist, agent, language)
    kitchen = await a_hall_satellite(hass, assist, agent, language)
    kitchen.device_id = a_satellite(hass, "Kitchen satellite", "Kitchen")
    scene.worker.will_write(unlock())

    await hall.answer("unlock the front door")
    kitchen.conversation_id = hall.conversation_id
    await kitchen.answer(YES[language])

    assert state(hass, "lock.front_door") == "locked"
    await hall.answer(YES[language])
    assert state(hass, "lock.front_door") == "unlocked"


async def test_a_satellite_moved_while_its_conversation_is_open_says_its_new_area(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """Guard: moved from the kitchen to the bedroom between two turns of one conversation,
    the next request speaks from the bedroom, never from the kitchen."""
    satellite = a_satellite(hass, "Moving satellite", "Kitchen")
    scripted_worker.will_write(answer("Which lights?"), answer("…"))

    first = await scripted_agent.ask("turn on the lights", device_id=satellite)
    dr.async_get(hass).async_update_device(satellite, area_id=async_area(hass, "Bedroom"))
    await scripted_agent.ask(
        "all of them", conversation_id=first.conversation_id, device_id=satellite
    )

    before, after = (last_user_message(r) for r in scripted_worker.requests)
    assert "from the area Kitchen" in before
    assert "from the area Bedroom" in after
    assert "Kitchen" not in after


async def test_a_question_on_a_satellite_is_answered_there_after_a_pause(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, assist: Assist
) -> None:
    """Guard: the model's question keeps the satellite listening; the answer, said in the
    pipeline's conversation, reaches the model after the question."""
    hall = await a_hall_satellite(hass, assist, scripted_agent)
    scripted_worker.will_write(answer("Which light, the hall or the kitchen?"), answer("Done."))

    events = await hall.say("turn on the light")
    asked_in = hall.conversation_id
    await hass.async_block_till_done()
    await hall.answer("the kitchen")

    output = next(e for e in events if e["type"] == "intent-end")["data"]["intent_output"]
    assert output["continue_conversation"] is True
    assert hall.conversation_id == asked_in
    second = scripted_worker.requests[-1]
    prompt = second.static_prompt + second.dynamic_prompt
    assert "the kitchen" in last_user_message(second)
    assert prompt.index("Which light, the hall or the kitchen?") < prompt.rindex("the kitchen")
