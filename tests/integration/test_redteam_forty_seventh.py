"""A forty-seventh round of red-team probes: what session 64 merged, attacked from outside.

Hole. A number in words was read as a number it does not say: "zero hundred" was 100,
"twenty zero" 20, "ten five" 15, a bare "a" 1 and "fifty point a" 50.1, so "set the kitchen
light to zero hundred" lit it at full brightness. Zero is now said alone, "a" only before a
hundred or a thousand (never as a digit), and ten takes only the seven, eight and nine of
French (dix-sept): anything else is refused.

Hole. A model repeating itself wrote one word thousands of letters long ("einseinseins…") for
a brightness: reading it in words recursed past Python's limit and the turn failed with a
RecursionError. A text longer than any number said in words is no number.

Hole. A turn that held a question and then ran past its time limit before saying it ended
with "that took too long", and the question counted as said: the person's next "yes" in the
conversation unlocked a door they never heard asked about. A turn stopped at its limit now
takes back the question it held (audited as cancelled), as a turn Home Assistant cancels does.

Hole. A fraction written with its percent was read as a share of the whole: "0.5 %" or "zero
point five percent" lit the kitchen light at half (50 %), and would move a blind half way. A
number written with its unit is that many of the unit; only a bare fraction is a share.

Guards (passed at once): a PIN in words ("one two three four", "eins zwei drei vier") and a
number left open ("dreißig und") are no brightness; the French, German and Spanish numbers
around the changed rules are still read; a number in words for a helper an automation follows to
unlock the front door (up to 999999, a fraction, "minus zero") is held, the question saying
the number that runs in digits; a yes that opens a second tab while the asking turn still runs
moves the question there and asks it in full, running nothing, and the yes after it runs it
whether the first turn ends or is cancelled; the right PIN in words ("vier sieben eins eins"),
sent before the question is said, runs nothing and reaches neither the prompt nor the audit; an
alias that makes the asked-about name another lock's, given while the question waits, makes
the yes run nothing ("not the same any more").
"""

from __future__ import annotations

import asyncio
from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.turn import notices
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from .agents import Talk
from .conftest import Agent
from .conftest import speech
from .conftest import state
from .houses import FRONT_DOOR
from .houses import set_up
from .scene import PIN
from .scene import Scene
from .scene import unlock
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .test_everyday_forty_sixth import BRIGHTNESS
from .test_everyday_forty_sixth import KITCHEN
from .test_everyday_forty_sixth import NOT_ON
from .test_everyday_forty_sixth import Row
from .test_everyday_forty_sixth import at
from .test_everyday_forty_sixth import light
from .test_everyday_forty_sixth import read
from .test_redteam_forty_fifth import BACK_DOOR
from .test_redteam_forty_fifth import MAIN_ENTRANCE
from .test_redteam_forty_fifth import OUR_TOOLS
from .test_redteam_forty_fifth import STUCK_DOOR
from .test_redteam_forty_fifth import rename
from .test_redteam_forty_sixth import ASKED
from .test_redteam_forty_sixth import LOCK
from .test_redteam_forty_sixth import UNLOCK
from .test_redteam_forty_third import asked_while_followed_to_unlock
from .turns import ask_until_held
from .turns import conversation_with

# A time trigger set up here outlives no test (conftest.py: automations_stop).
pytestmark = pytest.mark.usefixtures("automations_stop")

# A number in words that is no number the person said: the light stays off.
NOT_SAID_SO: Final[dict[str, Row]] = {
    "en zero hundred (before: 100%)": light("en", NOT_ON, None, brightness_pct="zero hundred"),
    "en zero thousand": light("en", NOT_ON, None, brightness_pct="zero thousand"),
    "de null hundert (before: 100%)": light("de", "", None, brightness_pct="null hundert"),
    "en twenty zero (before: 20%)": light("en", NOT_ON, None, brightness_pct="twenty zero"),
    "es veinte cero (before: 20%)": light("es", "", None, brightness_pct="veinte cero"),
    "en ten five (before: 15%)": light("en", NOT_ON, None, brightness_pct="ten five"),
    "nl tien vijf (before: 15%)": light("nl", "", None, brightness_pct="tien vijf"),
    "en a (before: 1%)": light("en", NOT_ON, None, brightness_pct="a"),
    "en zero five (before: 5%)": light("en", NOT_ON, None, brightness_pct="zero five"),
    "en fifty point a (before: 50.1%)": light("en", NOT_ON, None, brightness_pct="fifty point a"),
    # A model that repeats itself: one word thousands of letters long (before: RecursionError).
    "de eins repeated (before: failed)": light("de", "", None, brightness_pct="eins" * 1500),
    "en one repeated": light("en", NOT_ON, None, brightness_pct=" one" * 1500),
    # Guards.
    "en PIN in words": light("en", NOT_ON, None, brightness_pct="one two three four"),
    "de PIN in words": light("de", "", None, brightness_pct="eins zwei drei vier"),
    "de left open": light("de", "", None, brightness_pct="dreißig und"),
    "en twenty one hundred": light("en", NOT_ON, None, brightness_pct="twenty one hundred"),
}

