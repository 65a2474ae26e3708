"""`scripts/bench turn --homes 10,50,200,1000`: what a command costs, and where its time goes.

For each home size a real Home Assistant runs a synthetic home of that many exposed entities
(testing/synthetic.py) and, for each model, the Local Agent with the model in process, set up
as a user sets it up (automatic context, warm-up, saved prefixes). The command is "turn on
the <light>"; the turns:

1. first command, nothing saved: the entry is set up and the command sent at once, while the
   prefix (instructions, tools, home list) is being evaluated for the first time;
2. first command after restart: the entry set up again (the model loaded anew) with the
   prefix the first run saved, the command at once;
3. follow-up: the same conversation, a minute later;
4. new conversation: the same home, a minute later (what the first command after a finished
   warm-up costs too: the context holds the prefix, nothing else);
5. after 3 changes: three entities change state, then a follow-up in conversation 4;
6. states outgrew the list: more entities change state than a message lists (CHANGE_LIMIT),
   and a minute later a new conversation. That minute's job takes the home list again and
   evaluates it in the background (its seconds are reported); the command comes after it.
   Homes with too few lights and switches to change skip it.

Before each turn "a minute later" the agent's job of each minute runs as its timer would run
it (turn/warm_up.py): a new conversation is prepared up to that minute's time line.

Random weights write gibberish, so the answer is pinned by a Steering (testing/steering.py),
the product's one seam for that: the model "samples" 64 thinking tokens and a call that turns
on the light, token by token, while the engine appends in one batch what the call grammar
fixes (jump-forward). After the call the agent says what it did itself (no second round).

Each turn is timed from the stream a voice pipeline hears (the chat log's delta listener) and
Home Assistant's call_service event: prompt (request to the first reasoning token, a wait for
the warm-up included), thinking, call (sampled and forced tokens, to the parsed call),
execution (validation, safety gate and service call: TurnReport.tool_seconds), answer (from
there to the first word of the answer), the whole turn; the tokens of the prompt and those
evaluated (not restored from a checkpoint or the saved prefix).

Models: ``twin-q8_0`` and ``twin-q4_k_m`` (the BotPsy-sized speed twin with Qwen3.5's own
tokenizer, built on first use, see testing/speed_twin.py), ``gemma`` (real Gemma 3 270M
weights), ``qwen35`` (the tiny test model), or a GGUF path.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from dataclasses import asdict
from dataclasses import dataclass
from dataclasses import field
from datetime import datetime
from datetime import timedelta
import json
from pathlib import Path
import shutil
import sys
import time
from typing import Any
from unittest.mock import patch

from custom_components.local_agent.const import CONF_CONTEXT_SIZE
from custom_components.local_agent.const import CONF_KEY_CACHE
from custom_components.local_agent.const import CONF_MAX_TOKENS
from custom_components.local_agent.const import CONF_TEMPERATURE
from custom_components.local_agent.const import CONF_THINKING_BUDGET
from custom_components.local_agent.const import CONF_THREADS
from custom_components.local_agent.engine.generation import GenerationRequest
from custom_components.local_agent.engine.local.probe import KEY_CACHE_CHOICES
from custom_components.local_agent.engine.markup import format_tool_call
from custom_components.local_agent.engine.tool_calls import ParseEvent
from custom_components.local_agent.engine.tool_calls import ReasoningDelta
from custom_components.local_agent.engine.tool_calls import ToolCallFailed
from custom_components.local_agent.engine.tool_calls import ToolCallParsed
from custom_components.local_agent.engine.types import ToolCall
from custom_components.local_agent.runtime.data import prefix_store_path
from custom_components.local_agent.runtime.memory import process_rss
from custom_components.local_agent.turn import agent as agent_module
from custom_components.local_agent.turn.home_context import CHANGE_LIMIT
from homeassistant.const import EVENT_CALL_SERVICE
from homeassistant.core import Event
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.util import dt as dt_util
from testing.agent import LocalAgentHandle
from testing.agent import async_create_person
from testing.agent import async_local_agent
from testing.hass_runner import HarnessError
from testing.hass_runner import async_home_assistant
from testing.models import resolve_model
from testing.stand_in import answer
from testing.steering import ScriptedAnswers
from testing.steering import first_round_of_turn
from testing.synthetic import SyntheticHome
from testing.synthetic import async_setup_synthetic_home
from testing.tokenizer import Tokenizer
from testing.turn import async_run_turn

SCENARIOS = (
    "first, nothing saved",
    "first after restart",
    "follow-up",
    "new conversation",
    "after 3 changes",
    "states outgrew the list",
)
THINKING_TOKENS = 64
THINKING_TEXT = (
    "The user wants a light on. The home list names it; I call the light tool with turn_on "
    "and its entity id, then answer briefly. "
)
PARTS = ("prompt", "thinking", "call sampled", "call forced", "execution", "answer")


@dataclass(slots=True)
class TurnCost:
    """One measured turn."""

    model: str
    entities: int
    threads: int
    scenario: str
    prompt_tokens: int
    evaluated_tokens: int
    prefix_from_disk: bool
    reasoning_tokens: int
    call_sampled_tokens: int
    call_forced_tokens: int
    rounds: int
    # Seconds from the request: to the first reasoning token, the service call, the first
    # word of the answer (after the call), the end of the turn.
    first_token_s: float
    service_call_s: float | None
    first_word_s: float | None
    turn_s: float
    # Where the time to the first word went (PARTS); a notice said while waiting, if any.
    parts_s: dict[str, float] = field(default_factory=dict)
    notice_s: float | None = None
    # Seconds the minute's job took before the turn (a list taken again in the background).
    background_s: float | None = None
    n_ctx: int = 0
    saved_prefix_bytes: int = 0
    rss_bytes: int = 0
    # How the attention cache stored its keys ("f16", "q8_0"); None in rows of older runs.
    key_cache: str | None = None


class _Clock:
    """homeassistant.util.dt as the agent sees it: some minutes ahead."""

    def __init__(self, minutes: int) -> None:
        self._offset = timedelta(minutes=minutes)

    def now(self) -> datetime:
        return dt_util.now() + self._offset


@dataclass(slots=True)
class _Marks:
    """When the pieces of one turn reached the listener."""

    started: float
    first_thinking: float | None = None
    last_thinking: float | None = None
    calls: float | None = None
    service_call: float | None = None
    first_word: float | None = None
    notice: float | None = None

    def on_event(self, event: ParseEvent) -> None:
        """The engine's events, when it parsed them: the agent may hold reasoning back a while
        (turn/notices.py), so the phases are timed here, not from the stream."""
        now = time.perf_counter()
        if isinstance(event, ReasoningDelta):
            if self.first_thinking is None:
                self.first_thinking = now
            self.last_thinking = now
        elif isinstance(event, ToolCallParsed | ToolCallFailed):
            self.calls = self.calls or now

    def on_delta(self, delta: dict[str, Any]) -> None:
        """What a voice pipeline hears: the notice before the model, the answer's first word."""
        now = time.perf_counter()
        if delta.get("content"):
            if self.first_thinking is None:
                self.notice = self.notice or now
            elif self.calls is not None:
                self.first_word = self.first_word or now


