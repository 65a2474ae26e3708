"""Our own sentences, said aloud (voice round 39).

**Hole.** Round 38 made a satellite say the *model's* units and signs in words; our own
sentences still reached it with their marks. The confirmation question "Set the position of
Garage Door and Orchard to 30%?" (and "auf 30 %", a climate's "21,5°"), "Done: …", the refusal
"The range is 0 to 100%, not 150%", "for 5 min" (the PIN lock, es/pt), "transition 2 s", asides
in brackets ("Unlock Front Door (lock.front_door)?", "arm (away) …", "(this will unlock …)",
"(Settings → System → Repairs)") and quotes ("see "Slow or no answer"") were given to
text-to-speech as written.
**Found.** Said to a satellite or another device, every sentence of ours (the final answer and
what is streamed) has its units, signs and durations said in words in the person's language,
an aside in brackets said as a pause and quotation marks left out; the Assist dialog keeps the
written form. French says a quantity below two in the singular ("1,5 degré", "0,5 degré"),
German "1 Grad", Dutch "3 graden".

**Hole.** A look-alike rule compared names with their marks unheard: "Gate -1" was heard as
"Gate 1". Said aloud, our question now says that lock "Gate minus 1", which is what a lock named
"Gate minus 1" is called: the question asked on a satellite about one would have named the other.
**Found.** A name is compared as heard with a number's sign and unit said in words or as marks
("Gate -1", "Gate minus 1"; "Valve 50%", "Valve 50 pour cent"; "Gate 5 min", "Gate 5
minutes"; "Valve 50 K", "Valve 50 kelvin"): such a pair is told apart by place or id.

**Guards (passed at once).** A long list the model writes of what is unlocked is said whole
(what a listener asked for is never cut); "light(s)" keeps its bracket; a date, a range and
an id keep their marks.
"""

from __future__ import annotations

import re
from string import Formatter
from typing import Final

import pytest

from custom_components.local_agent.engine.words import LANGUAGES
from custom_components.local_agent.home.call_words import ENGLISH_WORDS
from custom_components.local_agent.home.call_words import WORDS_BY_LANGUAGE
from custom_components.local_agent.home.entity_view import heard
from custom_components.local_agent.turn.spoken_text import UNIT_WORDS
from custom_components.local_agent.turn.spoken_text import said_aloud
from custom_components.local_agent.turn.spoken_text import spoken
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant

from .agents import speech
from .agents import state
from .conftest import Agent
from .flow_helpers import translation
from .scene import Scene
from .scene import tool_call
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_redteam_forty_fifth import BACK_DOOR
from .test_redteam_forty_fifth import STUCK_DOOR
from .test_redteam_forty_fifth import rename
from .test_voice_thirty_third import YES
from .test_voice_twenty_seventh import a_satellite

# What a satellite must never be given of our sentences: a unit's or a quote's mark, a bracket,
# a path's step, a duration's abbreviation.
MARKS: Final = re.compile(r"[%°\"“”„«»()\[\]→]| > |\d+ (?:min|s|h)\b")


def percent(language: str) -> str:
    """The language's word for "%" after a number other than one."""
    return UNIT_WORDS["%"][language][1]


@pytest.mark.parametrize("language", LANGUAGES)
async def test_a_satellites_question_says_the_percentage_in_words(
    hass: HomeAssistant, scene: Scene, language: str
) -> None:
    """Before: "Set the position of Garage Door and Orchard to 30%?" given to a satellite's
    text-to-speech, and "I could not finish: … to 30%" after the yes. The question still
    names both held targets, and the yes said there runs exactly that."""
    agent = await scene.assist_agent()
    hall = a_satellite(hass, "Hall satellite", "Hall")
    scene.worker.will_write(tool_call("HassSetPosition", area="Garage", position=30))

    asked = await agent.ask(
        "half open the garage", context=scene.person, device_id=hall, language=language
    )

    question = speech(asked)
    assert asked.continue_conversation is True
    assert not MARKS.search(question), question
    assert f"30 {percent(language)}" in question
    assert "Garage Door" in question
    assert "Orchard" in question
    done = await agent.ask(
        YES[language],
        conversation_id=asked.conversation_id,
        context=scene.person,
        device_id=hall,
        language=language,
    )
    assert not MARKS.search(speech(done)), speech(done)
    assert f"30 {percent(language)}" in speech(done)


