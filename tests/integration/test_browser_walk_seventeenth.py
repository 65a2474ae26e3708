"""What a seventeenth walk in a real browser found wrong (a household's week: two people, a
question left waiting while the house and Home Assistant change)."""

from __future__ import annotations

from typing import Any

import pytest
from pytest_homeassistant_custom_component.common import MockUser

from custom_components.local_agent.safety.confirmation import CONFIRMATIONS
from homeassistant.components import conversation
from homeassistant.const import EVENT_HOMEASSISTANT_FINAL_WRITE
from homeassistant.const import EVENT_HOMEASSISTANT_STOP
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent
from homeassistant.helpers.chat_session import DATA_CHAT_SESSION
from homeassistant.helpers.chat_session import DATA_CHAT_SESSION_CLEANUP

from .conftest import speech
from .scene import ask_to_unlock
from .scripted_model import answer
from .test_safety import FRONT_DOOR
from .test_safety import Scene
from .test_safety import locks_exposed
from .test_safety import make_scene
from .test_safety import scene

__all__ = ["locks_exposed", "make_scene", "scene"]

UNANSWERED = "local_agent.unanswered"
RESTARTED = (
    "I restarted before your answer came, so I did not unlock Front Door. Ask again if you "
    "still want it."
)


async def _restart_home_assistant(hass: HomeAssistant, scene: Scene) -> None:
    """What a restart keeps: its storage. Its memory (the questions, the chat sessions) goes,
    and the entry is set up again."""
    hass.bus.async_fire(EVENT_HOMEASSISTANT_STOP)
    await hass.async_block_till_done()
    hass.bus.async_fire(EVENT_HOMEASSISTANT_FINAL_WRITE)
    await hass.async_block_till_done()
    _forget(hass)
    assert await hass.config_entries.async_reload(scene.agent.entry.entry_id)
    await hass.async_block_till_done()


def _forget(hass: HomeAssistant) -> None:
    hass.data.pop(CONFIRMATIONS, None)
    hass.data.pop(DATA_CHAT_SESSION, None)
    hass.data.pop(DATA_CHAT_SESSION_CLEANUP, None)


async def test_a_yes_after_home_assistant_restarted_hears_why_and_runs_nothing(
    hass: HomeAssistant, scene: Scene, hass_storage: dict[str, Any]
) -> None:
    """The walk asked "unlock the front door" in the Assist dialog, restarted Home Assistant
    (scripts/develop again) and said "yes" in the same dialog: the yes reached the model as a
    new request ("I am the scripted demo model …"; a real model, seeing a bare "yes", may say
    anything, "Done" too), although a yes to a question the agent's reload closed is told
    "I restarted before your answer came". The dialog sends the id of the conversation the
    question was asked in, which Home Assistant no longer knows and replaces with a new one;
    the questions the stop closed now outlive it, and that yes is told the same.
    """
    question = await scene.ask_unlock()
    await _restart_home_assistant(hass, scene)
    asked = len(scene.worker.requests)

    late = await scene.reply(question, "yes")

    assert late.conversation_id != question.conversation_id  # Home Assistant's new one
    assert speech(late) == RESTARTED
    assert UNANSWERED in hass_storage
    assert late.response.response_type is intent.IntentResponseType.ERROR
    assert len(scene.worker.requests) == asked
    assert scene.state(FRONT_DOOR) == "locked"
    assert scene.outcomes() == ["proposed", "cancelled"]

    # Once: the next yes is a new request, and still runs nothing.
    scene.worker.will_write(answer("Yes to what?"))
    again = await scene.reply(question, "yes")
    assert speech(again) == "Yes to what?"
    assert scene.state(FRONT_DOOR) == "locked"


async def test_after_a_restart_only_the_asked_person_hears_of_the_question(
    hass: HomeAssistant, scene: Scene, hass_storage: dict[str, Any], hass_read_only_user: MockUser
) -> None:
    """Another person who sends the old conversation's id learns nothing of it (their yes is
    a new request of their own), and the asked person is still told afterwards."""
    question = await scene.ask_unlock()
    await _restart_home_assistant(hass, scene)
    scene.worker.will_write(answer("Yes to what?"))

    other = await scene.reply(question, "yes", context=Context(user_id=hass_read_only_user.id))

    assert speech(other) == "Yes to what?"
    assert "Front Door" not in speech(other)
    owner = await scene.reply(question, "yes")
    assert speech(owner) == RESTARTED
    assert scene.state(FRONT_DOOR) == "locked"