def call_text(entity_id: str) -> str:
    """The pinned call: turn on one light."""
    return format_tool_call(ToolCall("light", {"action": "turn_on", "entity_id": entity_id}))


def steering(model: Path, target: str) -> ScriptedAnswers:
    """64 thinking tokens of this model's tokenizer, then the call."""
    tokenizer = Tokenizer(model)
    try:
        thinking = tokenizer.head(THINKING_TEXT * 8, THINKING_TOKENS).rstrip()
    finally:
        tokenizer.close()

    def script(request: GenerationRequest) -> str:
        return answer(call_text(target), reasoning=thinking)

    return ScriptedAnswers(script, wants=first_round_of_turn)


async def measure_turn(
    handle: LocalAgentHandle,
    sentence: str,
    *,
    conversation_id: str | None,
    user_id: str,
    minute: int,
    minute_passed: bool,
) -> tuple[dict[str, Any], str]:
    """Run one turn; return its figures and conversation id.

    minute_passed: the turn comes a minute after the last, so the minute's job ran before it.
    """
    hass = handle.hass
    background: float | None = None
    if minute_passed:
        began = time.perf_counter()
        with patch.object(agent_module, "dt_util", _Clock(minute)):
            await handle.agent.async_prepare_this_minute()
        background = time.perf_counter() - began
    marks = _Marks(started=time.perf_counter())

    @callback
    def on_call(event: Event) -> None:
        if event.data.get("domain") == "light":
            marks.service_call = marks.service_call or time.perf_counter()

    unsubscribe = hass.bus.async_listen(EVENT_CALL_SERVICE, on_call)
    marks.started = time.perf_counter()
    try:
        with patch.object(agent_module, "dt_util", _Clock(minute)):
            record = await async_run_turn(
                handle,
                sentence,
                conversation_id=conversation_id,
                user_id=user_id,
                on_delta=marks.on_delta,
                on_event=marks.on_event,
            )
    finally:
        unsubscribe()
    if marks.first_word is None and marks.calls is not None:
        # An answer the agent added whole (not streamed): a voice pipeline speaks it as the
        # turn's speech, when the turn ends.
        marks.first_word = marks.started + record.wall_seconds
    report = record.report
    rounds = [r.stats for r in record.rounds if r.stats is not None]
    if report is None or not rounds:
        raise HarnessError(f"the turn {sentence!r} did not reach the model")
    await hass.async_block_till_done(wait_background_tasks=True)  # the next turn prepared
    first = rounds[0]

    def since(mark: float | None) -> float | None:
        return None if mark is None else mark - marks.started

    first_token = since(marks.first_thinking) or first.prompt_seconds
    thinking_end = marks.last_thinking or marks.started + first_token
    called = marks.calls or thinking_end
    call_s = max(called - thinking_end, 0.0)
    forced_s = min(first.forced_seconds, call_s)
    executed = called + report.tool_seconds  # validation, the gate, the service call
    parts = {
        "prompt": first_token,
        "thinking": thinking_end - marks.started - first_token,
        "call sampled": call_s - forced_s,
        "call forced": forced_s,
        "execution": report.tool_seconds,
        "answer": max((marks.first_word or executed) - executed, 0.0),
    }
    worker = handle.worker
    figures = {
        "prompt_tokens": first.prompt_tokens,
        "evaluated_tokens": first.evaluated_tokens,
        "prefix_from_disk": first.prefix_from_disk,
        "reasoning_tokens": report.reasoning_tokens,
        "call_sampled_tokens": report.call_sampled_tokens,
        "call_forced_tokens": report.call_forced_tokens,
        "rounds": report.rounds,
        "first_token_s": first_token,
        "service_call_s": since(marks.service_call),
        "first_word_s": since(marks.first_word),
        "turn_s": record.wall_seconds,
        "parts_s": parts,
        "notice_s": since(marks.notice),
        "background_s": background,
        "n_ctx": worker.info.n_ctx,
        "key_cache": worker.info.key_cache,
        "rss_bytes": await hass.async_add_executor_job(process_rss),
    }
    return figures, record.conversation_id or ""


