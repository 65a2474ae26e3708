"""Everyday requests through Home Assistant's Assist API (intents) in a real house.

The house of test_everyday_house.py (its typical automations around a lock, a garage door and
an alarm) with names in German and French beside the English ones (entity, area and floor
aliases), a window that is a window, a shopping list and a voice satellite that runs timers.
Every intent the installed Home Assistant offers to a model is called the way people ask:
by name, by area, by area and domain, by floor, with a device class. Each runs at once and
changes what it should; what the agent says afterwards, when the model says nothing, is true;
the lock, the garage door, the alarm and a valve next to them still ask.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from typing import Final

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from homeassistant.components.demo.cover import DemoCover
from homeassistant.components.demo.light import DemoLight
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.components.intent.const import TIMER_DATA
from homeassistant.components.intent.timers import TimerManager
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr
from homeassistant.helpers import intent
from homeassistant.helpers.entity_component import async_update_entity

from .conftest import speech
from .conftest import state
from .houses import GARAGE
from .houses import Reader
from .houses import attribute
from .houses import call_id
from .houses import read
from .houses import still_asks
from .houses import volume
from .scene import Scene
from .scene import satellite_id
from .scene import tool_call
from .scripted_model import answer
from .test_assist_everyday import timer_device
from .test_everyday import keep_the_shopping_list_in
from .test_everyday_house import LIVING_ROOM_TV
from .test_everyday_house import home  # noqa: F401  (the fixture)
from .test_redteam import asked
from .test_redteam import template_helper

ASSIST: Final = "assist"
ACTION_DONE: Final = intent.IntentResponseType.ACTION_DONE
ERROR: Final = intent.IntentResponseType.ERROR

# Names a German or a French household gives them, beside the English ones.
ALIASES: Final[dict[str, tuple[str, ...]]] = {
    "light.bed_light": ("Nachttischlampe", "Lampe de chevet"),
    "light.kitchen_lights": ("Küchenlicht", "Lumière de la cuisine"),
    "cover.hall_window": ("Flurfenster", "Fenêtre du couloir"),
    "switch.kettle": ("Wasserkocher", "Bouilloire"),
    "input_boolean.wake_up": ("Wecken", "Réveil"),
    # The sensitive ones beside them.
    "lock.back_door": ("main entrance", "Hintertür", "Porte arrière"),
    "cover.garage_door": ("Garagentor", "Porte du garage"),
    "valve.orchard": ("Obstgarten", "Verger"),
}
AREA_ALIASES: Final = {
    "Kitchen": ("Küche", "Cuisine"),
    "Living Room": ("Wohnzimmer", "Salon"),
    "Hall": ("Flur", "Couloir"),
}


@pytest.fixture
async def assist_house(
    hass: HomeAssistant,
    home: Scene,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Scene:
    """The everyday house in three languages; Kitchen and Living Room are on the Ground floor
    (with the Hall and the Garage); the hall window is a window; a shopping list."""
    keep_the_shopping_list_in(tmp_path, hass, monkeypatch)
    shopping = MockConfigEntry(domain="shopping_list")
    shopping.add_to_hass(hass)
    assert await hass.config_entries.async_setup(shopping.entry_id)
    async_expose_entity(hass, "conversation", "todo.shopping_list", True)
    entities = er.async_get(hass)
    for entity_id, names in ALIASES.items():
        entities.async_update_entity(entity_id, aliases=[er.COMPUTED_NAME, *names])
    floors = fr.async_get(hass)
    ground = floors.async_get_floor_by_name("Ground")
    assert ground is not None
    floors.async_update(ground.floor_id, aliases={"Erdgeschoss", "Rez-de-chaussée"})
    areas = ar.async_get(hass)
    for name, aliases in AREA_ALIASES.items():
        area = areas.async_get_area_by_name(name)
        assert area is not None
        areas.async_update(area.id, aliases=set(aliases), floor_id=ground.floor_id)
    entities.async_update_entity("cover.hall_window", device_class="window")
    await async_update_entity(hass, "cover.hall_window")
    await hass.async_block_till_done()
    return home


# (tool, arguments, what changes: entity or reader, the value it has after)
Everyday = tuple[str, dict[str, Any], str | Reader, Any]
EVERYDAY: Final[list[Everyday]] = [
    # By name, in three languages.
    ("HassTurnOn", {"name": "Bed Light"}, "light.bed_light", "on"),
    ("HassTurnOn", {"name": "Nachttischlampe"}, "light.bed_light", "on"),
    ("HassTurnOn", {"name": "Lampe de chevet"}, "light.bed_light", "on"),
    ("HassTurnOn", {"name": "Wasserkocher", "domain": ["switch"]}, "switch.kettle", "on"),
    ("HassTurnOn", {"name": "Bouilloire"}, "switch.kettle", "on"),
    ("HassTurnOn", {"name": "Réveil"}, "input_boolean.wake_up", "on"),
    # By area, by area and domain, by floor (the Ground floor also holds the lock's Hall and the
    # Garage: the domain keeps them out).
    ("HassTurnOn", {"area": "Küche", "domain": ["light"]}, "light.kitchen_lights", "on"),
    ("HassTurnOn", {"area": "Cuisine"}, "light.kitchen_lights", "on"),
    ("HassTurnOn", {"area": "Living Room", "domain": ["light"]}, "light.living_lights", "on"),
    ("HassTurnOn", {"floor": "Erdgeschoss", "domain": ["light"]}, "light.kitchen_lights", "on"),
    (
        "HassTurnOn",
        {"floor": "Rez-de-chaussée", "domain": ["light"]},
        "light.living_room_rgbww_lights",
        "on",
    ),
    # With a device class.
    (
        "HassTurnOn",
        {"area": "Hall", "domain": ["cover"], "device_class": ["window"]},
        "cover.hall_window",
        "opening",
    ),
    ("HassLightSet", {"name": "Küchenlicht", "brightness": 40}, "light.kitchen_lights", "on"),
    (
        "HassLightSet",
        {"area": "Salon", "color": "blue"},
        attribute("light.living_room_rgbww_lights", "rgb_color"),
        (0, 0, 255),
    ),
    (
        "HassClimateSetTemperature",
        {"name": "Hall", "temperature": 19},
        attribute("climate.hall", "temperature"),
        19,
    ),
    (
        "HassClimateSetTemperature",
        {"name": "hall", "temperature": 20.5},
        attribute("climate.hall", "temperature"),
        20.5,
    ),
    ("HassSetPosition", {"name": "Flurfenster", "position": 30}, "cover.hall_window", "opening"),
    ("HassMediaUnpause", {"name": "Living Room"}, LIVING_ROOM_TV, "playing"),
    (
        "HassLightSet",
        {"area": "Wohnzimmer", "brightness": 50},
        "light.living_room_rgbww_lights",
        "on",
    ),
    ("HassMediaPause", {"name": "Kitchen"}, "media_player.kitchen", "paused"),
    ("HassSetVolume", {"name": "Kitchen", "volume_level": 30}, volume("media_player.kitchen"), 0.3),
    (
        "HassMediaPlayerMute",
        {"name": "Kitchen"},
        attribute("media_player.kitchen", "is_volume_muted"),
        True,
    ),
    (
        "HassMediaPlayerUnmute",
        {"name": "Kitchen"},
        attribute("media_player.kitchen", "is_volume_muted"),
        False,
    ),
    ("HassMediaNext", {"name": "Kitchen"}, "media_player.kitchen", "playing"),
    ("HassMediaPrevious", {"name": "Kitchen"}, "media_player.kitchen", "playing"),
    (
        "HassSetVolumeRelative",
        {"name": "Kitchen", "volume_step": "down"},
        volume("media_player.kitchen"),
        0.9,
    ),
    ("HassTurnOn", {"area": "Hall", "domain": ["cover"]}, "cover.hall_window", "opening"),
    ("HassStopMoving", {"name": "Hall Window"}, "cover.hall_window", "open"),
    ("HassTurnOff", {"name": "all", "domain": ["light"]}, "light.bed_light", "off"),
    ("HassCancelAllTimers", {}, "light.bed_light", "off"),
    # The thermostat shares its name with the hall (an area that holds the back door's lock).
    ("HassTurnOff", {"name": "Hall"}, "climate.hall", "off"),
    ("HassTurnOn", {"name": "Living Lights"}, "light.living_room_rgbww_lights", "on"),
]


@pytest.mark.parametrize("everyday", EVERYDAY, ids=[call_id(*case[:2]) for case in EVERYDAY])
async def test_an_everyday_intent_runs_at_once_and_is_said_truly(
    hass: HomeAssistant, assist_house: Scene, everyday: Everyday
) -> None:
    """The model says nothing after the call: what the agent says is true."""
    tool, arguments, changed, expected = everyday
    agent = await assist_house.agent_with(ASSIST)

    result = await assist_house.ask_to_call(agent, tool, arguments, answer(""))

    assert not asked(result), speech(result)
    assert result.response.response_type is ACTION_DONE, speech(result)
    assert "could not" not in speech(result), speech(result)
    assert read(hass, changed) == expected


def items(hass: HomeAssistant) -> list[str]:
    (entry,) = hass.config_entries.async_entries("shopping_list")
    return [item["name"] for item in entry.runtime_data.items]


# A shopping list, by its name in three languages' spelling.
LIST: Final[list[Everyday]] = [
    ("HassListAddItem", {"name": "Shopping List", "item": "Milch"}, items, ["Milch"]),
    ("HassListAddItem", {"name": "shopping list", "item": "lait"}, items, ["Lait"]),
]


@pytest.mark.parametrize("listing", LIST, ids=[call_id(*case[:2]) for case in LIST])
async def test_an_item_goes_on_the_list_at_once(
    hass: HomeAssistant, assist_house: Scene, listing: Everyday
) -> None:
    tool, arguments, changed, expected = listing
    agent = await assist_house.agent_with(ASSIST)
    assist_house.worker.will_write(tool_call(tool, **arguments), answer(""))

    result = await agent.ask("do it", context=assist_house.person, device_id=timer_device(hass))

    assert not asked(result), speech(result)
    assert result.response.response_type is ACTION_DONE, speech(result)
    assert speech(result) == "Done."
    assert read(hass, changed) == expected


def running_timers(hass: HomeAssistant) -> dict[str, bool]:
    """The satellite's timers by name: whether each is running."""
    manager: TimerManager = hass.data[TIMER_DATA]
    return {t.name or "": t.is_active for t in manager.timers.values()}


