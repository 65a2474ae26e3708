"""`scripts/bench turn --homes 10,50,200,1000`: what a command costs against the size of the home.

For each home size a real Home Assistant runs a synthetic home of that many exposed entities
(testing/synthetic.py) and, for each model, the Local Agent with the model in-process.
Both prompt layouts run in the same process, one after the other, on the same loaded model:

* ``new``: the agent as it is (the home list in the system prefix, the time and the changed
  states at the start of each user message; turn/home_context.py);
* ``old``: the layout before issue 14, rebuilt here by patching the agent's two prompt methods:
  the time and every entity's state in a dynamic system part that changes every turn.

Four turns per layout, the engine's checkpoints cleared before the first:

1. first turn: a new conversation, nothing cached;
2. follow-up: the same conversation, a minute later;
3. new conversation: the same home, a minute later;
4. after 3 changes: three entities change state, then a follow-up in conversation 3.

Random weights write gibberish, so every answer is forced, token by token through the engine
(each forced token is evaluated like a sampled one; only sampling itself is skipped): round
one writes 64 thinking tokens then a call that turns on a light, round two "Done.". Figures
per turn: prompt tokens and evaluated (not cached) tokens of round one, time to the first
token (the request until the first streamed token of round one), time to the service call
(until Home Assistant's call_service event), whole turn, checkpoint bytes and count after the
turn, and the process's resident memory.

Models: ``twin-q8_0`` and ``twin-q4_k_m`` (the BotPsy-sized speed twin, built on first use,
see testing/speed_twin.py), ``gemma`` (real Gemma 3 270M weights), ``qwen35`` (the
tiny test model), or a GGUF path. The twin's tokenizer splits text into more tokens than the
real Qwen3.5 vocabulary (upper bounds); Gemma's 262k vocabulary is close to Qwen3.5's.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable, Iterator, Sequence
import contextlib
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timedelta
import json
from pathlib import Path
import statistics
import sys
import threading
import time
from typing import Any
from unittest.mock import patch

from custom_components.local_agent.const import (
    CONF_CONTEXT_SIZE,
    CONF_MAX_TOKENS,
    CONF_TEMPERATURE,
    CONF_THINKING_BUDGET,
    CONF_THREADS,
)
from custom_components.local_agent.engine import generation
from custom_components.local_agent.engine.chat_format import ChatTemplate, PromptParts
from custom_components.local_agent.engine.generation import GenerationOutput, GenerationRequest
from custom_components.local_agent.engine.local import llama as llama_module
from custom_components.local_agent.engine.local.llama import LoadedModel
from custom_components.local_agent.engine.local.sampling import TokenSampler
from custom_components.local_agent.engine.local.worker import ModelWorker
from custom_components.local_agent.engine.tool_calls import ParseEvent, format_tool_call
from custom_components.local_agent.engine.types import Conversation, ToolCall
from custom_components.local_agent.runtime.memory import process_rss
from custom_components.local_agent.turn import agent as agent_module
from custom_components.local_agent.turn.agent import ConversationAgent
from custom_components.local_agent.turn.history import to_messages, trim_history
from custom_components.local_agent.turn.home_context import HomeContext
from homeassistant.components import conversation
from homeassistant.const import EVENT_CALL_SERVICE
from homeassistant.core import Event, HomeAssistant
from homeassistant.util import dt as dt_util
from testing.agent import LocalAgentHandle, async_create_person, async_local_agent
from testing.hass_runner import HarnessError, async_home_assistant
from testing.models import resolve_model
from testing.synthetic import SyntheticHome, async_setup_synthetic_home
from testing.turn import async_run_turn

LAYOUTS = ("old", "new")
SCENARIOS = ("first turn", "follow-up", "new conversation", "after 3 changes")
THINKING_TOKENS = 64
THINKING_TEXT = (
    "The user wants a light on. The home list names it; I call the light tool with turn_on "
    "and its entity id, then answer briefly. "
)


@dataclass(slots=True)
class TurnCost:
    """One measured turn."""

    model: str
    entities: int
    layout: str
    scenario: str
    prompt_tokens: int
    evaluated_tokens: int
    turn_evaluated_tokens: int
    first_token_s: float
    service_call_s: float | None
    turn_s: float
    checkpoint_bytes: int
    checkpoint_count: int
    rss_bytes: int
    # After the answer, while the user listens: the engine evaluating the next turn's start.
    preparing_s: float
    threads: int


# --- The old layout, rebuilt -----------------------------------------------------------------


def _old_static_system(
    self: ConversationAgent, llm_context: Any, toolbox: Any, user_name: str | None
) -> str:
    return _NEW_STATIC(self, llm_context, replace(toolbox, lines=None), user_name)


def _old_conversation(
    self: ConversationAgent,
    chat_log: conversation.ChatLog,
    toolbox: Any,
    static_system: str,
    extra_system_prompt: str | None,
) -> Conversation:
    """The layout before issue 14: time and every state in the system message, every turn.

    As then, the dynamic part is made once per turn (at its first round) and kept for the
    turn's later rounds.
    """
    users = sum(isinstance(c, conversation.UserContent) for c in chat_log.content)
    key = (chat_log.conversation_id, users)
    dynamic_system = _OLD_DYNAMIC.get(key)
    if dynamic_system is None:
        now = agent_module.dt_util.now()
        parts = [f"Now: {now.strftime('%A %Y-%m-%d %H:%M')}."]
        if toolbox.home is not None:
            overview = toolbox.home.overview()
            parts.append("Home overview (area / entity_id 'name' state):\n" + overview)
        if extra_system_prompt:
            parts.append(extra_system_prompt.strip())
        dynamic_system = _OLD_DYNAMIC[key] = "\n\n".join(parts)
    history = trim_history(to_messages(chat_log.content[1:]), self.options.history_tokens)
    return Conversation(
        system=static_system,
        messages=tuple(history),
        enable_thinking=self.options.thinking,
        system_context=dynamic_system,
    )


def _old_render(template: ChatTemplate, request: GenerationRequest) -> PromptParts:
    """The old engine request had no continuation point: static prefix and whole prompt only."""
    return replace(_NEW_RENDER(template, request), stable_end=None)


_OLD_DYNAMIC: dict[tuple[str, int], str] = {}
_NEW_STATIC = ConversationAgent._static_system
_NEW_RENDER = generation.render_request


@contextlib.contextmanager
def layout(name: str) -> Iterator[None]:
    """Run the agent with the old or the new prompt layout."""
    if name == "new":
        yield
        return
    with (
        patch.object(ConversationAgent, "_static_system", _old_static_system),
        patch.object(ConversationAgent, "_conversation", _old_conversation),
        patch.object(ConversationAgent, "_prepare_next_turn", lambda *_args: None),
        patch.object(llama_module, "render_request", _old_render),
    ):
        yield


class _Clock:
    """homeassistant.util.dt as the agent sees it: some minutes ahead."""

    def __init__(self, minutes: int) -> None:
        self._offset = timedelta(minutes=minutes)

    def now(self) -> datetime:
        return dt_util.now() + self._offset


# --- Forced answers --------------------------------------------------------------------------


class ForcedAnswers:
    """Replaces sampling with a fixed answer per round; every token is still evaluated."""

    def __init__(self, call_text: str) -> None:
        self.call_text = call_text
        self._queues: dict[int, list[int]] = {}
        self._lock = threading.Lock()

    def script(self, runtime: LoadedModel, request: GenerationRequest) -> list[int]:
        prompt = runtime.render(request)
        first_round = "<tool_response>" not in prompt.dynamic.rsplit("<|im_start|>", 2)[-2]
        if not first_round:
            text = "</think>\n\nDone." if prompt.starts_in_reasoning else "Done."
            return runtime.tokenize(text, add_bos=False)
        thinking: list[int] = []
        while len(thinking) < THINKING_TOKENS:
            thinking += runtime.tokenize(THINKING_TEXT, add_bos=False)
        closing = "\n</think>\n\n" if prompt.starts_in_reasoning else "\n\n"
        return thinking[:THINKING_TOKENS] + runtime.tokenize(
            closing + self.call_text, add_bos=False
        )

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        generate = LoadedModel.generate
        forced = self

        def forced_generate(
            runtime: LoadedModel,
            request: GenerationRequest,
            cancel: threading.Event | None = None,
            on_event: Callable[[ParseEvent], None] | None = None,
        ) -> GenerationOutput:
            with forced._lock:
                forced._queues[id(runtime)] = forced.script(runtime, request)
            return generate(runtime, replace(request, max_tokens=512), cancel, on_event)

        def forced_sample(runtime: LoadedModel, sampler: TokenSampler, *, grammar: bool) -> int:
            queue = forced._queues.get(id(runtime))
            if queue:
                return queue.pop(0)
            llama_cpp = runtime._llama_cpp
            vocab = runtime._vocab
            eot = int(llama_cpp.llama_vocab_eot(vocab))
            return eot if eot >= 0 else int(llama_cpp.llama_vocab_eos(vocab))

        with (
            patch.object(LoadedModel, "generate", forced_generate),
            patch.object(LoadedModel, "sample_next", forced_sample),
        ):
            yield


def call_text(entity_id: str) -> str:
    """The forced call: turn on one light."""
    return format_tool_call(ToolCall("light", {"action": "turn_on", "entity_id": entity_id}))


# --- One turn --------------------------------------------------------------------------------


@contextlib.contextmanager
def first_token_timer(handle: LocalAgentHandle, marks: dict[str, float]) -> Iterator[None]:
    """Note when the first streamed token of the turn's first round reached the agent."""
    worker = handle.worker
    generate = worker.generate

    async def timed(
        request: GenerationRequest, on_event: Callable[[ParseEvent], None] | None = None
    ) -> GenerationOutput:
        def note(event: ParseEvent) -> None:
            marks.setdefault("first_token", time.perf_counter())
            if on_event is not None:
                on_event(event)

        return await generate(request, note)

    with patch.object(worker, "generate", timed):
        yield


