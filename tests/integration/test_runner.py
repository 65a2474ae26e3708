"""The one runner: checks (exposure, permission, availability) and runs, with the user's context."""

from __future__ import annotations

from typing import Any

from pytest_homeassistant_custom_component.common import MockUser

from custom_components.local_agent.home.runner import Problem
from custom_components.local_agent.home.runner import RunResult
from custom_components.local_agent.home.runner import async_check
from custom_components.local_agent.home.runner import async_run
from custom_components.local_agent.home.tools import GET_STATE
from custom_components.local_agent.home.tools import HomeTools
from custom_components.local_agent.home.tools import PlannedAction
from custom_components.local_agent.home.tools import async_build_home_tools
from custom_components.local_agent.home.turn_context import TurnContext
from custom_components.local_agent.turn.agent import async_turn_context
from homeassistant.components import conversation
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.components.todo.const import DATA_COMPONENT as TODO_COMPONENT
from homeassistant.components.todo.const import TodoItemStatus
from homeassistant.components.todo.entity import TodoItem
from homeassistant.components.todo.entity import TodoListEntity
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component

from .agents import state
from .conftest import plan

UPDATE = "update.demo_add_on"


async def turn_of(hass: HomeAssistant, user_id: str | None = None) -> TurnContext:
    """The turn of a user (None: an automation)."""
    user_input = conversation.ConversationInput(
        text="",
        context=Context(user_id=user_id),
        conversation_id=None,
        device_id=None,
        satellite_id=None,
        language="en",
        agent_id="conversation.local_agent",  # any agent: the turn context does not read it
    )
    return await async_turn_context(hass, user_input, "conversation-1")


def listed(run: RunResult) -> list[Any]:
    """The entities a tool result lists."""
    entities = run.result.data["entities"]
    assert isinstance(entities, list), run.result.data
    return entities


def error(run: RunResult) -> str:
    """The error a tool result gives."""
    message = run.result.data["error"]
    assert isinstance(message, str), run.result.data
    return message


async def refusal(hass: HomeAssistant, action: PlannedAction, user_id: str | None) -> str | None:
    found = await async_check(hass, action, await turn_of(hass, user_id))
    return None if found is None else found.message


async def test_run_changes_state_and_reports_it(hass: HomeAssistant, tools: HomeTools) -> None:
    turn = await turn_of(hass)
    action = plan(tools, "light", action="turn_on", entity_id="light.bed_light", brightness_pct=40)
    run = await async_run(hass, action, turn)
    assert run.error is None
    [entity] = listed(run)
    assert (entity["entity_id"], entity["state"], entity["brightness_pct"]) == (
        "light.bed_light",
        "on",
        40,
    )
    assert state(hass, "light.bed_light") == "on"

    unlock = plan(tools, "lock", action="unlock", entity_id="lock.front_door")
    run = await async_run(hass, unlock, turn, verify=True)
    assert run.error is None
    assert listed(run)[0]["state"] == "unlocked"

    read = plan(tools, GET_STATE, entity_id="cover.hall_window")
    run = await async_run(hass, read, turn)
    assert run.result.data == {
        "entities": [
            {
                "entity_id": "cover.hall_window",
                "name": "Hall Window",
                "state": "open",
                "position": 10,
            }
        ]
    }


async def test_run_reports_service_errors(hass: HomeAssistant, demo_home: None) -> None:
    turn = await turn_of(hass)
    unsupported = PlannedAction(
        "cover", "cover", "set_cover_position", ("cover.kitchen_window",), {"position": 5}
    )
    run = await async_run(hass, unsupported, turn)
    assert run.problem is Problem.FAILED
    assert "cover.kitchen_window" in error(run)
    assert "set_cover_position" in error(run)

    missing = PlannedAction("cover", "cover", "fly", ("cover.hall_window",))
    run = await async_run(hass, missing, turn)
    assert run.result.data == {"error": "The action cover.fly does not exist."}

    invalid = PlannedAction(
        "light", "light", "turn_on", ("light.bed_light",), {"brightness_pct": 900}
    )
    run = await async_run(hass, invalid, turn)
    assert run.problem is Problem.FAILED
    assert "brightness_pct" in error(run)