# A timer's life on a satellite, one request after another: (tool, arguments, timers after).
TIMER_STEPS: Final[list[tuple[str, dict[str, Any], dict[str, bool]]]] = [
    ("HassStartTimer", {"minutes": 10, "name": "pasta"}, {"pasta": True}),
    ("HassPauseTimer", {"name": "pasta"}, {"pasta": False}),
    ("HassUnpauseTimer", {"name": "pasta"}, {"pasta": True}),
    ("HassIncreaseTimer", {"name": "pasta", "minutes": 2}, {"pasta": True}),
    ("HassDecreaseTimer", {"name": "pasta", "minutes": 1}, {"pasta": True}),
    ("HassCancelTimer", {"name": "pasta"}, {}),
    ("HassStartTimer", {"minutes": 3}, {"": True}),
    ("HassCancelAllTimers", {}, {}),
]


async def test_a_timer_on_a_satellite_runs_at_once(
    hass: HomeAssistant, assist_house: Scene
) -> None:
    agent = await assist_house.agent_with(ASSIST)
    device = timer_device(hass)
    for tool, arguments, after in TIMER_STEPS:
        assist_house.worker.will_write(tool_call(tool, **arguments), answer(""))
        result = await agent.ask("do it", context=assist_house.person, device_id=device)

        assert speech(result) == "Done.", (tool, speech(result))
        assert result.response.response_type is ACTION_DONE, tool
        assert running_timers(hass) == after, tool