@pytest.mark.parametrize("saved", [{"questions": [{"agent_id": 1}]}, {"questions": 7}, []])
async def test_an_unreadable_saved_question_is_a_new_request(
    hass: HomeAssistant, scene: Scene, hass_storage: dict[str, Any], saved: Any
) -> None:
    """What this version cannot read (another version's, a hand edit) costs nothing."""
    hass_storage[UNANSWERED] = {"version": 1, "key": UNANSWERED, "data": saved}
    _forget(hass)
    assert await hass.config_entries.async_reload(scene.agent.entry.entry_id)
    await hass.async_block_till_done()
    scene.worker.will_write(answer("Yes to what?"))

    result = await scene.agent.ask("yes", context=scene.person)

    assert speech(result) == "Yes to what?"
    assert isinstance(result, conversation.ConversationResult)


async def test_a_yes_from_a_second_tab_asks_the_question_again_there(scene: Scene) -> None:
    """The walk asked "unlock the front door" in one tab and said "yes" in the Assist dialog
    of a second tab (a phone, or the dialog opened again after it was closed): each opens a
    new conversation, so the yes reached the model as a new request ("I am the scripted demo
    model …") and the question stayed in a dialog nobody looked at any more. The same person's
    yes that opens a conversation now brings their question there, asked in full; it runs
    nothing until they answer it there.
    """
    question = await scene.ask_unlock()
    asked = len(scene.worker.requests)

    here = await scene.agent.ask("yes", context=scene.person)

    assert here.conversation_id != question.conversation_id
    assert speech(here) == "Unlock Front Door? Say yes to confirm."
    assert here.continue_conversation is True
    assert here.response.response_type is intent.IntentResponseType.QUERY_ANSWER
    assert len(scene.worker.requests) == asked
    assert scene.state(FRONT_DOOR) == "locked"

    done = await scene.reply(here, "yes")
    assert speech(done) == "Done: unlock Front Door."
    assert scene.state(FRONT_DOOR) == "unlocked"
    assert scene.outcomes() == ["proposed", "moved", "proposed", "confirmed", "executed"]
    # The first tab's question moved: its yes is told so, and runs nothing again.
    first_tab = await scene.reply(question, "yes")
    assert speech(first_tab) == (
        "I asked that again in your other conversation, so I did not unlock Front Door here."
    )
    assert scene.outcomes() == ["proposed", "moved", "proposed", "confirmed", "executed"]


async def test_the_first_tabs_yes_in_german_hears_where_its_question_went(scene: Scene) -> None:
    """In the person's language, and before the moved question is answered: it still waits
    where it was asked again, for its own yes."""
    question = await ask_to_unlock(scene.agent, scene.worker, scene.person, "de")
    here = await scene.agent.ask("ja", context=scene.person, language="de")

    first_tab = await scene.reply(question, "ja", language="de")

    assert speech(first_tab) == (
        "Das habe ich in deinem anderen Gespräch noch einmal gefragt. Hier nicht erledigt: "
        "Front Door aufschließen."
    )
    assert scene.state(FRONT_DOOR) == "locked"
    done = await scene.reply(here, "ja", language="de")
    assert speech(done) == "Erledigt: Front Door aufschließen."
    assert scene.state(FRONT_DOOR) == "unlocked"


async def test_another_persons_yes_in_their_own_dialog_moves_nothing(
    scene: Scene, hass_read_only_user: MockUser
) -> None:
    """The second person of the house (not an admin) said "yes" in their own Assist dialog
    while the owner's question waited: it is a request of theirs, and the owner's question
    still waits for the owner."""
    question = await scene.ask_unlock()
    scene.worker.will_write(answer("Yes to what?"))

    theirs = await scene.agent.ask("yes", context=Context(user_id=hass_read_only_user.id))

    assert speech(theirs) == "Yes to what?"
    assert scene.state(FRONT_DOOR) == "locked"
    done = await scene.reply(question, "yes")
    assert speech(done) == "Done: unlock Front Door."


async def test_a_yes_later_in_another_conversation_moves_nothing(scene: Scene) -> None:
    """Only a yes that opens a conversation can be an answer to another one's question: in a
    conversation under way it answers what was said there (here, to the model)."""
    scene.worker.will_write(answer("Hello!"))
    other = await scene.agent.ask("hello", context=scene.person)
    question = await scene.ask_unlock()
    scene.worker.will_write(answer("Yes to what?"))

    later = await scene.reply(other, "yes")

    assert speech(later) == "Yes to what?"
    assert scene.state(FRONT_DOOR) == "locked"
    assert speech(await scene.reply(question, "yes")) == "Done: unlock Front Door."