async def measure_turn(
    handle: LocalAgentHandle,
    sentence: str,
    *,
    conversation_id: str | None,
    user_id: str,
    minute: int,
) -> tuple[dict[str, Any], str]:
    """Run one turn; return its figures and conversation id."""
    hass = handle.hass
    marks: dict[str, float] = {}

    def on_call(event: Event) -> None:
        if event.data.get("domain") == "light":
            marks.setdefault("service_call", time.perf_counter())

    unsubscribe = hass.bus.async_listen(EVENT_CALL_SERVICE, on_call)
    clock = _Clock(minute)
    started = time.perf_counter()
    try:
        with (
            first_token_timer(handle, marks),
            patch.object(agent_module, "dt_util", clock),
        ):
            record = await async_run_turn(
                handle, sentence, conversation_id=conversation_id, user_id=user_id
            )
    finally:
        unsubscribe()
    # The user listens to the answer before the next turn: the engine prepares it meanwhile.
    idle_started = time.perf_counter()
    await hass.async_block_till_done(wait_background_tasks=True)
    preparing_s = time.perf_counter() - idle_started
    report = record.report
    if report is None:
        raise HarnessError(f"the turn {sentence!r} did not reach the model")
    rounds = [r.stats for r in record.rounds if r.stats is not None]
    worker = handle.worker
    assert isinstance(worker, ModelWorker)
    stats = worker.checkpoint_stats
    figures = {
        "prompt_tokens": rounds[0].prompt_tokens,
        "evaluated_tokens": rounds[0].evaluated_tokens,
        "turn_evaluated_tokens": sum(r.evaluated_tokens for r in rounds),
        "first_token_s": marks.get("first_token", started) - started,
        "service_call_s": (marks["service_call"] - started) if "service_call" in marks else None,
        "turn_s": record.wall_seconds,
        "checkpoint_bytes": stats.bytes,
        "checkpoint_count": stats.count,
        "rss_bytes": await hass.async_add_executor_job(process_rss),
        "preparing_s": preparing_s,
        "threads": worker.settings.threads,
    }
    return figures, record.conversation_id or ""