# A fraction written with its percent is that percent, never a share of the whole: the light
# at its lowest (0.5 % of 255 is 1), not at half.
WITH_ITS_UNIT: Final[dict[str, Row]] = {
    "en 0.5 % (before: 50%)": at("en", "0.5 %", "", 1),
    "en 0.5% (before: 50%)": at("en", "0.5%", "", 1),
    "en zero point five percent (before: 50%)": at("en", "zero point five percent", "", 1),
    "de null komma fünf Prozent (before: 50%)": at("de", "null komma fünf Prozent", "", 1),
    "fr 0,5 pour cent (before: 50%)": at("fr", "0,5 pour cent", "", 1),
    # Guards: a bare fraction is still a share.
    "en 0.5 bare": at("en", "0.5", "", 128),
    "it zero virgola cinque bare": at("it", "zero virgola cinque", "", 128),
}

# Guards: the numbers beside the changed rules still read as said.
STILL_READ: Final[dict[str, Row]] = {
    "fr dix-sept": at("fr", "dix-sept", "", 43),
    "fr soixante-dix-huit": at("fr", "soixante-dix-huit", "", 199),
    "es diez y siete": at("es", "diez y siete", "", 43),
    "en a hundred": at("en", "a hundred", "at 100%", 255),
    "en zero point five": at("en", "zero point five", "", 128),
    "pt vinte e um": at("pt", "vinte e um", "", 54),
}


@pytest.mark.parametrize(
    "row",
    [*NOT_SAID_SO.values(), *WITH_ITS_UNIT.values(), *STILL_READ.values()],
    ids=[*NOT_SAID_SO, *WITH_ITS_UNIT, *STILL_READ],
)
async def test_a_number_in_words_is_the_number_said(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    row: Row,
) -> None:
    """The kitchen light's brightness after the model wrote the number in words."""
    await hass.services.async_call("light", "turn_off", {"entity_id": KITCHEN}, blocking=True)

    talk = Talk(scripted_agent, scripted_worker, person)
    result = await talk.say("…", row.language, "".join(row.writes))

    said = speech(result)
    assert row.said in said
    assert "Traceback" not in said
    assert read(hass, KITCHEN, BRIGHTNESS) == row.reads[(KITCHEN, BRIGHTNESS)]


# Guards: a number in words for a helper an automation follows to unlock the front door is
# held, and the question says the number that runs, in digits, never the words the model wrote.
DELAY: Final = {"delay": {"name": "Delay", "min": 0, "max": 1000000, "step": 0.5, "initial": 0}}
FOLLOWED_NUMBERS: Final[list[tuple[str, str]]] = [
    ("nine hundred ninety nine thousand nine hundred ninety nine", "999999"),
    ("neunhundertneunundneunzigtausend", "999000"),
    ("quatre-vingt-dix-neuf", "99"),
    ("mil cien", "1100"),
    ("ventuno virgola cinque", "21.5"),
    ("minus zero", "0"),
]


@pytest.mark.parametrize(("written", "runs"), FOLLOWED_NUMBERS)
async def test_a_number_in_words_for_a_followed_helper_is_asked_as_it_runs(
    hass: HomeAssistant, scene: Scene, written: str, runs: str
) -> None:
    """The question names the number that would run; the words are not repeated back."""
    await set_up(hass, "input_number", DELAY)

    said = await asked_while_followed_to_unlock(
        scene,
        "input_number.delay",
        {"action": "set_value", "value": written},
        {"trigger": "state", "entity_id": "input_number.delay"},
    )

    assert runs in said
    assert written not in said