async def test_read_only_user_may_not_control(
    hass: HomeAssistant, tools: HomeTools, hass_read_only_user: MockUser
) -> None:
    action = plan(tools, "light", action="turn_on", entity_id="light.bed_light")
    assert await refusal(hass, action, hass_read_only_user.id) == (
        "You are not allowed to control Bed Light."
    )

    run = await async_run(hass, action, await turn_of(hass, hass_read_only_user.id))
    assert run.problem is Problem.NOT_ALLOWED
    assert run.result.data == {"error": "You are not allowed to control Bed Light."}
    assert state(hass, "light.bed_light") == "off"

    read = plan(tools, GET_STATE, entity_id="light.bed_light")
    assert await refusal(hass, read, hass_read_only_user.id) is None


async def test_entity_policy_is_respected(hass: HomeAssistant, tools: HomeTools) -> None:
    user = MockUser().add_to_hass(hass)
    user.mock_policy({"entities": {"entity_ids": {"light.bed_light": True}}})
    light = plan(tools, "light", action="turn_on", entity_id="light.bed_light")
    unlock = plan(tools, "lock", action="unlock", entity_id="lock.front_door")

    assert await refusal(hass, light, user.id) is None
    assert await refusal(hass, unlock, user.id) == "You are not allowed to control Front Door."
    run = await async_run(hass, unlock, await turn_of(hass, user.id))
    assert run.result.data == {"error": "You are not allowed to control Front Door."}
    assert state(hass, "lock.front_door") == "locked"


async def test_admin_only_services_are_refused_to_other_users(
    hass: HomeAssistant, tools: HomeTools, hass_admin_user: MockUser
) -> None:
    user = MockUser().add_to_hass(hass)
    user.mock_policy({"entities": {"all": True}})
    install = plan(tools, "update", action="install", entity_id=UPDATE)

    reason = await refusal(hass, install, user.id)
    assert reason is not None
    assert reason.endswith("only administrators may use update.install.")
    assert reason.startswith("You are not allowed to install")

    assert await refusal(hass, install, hass_admin_user.id) is None
    assert await refusal(hass, install, None) is None

    restart = PlannedAction("x", "homeassistant", "reload_core_config", ())
    reason = await refusal(hass, restart, user.id)
    assert reason is not None
    assert reason.endswith("only administrators may use homeassistant.reload_core_config.")


async def test_unknown_or_inactive_user_is_refused(hass: HomeAssistant, tools: HomeTools) -> None:
    action = plan(tools, "switch", action="turn_on", entity_id="switch.ac")
    assert await refusal(hass, action, "no-such-user") == (
        "The requesting user is unknown, so nothing was done."
    )
    inactive = MockUser(is_active=False).add_to_hass(hass)
    assert await refusal(hass, action, inactive.id) == (
        "The requesting user is not active, so nothing was done."
    )


async def test_exposure_and_availability_are_rechecked(
    hass: HomeAssistant, tools: HomeTools
) -> None:
    action = plan(tools, "lock", action="unlock", entity_id="lock.front_door")
    assert await refusal(hass, action, None) is None

    hass.states.async_set("lock.front_door", "unavailable", {"friendly_name": "Front Door"})
    assert await refusal(hass, action, None) == (
        "Front Door (lock.front_door) is unavailable right now."
    )
    read = plan(tools, GET_STATE, entity_id="lock.front_door")
    assert await refusal(hass, read, None) is None  # reading an unavailable entity is fine

    async_expose_entity(hass, "conversation", "lock.front_door", False)
    assert await refusal(hass, action, None) == (
        "lock.front_door is no longer exposed to the assistant."
    )
    run = await async_run(hass, action, await turn_of(hass))
    assert run.problem is Problem.NOT_EXPOSED


class ShoppingList(TodoListEntity):
    """A to-do list with two open items and one done."""

    _attr_name = "Shopping"
    _attr_unique_id = "shopping"

    def __init__(self) -> None:
        self._attr_todo_items = [
            TodoItem(summary="milk", uid="1", status=TodoItemStatus.NEEDS_ACTION),
            TodoItem(summary="bread", uid="2", status=TodoItemStatus.NEEDS_ACTION),
            TodoItem(summary="eggs", uid="3", status=TodoItemStatus.COMPLETED),
        ]


async def test_get_state_of_a_todo_list_reads_its_open_items(hass: HomeAssistant) -> None:
    assert await async_setup_component(hass, "todo", {})
    await hass.data[TODO_COMPONENT].async_add_entities([ShoppingList()])
    await hass.async_block_till_done()
    async_expose_entity(hass, "conversation", "todo.shopping", True)
    tools = await async_build_home_tools(hass)

    action = plan(tools, GET_STATE, entity_id="todo.shopping")
    run = await async_run(hass, action, await turn_of(hass))

    [summary] = listed(run)
    assert summary["state"] == "2"
    assert summary["items"] == ["milk", "bread"]
