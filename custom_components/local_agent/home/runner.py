"""Runs an allowed call: the one path for calls run at once and for calls confirmed later."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import probatio

from homeassistant.core import Context, HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm

from .actions import PlannedAction, async_check_permission, async_execute, check_exposure

ASSISTANT = "conversation"


def error_result(message: str) -> llm.ToolResult:
    """Return a failed call, with the reason the model (or the user) reads."""
    return llm.ToolResult(data={"error": message}, error=True)


def error_text(result: llm.ToolResult) -> str | None:
    """Return why a call failed, or None when it succeeded."""
    if not result.error:
        return None
    return str(result.data.get("error", result.data))


async def async_run_home_action(
    hass: HomeAssistant, planned: PlannedAction, context: Context
) -> llm.ToolResult:
    """Run a planned call of our own tools, checking exposure and permission at this moment."""
    if problem := check_exposure(hass, planned, ASSISTANT):
        return error_result(problem)
    if problem := await async_check_permission(hass, planned, context.user_id):
        return error_result(problem)
    outcome = await async_execute(hass, planned, context)
    return llm.ToolResult(data=outcome.data, error=not outcome.success)


async def async_run_api_tool(
    api: llm.APIInstance, tool_name: str, arguments: Mapping[str, Any]
) -> llm.ToolResult:
    """Run a tool of a Home Assistant LLM API (such as Assist's intents); never raises."""
    try:
        return await api.async_call_tool(
            llm.ToolInput(tool_name=tool_name, tool_args=dict(arguments))
        )
    except (HomeAssistantError, probatio.Invalid) as err:
        return error_result(str(err) or type(err).__name__)