async def change_three(hass: HomeAssistant, home: SyntheticHome, target: str) -> None:
    """Toggle three lights or switches other than the one the command turns on."""
    candidates = [
        e for e in home.entity_ids if e.split(".", 1)[0] in ("light", "switch") and e != target
    ]
    for entity_id in candidates[:3]:
        domain = entity_id.split(".", 1)[0]
        await hass.services.async_call(domain, "toggle", {"entity_id": entity_id}, blocking=True)


async def run_layouts(
    handle: LocalAgentHandle,
    home: SyntheticHome,
    model: str,
    size: int,
    layouts: Sequence[str] = LAYOUTS,
) -> list[TurnCost]:
    """The four turns, in each layout."""
    hass = handle.hass
    target = next(e for e in home.entity_ids if e.startswith("light."))
    state = hass.states.get(target)
    name = state.name if state is not None else target
    sentence = f"turn on the {name}"
    user_id = await async_create_person(hass, f"Bench {model} {size}")
    worker = handle.worker
    assert isinstance(worker, ModelWorker)
    results: list[TurnCost] = []
    minute = 0
    forced = ForcedAnswers(call_text(target))
    with forced.installed():
        for name_ in layouts:
            with layout(name_):
                handle.agent.home_context = HomeContext()
                await hass.async_add_executor_job(worker._model.reset_cache)
                conversations: dict[str, str | None] = {}
                for scenario in SCENARIOS:
                    minute += 1
                    if scenario == "after 3 changes":
                        await change_three(hass, home, target)
                    conversation_id = {
                        "first turn": None,
                        "follow-up": conversations.get("first turn"),
                        "new conversation": None,
                        "after 3 changes": conversations.get("new conversation"),
                    }[scenario]
                    figures, conversation_id_ = await measure_turn(
                        handle,
                        sentence,
                        conversation_id=conversation_id,
                        user_id=user_id,
                        minute=minute,
                    )
                    conversations[scenario] = conversation_id_
                    results.append(TurnCost(model, size, name_, scenario, **figures))
                    print(_row(results[-1]), flush=True)
    return results


