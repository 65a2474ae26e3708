"""A forty-sixth round of red-team probes: the yes, the person and the session.

Hole. A question was answerable from the moment its turn held it, before the turn said it: a
yes sent while the turn was still running (what ran beside the question being said) unlocked
the door, and the turn then asked "Unlock Front Door? Say yes to confirm." of a door already
open. Such an answer is now refused ("I have not finished asking yet"); the question waits to
be said, and a yes after it confirms.

Hole. A turn Home Assistant cancelled (its pipeline timed out, the client left) after it held
a question left the question waiting, never said: the person's next "yes", in the same
conversation, unlocked the door. A stopped turn now takes back the question it held.

Guard: two yes sent at once to one question run its action once.
"""

from __future__ import annotations

import asyncio
from typing import Any
from typing import Final

import pytest

from homeassistant.core import Context
from homeassistant.core import HomeAssistant

from .conftest import Agent
from .conftest import speech
from .conftest import state
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .turns import ask_until_held
from .turns import conversation_with

LOCK: Final = "lock.front_door"
UNLOCK: Final = answer(call("lock", action="unlock", entity_id=LOCK))
ASKED: Final = "Unlock Front Door? Say yes to confirm."
NOT_YET: Final = {
    "en": "I have not finished asking yet, so I did nothing: wait for my question, then answer it.",
    "de": "Ich habe noch nicht zu Ende gefragt, also habe ich nichts getan: Warte auf meine "
    "Frage und beantworte sie dann.",
}
YES: Final = {"en": "yes", "de": "ja"}


async def test_two_yes_at_once_unlock_once(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    audit: list[dict[str, Any]],
) -> None:
    """Guard: one yes takes the question; the other is a new request, and the model's
    answer to it runs nothing."""
    scripted_worker.will_write(UNLOCK)
    asked = await scripted_agent.ask("Unlock the Front Door", context=person)
    assert speech(asked) == ASKED
    scripted_worker.will_write(answer("Nothing to do."))

    answers = await asyncio.gather(
        scripted_agent.ask("yes", conversation_id=asked.conversation_id, context=person),
        scripted_agent.ask("yes", conversation_id=asked.conversation_id, context=person),
    )
    await hass.async_block_till_done()

    assert sorted(speech(a) for a in answers) == ["Done: unlock Front Door.", "Nothing to do."]
    assert [e["outcome"] for e in audit].count("executed") == 1
    assert state(hass, LOCK) == "unlocked"


@pytest.mark.parametrize("language", ["en", "de"])
async def test_a_yes_before_the_question_was_said_runs_nothing(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    turn_held_at_question: asyncio.Event,
    language: str,
) -> None:
    """Before: the early yes said "Done: unlock Front Door." and the turn then asked to
    unlock the open door."""
    conversation_id = await conversation_with(scripted_agent, scripted_worker, person)
    scripted_worker.will_write(UNLOCK)
    asking = await ask_until_held(hass, scripted_agent, person, conversation_id, language)

    early = await scripted_agent.ask(
        YES[language], conversation_id=conversation_id, context=person, language=language
    )
    assert speech(early) == NOT_YET[language]
    assert state(hass, LOCK) == "locked"

    turn_held_at_question.set()
    asked = await asking
    assert state(hass, LOCK) == "locked"
    assert speech(asked) != ""  # the question, in the turn's language
    await scripted_agent.ask(
        YES[language], conversation_id=conversation_id, context=person, language=language
    )
    await hass.async_block_till_done()
    assert state(hass, LOCK) == "unlocked"


@pytest.mark.parametrize("chosen_id", [True, False], ids=["id-chosen-by-caller", "id-of-a-talk"])
async def test_a_yes_after_the_asking_turn_was_cancelled_runs_nothing(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    turn_held_at_question: asyncio.Event,
    audit: list[dict[str, Any]],
    chosen_id: bool,
) -> None:
    """Before: the question the cancelled turn never said waited, and the yes unlocked."""
    conversation_id = (
        "kitchen" if chosen_id else await conversation_with(scripted_agent, scripted_worker, person)
    )
    scripted_worker.will_write(UNLOCK)
    asking = await ask_until_held(hass, scripted_agent, person, conversation_id, "en")
    asking.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asking
    turn_held_at_question.set()

    scripted_worker.will_write(answer("Yes to what?"))
    yes = await scripted_agent.ask("yes", conversation_id=conversation_id, context=person)
    await hass.async_block_till_done()

    assert speech(yes) == "Yes to what?"
    assert state(hass, LOCK) == "locked"
    assert [(e["outcome"], e["reason"]) for e in audit][-1] == (
        "cancelled",
        "the turn that asked was stopped",
    )
