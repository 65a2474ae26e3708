"""Tools for engine tests, written as the properties of their object of parameters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from custom_components.local_agent.engine.types import ToolSpec


def object_tool(
    name: str, description: str, properties: dict[str, Any], required: Sequence[str] = ()
) -> ToolSpec:
    """A tool whose parameters are a JSON schema object of these properties, the named ones
    required (no "required" list when none is)."""
    parameters: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        parameters["required"] = list(required)
    return ToolSpec(name=name, description=description, parameters=parameters)
