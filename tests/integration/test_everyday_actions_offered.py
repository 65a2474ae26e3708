"""Everyday requests our tools had no action for, now offered, done at once and said.

- "Skip the add-on update" / "offer it again": the update tool offers the update
  component's own skip and clear_skipped beside install (it offered install alone, so the
  model's call was refused as an unknown action). Installing still asks.
- "Turn the fan up" / "down": the fan tool offers the fan's own speed steps (set_percentage
  alone left a small model to do the step arithmetic). A template fan whose set-speed action
  unlocks the door asks for a step as for a speed.
- "Shuffle the music" / "repeat it all": the media player tool offers shuffle_set and
  repeat_set; the player keeps playing what it plays (compat.keeps_player_state). A universal
  player whose shuffle or repeat command is the person's own service call asks.
- "Turn off the courier automation" / "run it": the automation tool offers enabling,
  disabling and running an exposed automation (nothing was offered for it). A program whose
  effect the agent cannot know asks, as a script does; one the person exempted runs at once.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import Platform
from homeassistant.core import Context
from homeassistant.core import HomeAssistant

from . import test_everyday_twenty_second
from . import test_everyday_twenty_third
from .conftest import Agent
from .conftest import speech
from .conftest import state
from .home import async_setup_demo
from .probes import Request
from .probes import Step
from .probes import ask_each_step
from .probes import ask_to_run_exempt
from .probes import assert_held_only_when
from .probes import porch_fan_whose_speed_unlocks
from .scene import Scene
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_redteam import UNLOCK_FRONT_DOOR
from .test_redteam import set_up_automations


async def nothing_more(hass: HomeAssistant) -> None:
    """The demo home as it is (its add-on update is exposed)."""


async def fan_at_half_speed(hass: HomeAssistant) -> None:
    """The living room fan exposed, at 50 % of its three speeds."""
    async_expose_entity(hass, "conversation", "fan.living_room_fan", True)
    await hass.services.async_call(
        "fan", "set_percentage", {"entity_id": "fan.living_room_fan", "percentage": 50}
    )


async def a_walkman(hass: HomeAssistant) -> None:
    """The demo's music player, playing, exposed."""
    await async_setup_demo(hass, [Platform.MEDIA_PLAYER])
    async_expose_entity(hass, "conversation", "media_player.walkman", True)


REQUESTS: Final = {
    "update skipped and offered again": Request(
        "update.demo_add_on",
        nothing_more,
        (
            Step(
                "skip",
                {},
                {
                    "en": "Skipped the update of Demo add-on.",
                    "de": "Erledigt: das Update von Demo add-on überspringen.",
                },
                {"state": "off", "skipped_version": "1.0.1"},
            ),
            Step(
                "clear_skipped",
                {},
                {
                    "en": "Offered the update of Demo add-on again.",
                    "de": "Erledigt: das Update von Demo add-on wieder anbieten.",
                },
                {"state": "on", "skipped_version": None},
            ),
        ),
    ),
    # One of three speeds: 50 % goes up to 100 %, then down to 66 %.
    "fan turned up and down": Request(
        "fan.living_room_fan",
        fan_at_half_speed,
        (
            Step(
                "increase_speed",
                {},
                {
                    "en": "Sped up Living Room Fan.",
                    "de": "Erledigt: die Geschwindigkeit von Living Room Fan erhöhen.",
                },
                {"percentage": 100},
            ),
            Step(
                "decrease_speed",
                {},
                {
                    "en": "Slowed down Living Room Fan.",
                    "de": "Erledigt: die Geschwindigkeit von Living Room Fan verringern.",
                },
                {"percentage": 66},
            ),
        ),
    ),
    "music shuffled and repeated": Request(
        "media_player.walkman",
        a_walkman,
        (
            Step(
                "shuffle_set",
                {"shuffle": True},
                {
                    "en": "Turned on shuffle on Walkman.",
                    "de": "Erledigt: die Zufallswiedergabe von Walkman einschalten.",
                },
                {"state": "playing", "shuffle": True},
            ),
            Step(
                "repeat_set",
                {"repeat": "all"},
                {
                    "en": "Set repeat of Walkman to all.",
                    "de": "Erledigt: die Wiederholung von Walkman auf Alle einstellen.",
                },
                {"state": "playing", "repeat": "all"},
            ),
        ),
    ),
}


EVERYDAY_REQUESTS: Final = {
    **REQUESTS,
    **test_everyday_twenty_second.REQUESTS,
    **test_everyday_twenty_third.REQUESTS,
}


# Each request in every language its answers are written in.
@pytest.mark.parametrize(
    ("request_name", "spoken"),
    [(name, spoken) for name, request in EVERYDAY_REQUESTS.items() for spoken in request.languages],
)
async def test_an_everyday_action_now_offered_is_done_at_once_and_said(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    request_name: str,
    spoken: str,
) -> None:
    request = EVERYDAY_REQUESTS[request_name]
    await ask_each_step(hass, scripted_agent, scripted_worker, request, spoken)