def switchable(home: SyntheticHome, target: str) -> list[str]:
    """The lights and switches other than the one the command turns on."""
    return [e for e in home.entity_ids if e.split(".", 1)[0] in ("light", "switch") and e != target]


async def toggle(hass: HomeAssistant, entity_ids: list[str]) -> None:
    """Toggle each entity, one service call each."""
    for entity_id in entity_ids:
        domain = entity_id.split(".", 1)[0]
        await hass.services.async_call(domain, "toggle", {"entity_id": entity_id}, blocking=True)


def _folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.glob("*") if path.is_file())


async def run_scenarios(
    hass: HomeAssistant,
    home: SyntheticHome,
    model: tuple[str, Path],
    size: int,
    args: argparse.Namespace,
) -> list[TurnCost]:
    """The five turns of one model in one home."""
    label, path = model
    target = next(e for e in home.entity_ids if e.startswith("light."))
    state = hass.states.get(target)
    sentence = f"turn on the {state.name if state is not None else target}"
    user_id = await async_create_person(hass, f"Bench {label} {size}")
    steer = await hass.async_add_executor_job(steering, path, target)
    folder = prefix_store_path(hass)
    engine_options: dict[str, Any] = {CONF_THREADS: args.threads}
    if args.context_size:
        engine_options[CONF_CONTEXT_SIZE] = args.context_size
    if args.key_cache:
        engine_options[CONF_KEY_CACHE] = args.key_cache
    agent_options = {CONF_TEMPERATURE: 0.0, CONF_MAX_TOKENS: 512, CONF_THINKING_BUDGET: 256}
    results: list[TurnCost] = []
    conversations: dict[str, str] = {}
    minute = 0

    async def turn(handle: LocalAgentHandle, scenario: str, conversation_id: str | None) -> None:
        nonlocal minute
        # A first command comes at once, in the minute its entry was set up; the others a
        # minute after the turn before.
        later = not scenario.startswith("first")
        if later:
            minute += 1
        figures, conversations[scenario] = await measure_turn(
            handle,
            sentence,
            conversation_id=conversation_id,
            user_id=user_id,
            minute=minute,
            minute_passed=later,
        )
        figures["saved_prefix_bytes"] = await hass.async_add_executor_job(_folder_bytes, folder)
        results.append(TurnCost(label, size, args.threads, scenario, **figures))
        print(_row(results[-1]), flush=True)
        # Written turn by turn: a long run stopped half-way keeps what it measured.
        write_report(results, args)

    await hass.async_add_executor_job(shutil.rmtree, folder, True)
    async with async_local_agent(
        hass, path, engine_options=engine_options, agent_options=agent_options
    ) as handle:
        handle.worker.steering = steer
        await turn(handle, "first, nothing saved", None)  # then the prefix is saved
        # A restart: the entry (and its model) unloaded and set up again.
        if not await hass.config_entries.async_reload(handle.entry.entry_id):
            raise HarnessError("the entry did not load again")
        handle.worker.steering = steer
        await turn(handle, "first after restart", None)
        await turn(handle, "follow-up", conversations["first after restart"])
        await turn(handle, "new conversation", None)
        others = switchable(home, target)
        await toggle(hass, others[:3])
        await turn(handle, "after 3 changes", conversations["new conversation"])
        outgrowing = others[3 : 3 + CHANGE_LIMIT + 1]
        if len(outgrowing) == CHANGE_LIMIT + 1:
            await toggle(hass, outgrowing)
            await turn(handle, "states outgrew the list", None)
    return results


