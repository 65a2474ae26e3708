"""The answer to a plain action, written by the agent instead of a second model round.

When every call of a round was an action of our own tools that ran and succeeded, there is
nothing left for the model to decide: the agent says what was done ("Turned on Kitchen
Light.") from the calls and their results, and the turn ends a round earlier. A query
(get_state), an error, a held or refused call, a tool of a Home Assistant LLM API, or the
agent option *let the model phrase every answer* sends the results back to the model as
before. The sentence is the agent's answer in the chat log, so the history the next turn
shows the model is what was said.
"""

from __future__ import annotations

from collections.abc import Collection
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from typing import Final

from custom_components.local_agent.home.call_texts import join_names
from custom_components.local_agent.home.tools import GET_STATE
from homeassistant.components import conversation
from homeassistant.const import ATTR_ENTITY_ID

# What was done, by service; others read "ran <service> on".
_DONE: Final[Mapping[str, str]] = {
    "alarm_arm_away": "armed (away)",
    "alarm_arm_home": "armed (home)",
    "alarm_arm_night": "armed (night)",
    "alarm_disarm": "disarmed",
    "close_cover": "closed",
    "close_valve": "closed",
    "decrease_speed": "slowed down",
    "increase_speed": "sped up",
    "lock": "locked",
    "media_next_track": "skipped to the next track on",
    "media_pause": "paused",
    "media_play": "started playing",
    "media_previous_track": "went back a track on",
    "media_stop": "stopped",
    "open_cover": "opened",
    "open_valve": "opened",
    "press": "pressed",
    "return_to_base": "sent back to base",
    "select_option": "set",
    "set_cover_position": "set the position of",
    "set_hvac_mode": "set the mode of",
    "set_percentage": "set the speed of",
    "set_temperature": "set the temperature of",
    "set_value": "set",
    "start": "started",
    "stop": "stopped",
    "stop_cover": "stopped",
    "toggle": "toggled",
    "turn_off": "turned off",
    "turn_on": "turned on",
    "unlock": "unlocked",
    "volume_mute": "muted",
    "volume_set": "set the volume of",
}
_CALL_KEYS: Final = frozenset({"action", ATTR_ENTITY_ID})


@dataclass(frozen=True, slots=True)
class DoneAction:
    """One action of our tools that ran: the service, the entities' names, its fields."""

    service: str
    names: tuple[str, ...]
    fields: tuple[tuple[str, Any], ...]

    def text(self) -> str:
        """Say it: "turned on Kitchen Light (brightness_pct 40)"."""
        verb = _DONE.get(self.service, f"ran {self.service.replace('_', ' ')} on")
        shown = ", ".join(f"{key} {value}" for key, value in self.fields)
        return f"{verb} {join_names(self.names)}" + (f" ({shown})" if shown else "")


def done_actions(
    content: Sequence[conversation.Content], home_tools: Collection[str]
) -> list[DoneAction] | None:
    """Return the last round's actions if each was a successful action of our tools."""
    calls = next(
        (
            item.tool_calls
            for item in reversed(content)
            if isinstance(item, conversation.AssistantContent) and item.tool_calls
        ),
        None,
    )
    if not calls:
        return None
    results = {
        item.tool_call_id: item.result
        for item in content
        if isinstance(item, conversation.ToolResultContent)
    }
    done: list[DoneAction] = []
    for call in calls:
        result = results.get(call.id)
        service = call.tool_args.get("action")
        if (
            result is None
            or result.error
            or call.tool_name == GET_STATE
            or call.tool_name not in home_tools
            or not isinstance(service, str)
        ):
            return None
        entities = result.data.get("entities")  # a held call has a status instead
        if not isinstance(entities, list) or not entities:
            return None
        names = tuple(
            str(entity.get("name") or entity.get("entity_id"))
            for entity in entities
            if isinstance(entity, dict)
        )
        fields = tuple(
            (key, value) for key, value in sorted(call.tool_args.items()) if key not in _CALL_KEYS
        )
        service = service.strip().lower().removeprefix(f"{call.tool_name}.")
        done.append(DoneAction(service, names, fields))
    return done


def sentence(actions: Sequence[DoneAction]) -> str:
    """Join the actions into what the agent says (without the final full stop)."""
    text = join_names([action.text() for action in actions])
    return text[:1].upper() + text[1:]