@pytest.mark.parametrize(
    ("service", "question"),
    [("increase_speed", "Speed up Porch fan"), ("decrease_speed", "Slow down Porch fan")],
)
async def test_a_speed_step_of_a_fan_whose_speed_unlocks_asks(
    hass: HomeAssistant, scene: Scene, service: str, question: str
) -> None:
    """A template fan whose set-speed action unlocks the door: a step sets its speed too."""
    fan = await porch_fan_whose_speed_unlocks(hass)
    async_expose_entity(hass, "conversation", fan, True)

    result = await scene.ask_ours_to_call("fan", {"action": service, "entity_id": fan})

    assert_held_only_when(
        hass, result, True, f"{question} (this will unlock Front Door)? Say yes to confirm."
    )


@pytest.mark.parametrize(
    ("service", "data", "question"),
    [
        ("shuffle_set", {"shuffle": True}, "Turn on shuffle on Living TV"),
        ("repeat_set", {"repeat": "all"}, "Set repeat of Living TV to all"),
    ],
)
async def test_shuffle_or_repeat_of_a_player_whose_command_unlocks_asks(
    hass: HomeAssistant, scene: Scene, service: str, data: dict[str, Any], question: str
) -> None:
    """A universal media player whose shuffle or repeat command is the person's own service
    call, here unlocking the front door: asked, as its other commands are."""
    from homeassistant.components.universal.media_player import PLATFORM_SCHEMA
    from homeassistant.components.universal.media_player import UniversalMediaPlayer

    hass.states.async_set("input_boolean.party_mode", "off")
    config = PLATFORM_SCHEMA(
        {
            "platform": "universal",
            "name": "Living TV",
            "children": ["media_player.living_room"],
            "commands": {service: UNLOCK_FRONT_DOOR[0]},
            "attributes": {service.removesuffix("_set"): "input_boolean.party_mode"},
        }
    )
    player = UniversalMediaPlayer(hass, config)  # type: ignore[no-untyped-call]
    await hass.data["media_player"].async_add_entities([player])
    await hass.async_block_till_done()
    async_expose_entity(hass, "conversation", "media_player.living_tv", True)

    result = await scene.ask_ours_to_call(
        "media_player", {"action": service, "entity_id": "media_player.living_tv", **data}
    )

    assert_held_only_when(
        hass, result, True, f"{question} (this will unlock Front Door)? Say yes to confirm."
    )


COURIER_LIGHTS_THE_KITCHEN: Final = {
    "id": "courier",
    "alias": "Courier",
    "triggers": [{"trigger": "event", "event_type": "courier_rang"}],
    "actions": [{"action": "light.turn_on", "target": {"entity_id": "light.kitchen_lights"}}],
}


@pytest.mark.parametrize(
    ("service", "question", "done", "after"),
    [
        ("turn_off", "Disable Courier", "Done: disable Courier.", "off"),
        ("trigger", "Run Courier", "Done: run Courier.", "on"),
    ],
)
async def test_an_exposed_automation_asks_and_is_done_after_the_yes(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    service: str,
    question: str,
    done: str,
    after: str,
) -> None:
    """ "Turn off the courier automation": our tools offer enabling, disabling and running
    an exposed automation (they offered nothing for it); a program whose effect the agent
    cannot know asks first, as a script does, and the yes does it."""
    await hass.services.async_call(
        "light", "turn_off", {"entity_id": "light.kitchen_lights"}, blocking=True
    )
    await set_up_automations(hass, COURIER_LIGHTS_THE_KITCHEN)
    async_expose_entity(hass, "conversation", "automation.courier", True)
    scripted_worker.will_write(
        answer(call("automation", action=service, entity_id="automation.courier"))
    )

    asked = await scripted_agent.ask(f"{service} the courier automation", context=person)

    assert speech(asked) == f"{question}? Say yes to confirm."
    assert state(hass, "automation.courier") == "on"
    assert state(hass, "light.kitchen_lights") == "off"

    confirmed = await scripted_agent.ask(
        "yes", conversation_id=asked.conversation_id, context=person
    )
    await hass.async_block_till_done()

    assert speech(confirmed) == done
    assert state(hass, "automation.courier") == after
    assert state(hass, "light.kitchen_lights") == ("on" if service == "trigger" else "off")


@pytest.mark.parametrize(
    ("service", "said", "enabled", "kitchen"),
    [
        ("trigger", "Ran Courier.", "on", "on"),
        ("turn_off", "Disabled Courier.", "off", "off"),
    ],
)
async def test_an_exempt_automation_is_done_at_once_and_said(
    hass: HomeAssistant, scene: Scene, service: str, said: str, enabled: str, kitchen: str
) -> None:
    """The person exempted "Courier" (it lights the kitchen): run or disabled at once."""
    await hass.services.async_call(
        "light", "turn_off", {"entity_id": "light.kitchen_lights"}, blocking=True
    )
    await set_up_automations(hass, COURIER_LIGHTS_THE_KITCHEN)

    result = await ask_to_run_exempt(hass, scene, "automation.courier", service)
    await hass.async_block_till_done()

    assert speech(result) == said
    assert state(hass, "automation.courier") == enabled
    assert state(hass, "light.kitchen_lights") == kitchen
