"""Red team, round 51: the last merges of the session attacked ("already", one question per
conversation, a request for later).

- **Hole.** "Turn the kitchen light off in ten minutes" refuses our own tools' call that acts
  now, but Home Assistant's own intents (the Assist tools) were never checked: the model's
  `HassTurnOff` switched the light off at once and the person heard it was done, at the wrong
  time; "unlock the front door in five minutes" asked "Unlock Front Door?" as if for now, and
  a yes unlocked it then. **Found.** An Assist tool that acts now (any but a read, a timer
  and a to-do item: an intent, a script, a tool no one classified) is refused on a request
  for later as our own tools are; nothing is asked, and the person hears it can only be done
  now.
- **Hole.** An hour written short, "in 2h", "in 2 Std", "dans 2 h", was no time from now: the
  light went off at once. **Found.** "h" (and "hr", "Std") is an hour's unit in every
  language's table.

**Guards (passed at once).** "Already" only for what is so: a lock call on a locked and an
unlocked lock, a lock that reports its state assumed, an alarm armed away asked to arm home,
a garage door "closed" at 40 %, each asks; an Assist call with no time runs now; a lock of a
locked door is said "already" and runs nothing. One question per conversation: another
user's unlock in a conversation where a question waits neither takes its place nor runs, and
the first person's yes runs only what they were asked.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import pytest
from pytest_homeassistant_custom_component.common import MockUser

from homeassistant.core import Context
from homeassistant.core import HomeAssistant

from .conftest import speech
from .conftest import state
from .scene import Scene
from .scene import tool_call
from .scripted_model import answer

KITCHEN: Final = "light.kitchen_lights"
FRONT_DOOR: Final = "lock.front_door"
BACK_DOOR: Final = "lock.back_door"
OTHER_LOCK: Final = "lock.openable_lock"
GARAGE: Final = "cover.garage_door"
ALARM: Final = "alarm_control_panel.security"

# A request for later, and what the person hears after it, by language.
FOR_LATER: Final = {
    "en": ("turn the kitchen light off in 10 minutes", "only act now"),
    "de": ("mach das Küchenlicht in einer Viertelstunde aus", "nur sofort"),
    "fr": ("éteins la cuisine dans vingt et une minutes", "tout de suite"),
}


@pytest.mark.parametrize("language", FOR_LATER)
async def test_assists_own_call_is_not_done_now_for_later(scene: Scene, language: str) -> None:
    """Before: HassTurnOff switched the light off at once, and the person heard it had."""
    request, heard = FOR_LATER[language]
    agent = await scene.assist_agent()
    scene.worker.will_write(tool_call("HassTurnOff", name="Kitchen Lights"))

    result = await agent.ask(request, context=scene.person, language=language)

    assert state(scene.hass, KITCHEN) == "on"
    assert heard in speech(result)


async def test_an_unlock_for_later_is_not_asked_as_if_for_now(scene: Scene) -> None:
    """Before: "Unlock Front Door? Say yes to confirm.", and a yes unlocked it at once."""
    agent = await scene.assist_agent()
    scene.worker.will_write(tool_call("HassTurnOn", name="Front Door"))

    result = await agent.ask("unlock the front door in five minutes", context=scene.person)

    assert result.continue_conversation is False
    assert "only act now" in speech(result)
    assert scene.outcomes() == []
    assert state(scene.hass, FRONT_DOOR) == "locked"


@pytest.mark.parametrize(
    ("language", "request_text"),
    [
        ("en", "turn the kitchen light off in 2h"),
        ("en", "turn the kitchen light off in 1 hr"),
        ("de", "mach das Küchenlicht in 2 Std aus"),
        ("fr", "éteins la cuisine dans 2 h"),
    ],
)
async def test_an_hour_written_short_is_a_time_from_now(
    scene: Scene, language: str, request_text: str
) -> None:
    """Before: "in 2h" was no time: the light went off at once."""
    agent = await scene.our_agent()
    scene.worker.will_write(tool_call("light", action="turn_off", entity_id=KITCHEN))

    await agent.ask(request_text, context=scene.person, language=language)

    assert state(scene.hass, KITCHEN) == "on"


async def test_assists_call_with_no_time_runs_now(scene: Scene) -> None:
    """Guard: the check refuses nothing asked for now."""
    agent = await scene.assist_agent()
    scene.worker.will_write(tool_call("HassTurnOff", name="Kitchen Lights"))

    await agent.ask("turn the kitchen light off in the kitchen", context=scene.person)

    assert state(scene.hass, KITCHEN) == "off"


def _set(hass: HomeAssistant, entity_id: str, value: str, **attributes: Any) -> None:
    """Report a state as the device would, keeping its other attributes."""
    now = hass.states.get(entity_id)
    assert now is not None
    hass.states.async_set(entity_id, value, {**now.attributes, **attributes})


@pytest.mark.parametrize(
    ("reported", "tool", "arguments"),
    [
        # A locked and an unlocked lock in one call: the unlocked one would lock.
        (
            {FRONT_DOOR: ("locked", {}), OTHER_LOCK: ("unlocked", {})},
            "lock",
            {"action": "lock", "entity_id": [FRONT_DOOR, OTHER_LOCK]},
        ),
        # A state the device only assumes (an optimistic template lock).
        (
            {FRONT_DOOR: ("locked", {"assumed_state": True})},
            "lock",
            {"action": "lock", "entity_id": FRONT_DOOR},
        ),
        # Armed away is not armed home: arming home changes it.
        (
            {ALARM: ("armed_away", {})},
            "alarm_control_panel",
            {"action": "alarm_arm_home", "entity_id": ALARM},
        ),
        # "Closed" at 40 %: a close moves it.
        (
            {GARAGE: ("closed", {"current_position": 40})},
            "cover",
            {"action": "close_cover", "entity_id": GARAGE},
        ),
    ],
)
async def test_already_only_for_what_is_so(
    scene: Scene,
    reported: dict[str, tuple[str, dict[str, Any]]],
    tool: str,
    arguments: dict[str, Any],
) -> None:
    """Guards: a call that only looks secured is asked, never said "already"."""
    for entity_id, (value, attributes) in reported.items():
        _set(scene.hass, entity_id, value, **attributes)
    agent = await scene.our_agent()
    scene.worker.will_write(tool_call(tool, **arguments))

    result = await agent.ask("secure it", context=scene.person)

    assert "confirm" in speech(result)
    assert "already" not in speech(result)
    assert scene.outcomes() == ["proposed"]


async def test_a_locked_door_is_said_already(scene: Scene) -> None:
    """Guard: the plain case still runs nothing and asks nothing."""
    agent = await scene.our_agent()
    scene.worker.will_write(tool_call("lock", action="lock", entity_id=FRONT_DOOR))

    result = await agent.ask("lock the front door", context=scene.person)

    assert "already locked" in speech(result)
    assert scene.outcomes() == ["already"]


async def test_anothers_request_in_a_shared_conversation_runs_nothing(
    scene: Scene, hass_owner_user: MockUser
) -> None:
    """Guard: another user's unlock in a conversation where a question waits is never held in
    its place nor run, and the first person's yes runs only what they were asked."""
    agent = await scene.our_agent()
    question = await scene.ask_to_unlock(agent)
    scene.worker.will_write(
        tool_call("lock", action="unlock", entity_id=BACK_DOOR), answer("Unlocked.")
    )

    await agent.ask(
        "unlock the back door",
        conversation_id=question.conversation_id,
        context=Context(user_id=hass_owner_user.id),
    )
    await scene.reply(agent, question, "yes")
    await scene.hass.async_block_till_done()

    assert state(scene.hass, BACK_DOOR) == "locked"
    assert state(scene.hass, FRONT_DOOR) == "unlocked"
    assert [r["service"] for r in scene.audit if r["outcome"] == "executed"] == ["lock.unlock"]
    assert [r["targets"] for r in scene.audit if r["outcome"] == "executed"] == [[FRONT_DOOR]]