def _row(cost: TurnCost) -> str:
    def seconds(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    return (
        f"{cost.model:<12} {cost.entities:>5} {cost.scenario:<23} {cost.prompt_tokens:>7} "
        f"{cost.evaluated_tokens:>7} {'disk' if cost.prefix_from_disk else '':>4} "
        f"{cost.first_token_s:>7.2f} {seconds(cost.service_call_s):>7} "
        f"{seconds(cost.first_word_s):>7} {cost.turn_s:>7.2f} "
        f"{cost.call_sampled_tokens:>4}/{cost.call_forced_tokens:<4} {cost.n_ctx:>7} "
        f"{cost.saved_prefix_bytes / 2**20:>7.1f} {cost.rss_bytes / 2**20:>6.0f}"
    )


HEADER = (
    f"{'model':<12} {'ents':>5} {'turn':<23} {'prompt':>7} {'eval':>7} {'':>4} {'ttft':>7} "
    f"{'call':>7} {'word':>7} {'turn':>7} {'smp/forc':>9} {'n_ctx':>7} {'saved MB':>7} "
    f"{'RSS MB':>6}"
)


async def async_bench(args: argparse.Namespace) -> list[TurnCost]:
    """Every size, every model."""
    results: list[TurnCost] = []
    models = [(name, resolve_model(name)) for name in args.models]
    print(HEADER, flush=True)
    for size in args.homes:
        async with async_home_assistant() as hass:
            home = await async_setup_synthetic_home(hass, size)
            for model in models:
                results += await run_scenarios(hass, home, model, size, args)
    return results


def markdown(results: list[TurnCost], args: argparse.Namespace) -> str:
    """The report section: one table per model."""
    lines = [
        "## A command against the size of the home, and where its time goes",
        "",
        "`scripts/bench turn --homes SIZES --models MODELS --threads N`; each run replaces its "
        "own rows in `home_turns.json` and this section is written from all of them (last run: "
        f"`--homes {','.join(map(str, args.homes))} --models {','.join(args.models)} "
        f"--threads {args.threads}`). Default settings (automatic context, warm-up, saved "
        "prefixes). Pinned answer: 64 thinking tokens and a call that turns on a light, the "
        "call's fixed text appended in batches (jump-forward), each in the batch of the token "
        "before it; the agent then says what it did "
        "(no second round). Evaluated: prompt tokens of the turn not restored from a checkpoint "
        "or a saved prefix (disk: the prefix came from the file an earlier run saved). TTFT: "
        "request to the first reasoning token. Call: to Home Assistant's call_service event. "
        "Word: to the first word of the answer. Sampled/forced: call tokens the model wrote / "
        "the grammar fixed; forced seconds are those of the batches that carried forced tokens. "
        "Saved: the prefixes folder.",
        "",
    ]
    for model in dict.fromkeys(r.model for r in results):
        lines += [
            f"### {model}",
            "",
            "| entities | threads | turn | prompt tokens | evaluated | TTFT (s) | call (s) | "
            "first word (s) | turn (s) | thinking / call sampled / forced (s) | "
            "call tokens sampled / forced | context | saved (MB) | RSS (MB) |",
            "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in (r for r in results if r.model == model):
            call = "-" if r.service_call_s is None else f"{r.service_call_s:.2f}"
            word = "-" if r.first_word_s is None else f"{r.first_word_s:.2f}"
            disk = " (disk)" if r.prefix_from_disk else ""
            notice = f" (notice at {r.notice_s:.2f})" if r.notice_s is not None else ""
            retake = r.scenario == "states outgrew the list" and r.background_s is not None
            background = f" (retaken before: {r.background_s:.1f} s)" if retake else ""
            p = r.parts_s
            lines.append(
                f"| {r.entities} | {r.threads} | {r.scenario}{background} | {r.prompt_tokens} | "
                f"{r.evaluated_tokens}{disk} | {r.first_token_s:.2f}{notice} | {call} | {word} | "
                f"{r.turn_s:.2f} | {p['thinking']:.2f} / {p['call sampled']:.2f} / "
                f"{p['call forced']:.2f} | {r.call_sampled_tokens} / {r.call_forced_tokens} | "
                f"{r.n_ctx} | {r.saved_prefix_bytes / 2**20:.1f} | {r.rss_bytes / 2**20:.0f} |"
            )
        lines.append("")
    lines += [
        "Against issue 26's targets (warm: a follow-up, a new conversation, after changes):",
        "",
    ]
    lines += [*targets(results), ""]
    return "\n".join(lines)


def plot(results: list[TurnCost], path: Path) -> None:
    """Where a command's time goes: one stacked bar per model, home size and turn."""
    import matplotlib as mpl

    mpl.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in results if r.first_word_s is not None]
    if not rows:
        return
    figure, axis = plt.subplots(figsize=(11, 0.32 * len(rows) + 1.6))
    labels = [f"{r.model} {r.entities}: {r.scenario}" for r in rows]
    left = [0.0] * len(rows)
    for part in PARTS:
        widths = [r.parts_s.get(part, 0.0) for r in rows]
        axis.barh(labels, widths, left=left, label=part)
        left = [a + b for a, b in zip(left, widths, strict=True)]
    axis.invert_yaxis()
    axis.set_xscale("symlog", linthresh=1.0)
    axis.set_xlabel("seconds from the request to the first word of the answer")
    axis.tick_params(axis="y", labelsize=7)
    axis.legend(fontsize=7, loc="lower right")
    figure.suptitle("Where a command's time goes (scripts/bench turn --homes)")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)