@pytest.mark.parametrize("language", LANGUAGES)
async def test_the_assist_dialog_keeps_our_percentage_written(
    hass: HomeAssistant, scene: Scene, language: str
) -> None:
    """Guard: a screen shows "30%" (or "30 %"), as the language writes it."""
    agent = await scene.assist_agent()
    scene.worker.will_write(tool_call("HassSetPosition", area="Garage", position=30))

    asked = await agent.ask("half open the garage", context=scene.person, language=language)

    assert "%" in speech(asked)
    assert percent(language) not in speech(asked)


def _filled(template: str) -> str:
    """Our sentence with numbers for its counts and times, a name for anything else."""
    numbers = {
        **{"minutes": "5", "seconds": "30", "count": "12", "most": "10", "max_kib": "64"},
        **{"number": "21", "unit": "°C"},
    }
    return template.format(
        **{
            field: numbers.get(field, "Front Door")
            for _text, field, _spec, _conversion in Formatter().parse(template)
            if field
        }
    )


def _our_sentences(language: str) -> list[str]:
    """Every fixed sentence of ours, and every call text pattern, in the language."""
    words = WORDS_BY_LANGUAGE.get(language, ENGLISH_WORDS)
    patterns = [
        *words.verbs.values(),
        words.this_will,
        words.when_it_runs,
        words.placed,
        words.fields["transition"],
        words.percent.replace("{}", "{count}"),
        words.quantity,
    ]
    messages = translation(language)["exceptions"]
    return [_filled(m["message"]) for m in messages.values()] + [
        _filled(p.replace("{}", "{seconds}")) for p in patterns if isinstance(p, str)
    ]


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_sentence_of_ours_is_said_without_marks(language: str) -> None:
    """Before: "for 5 min", "transition 2 s", "(Settings → System → Repairs)", "arm (away)",
    "see "Slow or no answer"" went to text-to-speech as written."""
    for sentence in _our_sentences(language):
        said = said_aloud(sentence, language)
        assert not MARKS.search(said), (sentence, said)
        assert ",," not in said
        assert not said.startswith(",")


@pytest.mark.parametrize(
    ("language", "written", "said"),
    [
        ("fr", "Régler à 1,5 °C ?", "Régler à 1,5 degré Celsius ?"),
        ("fr", "0,5° de plus, puis 2°", "0,5 degré de plus, puis 2 degrés"),
        ("fr", "-1,5 °C", "moins 1,5 degré Celsius"),
        ("de", "Auf 1 °C und 1,5 °C", "Auf 1 Grad Celsius und 1,5 Grad Celsius"),
        ("nl", "Zet op 1 °C en 3 °C", "Zet op 1 graad Celsius en 3 graden Celsius"),
        ("en", "1 °C, 1.5 °C", "1 degree Celsius, 1.5 degrees Celsius"),
        ("it", "Per 1 min, poi 5 min.", "Per 1 minuto, poi 5 minuti."),
        ("es", "durante 5 min.", "durante 5 minutos."),
        ("pt", "durante 1 h", "durante 1 hora"),
        ("de", "Übergang 2 s", "Übergang 2 Sekunden"),
        # An "s" joined to its number is a plural, not a second (before: "the 1990 seconds").
        ("en", "Music of the 90s and the 1990s.", "Music of the 90s and the 1990s."),
    ],
)  # fmt: skip
def test_a_quantity_takes_the_languages_number(language: str, written: str, said: str) -> None:
    """Before: "1,5 degrés" in French (singular below two there), "5 min" as written."""
    assert said_aloud(written, language) == said


