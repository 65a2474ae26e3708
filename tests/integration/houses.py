"""What the everyday houses' tests share: their request tables' rows, reading what a request
changed, placing entities in areas, another integration's service, and the set-up blocks
their houses have in common (a YAML integration, Anna, a light group, old-style groups).

A row of a request table is (tools, tool, arguments, what changes, what it reads after): the
agent is given `tools` (ours or Assist's), the model calls `tool` with `arguments`, and what
changes (an entity, whose state is read, or a reader of anything else) reads the value after.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from typing import Final
from typing import Protocol
from unittest.mock import patch

from homeassistant.components import conversation
from homeassistant.core import HomeAssistant
from homeassistant.core import ServiceCall
from homeassistant.helpers import entity_registry as er
from homeassistant.setup import async_setup_component
from testing.home_builder import async_area
from testing.home_builder import async_place_in_area

from .conftest import Agent
from .conftest import speech
from .conftest import state
from .scene import tool_results
from .test_redteam import asked
from .test_redteam import set_up_helper

# The demo house's entities that an everyday house's programs lock, open or arm.
FRONT_DOOR: Final = "lock.front_door"
GARAGE: Final = "cover.garage_door"
ALARM: Final = "alarm_control_panel.security"

OURS: Final = "our tools"
ASSIST: Final = "assist"

Reader = Callable[[HomeAssistant], Any]
# (tools, tool, arguments, what changes: entity or reader, and what it reads after)
Request = tuple[str, str, dict[str, Any], str | Reader, Any]
# (tools, tool, arguments): a request that must still ask
Asking = tuple[str, str, dict[str, Any]]


class House(Protocol):
    """A house the agents are asked in (a Scene, say): an agent with some tools, and a request
    that the model answers with a call of one of them."""

    hass: HomeAssistant

    async def agent_with(self, tools: str) -> Agent: ...

    async def ask_to_call(
        self, agent: Agent, suffix: str, arguments: dict[str, Any], *after: str
    ) -> conversation.ConversationResult: ...


def our_call(action: str, entity_id: str, **data: Any) -> Asking:
    """A call of our tool for the entity's domain (one a domain): `action` on it, with `data`."""
    return (
        OURS,
        entity_id.split(".", maxsplit=1)[0],
        {"action": action, "entity_id": entity_id, **data},
    )


def intent_call(intent_type: str, /, **slots: Any) -> Asking:
    """A call of Assist's tool for the intent, with its slots."""
    return (ASSIST, intent_type, slots)


def ours(
    action: str, entity_id: str, expected: Any, changed: str | Reader | None = None, **data: Any
) -> Request:
    """A request through our tools: `action` on the entity (with `data`), after which
    `changed` (the entity itself unless named) reads `expected`."""
    return (
        *our_call(action, entity_id, **data),
        entity_id if changed is None else changed,
        expected,
    )


def sets(action: str, entity_id: str, **data: Any) -> Request:
    """A request through our tools that sets an attribute of the entity: after it, the
    attribute named by the first of `data` has the value it was given."""
    name, value = next(iter(data.items()))
    return ours(action, entity_id, value, attribute(entity_id, name), **data)


def assist(intent_type: str, changed: str | Reader, expected: Any, /, **slots: Any) -> Request:
    """A request through Assist's tools: the intent with its slots, after which `changed`
    reads `expected`."""
    return (*intent_call(intent_type, **slots), changed, expected)


async def ask_for(house: House, request: Asking, *after: str) -> conversation.ConversationResult:
    """Ask an agent with the request's tools for it: the model calls the request's tool with
    its arguments, then writes `after`."""
    tools, tool, arguments = request
    return await house.ask_to_call(await house.agent_with(tools), tool, arguments, *after)


async def runs_at_once(house: House, everyday: Request, *after: str) -> None:
    """The request runs without a question, and what it changes reads what it should."""
    tools, tool, arguments, changed, expected = everyday
    result = await ask_for(house, (tools, tool, arguments), *after)
    assert not asked(result), (speech(result), tool_results(house.hass, result))
    assert read(house.hass, changed) == expected


async def still_asks(house: House, sensitive: Asking, *after: str) -> None:
    """The request is asked about first."""
    result = await ask_for(house, sensitive, *after)
    assert asked(result), (speech(result), tool_results(house.hass, result))


def call_id(tool: str, arguments: dict[str, Any]) -> str:
    """The tool and the values of its arguments: "light-turn_on-light.bed_light"."""
    return "-".join([tool, *(str(value) for value in arguments.values())])


def request_id(request: tuple[Any, ...]) -> str:
    """A request's call's id (its tool and the values of its arguments)."""
    return call_id(request[1], request[2])


