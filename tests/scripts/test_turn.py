"""How testing/ records a turn: state changes and tool calls."""

from __future__ import annotations

from homeassistant.components import conversation
from homeassistant.core import Context
from homeassistant.helpers import llm
from testing.printing import format_state_changes
from testing.printing import format_tool_calls
from testing.turn import Snapshot
from testing.turn import state_changes
from testing.turn import tool_calls


def test_state_changes_tell_the_turns_changes_from_others() -> None:
    turn = Context()
    child = Context(parent_id=turn.id)
    other = Context()
    before: Snapshot = {
        "light.kitchen": ("off", {"brightness": None}, other),
        "lock.front": ("locked", {}, other),
        "sensor.energy": ("1", {}, other),
        "switch.same": ("on", {}, other),
    }
    after: Snapshot = {
        "light.kitchen": ("on", {"brightness": 128}, turn),
        "lock.front": ("unlocked", {}, child),
        "sensor.energy": ("2", {}, Context()),
        "switch.same": ("on", {}, other),
    }

    changes = state_changes(before, after, turn)

    assert [(c.entity_id, c.by_turn) for c in changes] == [
        ("light.kitchen", True),
        ("lock.front", True),
        ("sensor.energy", False),
    ]
    assert changes[0].attributes == {"brightness": (None, 128)}
    assert format_state_changes(changes) == [
        "light.kitchen: off -> on (brightness null -> 128)",
        "lock.front: locked -> unlocked",
        "(1 other entities changed by themselves meanwhile)",
    ]


def test_tool_calls_are_paired_with_their_results() -> None:
    ok = llm.ToolInput(tool_name="light", tool_args={"action": "turn_on"}, external=True)
    failed = llm.ToolInput(tool_name="lock", tool_args={"action": "open"}, external=True)
    content = [
        conversation.UserContent(content="hi"),
        conversation.AssistantContent(agent_id="a", tool_calls=[ok, failed]),
        conversation.ToolResultContent(
            agent_id="a",
            tool_call_id=failed.id,
            tool_name="lock",
            result=llm.ToolResult(data={"error": "no"}, error=True),
        ),
        conversation.ToolResultContent(
            agent_id="a",
            tool_call_id=ok.id,
            tool_name="light",
            result=llm.ToolResult(data={"entities": []}),
        ),
    ]

    records = tool_calls(content)

    assert [(r.name, r.error, r.result) for r in records] == [
        ("light", False, {"entities": []}),
        ("lock", True, {"error": "no"}),
    ]
    assert format_tool_calls(records)[1] == '   -> ok: {"entities": []}'