def shopping(hass: HomeAssistant) -> dict[str, bool]:
    """The shopping list's items: whether each is done."""
    (entry,) = hass.config_entries.async_entries("shopping_list")
    return {item["name"]: item["complete"] for item in entry.runtime_data.items}


# Requests one after another, each with what it leaves: (tool, arguments, reader, value after).
SEQUENCES: Final[dict[str, list[Everyday]]] = {
    # The living room TV plays (a snapshot of the lights, then dimmed) and pauses (the
    # snapshot comes back): the automations around it change lights only.
    "the movie": [
        ("HassMediaUnpause", {"name": "Living Room"}, LIVING_ROOM_TV, "playing"),
        ("HassMediaPause", {"name": "Living Room"}, LIVING_ROOM_TV, "paused"),
        ("HassMediaUnpause", {"name": "Living Room"}, LIVING_ROOM_TV, "playing"),
    ],
    "the shopping list": [
        ("HassListAddItem", {"name": "Shopping List", "item": "Brot"}, shopping, {"Brot": False}),
        (
            "HassListCompleteItem",
            {"name": "Shopping List", "item": "Brot"},
            shopping,
            {"Brot": True},
        ),
        (
            "HassListAddItem",
            {"name": "Shopping List", "item": "pain"},
            shopping,
            {"Brot": True, "Pain": False},
        ),
        ("HassListRemoveItem", {"name": "Shopping List", "item": "pain"}, shopping, {"Brot": True}),
    ],
}