@pytest.mark.parametrize("asking_turn", ["ends", "is cancelled"])
async def test_a_second_tab_yes_while_the_question_is_unsaid_asks_it_in_full(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    turn_held_at_question: asyncio.Event,
    asking_turn: str,
) -> None:
    """Guard: a yes that opens a new conversation while the asking turn still runs moves the
    question there and asks it in full, running nothing; the yes after that question runs it,
    whether the first turn then ends or is cancelled."""
    conversation_id = await conversation_with(scripted_agent, scripted_worker, person)
    scripted_worker.will_write(UNLOCK)
    asking = await ask_until_held(hass, scripted_agent, person, conversation_id, "en")

    early = await scripted_agent.ask("yes", context=person)
    assert speech(early) == ASKED
    assert state(hass, LOCK) == "locked"

    if asking_turn == "ends":
        turn_held_at_question.set()
        await asking
    else:
        asking.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asking
        turn_held_at_question.set()
    assert state(hass, LOCK) == "locked"
    await scripted_agent.ask("yes", conversation_id=early.conversation_id, context=person)
    await hass.async_block_till_done()
    assert state(hass, LOCK) == "unlocked"


EARLY_PINS: Final = [
    ("en", "four seven one one"),
    ("de", "vier sieben eins eins"),
    ("fr", "quatre sept un un"),
    ("nl", "vier zeven een een"),
]


@pytest.mark.parametrize(("language", "pin"), EARLY_PINS)
async def test_a_pin_in_words_before_the_question_is_kept_from_model_and_audit(
    hass: HomeAssistant,
    scene: Scene,
    turn_held_at_question: asyncio.Event,
    language: str,
    pin: str,
) -> None:
    """Guard: the right PIN in words, sent while the question is held but unsaid, runs
    nothing, never reaches the model's prompt nor the audit, and the PIN after the question
    still unlocks."""
    agent = await scene.pin_agent()
    conversation_id = await conversation_with(agent, scene.worker, scene.person)
    scene.worker.will_write(unlock())
    asking = await ask_until_held(hass, agent, scene.person, conversation_id, language)

    early = await agent.ask(
        pin, conversation_id=conversation_id, context=scene.person, language=language
    )
    assert state(hass, FRONT_DOOR) == "locked", speech(early)
    turn_held_at_question.set()
    await asking
    await agent.ask(PIN, conversation_id=conversation_id, context=scene.person, language=language)
    await hass.async_block_till_done()
    assert state(hass, FRONT_DOOR) == "unlocked"
    scene.worker.will_write(answer("You are welcome."))
    await agent.ask("thanks", conversation_id=conversation_id, context=scene.person)

    assert pin not in scene.model_saw()
    assert PIN not in scene.model_saw()
    assert not [record for record in scene.audit if pin in str(record) or PIN in str(record)]


async def test_a_question_cut_off_by_the_turn_time_limit_is_not_answerable(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    turn_held_at_question: asyncio.Event,
    audit: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before: the turn held the question, ran past its time limit before saying it and ended
    with "that took too long"; the question counted as said, and the person's next "yes"
    unlocked a door they never heard asked about."""
    monkeypatch.setattr(notices, "TURN_TIME_LIMIT", 0.5)
    conversation_id = await conversation_with(scripted_agent, scripted_worker, person)
    scripted_worker.will_write(UNLOCK)

    stopped = await scripted_agent.ask(
        "Unlock the Front Door", conversation_id=conversation_id, context=person
    )
    assert "took too long" in speech(stopped)
    assert ASKED not in speech(stopped)

    turn_held_at_question.set()
    scripted_worker.will_write(answer("Yes to what?"))
    yes = await scripted_agent.ask("yes", conversation_id=conversation_id, context=person)
    await hass.async_block_till_done()

    assert state(hass, LOCK) == "locked", speech(yes)
    assert [e["outcome"] for e in audit][-1] == "cancelled"


async def test_an_alias_given_while_the_question_waits_runs_nothing_on_the_yes(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Guard: "Unlock Main Entrance?" was asked before the back door was called "main
    entrance"; the yes after the alias came no longer says which door it meant, so it runs
    nothing."""
    registry = er.async_get(hass)
    registry.async_update_entity(BACK_DOOR, aliases=[er.COMPUTED_NAME])
    rename(hass, STUCK_DOOR, "Main Entrance")
    async_expose_entity(hass, "conversation", STUCK_DOOR, True)
    await hass.async_block_till_done()
    agent = await scene.agent_with(OUR_TOOLS)
    question = await scene.ask_to_call(agent, "lock", {"action": "unlock", "entity_id": STUCK_DOOR})
    assert speech(question) == "Unlock Main Entrance? Say yes to confirm."

    registry.async_update_entity(BACK_DOOR, aliases=[er.COMPUTED_NAME, MAIN_ENTRANCE])
    await hass.async_block_till_done()
    yes = await scene.reply(agent, question, "yes")
    print("OUTCOMES", scene.outcomes(), speech(yes))

    assert "executed" not in scene.outcomes(), speech(yes)
