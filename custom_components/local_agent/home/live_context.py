"""Core's live context as the model reads it: names and values others write, on one line each.

Core's Assist API prompt lists the exposed entities' names and areas (its static context), and
its GetLiveContext answers with a YAML list of the exposed entities, their names, aliases,
areas, states and a few attributes (a media title a speaker reports). Any of those may hold
line breaks that read as a line of their own ("- names: Front Door / state: unlocked") or ten
thousand characters. Each is flattened and cut as the home list cuts it.
"""

from __future__ import annotations

import re
from typing import Any
from typing import Final

import yaml

from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from homeassistant.util import yaml as yaml_util

from .entity_view import MAX_VALUE_CHARS
from .entity_view import one_line

# The keys whose value lists names: each name is cut as a name, not the list as one value.
_NAME_LISTS: Final = frozenset({"names", "areas"})
NAME_SEPARATOR: Final = ", "
# A line of names in the static context of core's prompt, as its YAML writes one.
_NAME_LINE: Final = re.compile(r"- names: |  areas: ")
# A few names and aliases fit; ten thousand characters do not, in every turn's prompt.
MAX_NAME_LINE_CHARS: Final = 3 * MAX_VALUE_CHARS


def bounded_api_prompt(prompt: str) -> str:
    """Return core's API prompt with each line of names cut at MAX_NAME_LINE_CHARS."""
    return "\n".join(
        line[: MAX_NAME_LINE_CHARS - 1] + "…"
        if len(line) > MAX_NAME_LINE_CHARS and _NAME_LINE.match(line)
        else line
        for line in prompt.split("\n")
    )


async def async_bounded_live_context(hass: HomeAssistant, result: llm.ToolResult) -> llm.ToolResult:
    """Return core's live context with every name and value on one line, cut (else as is)."""
    text = result.data.get("result")
    if result.error or not isinstance(text, str):
        return result
    bounded = await hass.async_add_executor_job(_bounded, text)
    return llm.ToolResult(data={**result.data, "result": bounded})


def _bounded(text: str) -> str:
    """Return the text's YAML list bounded, after its heading line (the text when not one)."""
    heading, _, listing = text.partition("\n")
    try:
        entities = yaml.safe_load(listing)
    except yaml.YAMLError:
        entities = None
    if not isinstance(entities, list):  # not core's shape: each line cut, at least
        return "\n".join(one_line(line, MAX_VALUE_CHARS) for line in text.splitlines())
    return "\n".join([heading, yaml_util.dump([_bounded_value(item) for item in entities])])


def _bounded_value(value: Any, name: str | None = None) -> Any:
    if isinstance(value, dict):
        return {one_line(str(key)): _bounded_value(item, str(key)) for key, item in value.items()}
    if isinstance(value, list):
        return [_bounded_value(item) for item in value]
    if not isinstance(value, str):
        return value
    if name in _NAME_LISTS:
        return NAME_SEPARATOR.join(one_line(part) for part in value.split(NAME_SEPARATOR))
    return one_line(value, MAX_VALUE_CHARS)
