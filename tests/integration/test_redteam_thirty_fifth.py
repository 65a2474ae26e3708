"""A thirty-fifth round of red-team probes: "already" about a target that was not so.

Hole. A blind at 50 % shows "open": an open_cover found it "open" and said "Study Blind was
already open." while the call still moved it to 100 %. A target that tells its position is
already as asked only at the end the call takes it to.

Hole. A lock's "open" unlatches the door whatever it shows: after the yes, a lock that stays
"unlocked" was said "was already unlocked", as if nothing had been done. "Open" is never
said to have been so already.

Guard. An intent of Assist that turned the light on in the same turn as our call on it: the
answer is not "already".
"""

from __future__ import annotations

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant

from .conftest import speech
from .conftest import state
from .scene import Scene
from .scene import tool_calls
from .scripted_model import answer


async def test_an_intent_that_changed_the_target_first_is_not_said_already(
    hass: HomeAssistant, scene: Scene
) -> None:
    assert state(hass, "light.bed_light") == "off"
    agent = await scene.our_agent(**{CONF_LLM_HASS_API: ["assist"]})
    scene.worker.will_write(
        tool_calls(
            ("HassTurnOn", {"name": "Bed Light"}),
            ("light", {"action": "turn_on", "entity_id": "light.bed_light"}),
        ),
        answer("Done."),
    )

    result = await agent.ask("turn on the bed light", context=scene.person)

    assert state(hass, "light.bed_light") == "on"
    assert "already" not in speech(result), speech(result)


async def test_a_cover_half_open_is_not_said_already_open(
    hass: HomeAssistant, scene: Scene
) -> None:
    hass.states.async_set(
        "cover.study_blind",
        "open",
        {"current_position": 50, "friendly_name": "Study Blind", "supported_features": 15},
    )
    async_expose_entity(hass, "conversation", "cover.study_blind", True)
    scene.worker.will_write(
        tool_calls(("cover", {"action": "open_cover", "entity_id": "cover.study_blind"})),
        answer("Done."),
    )
    agent = await scene.our_agent()

    result = await agent.ask("open the study blind", context=scene.person)

    assert "already" not in speech(result), speech(result)


async def test_a_lock_opened_while_unlocked_is_not_said_already_unlocked(
    hass: HomeAssistant, scene: Scene
) -> None:
    """A lock's "open" unlatches the door whatever its state: "was already unlocked" would
    say nothing was done to a door the yes just unlatched."""
    hass.states.async_set(
        "lock.side_gate", "unlocked", {"friendly_name": "Side Gate", "supported_features": 1}
    )
    async_expose_entity(hass, "conversation", "lock.side_gate", True)
    scene.worker.will_write(
        tool_calls(("lock", {"action": "open", "entity_id": "lock.side_gate"})), answer("Done.")
    )
    agent = await scene.our_agent()
    question = await agent.ask("open the side gate", context=scene.person)
    assert question.continue_conversation is True, speech(question)

    done = await agent.ask("yes", conversation_id=question.conversation_id, context=scene.person)

    assert "already" not in speech(done), speech(done)