def _row(cost: TurnCost) -> str:
    call = "-" if cost.service_call_s is None else f"{cost.service_call_s:.2f}"
    return (
        f"{cost.model:<12} {cost.entities:>5} {cost.layout:<4} {cost.scenario:<17} "
        f"{cost.prompt_tokens:>7} {cost.evaluated_tokens:>7} {cost.first_token_s:>8.2f} "
        f"{call:>8} {cost.turn_s:>8.2f} {cost.preparing_s:>6.2f} "
        f"{cost.checkpoint_bytes / 2**20:>8.1f} "
        f"{cost.checkpoint_count:>3} {cost.rss_bytes / 2**20:>7.0f}"
    )


HEADER = (
    f"{'model':<12} {'ents':>5} {'lay':<4} {'turn':<17} {'prompt':>7} {'eval':>7} "
    f"{'ttft s':>8} {'call s':>8} {'turn s':>8} {'prep s':>6} {'ckpt MB':>8} {'n':>3} "
    f"{'RSS MB':>7}"
)


def context_size(size: int, requested: int | None) -> int:
    """A context that holds the old layout's prompt of this home (twin tokenizer)."""
    if requested:
        return requested
    return 8192 if size <= 50 else 32768 if size <= 200 else 131072


async def async_bench(args: argparse.Namespace) -> list[TurnCost]:
    """Every size, every model, both layouts."""
    results: list[TurnCost] = []
    models = [(name, resolve_model(name)) for name in args.models]
    print(HEADER, flush=True)
    for size in args.homes:
        async with async_home_assistant() as hass:
            home = await async_setup_synthetic_home(hass, size)
            for label, path in models:
                engine_options = {
                    CONF_THREADS: args.threads,
                    CONF_CONTEXT_SIZE: context_size(size, args.context_size),
                }
                agent_options = {
                    CONF_TEMPERATURE: 0.0,
                    CONF_MAX_TOKENS: 512,
                    CONF_THINKING_BUDGET: 256,
                }
                async with async_local_agent(
                    hass, path, engine_options=engine_options, agent_options=agent_options
                ) as handle:
                    results += await run_layouts(handle, home, label, size, args.layouts)
    return results