MARK_BEGIN = "<!-- home-turns:begin -->"
MARK_END = "<!-- home-turns:end -->"
RESULTS = "home_turns.json"
PLOT = "home_turns.png"


def merged(path: Path, results: list[TurnCost]) -> list[TurnCost]:
    """The rows of earlier runs in path, with those this run measured again replaced."""
    if not path.is_file():
        return results
    fresh = {(r.model, r.entities, r.threads, r.scenario) for r in results}
    kept: list[TurnCost] = []
    for row in json.loads(path.read_text(encoding="utf-8")):
        try:
            earlier = TurnCost(**row)
        except TypeError:
            continue  # a row of an older format (the retired layout comparison)
        if earlier.scenario not in SCENARIOS:
            continue
        if (earlier.model, earlier.entities, earlier.threads, earlier.scenario) not in fresh:
            kept.append(earlier)
    order = {scenario: index for index, scenario in enumerate(SCENARIOS)}
    return sorted(kept + results, key=lambda r: (r.model, r.entities, r.threads, order[r.scenario]))


WARM = ("follow-up", "new conversation", "after 3 changes", "states outgrew the list")
# Issue 26's targets: after a restart, TTFT within this of a warm command's; the service call
# within this of the end of the thinking; the first word within this of the service call; the
# whole turn of a plain action within this.
RESTART_OVER_WARM_S = 1.0
CALL_OVER_THINKING_S = 1.0
WORD_AFTER_CALL_S = 0.3
WHOLE_TURN_S = 5.0