@pytest.mark.parametrize("sequence", SEQUENCES)
async def test_requests_one_after_another_run_at_once(
    hass: HomeAssistant, assist_house: Scene, sequence: str
) -> None:
    agent = await assist_house.agent_with(ASSIST)
    for tool, arguments, changed, expected in SEQUENCES[sequence]:
        result = await assist_house.ask_to_call(agent, tool, arguments, answer(""))

        assert speech(result) == "Done.", (tool, speech(result))
        assert result.response.response_type is ACTION_DONE, tool
        assert read(hass, changed) == expected, tool


SENSITIVE: Final[list[tuple[str, dict[str, Any]]]] = [
    ("HassTurnOff", {"name": "Front Door"}),
    # Locking the locked Front Door is said "already", as our lock tool says it (test_safety).
    ("HassTurnOn", {"name": "Garage Door"}),
    ("HassTurnOn", {"area": "Garage"}),
    ("HassTurnOn", {"area": "Hall"}),
    ("HassTurnOn", {"name": "all", "domain": ["cover"]}),
    ("HassTurnOff", {"floor": "Rez-de-chaussée", "domain": ["lock"]}),
    ("HassTurnOn", {"floor": "Erdgeschoss", "domain": ["valve"]}),
    ("HassSetPosition", {"name": "Orchard", "position": 50}),
    ("HassSetPosition", {"area": "Garage", "position": 100}),
    ("HassStopMoving", {"name": "Garage Door"}),
    ("HassTurnOff", {"name": "Security"}),
    ("HassTurnOn", {"name": "Security"}),
    # By their German and French names.
    ("HassTurnOff", {"name": "Hintertür"}),
    ("HassTurnOff", {"name": "Porte arrière", "domain": ["lock"]}),
    ("HassTurnOn", {"name": "Garagentor"}),
    ("HassSetPosition", {"name": "Porte du garage", "position": 100}),
    ("HassTurnOn", {"name": "Obstgarten"}),
    ("HassSetPosition", {"name": "Verger", "position": 30}),
    ("HassTurnOn", {"area": "Flur"}),
    ("HassTurnOff", {"area": "Couloir", "domain": ["lock"]}),
]


@pytest.mark.parametrize(("tool", "arguments"), SENSITIVE, ids=[call_id(*c) for c in SENSITIVE])
async def test_the_lock_garage_alarm_and_valve_beside_them_still_ask(
    assist_house: Scene, tool: str, arguments: dict[str, Any]
) -> None:
    await still_asks(assist_house, (ASSIST, tool, arguments), answer("Done."))


# --- A helper Home Assistant knows by no name -------------------------------------------------
# A YAML helper written without `name:` ("input_boolean: guest_mode:") has a registry entry
# and no name at all: Assist's intents match names and aliases only, so "turn on guest mode"
# matches nothing (Home Assistant's own behaviour, not the gate's), and Assist's overview lists
# it as "names: ''". The agent says what did not work and, to the person, why and how to fix it.
NAMELESS: Final[list[tuple[str, str, str, str]]] = [
    (
        "en",
        "turn on guest mode",
        "Guest mode",
        "I could not turn on Guest mode. Guest mode: no name in Home Assistant, and Assist"
        " finds entities by their names only. To let me control an entity, give it a name"
        " under Settings > Devices & services > Entities.",
    ),
    # The model's call names it; the person's words are their own language's.
    (
        "de",
        "Schalte den Gästemodus ein",
        "guest mode",
        "Das ging nicht: guest mode einschalten. Guest mode: kein Name in Home Assistant, und"
        " Assist findet Entitäten nur über ihre Namen. Damit ich eine Entität steuern kann,"
        " gib ihr unter Einstellungen > Geräte & Dienste > Entitäten einen Namen.",
    ),
    (
        "fr",
        "active le mode guest mode",
        "Guest Mode",
        "Je n'ai pas pu allumer Guest Mode. Guest mode\u00a0: aucun nom dans Home Assistant,"
        " et Assist ne trouve les entités que par leur nom. Pour me permettre de contrôler"
        " une entité, donnez-lui un nom dans Paramètres > Appareils et services > Entités.",
    ),
]