def markdown(results: list[TurnCost], args: argparse.Namespace) -> str:
    """The report section: one table per model."""
    lines = [
        "## A command against the size of the home, old vs new prompt layout",
        "",
        "`scripts/bench turn --homes SIZES --models MODELS --threads N [--layouts old,new]`; "
        "each run replaces its own rows in `home_turns.json` and this section is written from "
        f"all of them (last run: `--homes {','.join(map(str, args.homes))} --models "
        f"{','.join(args.models)} --threads {args.threads} --layouts {','.join(args.layouts)}`)."
        " Forced answer: 64 thinking tokens "
        'and a call that turns on a light, then "Done.". Evaluated = prompt tokens of round '
        "one not restored from a checkpoint. TTFT: request until the first token of round one. "
        "Call: until Home Assistant's call_service event. Prepared: after the answer, the "
        "engine evaluating what the next turn of the conversation starts with (new layout; "
        "a request that arrives meanwhile stops it).",
        "",
    ]
    for model in dict.fromkeys(r.model for r in results):
        lines += [
            f"### {model}",
            "",
            "| entities | threads | layout | turn | prompt tokens | evaluated | TTFT (s) | "
            "call (s) | turn (s) | prepared (s) | checkpoints (MB, n) | RSS (MB) |",
            "|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in (r for r in results if r.model == model):
            call = "-" if r.service_call_s is None else f"{r.service_call_s:.2f}"
            lines.append(
                f"| {r.entities} | {r.threads} | {r.layout} | {r.scenario} | {r.prompt_tokens} | "
                f"{r.evaluated_tokens} | {r.first_token_s:.2f} | {call} | {r.turn_s:.2f} | "
                f"{r.preparing_s:.2f} | "
                f"{r.checkpoint_bytes / 2**20:.1f}, {r.checkpoint_count} | "
                f"{r.rss_bytes / 2**20:.0f} |"
            )
        lines.append("")
    return "\n".join(lines)


def plot(results: list[TurnCost], path: Path) -> None:
    """Evaluated tokens and time to first token against exposed entities, old vs new."""
    import matplotlib as mpl

    mpl.use("Agg")
    import matplotlib.pyplot as plt

    figure, (tokens_axis, time_axis) = plt.subplots(1, 2, figsize=(11, 4.5))
    for model in dict.fromkeys(r.model for r in results):
        for layout_name, style in (("old", "s--"), ("new", "o-")):
            chosen = [
                r
                for r in results
                if r.model == model and r.layout == layout_name and r.scenario != "first turn"
            ]
            sizes = sorted({r.entities for r in chosen})
            if not sizes:
                continue
            evaluated = [
                statistics.median(r.evaluated_tokens for r in chosen if r.entities == s)
                for s in sizes
            ]
            ttft = [
                statistics.median(r.first_token_s for r in chosen if r.entities == s) for s in sizes
            ]
            label = f"{model}, {layout_name} layout"
            tokens_axis.plot(sizes, evaluated, style, label=label)
            time_axis.plot(sizes, ttft, style, label=label)
    for axis, ylabel in (
        (tokens_axis, "evaluated prompt tokens per command"),
        (time_axis, "time to first token (s)"),
    ):
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.set_xlabel("exposed entities")
        axis.set_ylabel(ylabel)
        axis.legend(fontsize=7)
    figure.suptitle("Median over follow-up, new conversation and after-3-changes turns")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


MARK_BEGIN = "<!-- home-turns:begin -->"
MARK_END = "<!-- home-turns:end -->"


def merged(path: Path, results: list[TurnCost]) -> list[TurnCost]:
    """The rows of earlier runs in path, with those this run measured again replaced."""
    if not path.is_file():
        return results
    fresh = {(r.model, r.entities, r.threads, r.layout, r.scenario) for r in results}
    kept: list[TurnCost] = []
    for row in json.loads(path.read_text(encoding="utf-8")):
        try:
            earlier = TurnCost(**row)
        except TypeError:
            continue  # a row of an older format: measured again or dropped
        key = (earlier.model, earlier.entities, earlier.threads, earlier.layout, earlier.scenario)
        if key not in fresh:
            kept.append(earlier)
    rows = kept + results
    order = {scenario: index for index, scenario in enumerate(SCENARIOS)}
    return sorted(
        rows,
        key=lambda r: (r.model, r.entities, r.threads, LAYOUTS.index(r.layout), order[r.scenario]),
    )


def write_report(results: list[TurnCost], args: argparse.Namespace) -> Path:
    """Put the section (and its plot) into <out>/benchmarks.md, replacing an older one."""
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    results = merged(out / "home_turns.json", results)
    (out / "home_turns.json").write_text(
        json.dumps([asdict(r) for r in results], indent=2) + "\n", encoding="utf-8"
    )
    plot(results, out / "home_turns.png")
    section = (
        f"{MARK_BEGIN}\n{markdown(results, args)}\n"
        "![Evaluated tokens and time to first token, old vs new layout](home_turns.png)\n"
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
        default=["twin-q8_0", "twin-q4_k_m", "gemma"],
        help="with --homes: models (twin-q8_0, twin-q4_k_m, gemma, qwen35, or paths)",
    )
    parser.add_argument(
        "--layouts",
        type=lambda text: [layout for layout in text.split(",") if layout in LAYOUTS],
        default=list(LAYOUTS),
        help="with --homes: prompt layouts (old,new)",
    )
    parser.add_argument("--context-size", type=int, help="with --homes: context (default by size)")
    parser.add_argument("--out", type=Path, default=Path("reports"), help="with --homes")


def main(args: argparse.Namespace) -> int:
    """Run the home-size benchmark; write the report section."""
    try:
        results = asyncio.run(async_bench(args))
    except HarnessError as err:
        print(f"scripts/bench turn: {err}", file=sys.stderr)
        return 1
    report = write_report(results, args)
    print(f"\nWritten to {report}")
    return 0