def attribute(entity_id: str, name: str) -> Reader:
    """A reader of the entity's attribute."""

    def read(hass: HomeAssistant) -> Any:
        current = hass.states.get(entity_id)
        assert current is not None, entity_id
        return current.attributes.get(name)

    return read


def volume(entity_id: str) -> Reader:
    """A reader of a media player's volume."""
    return attribute(entity_id, "volume_level")


def temperature(entity_id: str) -> Reader:
    """A reader of a thermostat's target temperature."""
    return attribute(entity_id, "temperature")


def colour(entity_id: str) -> Reader:
    """A reader of a light's colour."""
    return attribute(entity_id, "rgb_color")


def act(action: str, entity_id: str | list[str] | None = None, **data: Any) -> dict[str, Any]:
    """An action step as the UI writes it: `target` and `data` apart."""
    step: dict[str, Any] = {"action": action, "metadata": {}, "data": data}
    if entity_id is not None:
        step["target"] = {"entity_id": entity_id}
    return step


def from_blueprint(alias: str, path: str, **inputs: Any) -> dict[str, Any]:
    """An automation named `alias`, made from the blueprint at `path` with these inputs."""
    return {
        "id": alias.lower().replace(" ", "_"),
        "alias": alias,
        "use_blueprint": {"path": path, "input": inputs},
    }


def is_state(entity_id: str, value: str) -> dict[str, Any]:
    """An automation's condition: `entity_id` is in state `value`."""
    return {"condition": "state", "entity_id": entity_id, "state": value}


def template(text: str) -> dict[str, Any]:
    """A template condition."""
    return {"condition": "template", "value_template": text}


def read(hass: HomeAssistant, changed: str | Reader) -> Any:
    """The state of the entity, or what the reader reads."""
    return state(hass, changed) if isinstance(changed, str) else changed(hass)


def place(hass: HomeAssistant, area_name: str, *entity_ids: str) -> None:
    """Put the entities (their devices, where they have one) in the area, made if need be."""
    area_id = async_area(hass, area_name)
    for entity_id in entity_ids:
        assert er.async_get(hass).async_get(entity_id) is not None, entity_id
        async_place_in_area(hass, entity_id, area_id)


def another_integrations_service(hass: HomeAssistant, domain: str, service: str) -> None:
    """Register `domain.service` as another integration would: what it does is its own."""

    def handle(call: ServiceCall) -> None:
        """Another integration's service: what it does is its own."""

    hass.services.async_register(domain, service, handle)


async def set_up_house_mode(hass: HomeAssistant, options: list[str], initial: str) -> None:
    """The house mode select (input_select.house_mode, "House mode") with these options."""
    assert await async_setup_component(
        hass,
        "input_select",
        {
            "input_select": {
                "house_mode": {"name": "House mode", "options": options, "initial": initial}
            }
        },
    )


async def set_up(hass: HomeAssistant, domain: str, config: Any) -> None:
    """Set `domain` up from `config`, what configuration.yaml holds under `domain:`."""
    assert await async_setup_component(hass, domain, {domain: config})


# The demo's two living room lights, which a "Living Room" light group holds.
LIVING_ROOM_LIGHTS: Final = ("light.living_room_rgbww_lights", "light.ceiling_lights")
# The living room's movie scene: one light dimmed, the other off, the window's blind closed.
MOVIE_SCENE: Final = {
    "id": "movie",
    "name": "Movie",
    "entities": {
        "light.living_room_rgbww_lights": {"state": "on", "brightness": 40},
        "light.ceiling_lights": "off",
        "cover.living_room_window": "closed",
    },
}


def comfort_temperature(*, up_to: float) -> dict[str, Any]:
    """The comfort temperature number (from 15 to `up_to`, by halves, at 21 to start)."""
    return {"name": "Comfort temperature", "min": 15, "max": up_to, "step": 0.5, "initial": 21}


async def set_up_anna(hass: HomeAssistant) -> None:
    """Anna, who lives in the house (person.anna), tracked by device_tracker.anna."""
    await set_up(
        hass, "person", [{"id": "anna", "name": "Anna", "device_trackers": ["device_tracker.anna"]}]
    )


async def set_up_light_group(hass: HomeAssistant, name: str, *members: str) -> er.RegistryEntry:
    """A light group helper `name` (as the UI makes one) of `members`, which stay shown."""
    options = {"group_type": "light", "name": name, "entities": list(members)}
    return await set_up_helper(hass, "group", name, {**options, "hide_members": False})


async def set_up_yaml_groups(hass: HomeAssistant, groups: dict[str, Any]) -> None:
    """Old-style groups, as configuration.yaml holds them (`group:`), loaded by a reload."""
    assert await async_setup_component(hass, "group", {})
    with patch("homeassistant.config.load_yaml_config_file", return_value={"group": groups}):
        await hass.services.async_call("group", "reload", blocking=True)