@pytest.mark.parametrize(
    ("language", "said", "name", "answered"), NAMELESS, ids=[c[0] for c in NAMELESS]
)
async def test_a_helper_without_a_name_is_said_to_need_one(
    hass: HomeAssistant,
    assist_house: Scene,
    language: str,
    said: str,
    name: str,
    answered: str,
) -> None:
    agent = await assist_house.agent_with(ASSIST)
    assist_house.worker.will_write(tool_call("HassTurnOn", name=name), answer(""))

    result = await agent.ask(said, context=assist_house.person, language=language)

    assert speech(result) == answered
    assert result.response.response_type is ERROR
    assert state(hass, "input_boolean.guest_mode") == "off"


async def test_a_helper_with_a_name_or_our_tools_get_no_such_hint(
    hass: HomeAssistant, assist_house: Scene
) -> None:
    """A named switch that did not work for another reason; a nameless helper known by an
    alias of those words; an agent with our own tools (which reach a helper by its entity
    id): no word about names."""
    agent = await assist_house.agent_with(ASSIST)
    assist_house.worker.will_write(
        tool_call("HassLightSet", name="Kettle", brightness=20), answer("")
    )
    result = await agent.ask("set the kettle to 20", context=assist_house.person)
    assert speech(result) == "I could not turn on Kettle at 20%."

    # Words of a longer name the person said ("guest mode lamp") are that one's.
    await template_helper(
        hass, {"template_type": "light", "name": "Guest Mode Lamp", "turn_on": [], "turn_off": []}
    )
    assist_house.worker.will_write(
        tool_call("HassTurnOn", name="Guest mode lamp", domain=["switch"]), answer("")
    )
    result = await agent.ask("turn on the guest mode lamp", context=assist_house.person)
    assert speech(result) == "I could not turn on Guest mode lamp."

    er.async_get(hass).async_update_entity(
        "input_boolean.guest_mode", aliases=[er.COMPUTED_NAME, "Guest Mode"]
    )
    assist_house.worker.will_write(tool_call("HassLightSet", name="Guest mode"), answer(""))
    result = await agent.ask("guest mode", context=assist_house.person)
    assert speech(result) == "I could not turn on Guest mode."

    ours = await assist_house.agent_with("our tools")
    assist_house.worker.will_write(answer("Which one?"))
    result = await ours.ask("turn on guest mode", context=assist_house.person)
    assert speech(result) == "Which one?"


# --- What the model is told -------------------------------------------------------------------


async def test_the_default_rules_speak_of_the_tools_the_agent_offers(
    hass: HomeAssistant, assist_house: Scene
) -> None:
    """With Assist's tools only there is no tool per domain and no entity id: the default rules
    must not send the model looking for them (it would call a tool that is not there)."""
    for tools, ours in ((ASSIST, False), ("our tools", True)):
        agent = await assist_house.agent_with(tools)
        assist_house.worker.will_write(answer("Hello."))
        await agent.ask("hello", context=assist_house.person)

        system = assist_house.worker.requests[-1].static_prompt
        assert ("named after its domain" in system) is ours, tools
        assert ("entity_id" in system.split("<tools>")[-1].split("</tools>")[-1]) is ours, tools
        assert "never pretend" in system


# --- A request that worked for some of its devices --------------------------------------------
# Home Assistant's handler calls each matched entity and reports those whose call raised (a
# bulb that does not answer) apart: said beside "Done", never hidden by it. Not by name: 2026.10's
# handler pairs entities with calls in the order the calls finish, so the names it reports as
# failed may be the wrong ones (its log named the kitchen lights for the living room's bulb).
PARTLY: Final[list[tuple[str, str, dict[str, Any], str]]] = [
    (
        "en",
        "",
        {"floor": "Ground", "domain": ["light"]},
        "Done. It did not work on every device.",
    ),
    (
        "de",
        "",
        {"floor": "Erdgeschoss", "domain": ["light"]},
        "Erledigt. Es hat nicht bei jedem Gerät geklappt.",
    ),
    (
        "fr",
        "C'est fait.",
        {"floor": "Rez-de-chaussée", "domain": ["light"]},
        "Cela n'a pas marché sur tous les appareils. C'est fait.",
    ),
    (
        "en",
        "The lights are on.",
        {"name": "all", "domain": ["light"]},
        "It did not work on every device. The lights are on.",
    ),
]