def targets(results: list[TurnCost]) -> list[str]:
    """Each model and home size against the targets: measured figures, then met or missed."""
    lines = [
        "| model | entities | restart TTFT against warm (≤ +1 s) | call after thinking, warm "
        "/ restart (≤ 1 s) | first word after call (≤ 0.3 s) | whole turn, warm / restart "
        "(≤ 5 s) |",
        "|---|---:|---|---|---|---|",
    ]
    for group in dict.fromkeys((r.model, r.entities, r.threads) for r in results):
        rows = {r.scenario: r for r in results if (r.model, r.entities, r.threads) == group}
        warm = [rows[scenario] for scenario in WARM if scenario in rows]
        restart = rows.get("first after restart")
        if not warm or restart is None:
            continue
        lines.append(
            f"| {group[0]} | {group[1]} | {_restart_ttft(restart, rows)} | "
            f"{_figures(warm, restart, _call_after_thinking, CALL_OVER_THINKING_S)} | "
            f"{_figures([*warm, restart], None, _word_after_call, WORD_AFTER_CALL_S)} | "
            f"{_figures(warm, restart, lambda r: r.turn_s, WHOLE_TURN_S)} |"
        )
    return lines


def _call_after_thinking(cost: TurnCost) -> float | None:
    if cost.service_call_s is None:
        return None
    return cost.service_call_s - cost.parts_s["thinking"]


def _word_after_call(cost: TurnCost) -> float | None:
    if cost.first_word_s is None or cost.service_call_s is None:
        return None
    return cost.first_word_s - cost.service_call_s


def _figures(
    warm: list[TurnCost],
    restart: TurnCost | None,
    figure: Callable[[TurnCost], float | None],
    limit: float,
) -> str:
    """The warm turns' range, then the restart's, each marked met or missed."""
    values = [value for r in warm if (value := figure(r)) is not None]
    if not values:
        return "no call"
    low, high = f"{min(values):.2f}", f"{max(values):.2f}"
    text = (low if low == high else f"{low}-{high}") + f" ({_met(max(values) <= limit)})"
    if restart is not None:
        value = figure(restart)
        text += " / no call" if value is None else f" / {value:.2f} ({_met(value <= limit)})"
    return text


def _restart_ttft(restart: TurnCost, rows: dict[str, TurnCost]) -> str:
    against = []
    for scenario in ("follow-up", "new conversation"):
        if (warm := rows.get(scenario)) is not None:
            over = restart.first_token_s - warm.first_token_s
            against.append(f"{over:+.2f} s to {scenario} ({_met(over <= RESTART_OVER_WARM_S)})")
    return f"{restart.first_token_s:.2f} s: " + "; ".join(against)


def _met(ok: bool) -> str:
    return "met" if ok else "missed"


def write_report(results: list[TurnCost], args: argparse.Namespace) -> Path:
    """Put the section (and its plot) into <out>/benchmarks.md, replacing an older one."""
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    results = merged(out / RESULTS, results)
    (out / RESULTS).write_text(
        json.dumps([asdict(r) for r in results], indent=2) + "\n", encoding="utf-8"
    )
    plot(results, out / PLOT)
    section = (
        f"{MARK_BEGIN}\n{markdown(results, args)}\n"
        f"![Where a command's time goes]({PLOT})\n"
        f"{MARK_END}\n"
    )
    report = out / "benchmarks.md"
    text = report.read_text(encoding="utf-8") if report.is_file() else "# Local Agent benchmarks\n"
    if MARK_BEGIN in text and MARK_END in text:
        before, _, rest = text.partition(MARK_BEGIN)
        _, _, after = rest.partition(MARK_END + "\n")
        text = before + section + after
    else:
        text = text.rstrip("\n") + "\n\n" + section
    report.write_text(text, encoding="utf-8")
    return report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the home-size mode of `scripts/bench turn`."""
    parser.add_argument(
        "--homes",
        type=lambda text: [int(size) for size in text.split(",")],
        help="run the home-size benchmark for these numbers of exposed entities (10,50,200,1000)",
    )
    parser.add_argument(
        "--models",
        type=lambda text: text.split(","),
        default=["twin-q4_k_m"],
        help="with --homes: models (twin-q8_0, twin-q4_k_m, gemma, qwen35, or paths)",
    )
    parser.add_argument(
        "--context-size", type=int, help="with --homes: a fixed context (default: automatic)"
    )
    parser.add_argument(
        "--key-cache",
        choices=KEY_CACHE_CHOICES,
        help="with --homes: the attention cache's keys (default: the engine's own choice)",
    )
    parser.add_argument("--out", type=Path, default=Path("reports"), help="with --homes")


def main(args: argparse.Namespace) -> int:
    """Run the home-size benchmark; write the report section."""
    try:
        results = asyncio.run(async_bench(args))
    except HarnessError as err:
        print(f"scripts/bench turn: {err}", file=sys.stderr)
        return 1
    report = write_report(results, args)
    print("", *targets(results), sep="\n")
    print(f"\nWritten to {report}")
    return 0
