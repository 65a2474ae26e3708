"""Everyday answers and over-holds left from the last rounds (the nineteenth).

- An entity id the person asked for ("what is the entity id of ...", or the id itself) or
  one written as code stays as the model wrote it; any other is said as the entity's name.
- A media player's volume (set, up, down, mute) does not change its state: beside "when the
  TV goes to paused, lock the front door" it runs at once; pausing still asks.
- Turning on an old-style group of exempt scripts runs them at once, as each would.
"""

from __future__ import annotations

from typing import Any
from typing import Final
from unittest.mock import patch

import pytest

from homeassistant.components.demo.cover import DemoCover
from homeassistant.components.demo.light import DemoLight
from homeassistant.const import STATE_UNAVAILABLE
from homeassistant.const import STATE_UNKNOWN
from homeassistant.core import HomeAssistant

from .conftest import speech
from .conftest import state
from .houses import ASSIST
from .houses import LIVING_ROOM_LIGHTS
from .houses import OURS
from .houses import another_integrations_service
from .houses import set_up_yaml_groups
from .scene import Home
from .scene import tool_results
from .scripted_model import answer
from .scripted_model import call
from .test_everyday_answers import BLIND
from .test_everyday_answers import CHRISTMAS
from .test_everyday_answers import KITCHEN_LIGHT
from .test_everyday_answers import language  # noqa: F401  (the fixture)
from .test_everyday_answers import name
from .test_everyday_answers import say
from .test_everyday_common import FRONT_DOOR
from .test_everyday_common import SCENES
from .test_everyday_common import TV
from .test_everyday_common import agent as agent_of
from .test_everyday_common import ask
from .test_everyday_common import common_automations
from .test_everyday_common import home  # noqa: F401  (the fixture)
from .test_redteam import asked

# --- A media player's volume does not change its state -----------------------------------------

FAN: Final = "fan.living_room_fan"
WHEN_THE_TV_PAUSES: Final = {
    "id": "tv_paused_locks",
    "alias": "TV paused locks",
    "triggers": [{"trigger": "state", "entity_id": TV, "to": "paused"}],
    "actions": [{"action": "lock.lock", "target": {"entity_id": FRONT_DOOR}}],
}


async def add_automations(hass: HomeAssistant, *automations: dict[str, Any]) -> None:
    """Reload the common house's automations from configuration.yaml, with these beside."""
    every = [*common_automations(), *automations]
    with patch("homeassistant.config.load_yaml_config_file", return_value={"automation": every}):
        await hass.services.async_call("automation", "reload", blocking=True)
    await hass.async_block_till_done()
    for automation in automations:
        assert state(hass, f"automation.{automation['id']}") == "on"


VOLUME: Final[list[tuple[str, str, dict[str, Any]]]] = [
    (OURS, "media_player", {"action": "volume_set", "entity_id": TV, "volume_level": 0.3}),
    (OURS, "media_player", {"action": "volume_up", "entity_id": TV}),
    (OURS, "media_player", {"action": "volume_down", "entity_id": TV}),
    (OURS, "media_player", {"action": "volume_mute", "entity_id": TV, "is_volume_muted": True}),
    (ASSIST, "HassSetVolume", {"name": "Living Room", "volume_level": 30}),
    (ASSIST, "HassMediaPlayerMute", {"name": "Living Room"}),
]


@pytest.mark.parametrize("request_", VOLUME, ids=lambda r: str(r[2].get("action", r[1])))
async def test_a_tv_volume_change_beside_when_it_pauses_runs_at_once(
    home: Home,  # noqa: F811
    request_: tuple[str, str, dict[str, Any]],
) -> None:
    hass = home.hass
    await add_automations(hass, WHEN_THE_TV_PAUSES)
    assert state(hass, TV) == "playing"

    result = await ask(home, *request_)

    assert not asked(result), (speech(result), tool_results(hass, result))
    assert state(hass, TV) == "playing"


async def test_pausing_the_tv_beside_when_it_pauses_still_asks(
    home: Home,  # noqa: F811
) -> None:
    hass = home.hass
    await add_automations(hass, WHEN_THE_TV_PAUSES)

    result = await ask(home, OURS, "media_player", {"action": "media_pause", "entity_id": TV})

    assert asked(result), speech(result)


async def test_a_volume_service_another_integration_registers_still_asks(
    home: Home,  # noqa: F811
) -> None:
    """`media_player.volume_set` registered by another integration's code: told by its
    handler, not its name, so it may change the TV's state: asked about."""
    hass = home.hass
    await add_automations(hass, WHEN_THE_TV_PAUSES)
    another_integrations_service(hass, "media_player", "volume_set")

    result = await ask(home, *VOLUME[0])

    assert asked(result), speech(result)


