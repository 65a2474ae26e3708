"""What a satellite hears when a turn fails, and one prefix for every satellite (round 29).

- A turn whose call failed after the model wrote a few words: the Assist dialog shows the
  stream in its bubble and the error's speech in one of its own, so that speech leaves out
  what was streamed. A satellite shows nothing: its text-to-speech says the final speech
  (a streaming engine says the stream only once the answer is long). The satellite's speech
  is whole, and the person hears the model's words and our sentence once with either engine.
- "Front Door 🔒, Garage 🔓" said to a satellite lost its marks and with them the doors' states:
  a lock mark is said as locked or unlocked in the person's language; other marks (💡, 🌡️)
  stand beside words that say the state, and a heading's mark only decorates: dropped.
  (mend65) A unit after a number was said as written ("3000 K": the letter K, "°C"); it is
  said in the language's words: "3000 kelvin", "21,5 degrés Celsius", "50 per cento".
- With Assist's API, core offers its timer tools only to a device that can start timers: the
  tool list is in the home prefix, so a house with one such satellite kept two prefixes (and
  one more for each kind of device). The timer tools are offered to every request, last and in
  one order; a device that cannot start timers hears core's own refusal, and its request's
  block still says "This device is not able to start timers."
- At a PIN question every digit and number word of the answer was hidden, even in another
  request: "what is 2 plus 2" reached the model as "what is * plus *", "allume une lampe" as
  "allume *** lampe". What may be a PIN guess (three digits, "forty eleven") is hidden; an
  ordinary number in another request, and a plain no, are kept in the chat log and the history.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.engine.words import LANGUAGES
from custom_components.local_agent.turn.spoken_text import UNIT_WORDS
from custom_components.local_agent.turn.spoken_text import spoken
from homeassistant.components import tts
from homeassistant.components.assist_pipeline.pipeline import KEY_ASSIST_PIPELINE
from homeassistant.components.tts.entity import TTSAudioRequest
from homeassistant.components.tts.entity import TTSAudioResponse
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component
from testing.turn import chat_log_of
from testing.turn import logged_words

from .agents import speech
from .agents import state
from .conftest import Agent
from .conftest import Assist
from .scene import Scene
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_everyday_house import set_up_speaker
from .test_everyday_twenty_ninth import bed_light_set_too_bright
from .test_prompt_layout import last_user_message
from .test_slow_turns import final_speech
from .test_slow_turns import streamed_text
from .test_voice_twenty_eighth import NO_TIMERS
from .test_voice_twenty_eighth import ask_from_kitchen_hall_and_dialog
from .test_voice_twenty_eighth import assist_agent
from .test_voice_twenty_eighth import block
from .test_voice_twenty_seventh import a_satellite

BED_LIGHT: Final = "light.bed_light"
REFUSAL: Final = "I could not turn on Bed Light. The range is 0 to 100%, not 150%."
# The same as a satellite says it (voice round 39), what test_redteam_thirty_third hears.
REFUSAL_SAID: Final = (
    "I could not turn on Bed Light. The range is 0 to 100 percent, not 150 percent."
)


class Voice(tts.TextToSpeechEntity):
    """A text-to-speech engine that keeps what it was given to say (Piper's kind)."""

    _attr_name = "Voice"
    _attr_default_language = "en"

    def __init__(self) -> None:
        self.said: list[str] = []

    @property
    def supported_languages(self) -> list[str]:
        return ["en"]

    async def async_get_tts_audio(
        self, message: str, language: str, options: dict[str, Any]
    ) -> tts.TtsAudioType:
        self.said.append(message)
        return "mp3", b""


class StreamingVoice(Voice):
    """An engine that speaks text as it comes (Wyoming's streaming kind)."""

    async def async_stream_tts_audio(self, request: TTSAudioRequest) -> TTSAudioResponse:
        message = "".join([part async for part in request.message_gen])
        self.said.append(message)

        async def no_audio() -> AsyncGenerator[bytes]:
            yield b""

        return TTSAudioResponse("mp3", no_audio())


@pytest.fixture
def own_config_dir(hass: HomeAssistant, tmp_path: Path) -> None:
    """Text-to-speech caches its audio here, not in the configuration tests share."""
    hass.config.config_dir = str(tmp_path)


async def a_voice(hass: HomeAssistant, voice: Voice) -> str:
    """Set `voice` up from a config entry, as a text-to-speech integration does; its id."""
    assert await async_setup_component(hass, "tts", {})
    await set_up_speaker(hass, voice)
    assert voice.entity_id is not None
    return voice.entity_id


async def a_spoken_pipeline(
    hass: HomeAssistant, agent: Agent, voice: str | None, language: str = "en"
) -> str:
    """A pipeline in `language` that answers through `agent` and says its answers with
    `voice` (none: it ends at the agent's answer); its id."""
    store = hass.data[KEY_ASSIST_PIPELINE].pipeline_store
    pipeline = await store.async_create_item(
        {
            "conversation_engine": agent.entity_id,
            "conversation_language": language,
            "language": language,
            "name": "Satellite",
            "stt_engine": None,
            "stt_language": None,
            "tts_engine": voice,
            "tts_language": language,
            "tts_voice": None,
            "wake_word_entity": None,
            "wake_word_id": None,
            "prefer_local_intents": False,
        }
    )
    return str(pipeline.id)


async def heard(hass: HomeAssistant, events: list[dict[str, Any]], voice: Voice) -> str:
    """What the satellite says: it plays the audio its pipeline made."""
    end = next(event for event in events if event["type"] == "tts-end")
    stream = tts.async_get_stream(hass, end["data"]["tts_output"]["token"])
    assert stream is not None
    async for _chunk in stream.async_stream_result():
        pass
    await hass.async_block_till_done()
    return " ".join(voice.said)


async def heard_in_the_bedroom(
    hass: HomeAssistant, assist: Assist, agent: Agent, engine: type[Voice], said: str
) -> str:
    """What a bedroom satellite says (with a voice of `engine`) after the person says `said`."""
    voice = engine()
    pipeline = await a_spoken_pipeline(hass, agent, await a_voice(hass, voice))
    satellite = a_satellite(hass, "Bedroom satellite", "Bedroom")

    events = await assist(said, end_stage="tts", pipeline=pipeline, device_id=satellite)

    return await heard(hass, events, voice)


# The model's few words after a failed call, and a long answer a streaming engine says as
# it comes.
FAILED_AFTER: Final = {
    "short": "That did not work.",
    "long": "That did not work, the bedroom light only goes as bright as it can go.",
}


@pytest.mark.parametrize("engine", [Voice, StreamingVoice])
@pytest.mark.parametrize("words", sorted(FAILED_AFTER))
async def test_a_satellite_hears_the_models_words_and_ours_once(
    hass: HomeAssistant,
    own_config_dir: None,
    assist: Assist,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    engine: type[Voice],
    words: str,
) -> None:
    said = FAILED_AFTER[words]
    bed_light_set_too_bright(hass, scripted_worker, said)
    spoken = await heard_in_the_bedroom(
        hass, assist, scripted_agent, engine, "bed light to 150 percent"
    )
    assert spoken.count(said) == 1
    assert spoken.count(REFUSAL_SAID) == 1


async def test_the_dialog_still_shows_the_models_words_and_ours_once(
    hass: HomeAssistant, assist: Assist, scripted_worker: ScriptedWorker
) -> None:
    bed_light_set_too_bright(hass, scripted_worker, FAILED_AFTER["long"])

    events = await assist("bed light to 150 percent")

    shown = streamed_text(events) + "\n" + final_speech(events)
    assert shown.count(FAILED_AFTER["long"]) == 1
    assert shown.count(REFUSAL) == 1


# "Front Door 🔒, Garage 🔓" (and its marks leading list items) as a satellite says it.
LOCKS_SAID: Final = {
    "en": ("locked", "unlocked"),
    "de": ("verriegelt", "entriegelt"),
    "fr": ("verrouillé", "déverrouillé"),
    "es": ("bloqueado", "desbloqueado"),
    "it": ("bloccato", "sbloccato"),
    "nl": ("vergrendeld", "ontgrendeld"),
    "pt": ("trancado", "destrancado"),
}


@pytest.mark.parametrize("language", sorted(LOCKS_SAID))
def test_lock_marks_are_said_as_the_locks_state(language: str) -> None:
    locked, unlocked = LOCKS_SAID[language]

    assert spoken("Front Door 🔒, Garage 🔓️", language) == f"Front Door {locked}, Garage {unlocked}"
    assert spoken("## 🔒 Locks\n- 🔒 Back Door\n- 🔓Shed", language) == (
        f"Locks. Back Door {locked}. Shed {unlocked}."
    )


def test_marks_beside_words_that_say_the_state_are_dropped() -> None:
    assert spoken("💡 Kitchen Lights are on. 🌡️ Hall: 21 °C 🚪") == (
        "Kitchen Lights are on. Hall: 21 degrees Celsius"  # its unit in words (round 38)
    )


# (mend65) A unit after a number, as the model writes it, and as a satellite now says it.
# Before: as written ("3000 K"), which text-to-speech may read as the letter K.
UNITS_SAID: Final = [
    ("en", "Bed Light is at 3000 K.", "Bed Light is at 3000 kelvin."),
    ("en", "It is 1 °C, 45% humidity.", "It is 1 degree Celsius, 45 percent humidity."),
    ("en", "Used 3.2 kWh; now 60 W, 400 lx.", "Used 3.2 kilowatt hours; now 60 watts, 400 lux."),
    ("en", "Rain: 2 mm. Water: 1.5 m³.", "Rain: 2 millimeters. Water: 1.5 cubic meters."),
    ("en", "Oven: 70 °F.", "Oven: 70 degrees Fahrenheit."),
    ("de", "Bad: 21,5 °C, 3000 K, 2 Wannen", "Bad: 21,5 Grad Celsius, 3000 Kelvin, 2 Wannen"),
    ("fr", "Salon : 21,5\u00a0°C, 30\u00a0%", "Salon : 21,5 degrés Celsius, 30 pour cent"),
    ("fr", "Lampe : 2700 K", "Lampe : 2700 kelvins"),
    ("es", "Salón: 21°, 12 kWh", "Salón: 21 grados, 12 kilovatios hora"),
    ("it", "Soggiorno: 21 °C, 50%", "Soggiorno: 21 gradi Celsius, 50 per cento"),
    ("nl", "Woonkamer: 21 °C, 1 m³", "Woonkamer: 21 graden Celsius, 1 kubieke meter"),
    ("pt", "Sala: 21 °C, 5 W", "Sala: 21 graus Celsius, 5 watts"),
]  # fmt: skip


@pytest.mark.parametrize(("language", "written", "said"), UNITS_SAID)
def test_units_after_numbers_are_said_in_words(language: str, written: str, said: str) -> None:
    assert spoken(written, language) == said


def test_every_unit_is_said_in_every_language() -> None:
    """Guard: the table has each unit in the seven languages."""
    assert all(set(words) == set(LANGUAGES) for words in UNIT_WORDS.values())


async def test_a_satellite_says_a_colour_temperature_in_words(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    satellite = a_satellite(hass, "Hall satellite", "Hall")
    scripted_worker.will_write(answer("Bed Light is white at 3000 K."))

    result = await scripted_agent.ask("what colour is the bed light", device_id=satellite)

    assert speech(result) == "Bed Light is white at 3000 kelvin."


async def test_a_satellite_says_which_door_is_locked(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    satellite = a_satellite(hass, "Hall satellite", "Hall")
    scripted_worker.will_write(answer("**Front Door** 🔒\n**Garage Door** 🔓"))

    result = await scripted_agent.ask("are the doors locked", device_id=satellite)

    assert speech(result) == "Front Door locked. Garage Door unlocked"


# Answers at a PIN question that ask something else, or say no: each reaches the model whole.
OTHER_ANSWERS: Final = [
    ("what is 2 plus 2", "en"),
    ("never mind, turn on the kitchen light", "en"),
    ("no, cancel", "en"),
    ("allume une lampe dans la cuisine", "fr"),
    ("zet een lamp aan in de keuken", "nl"),
    ("set the kitchen light to 40 percent", "en"),
]


@pytest.mark.parametrize(("said", "language"), OTHER_ANSWERS)
async def test_another_answer_at_a_pin_question_is_kept_whole(
    hass: HomeAssistant, scene: Scene, said: str, language: str
) -> None:
    agent, question = await scene.pin_question(language)
    scene.worker.will_write(answer("4."), answer("Okay."))

    reply = await scene.reply(agent, question, said, language=language)
    await scene.reply(agent, question, "thanks", language=language)

    assert state(hass, "lock.front_door") == "locked"
    assert said in logged_words(chat_log_of(hass, reply))
    # The next turn's history too: the model read the request as it was said, twice.
    assert scene.model_saw().count(said) >= 1
    assert (
        said in scene.worker.requests[-1].dynamic_prompt + scene.worker.requests[-1].static_prompt
    )


@pytest.mark.parametrize(
    ("said", "hidden"),
    [
        ("4 7 1 2", "4 7 1 2"),
        ("four seven one two", "seven"),
        ("4712 and turn on the kitchen light", "4712"),
        ("forty seven twelve, and what is 2 plus 2", "twelve"),
    ],
)
async def test_a_guess_at_a_pin_question_stays_hidden(
    hass: HomeAssistant, scene: Scene, said: str, hidden: str
) -> None:
    agent, question = await scene.pin_question()
    scene.worker.will_write(answer("Okay."), answer("Okay."))

    reply = await scene.reply(agent, question, said)
    await scene.reply(agent, question, "thanks")

    assert state(hass, "lock.front_door") == "locked"
    assert hidden not in logged_words(chat_log_of(hass, reply))
    assert hidden not in scene.model_saw()


async def test_a_timer_satellite_another_device_and_the_dialog_share_one_prefix(
    hass: HomeAssistant, demo_home: None, scripted_worker: ScriptedWorker
) -> None:
    await ask_from_kitchen_hall_and_dialog(hass, scripted_worker, "set a timer for five minutes")

    prefixes = {request.static_prompt for request in scripted_worker.requests}
    assert len(prefixes) == 1
    assert "intent__HassStartTimer" in prefixes.pop()
    kitchen_asks, hall_asks, dialog = scripted_worker.requests
    assert NO_TIMERS not in block(last_user_message(kitchen_asks))
    assert NO_TIMERS in block(last_user_message(hall_asks))
    assert NO_TIMERS in block(last_user_message(dialog))


async def test_a_timer_started_from_a_device_without_timers_is_refused_by_core(
    hass: HomeAssistant, demo_home: None, scripted_worker: ScriptedWorker, person: Context
) -> None:
    agent = await assist_agent(hass, scripted_worker)
    hall = a_satellite(hass, "Hall tablet", "Hall")
    scripted_worker.will_write(
        answer(call("intent__HassStartTimer", minutes=5)), answer("I cannot set timers here.")
    )

    result = await agent.ask("set a timer for five minutes", device_id=hall, context=person)

    # Core's own answer to a device that cannot start timers, read by the model, said by us.
    assert "Device does not support timers" in scripted_worker.requests[-1].dynamic_prompt
    # Said in core's own sentence since everyday33, not "the model's call did not go through".
    assert speech(result) == (
        "Sorry, timers are not supported on this device. I cannot set timers here."
    )