@pytest.mark.parametrize(
    ("language", "after", "arguments", "said"),
    PARTLY,
    ids=[f"{c[0]}-{'-'.join(map(str, c[2].values()))}" for c in PARTLY],
)
async def test_what_did_not_work_beside_what_did_is_said(
    hass: HomeAssistant,
    assist_house: Scene,
    monkeypatch: pytest.MonkeyPatch,
    language: str,
    after: str,
    arguments: dict[str, Any],
    said: str,
) -> None:
    turn_on = DemoLight.async_turn_on

    async def dead_bulb(light: DemoLight, **kwargs: Any) -> None:
        if light.entity_id == "light.living_room_rgbww_lights":
            raise HomeAssistantError("The bulb does not answer")
        await turn_on(light, **kwargs)

    monkeypatch.setattr(DemoLight, "async_turn_on", dead_bulb)
    agent = await assist_house.agent_with(ASSIST)
    assist_house.worker.will_write(tool_call("HassTurnOn", **arguments), answer(after))

    result = await agent.ask("lights on", context=assist_house.person, language=language)

    assert speech(result) == said
    assert result.response.response_type is ACTION_DONE
    assert state(hass, "light.kitchen_lights") == "on"


@pytest.mark.parametrize(
    ("language", "yes", "said"),
    [
        ("en", "yes", "Done: open Garage Door. It did not work on every device."),
        ("de", "ja", "Erledigt: Garage Door öffnen. Es hat nicht bei jedem Gerät geklappt."),
    ],
)
async def test_a_confirmed_call_that_worked_for_some_devices_says_so(
    hass: HomeAssistant,
    assist_house: Scene,
    monkeypatch: pytest.MonkeyPatch,
    language: str,
    yes: str,
    said: str,
) -> None:
    """ "Open all covers": the garage door is asked about; after the yes the hall window is
    stuck. The answer names what was asked about, and says not every device did it."""
    opens = DemoCover.async_open_cover

    async def stuck_window(cover: DemoCover, **kwargs: Any) -> None:
        if cover.entity_id == "cover.hall_window":
            raise HomeAssistantError("The window motor does not answer")
        await opens(cover, **kwargs)

    monkeypatch.setattr(DemoCover, "async_open_cover", stuck_window)
    agent = await assist_house.agent_with(ASSIST)
    assist_house.worker.will_write(tool_call("HassTurnOn", name="all", domain=["cover"]))
    question = await agent.ask("open all covers", context=assist_house.person, language=language)
    assert question.continue_conversation is True, speech(question)

    reply = await assist_house.reply(agent, question, yes, language=language)

    assert speech(reply) == said
    assert reply.response.response_type is ACTION_DONE
    assert state(hass, "cover.garage_door") in ("open", "opening")


# From the voice satellite in the Garage, without a name or an area: Home Assistant prefers what
# is in the satellite's area, else takes every match. (tool, arguments, asked, entity, after)
SATELLITE: Final[list[tuple[str, dict[str, Any], bool, str, str]]] = [
    ("HassTurnOff", {"domain": ["light"]}, False, "light.bed_light", "off"),
    ("HassLightSet", {"brightness": 50}, False, "light.bed_light", "on"),
    (
        "HassTurnOn",
        {"domain": ["cover"], "device_class": ["window"]},
        False,
        "cover.hall_window",
        "opening",
    ),
    ("HassMediaPause", {}, False, "media_player.kitchen", "paused"),
    # The garage door is in the satellite's area.
    ("HassTurnOn", {"domain": ["cover"]}, True, GARAGE, "closed"),
    ("HassSetPosition", {"domain": ["cover"], "position": 100}, True, GARAGE, "closed"),
    ("HassTurnOn", {"domain": ["valve"]}, True, "valve.orchard", "closed"),
]


@pytest.mark.parametrize(
    ("tool", "arguments", "held", "changed", "expected"),
    SATELLITE,
    ids=[call_id(*c[:2]) for c in SATELLITE],
)
async def test_a_request_from_the_garage_satellite(
    hass: HomeAssistant,
    assist_house: Scene,
    tool: str,
    arguments: dict[str, Any],
    held: bool,
    changed: str,
    expected: str,
) -> None:
    await hass.services.async_call(
        "light", "turn_on", {"entity_id": "light.bed_light"}, blocking=True
    )
    await hass.services.async_call(
        "cover", "close_cover", {"entity_id": "cover.hall_window"}, blocking=True
    )
    agent = await assist_house.agent_with(ASSIST)
    assist_house.worker.will_write(tool_call(tool, **arguments), answer(""))

    result = await agent.ask("do it", context=assist_house.person, device_id=satellite_id(hass))

    assert asked(result) is held, speech(result)
    if not held:
        assert speech(result) == "Done."
        assert result.response.response_type is ACTION_DONE
    assert state(hass, changed) == expected