# --- An old-style group of exempt scripts ------------------------------------------------------

ROUTINES: Final = "group.routines"
# Programs that turn on the group of the two exempt scripts, without data.
TURNING_ON_ROUTINES: Final = [
    {"action": "homeassistant.turn_on", "target": {"entity_id": ROUTINES}},
    {"action": "homeassistant.turn_on", "metadata": {}, "data": {}, "entity_id": ROUTINES},
    {"scene": "scene.wind_down"},
]


@pytest.mark.parametrize("step", TURNING_ON_ROUTINES, ids=["target", "data", "scene"])
async def test_a_change_that_turns_on_a_group_of_exempt_scripts_runs_at_once(
    home: Home,  # noqa: F811
    step: dict[str, Any],
) -> None:
    """ "When the fan goes on, turn on Routines" (an old-style group of the exempt Bedtime
    and Morning, or a scene that turns it on): turning the fan on runs at once, as turning
    each script on would. (Assist's HassTurnOn cannot turn such a group on: Home Assistant's
    handler finds no `group.turn_on`.)"""
    hass = home.hass
    await set_up_yaml_groups(
        hass, {"routines": {"name": "Routines", "entities": ["script.bedtime", "script.morning"]}}
    )
    wind_down = {"id": "wind_down", "name": "Wind down", "entities": {ROUTINES: "on"}}
    with patch(
        "homeassistant.config.load_yaml_config_file",
        return_value={"scene": [*SCENES, wind_down]},
    ):
        await hass.services.async_call("scene", "reload", blocking=True)
    await add_automations(
        hass,
        {
            "id": "fan_routines",
            "alias": "Fan routines",
            "triggers": [{"trigger": "state", "entity_id": FAN, "to": "on"}],
            "actions": [step],
        },
    )

    result = await ask(home, OURS, "fan", {"action": "turn_on", "entity_id": FAN})

    assert not asked(result), (speech(result), tool_results(hass, result))
    if "scene" not in step:  # a scene's group state sets no script going
        assert state(hass, TV) == "off"  # Bedtime ran


# --- An entity id the person asked for stays as written ----------------------------------------

# "What is the entity id of the kitchen light?", as a household of each language asks it.
ASKS_FOR_THE_ID: Final = {
    "en": "What is the entity id of the kitchen light?",
    "de": "Wie lautet die Entitäts-ID vom Küchenlicht?",
    "fr": "Quel est l'identifiant de la lumière de la cuisine ?",
    "es": "¿Cuál es el ID de entidad de la luz de la cocina?",
    "nl": "Wat is de entiteit-ID van de keukenlamp?",
    "it": "Qual è l'ID entità della luce della cucina?",
    "pt": "Qual é o ID da entidade da luz da cozinha?",
}
# "Is the kitchen light on?": its id in the answer is noise, said as the name.
ASKS_IF_ON: Final = {
    "en": "Is the kitchen light on?",
    "de": "Ist das Küchenlicht an?",
    "fr": "La lumière de la cuisine est-elle allumée ?",
    "es": "¿Está encendida la luz de la cocina?",
    "nl": "Is de keukenlamp aan?",
    "it": "La luce della cucina è accesa?",
    "pt": "A luz da cozinha está acesa?",
}


async def answered(home: Home, language: str, text: str, written: str) -> str:  # noqa: F811
    """What the person hears when they say `text` and the model reads the kitchen light and
    writes `written`."""
    agent = await agent_of(home, OURS)
    read = answer(call("get_state", entity_id=KITCHEN_LIGHT))
    result = await say(home, agent, language, read, answer(written), text=text)
    return speech(result)


async def test_an_entity_id_the_person_asked_for_is_said_as_written(
    home: Home,  # noqa: F811
    language: str,  # noqa: F811
) -> None:
    """ "What is the entity id of the kitchen light?" in the household's language: the id the
    model writes is the answer, not the light's name; asked whether it is on, the id is
    noise and the person hears the name."""
    written = f"{KITCHEN_LIGHT}."

    assert await answered(home, language, ASKS_FOR_THE_ID[language], written) == written
    said = await answered(home, language, ASKS_IF_ON[language], written)
    assert said == f"{name(language, KITCHEN_LIGHT)}."


