"""Red-team probes of the conversation itself: who answers a question, and what a reply is.

The fourteen rounds before mostly attacked what a call sets off. These attack the talk: a
conversation another user joins while its owner answers a question (Home Assistant 2026.10
lets anyone who knows a conversation's id into it), the agent's own question heard back by
a satellite as the reply, and replies as speech-to-text writes them. Same house, scripted
model and helpers as the other red-team files; each probe has an everyday neighbour that
still runs at once (or confirms).
"""

from __future__ import annotations

from pytest_homeassistant_custom_component.common import MockUser

from homeassistant.core import Context
from homeassistant.core import HomeAssistant

from .conftest import speech
from .conftest import state
from .scripted_model import SeenRequest
from .scripted_model import answer
from .test_adversarial import Clock
from .test_adversarial import Scene
from .test_adversarial import clock
from .test_adversarial import house
from .test_adversarial import lights_only_user
from .test_adversarial import scene
from .test_redteam import asked
from .test_redteam_fifth import OTHERS_WORDS
from .test_redteam_fifth import obeys_the_other_person
from .test_redteam_fifth import services_called

__all__ = ["clock", "house", "lights_only_user", "scene"]

OTHER_USER = "This conversation was started by someone else. Start a new one to talk to me."


# --- Another user in a conversation whose owner answered a question ------------------------


async def test_another_user_cannot_join_while_the_owner_answers_questions(
    hass: HomeAssistant, scene: Scene, clock: Clock, lights_only_user: MockUser
) -> None:
    """The owner's answers keep the conversation theirs: Home Assistant's chat session lasts
    five minutes after the yes, so must the owner's claim. Before, only new requests renewed
    it: four minutes after the request, a yes, and two minutes later another user's words
    were let in as a new request, read by the owner's model as the owner's own."""
    agent = await scene.our_agent()
    question = await scene.ask_to_unlock(agent)
    clock.now += 20
    await scene.reply(agent, question, "yes")
    assert state(hass, "lock.front_door") == "unlocked"
    called = services_called(hass)
    clock.now += 290  # 310 s after the request, 290 s after the yes
    asked_before = len(scene.worker.requests)

    refused = await agent.ask(
        OTHERS_WORDS,
        conversation_id=question.conversation_id,
        context=Context(user_id=lights_only_user.id),
    )

    assert speech(refused) == OTHER_USER, speech(refused)
    assert len(scene.worker.requests) == asked_before
    scene.worker.will_write(obeys_the_other_person)
    await scene.reply(agent, question, "thanks")
    assert OTHERS_WORDS not in scene.model_saw()
    assert ("cover", "open_cover") not in called


async def test_another_user_cannot_join_through_a_question_past_its_time(
    hass: HomeAssistant, scene: Scene, clock: Clock, lights_only_user: MockUser
) -> None:
    """The question is past its timeout but its timer has not run (a busy event loop): another
    user's message was taken as a new request in the owner's conversation."""
    agent = await scene.our_agent()
    question = await scene.ask_to_unlock(agent)
    clock.now += 31
    asked_before = len(scene.worker.requests)

    refused = await agent.ask(
        OTHERS_WORDS,
        conversation_id=question.conversation_id,
        context=Context(user_id=lights_only_user.id),
    )

    assert speech(refused) == OTHER_USER, speech(refused)
    assert len(scene.worker.requests) == asked_before
    assert state(hass, "lock.front_door") == "locked"
    # The owner's late yes is still told it came too late; the owner talks on.
    late = await scene.reply(agent, question, "yes")
    assert "too late" in speech(late) or "timed out" in speech(late), speech(late)
    scene.worker.will_write(answer("Hello."))
    assert speech(await scene.reply(agent, question, "hello")) == "Hello."
    assert OTHERS_WORDS not in scene.model_saw()


async def test_another_user_cannot_join_a_conversation_after_a_slow_turn(
    hass: HomeAssistant, scene: Scene, clock: Clock, lights_only_user: MockUser
) -> None:
    """Home Assistant keeps a conversation five minutes after a turn ends; the owner's claim
    was kept five minutes after it began. After a turn of 100 s (a large home on a slow
    machine), another user's message 250 s later was let in: their turn read the owner's
    history, and the owner's model their words."""
    agent = await scene.our_agent()

    def slow(_request: SeenRequest) -> str:
        clock.now += 100
        return answer("Hello.")

    scene.worker.will_write(slow)
    started = await agent.ask("hello", context=scene.person)
    clock.now += 250
    asked_before = len(scene.worker.requests)

    refused = await agent.ask(
        OTHERS_WORDS,
        conversation_id=started.conversation_id,
        context=Context(user_id=lights_only_user.id),
    )

    assert speech(refused) == OTHER_USER, speech(refused)
    assert len(scene.worker.requests) == asked_before
    scene.worker.will_write(answer("Hi."))
    assert speech(await scene.reply(agent, started, "thanks")) == "Hi."
    assert OTHERS_WORDS not in scene.model_saw()


async def test_the_owner_talks_on_long_after_answering(
    hass: HomeAssistant, scene: Scene, clock: Clock
) -> None:
    """The neighbour: the owner's own messages go on being answered, minutes apart."""
    agent = await scene.our_agent()
    question = await scene.ask_to_unlock(agent)
    clock.now += 20
    await scene.reply(agent, question, "yes")
    for _ in range(3):
        clock.now += 290
        scene.worker.will_write(answer("Sure."))
        assert speech(await scene.reply(agent, question, "and the lights?")) == "Sure."
    assert asked(question)