@pytest.mark.parametrize(
    ("written", "said"),
    [
        ("Unlock Front Door (lock.front_door)?", "Unlock Front Door, lock.front_door?"),
        ("Arm (away) House Alarm?", "Arm, away, House Alarm?"),
        ("Run Leaving (this will unlock Front Door)?", "Run Leaving, this will unlock Front Door?"),
        ("see \"Slow or no answer\" in the README.", "see Slow or no answer in the README."),
        ("« Salon » : 21 °C", "Salon : 21 degrees Celsius"),
        # Guards.
        ("light(s) on", "light(s) on"),
        ("On 2026-12-07, 5-10 %, sensor.room_2.", "On 2026-12-07, 5-10 percent, sensor.room_2."),
    ],
)  # fmt: skip
def test_an_aside_is_a_pause_and_a_quote_is_unsaid(written: str, said: str) -> None:
    """Before: brackets and quotation marks given to text-to-speech."""
    assert said_aloud(written) == said


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Gate -1", "Gate minus 1"),
        ("Tor -1", "Tor minus eins"),
        ("Valve 50%", "Valve 50 percent"),
        ("Vanne 50 %", "Vanne 50 pour cent"),
        ("Gate 2°", "Gate 2 degrees"),
        ("Gate 5 min", "Gate 5 minutes"),
        ("Valve 50 K", "Valve 50 kelvin"),
    ],
)
def test_a_sign_or_unit_is_heard_in_words_or_marks_alike(one: str, other: str) -> None:
    """Before: "Gate -1" heard as "Gate 1", though a satellite now says "Gate minus 1"."""
    assert heard(one) == heard(other)


def test_words_beside_no_number_are_heard() -> None:
    """Guard: "Minus" or "percent" that says no sign or unit of a number is a word heard."""
    assert heard("Minus Gate") != heard("Gate")
    assert heard("Percent Gate 2") != heard("Gate 2")


async def test_a_look_alike_by_its_said_sign_is_told_apart_on_a_satellite(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Before: "Unlock Gate minus 1? Say yes to confirm." on a satellite for the lock named
    "Gate -1", beside the back door named "Gate minus 1": the yes meant either. Now the stuck
    door is told apart (by place or id)."""
    rename(hass, STUCK_DOOR, "Gate -1")
    rename(hass, BACK_DOOR, "Gate minus 1")
    async_expose_entity(hass, "conversation", STUCK_DOOR, True)
    await hass.async_block_till_done()
    agent = await scene.agent_with("our tools")
    hall = a_satellite(hass, "Hall satellite", "Hall")
    scene.worker.will_write(answer(call("lock", action="unlock", entity_id=STUCK_DOOR)))

    asked = await agent.ask("unlock gate minus one", context=scene.person, device_id=hall)

    question = speech(asked)
    assert question.startswith("Unlock Gate minus 1")
    assert question != "Unlock Gate minus 1? Say yes to confirm."
    assert state(hass, BACK_DOOR) == "locked"


UNLOCKED_DOORS: Final = [f"Door {number}" for number in range(1, 13)]


async def test_a_long_list_of_what_is_unlocked_is_said_whole(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """Guard: the person asked what is unlocked; a listener needs every one, so the list is
    never cut to a few and "12 more"."""
    hall = a_satellite(hass, "Hall satellite", "Hall")
    scripted_worker.will_write(answer("Unlocked: " + ", ".join(UNLOCKED_DOORS) + "."))

    result = await scripted_agent.ask("which doors are unlocked", device_id=hall)

    assert all(door in speech(result) for door in UNLOCKED_DOORS)


def test_the_models_aside_is_a_pause_too() -> None:
    """The model's text gets the same: "(-2 ℃)" aloud is "minus 2 degrees Celsius"."""
    assert spoken("Outside (\u22122 ℃) now.") == "Outside, minus 2 degrees Celsius, now."