async def test_an_id_the_person_said_or_one_written_as_code_stays_as_written(
    home: Home,  # noqa: F811
    language: str,  # noqa: F811
) -> None:
    """The person names the id itself ("is light.kitchen_lights on?"): it stays; an id in a
    code block or inside `...` with other words stays too; another id is said as its name."""
    asked = f"{KITCHEN_LIGHT}?"
    written = f"{KITCHEN_LIGHT}: on, {CHRISTMAS}: off."
    said = await answered(home, language, asked, written)
    assert said == f"{KITCHEN_LIGHT}: on, {name(language, CHRISTMAS)}: off."

    code = f"```yaml\nentity_id: {KITCHEN_LIGHT}\n```\n`{KITCHEN_LIGHT} on` ({KITCHEN_LIGHT})"
    said = await answered(home, language, ASKS_IF_ON[language], code)
    assert said == code.replace(f"({KITCHEN_LIGHT})", f"({name(language, KITCHEN_LIGHT)})")


# --- The fast answer says only what is done ----------------------------------------------------

# How a call that was not done starts, in each language (test_everyday_answers' NOT_SKIPPED).
NOT_DONE_START: Final = {
    "en": "I could not ",
    "de": "Das ging nicht: ",
    "fr": "Je n'ai pas pu ",
    "es": "No he podido ",
    "nl": "Dat lukte niet: ",
    "it": "Non è stato possibile ",
    "pt": "Não consegui ",
}
LIVING_ROOM_GROUP: Final = "light.living_room"  # the common house's light group of two
CEILING: Final = "light.ceiling_lights"


async def ceiling_lost(hass: HomeAssistant, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its bridge lost the ceiling light: unavailable, and a call on it does nothing."""
    monkeypatch.setattr(DemoLight, "available", property(lambda light: light.entity_id != CEILING))
    hass.data["light"].get_entity(CEILING).async_write_ha_state()
    await hass.async_block_till_done()
    assert state(hass, CEILING) == STATE_UNAVAILABLE


async def test_a_light_group_with_a_member_unavailable_is_not_said_done(
    home: Home,  # noqa: F811
    language: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    quick_settle: None,
) -> None:
    """ "Turn on the living room lights": the group goes on (one member on), its other member
    is unavailable: the answer says it could not, in the language, not that it was done (the
    model reads which member)."""
    hass = home.hass
    agent = await agent_of(home, OURS)
    for light in LIVING_ROOM_LIGHTS:
        await hass.services.async_call("light", "turn_off", {"entity_id": light}, blocking=True)
    await ceiling_lost(hass, monkeypatch)
    turn_on = answer(call("light", action="turn_on", entity_id=LIVING_ROOM_GROUP))

    result = await say(home, agent, language, turn_on, answer(""))

    assert state(hass, LIVING_ROOM_GROUP) == "on"
    said = speech(result)
    assert said.startswith(NOT_DONE_START[language]), said
    assert tool_results(hass, result)[0]["error"].endswith("Ceiling Lights is unavailable")


async def test_a_cover_that_reports_only_its_position_is_said_as_it_is(
    home: Home,  # noqa: F811
    language: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    quick_settle: None,
) -> None:
    """A blind that reports its position and no state (unknown): opening it while it stays
    at 0 % is not said done; when it starts moving within the wait, it is."""
    hass = home.hass
    monkeypatch.setattr(DemoCover, "async_open_cover", _stays_shut)
    agent = await agent_of(home, OURS)
    hass.states.async_set(BLIND, STATE_UNKNOWN, {**_attributes(hass, BLIND), _AT: 0})
    open_call = answer(call("cover", action="open_cover", entity_id=BLIND))

    result = await say(home, agent, language, open_call, answer(""))

    said = speech(result)
    assert said.startswith(NOT_DONE_START[language]), said
    assert tool_results(hass, result)[0]["error"].endswith("is still at 0%")

    async def moves(cover: DemoCover, **kwargs: Any) -> None:
        """Its motor starts a moment later: 10 % open."""
        moved = {**_attributes(hass, BLIND), _AT: 10}
        hass.loop.call_later(0.01, lambda: hass.states.async_set(BLIND, STATE_UNKNOWN, moved))

    monkeypatch.setattr(DemoCover, "async_open_cover", moves)
    result = await say(home, agent, language, open_call, answer(""))
    assert not speech(result).startswith(NOT_DONE_START[language]), speech(result)


_AT: Final = "current_position"


async def _stays_shut(cover: DemoCover, **kwargs: Any) -> None:
    """A blind whose motor does not move (no error)."""


def _attributes(hass: HomeAssistant, entity_id: str) -> dict[str, Any]:
    current = hass.states.get(entity_id)
    assert current is not None, entity_id
    return dict(current.attributes)
