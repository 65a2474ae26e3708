"""Everyday requests our tools had no action for, now offered and said.

- "Skip the add-on update" / "offer it again": the update tool offers the update
  component's own skip and clear_skipped beside install (it offered install alone, so the
  model's call was refused as an unknown action). Both run at once; installing still asks.
- "Turn the fan up" / "down": the fan tool offers the fan's own speed steps (set_percentage
  alone left a small model to do the step arithmetic). A template fan whose set-speed action
  unlocks the door asks for a step as for a speed.
- "Shuffle the music" / "repeat this album": the media player tool offers shuffle_set and
  repeat_set; the player keeps playing what it plays (compat.keeps_player_state), at once.
"""

from __future__ import annotations

from typing import Any

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant

from . import test_adversarial
from .conftest import Agent
from .conftest import speech
from .conftest import state
from .home import async_setup_demo
from .probes import assert_held_only_when
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_adversarial import Scene
from .test_redteam import UNLOCK_FRONT_DOOR
from .test_redteam import template_helper

scene = test_adversarial.scene
house = test_adversarial.house


@pytest.mark.parametrize(
    ("spoken", "skipped_words", "offered_words"),
    [
        ("en", "Skipped the update of Demo add-on.", "Offered the update of Demo add-on again."),
        (
            "de",
            "Erledigt: das Update von Demo add-on überspringen.",
            "Erledigt: das Update von Demo add-on wieder anbieten.",
        ),
    ],
)
async def test_skipping_an_update_and_offering_it_again_is_done_at_once(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    spoken: str,
    skipped_words: str,
    offered_words: str,
) -> None:
    """ "Skip the add-on update", then "offer it again": our update tool offers skip and
    clear_skipped beside install; both are done at once, and the update really is skipped
    (off, its version recorded) and offered again (on)."""
    add_on = "update.demo_add_on"
    latest = hass.states.get(add_on)
    assert latest is not None
    scripted_worker.will_write(answer(call("update", action="skip", entity_id=add_on)))

    skipped = await scripted_agent.ask("skip the add-on update", language=spoken)

    assert speech(skipped) == skipped_words
    assert state(hass, add_on) == "off"
    after = hass.states.get(add_on)
    assert after is not None
    assert after.attributes["skipped_version"] == latest.attributes["latest_version"]
    scripted_worker.will_write(answer(call("update", action="clear_skipped", entity_id=add_on)))

    offered = await scripted_agent.ask("offer the add-on update again", language=spoken)

    assert speech(offered) == offered_words
    assert state(hass, add_on) == "on"


@pytest.mark.parametrize(
    ("spoken", "faster", "slower"),
    [
        ("en", "Sped up Living Room Fan.", "Slowed down Living Room Fan."),
        (
            "de",
            "Erledigt: die Geschwindigkeit von Living Room Fan erhöhen.",
            "Erledigt: die Geschwindigkeit von Living Room Fan verringern.",
        ),
    ],
)
async def test_a_fan_turned_up_and_down_a_step_at_once(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    spoken: str,
    faster: str,
    slower: str,
) -> None:
    """ "Turn the fan up" / "turn it down": one of the fan's own speed steps (of three: 50 %
    goes up to 100 %, then down to 66 %), done at once and said."""
    fan = "fan.living_room_fan"
    async_expose_entity(hass, "conversation", fan, True)
    await hass.services.async_call(
        "fan", "set_percentage", {"entity_id": fan, "percentage": 50}, blocking=True
    )
    scripted_worker.will_write(answer(call("fan", action="increase_speed", entity_id=fan)))

    up = await scripted_agent.ask("turn the fan up", language=spoken)

    assert speech(up) == faster
    # The demo fan writes its new speed in a task of its own, after the service returns.
    await hass.async_block_till_done()
    assert percentage(hass, fan) == 100
    scripted_worker.will_write(answer(call("fan", action="decrease_speed", entity_id=fan)))

    down = await scripted_agent.ask("turn the fan down", language=spoken)

    assert speech(down) == slower
    await hass.async_block_till_done()
    assert percentage(hass, fan) == 66


@pytest.mark.parametrize(
    ("service", "question"),
    [
        ("increase_speed", "Speed up Porch fan"),
        ("decrease_speed", "Slow down Porch fan"),
    ],
)
async def test_a_speed_step_of_a_fan_whose_speed_unlocks_asks(
    hass: HomeAssistant, scene: Scene, service: str, question: str
) -> None:
    """A template fan whose set-speed action unlocks the door: a step sets its speed too."""
    fan = await template_helper(
        hass,
        {
            "template_type": "fan",
            "name": "Porch fan",
            "turn_on": [],
            "turn_off": [],
            "set_percentage": UNLOCK_FRONT_DOOR,
        },
    )
    async_expose_entity(hass, "conversation", fan, True)

    result = await scene.ask_ours_to_call("fan", {"action": service, "entity_id": fan})

    assert_held_only_when(
        hass, result, True, f"{question} (this will unlock Front Door)? Say yes to confirm."
    )


def percentage(hass: HomeAssistant, entity_id: str) -> int:
    """The fan's speed now, in percent."""
    now = hass.states.get(entity_id)
    assert now is not None
    return int(now.attributes["percentage"])


@pytest.mark.parametrize(
    ("spoken", "shuffled", "repeated"),
    [
        ("en", "Turned on shuffle on Walkman.", "Set repeat of Walkman to all."),
        (
            "de",
            "Erledigt: die Zufallswiedergabe von Walkman einschalten.",
            "Erledigt: die Wiederholung von Walkman auf Alle einstellen.",
        ),
    ],
)
async def test_music_shuffled_and_repeated_at_once(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    spoken: str,
    shuffled: str,
    repeated: str,
) -> None:
    """ "Shuffle the music", "repeat it all": the player's own shuffle and repeat, said."""
    await async_setup_demo(hass, [Platform.MEDIA_PLAYER])
    player = "media_player.walkman"
    async_expose_entity(hass, "conversation", player, True)
    scripted_worker.will_write(
        answer(call("media_player", action="shuffle_set", entity_id=player, shuffle=True))
    )

    shuffle = await scripted_agent.ask("shuffle the music", language=spoken)

    assert speech(shuffle) == shuffled
    await hass.async_block_till_done()
    assert attribute(hass, player, "shuffle") is True
    scripted_worker.will_write(
        answer(call("media_player", action="repeat_set", entity_id=player, repeat="all"))
    )

    repeat = await scripted_agent.ask("repeat it all", language=spoken)

    assert speech(repeat) == repeated
    await hass.async_block_till_done()
    assert attribute(hass, player, "repeat") == "all"
    assert state(hass, player) == "playing"


def attribute(hass: HomeAssistant, entity_id: str, name: str) -> object:
    """An attribute of the entity's state now."""
    now = hass.states.get(entity_id)
    assert now is not None
    return now.attributes.get(name)


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

    attribute_name = service.removesuffix("_set")
    hass.states.async_set("input_boolean.party_mode", "off")
    config = PLATFORM_SCHEMA(
        {
            "platform": "universal",
            "name": "Living TV",
            "children": ["media_player.living_room"],
            "commands": {service: UNLOCK_FRONT_DOOR[0]},
            "attributes": {attribute_name: "input_boolean.party_mode"},
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
