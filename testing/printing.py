"""Plain-text rendering of recorded turns, for terminals and logs."""

from __future__ import annotations

from collections.abc import Iterable
import json
from typing import Any
from typing import Final

from testing.turn import RoundRecord
from testing.turn import StateChange
from testing.turn import ToolCallRecord
from testing.turn import TurnRecord

MAX_VALUE_CHARS: Final = 400


def section(title: str) -> str:
    """Return a section heading line."""
    return f"== {title}"


def compact(value: Any, limit: int = MAX_VALUE_CHARS) -> str:
    """Return value as one line of JSON, cut at limit characters."""
    text = json.dumps(value, ensure_ascii=False, default=str, separators=(", ", ": "))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def format_tool_calls(calls: Iterable[ToolCallRecord]) -> list[str]:
    """Return one entry per call: the call, then its result."""
    lines: list[str] = []
    for number, call in enumerate(calls, start=1):
        lines.append(f"{number}. {call.name}({compact(call.arguments)})")
        outcome = "error" if call.error else "ok"
        lines.append(f"   -> {outcome}: {compact(call.result)}")
    return lines or ["(none)"]


def format_state_changes(changes: Iterable[StateChange]) -> list[str]:
    """Return one line per entity the turn changed; count the changes it did not cause."""
    lines: list[str] = []
    others = 0
    for change in changes:
        if not change.by_turn:
            others += 1
            continue
        line = f"{change.entity_id}: {change.old_state} -> {change.new_state}"
        # Attributes an entity drops when it turns off say nothing new.
        shown = {
            key: values
            for key, values in change.attributes.items()
            if values[1] is not None or change.old_state == change.new_state
        }
        if shown:
            parts = [
                f"{key} {compact(old, 60)} -> {compact(new, 60)}"
                for key, (old, new) in shown.items()
            ]
            line += f" ({'; '.join(parts)})"
        lines.append(line)
    lines = lines or ["(none)"]
    if others:
        lines.append(f"({others} other entities changed by themselves meanwhile)")
    return lines


def format_rounds(rounds: Iterable[RoundRecord]) -> list[str]:
    """Return one line of figures per model round."""
    lines: list[str] = []
    for number, record in enumerate(rounds, start=1):
        stats = record.stats
        if stats is None:
            lines.append(f"round {number}: failed before the model finished (see the answer)")
            continue
        lines.append(
            f"round {number}: prompt {stats.prompt_tokens} tok "
            f"(cached {stats.cached_tokens}, evaluated {stats.evaluated_tokens}"
            f"{', checkpoint restored' if stats.checkpoint_restored else ''}) "
            f"{stats.prompt_seconds:.3f} s; generated {stats.generated_tokens} tok "
            f"(reasoning {stats.reasoning_tokens}) {stats.generation_seconds:.3f} s; "
            f"finish {stats.finish_reason}"
        )
    return lines


def format_timings(record: TurnRecord) -> list[str]:
    """Return the token counts and the seconds of each phase of the turn."""
    report = record.report
    if report is None:
        return [f"total turn {record.wall_seconds:.3f} s (the agent made no report)"]
    phases = {
        "prompt build (tools, overview)": report.build_seconds,
        "prompt render (chat template)": record.render_seconds,
        "prompt eval": report.prompt_seconds,
        "generation": report.generation_seconds,
        "tool execution": report.tool_seconds,
    }
    other = record.wall_seconds - sum(phases.values())
    lines = [
        f"rounds {report.rounds}, tool calls {report.tool_calls} ({report.tool_errors} errors)",
        f"tokens: prompt {report.prompt_tokens}, cached {report.cached_tokens}, "
        f"generated {report.generated_tokens}, reasoning {report.reasoning_tokens}",
        *(f"{name:32} {seconds:8.3f} s" for name, seconds in phases.items()),
        f"{'other (Home Assistant, queueing)':32} {other:8.3f} s",
        f"{'total turn':32} {record.wall_seconds:8.3f} s",
    ]
    return [*lines, *format_rounds(record.rounds)]


def format_prompts(rounds: Iterable[RoundRecord]) -> list[str]:
    """Return each round's prompt, with the static/dynamic cut marked."""
    lines: list[str] = []
    for number, record in enumerate(rounds, start=1):
        lines.append(f"--- round {number}: static part (cached between turns)")
        lines.append(record.static_prompt)
        lines.append(f"--- round {number}: dynamic part")
        lines.append(record.dynamic_prompt)
    return lines


def format_turn(
    record: TurnRecord, *, show_prompt: bool = False, show_reasoning: bool = False
) -> str:
    """Return the report of one turn, section by section."""
    lines = [section("Question"), record.text]
    if show_prompt:
        lines += [section("Prompt"), *format_prompts(record.rounds)]
    if show_reasoning:
        lines += [section("Reasoning"), *(record.reasoning or ["(none)"])]
    lines += [section("Answer"), record.answer or "(empty)"]
    if record.continue_conversation:
        lines.append("(the agent expects a reply)")
    lines += [section(f"Tool calls ({len(record.tool_calls)})")]
    lines += format_tool_calls(record.tool_calls)
    by_turn = sum(1 for change in record.state_changes if change.by_turn)
    lines += [section(f"State changes ({by_turn})")]
    lines += format_state_changes(record.state_changes)
    lines += [section("Timings"), *format_timings(record)]
    return "\n".join(lines)
