"""`scripts/bench turn`: the latency of one spoken command, end to end, and where it goes.

A real Home Assistant with the demo home (testing/) sends one sentence to the agent,
through `conversation.async_converse`, as a voice satellite would. Engines:

* ``inprocess``: the model in this process (llama-cpp-python, prefix checkpoints).
* ``server``: the same model file served by an OpenAI-compatible server started here on
  loopback with the same threads, reached through the server engine in completions or chat
  mode: llama.cpp's `llama-server` (--server llama-server, the default; built by scripts/setup,
  one slot of 8,192 tokens, its own context checkpoints and prompt cache, the chat template from
  its /props) or llama-cpp-python's (--server llama-cpp-python, `python -m llama_cpp.server`).
* ``both``: one after the other, then the comparison.

Each turn is split by the events the engine streams (timestamped as they reach the agent):

* build: the agent's work before the model (tools, home overview, prompt rendering);
* prompt: request until the first piece of the answer, per model round (in-process: prompt
  evaluation with the cached prefix restored; server: the same plus HTTP);
* reasoning / tool call / answer: time until each reasoning, call and answer event (the
  server's extra requests within a round, which continue after the thinking budget or after
  `<tool_call>`, count towards the event they lead to);
* execution: running the tool calls in Home Assistant;
* other: the rest of the wall time (chat log, conversation API, safety gate).

Tokens: prompt tokens, cached tokens and evaluated tokens (prompt minus cached: what the
prefix checkpoint, or the server's cache and context checkpoints, saved) as the engine reports
them (llama-cpp-python's server reports none while streaming: "n/a"), generated and reasoning
tokens. The first turn of each
engine warms it up (the in-process static prefix checkpoint, the server's imports) and is not
counted; each figure is the median of --runs turns, each in a new conversation and a minute
later on the prompt's clock (so the dynamic part changes, as it does in real use).

The server uses the model file's own chat template (llama-server shows it at /props; for
llama-cpp-python's server it is read from the file here), so both engines see the same prompt. With
--force-call the first round of each turn continues after `<tool_call>` (as the tests do), so a
random-weight model exercises the call, its validation and execution.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import AsyncIterator
from collections.abc import Callable
from collections.abc import Iterator
import contextlib
from dataclasses import asdict
from dataclasses import dataclass
from dataclasses import field
from datetime import datetime
from datetime import timedelta
import json
from pathlib import Path
import statistics
import sys
import time
from types import MappingProxyType
from typing import Any
from unittest.mock import patch

from custom_components.local_agent.config_flow import LocalAgentConfigFlow
from custom_components.local_agent.const import CONF_MAX_CONCURRENT
from custom_components.local_agent.const import CONF_MAX_TOKENS
from custom_components.local_agent.const import CONF_SERVER_MODE
from custom_components.local_agent.const import CONF_SERVER_MODEL
from custom_components.local_agent.const import CONF_SERVER_URL
from custom_components.local_agent.const import CONF_TEMPERATURE
from custom_components.local_agent.const import CONF_THINKING_BUDGET
from custom_components.local_agent.const import CONF_THREADS
from custom_components.local_agent.const import DEFAULT_AGENT_NAME
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from custom_components.local_agent.engine.chat_format import ChatTemplate
from custom_components.local_agent.engine.chat_format import compile_template
from custom_components.local_agent.engine.chat_format import load_template
from custom_components.local_agent.engine.generation import GenerationOutput
from custom_components.local_agent.engine.generation import GenerationRequest
from custom_components.local_agent.engine.server import worker as server_worker_module
from custom_components.local_agent.engine.server.settings import ServerMode
from custom_components.local_agent.engine.tool_calls import ParseEvent
from custom_components.local_agent.engine.tool_calls import ReasoningDelta
from custom_components.local_agent.engine.tool_calls import TextDelta
from custom_components.local_agent.engine.tool_calls import ToolCallFailed
from custom_components.local_agent.engine.tool_calls import ToolCallParsed
from custom_components.local_agent.turn import agent as agent_module
from custom_components.local_agent.turn.defaults import agent_data
from homeassistant.config_entries import SOURCE_USER
from homeassistant.config_entries import ConfigEntry
from homeassistant.config_entries import ConfigEntryState
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.util import dt as dt_util
from testing.agent import LocalAgentHandle
from testing.agent import async_create_person
from testing.agent import async_local_agent
from testing.demo_home import async_setup_demo_home
from testing.demo_home import demo_platforms
from testing.hass_runner import HarnessError
from testing.hass_runner import async_home_assistant
from testing.hass_runner import configure_logging
from testing.llama_server import missing_server_dependencies
from testing.llama_server import running_llama_server
from testing.models import SHORTCUTS
from testing.models import ModelFileError
from testing.models import resolve_model
from testing.real_llama_server import missing_llama_server
from testing.real_llama_server import running_real_llama_server
from testing.steering import CallAfterReasoning
from testing.steering import first_round_of_turn
from testing.turn import TurnRecord
from testing.turn import async_run_turn

from . import home_turns

ENGINES = ("inprocess", "server")
SERVERS = ("llama-server", "llama-cpp-python")
PARTS = ("build", "prompt", "reasoning", "tool call", "execution", "answer", "other", "total")


@dataclass(slots=True)
class RoundTiming:
    """When one model round's events reached the agent."""

    started: float
    prompt: float = 0.0
    reasoning: float = 0.0
    call: float = 0.0
    answer: float = 0.0


@dataclass(slots=True)
class TurnFigures:
    """One turn, split."""

    seconds: dict[str, float]
    prompt_tokens: int | None
    cached_tokens: int | None
    generated_tokens: int
    reasoning_tokens: int
    rounds: int
    calls: list[str]
    answer: str


@dataclass(slots=True)
class EngineResult:
    """Every counted turn of one engine."""

    engine: str
    label: str
    turns: list[TurnFigures] = field(default_factory=list)

    def median(self, part: str) -> float:
        """Median seconds of one part."""
        return statistics.median(turn.seconds[part] for turn in self.turns)

    def median_tokens(self, name: str) -> float | None:
        """Median of a token count, None when the engine does not report it."""
        values: list[int | None] = [getattr(turn, name) for turn in self.turns]
        counted = [value for value in values if value is not None]
        if len(counted) < len(values):
            return None
        return float(statistics.median(counted))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(prog="scripts/bench turn", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--model", help=f"GGUF file, or {' / '.join(SHORTCUTS)} (default: qwen35, the test model)"
    )
    parser.add_argument("--engine", choices=(*ENGINES, "both"), default="both")
    parser.add_argument("--server", choices=SERVERS, default=SERVERS[0], help="which server")
    parser.add_argument(
        "--mode", choices=[str(mode) for mode in ServerMode], default=str(ServerMode.COMPLETIONS)
    )
    parser.add_argument("--sentence", default="turn on the kitchen light")
    parser.add_argument("--runs", type=int, default=5, help="counted turns per engine")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--thinking-budget", type=int, default=32)
    parser.add_argument("--force-call", action="store_true", help="force a call in round 1")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("-v", "--verbose", action="store_true")
    home_turns.add_arguments(parser)
    return parser.parse_args(argv)


def agent_options(args: argparse.Namespace) -> dict[str, Any]:
    """Greedy sampling and bounded answers, so both engines write alike."""
    return {
        CONF_TEMPERATURE: 0.0,
        CONF_MAX_TOKENS: args.max_tokens,
        CONF_THINKING_BUDGET: args.thinking_budget,
    }


class _Clock:
    """The agent's view of homeassistant.util.dt, some minutes ahead."""

    def __init__(self, offset: timedelta) -> None:
        self._offset = offset

    def now(self) -> datetime:
        return dt_util.now() + self._offset


@contextlib.contextmanager
def timed_events(handle: LocalAgentHandle, rounds: list[RoundTiming]) -> Iterator[None]:
    """Timestamp each model round's events as they reach the agent."""
    worker = handle.worker
    generate = worker.generate

    async def timed(
        request: GenerationRequest, on_event: Callable[[ParseEvent], None] | None = None
    ) -> GenerationOutput:
        timing = RoundTiming(started=time.perf_counter())
        rounds.append(timing)
        last = [timing.started]

        def note(event: ParseEvent) -> None:
            now = time.perf_counter()
            if not timing.prompt:
                timing.prompt = now - timing.started
            else:
                spent = now - last[0]
                if isinstance(event, ReasoningDelta):
                    timing.reasoning += spent
                elif isinstance(event, ToolCallParsed | ToolCallFailed):
                    timing.call += spent
                elif isinstance(event, TextDelta):
                    timing.answer += spent
            last[0] = now
            if on_event is not None:
                on_event(event)

        output = await generate(request, note)
        now = time.perf_counter()
        if not timing.prompt:  # nothing but whitespace was written: the engine's own split
            timing.prompt = min(output.stats.prompt_seconds, now - timing.started)
            last[0] = timing.started + timing.prompt
        timing.answer += now - last[0]  # the end of the stream
        return output

    with patch.object(worker, "generate", timed):
        yield


def figures(record: TurnRecord, rounds: list[RoundTiming], *, server: bool) -> TurnFigures:
    """Split one recorded turn."""
    report = record.report
    assert report is not None
    seconds = {
        "build": report.build_seconds,
        "prompt": sum(r.prompt for r in rounds),
        "reasoning": sum(r.reasoning for r in rounds),
        "tool call": sum(r.call for r in rounds),
        "execution": report.tool_seconds,
        "answer": sum(r.answer for r in rounds),
        "total": record.wall_seconds,
    }
    seconds["other"] = seconds["total"] - sum(
        seconds[part] for part in PARTS if part not in ("other", "total")
    )
    reported = not server or report.prompt_tokens > 0
    return TurnFigures(
        seconds=seconds,
        prompt_tokens=report.prompt_tokens if reported else None,
        cached_tokens=report.cached_tokens if reported else None,
        generated_tokens=report.generated_tokens,
        reasoning_tokens=report.reasoning_tokens,
        rounds=report.rounds,
        calls=[call.name for call in record.tool_calls],
        answer=record.answer,
    )


async def run_turns(
    handle: LocalAgentHandle, args: argparse.Namespace, result: EngineResult, *, server: bool
) -> None:
    """One warm-up turn, then --runs counted turns, each in a new conversation.

    Each turn happens a minute after the previous one (as far as the prompt's clock says), so
    its dynamic part differs as in real use and no engine reuses a whole previous prompt.
    """
    user_id = await async_create_person(handle.hass, f"Bench user {result.engine}")
    if args.force_call:
        # The first round of each turn continues after `<tool_call>` (testing/steering.py).
        handle.worker.steering = CallAfterReasoning(wants=first_round_of_turn)
    await handle.hass.async_block_till_done(wait_background_tasks=True)  # the warm-up
    for number in range(args.runs + 1):
        rounds: list[RoundTiming] = []
        with (
            timed_events(handle, rounds),
            patch.object(agent_module, "dt_util", _Clock(timedelta(minutes=number))),
        ):
            record = await async_run_turn(handle, args.sentence, user_id=user_id)
        if number:
            result.turns.append(figures(record, rounds, server=server))


def gguf_chat_template(path: Path) -> ChatTemplate | None:
    """The chat template stored in the model file (what the in-process engine uses)."""
    import gguf

    field_ = gguf.GGUFReader(path).fields.get("tokenizer.chat_template")
    if field_ is None:
        return None
    text = bytes(field_.parts[field_.data[0]]).decode("utf-8")
    return compile_template(text, "server")


@contextlib.asynccontextmanager
async def async_server_agent(
    hass: HomeAssistant, url: str, model: str, mode: str, options: dict[str, Any]
) -> AsyncIterator[LocalAgentHandle]:
    """Set up a server entry with one agent (as the config flow creates it)."""
    entry = ConfigEntry(
        domain=DOMAIN,
        title=f"{Path(model).name} on a server",
        data={CONF_SERVER_URL: url, CONF_SERVER_MODEL: model, CONF_SERVER_MODE: mode},
        options={CONF_MAX_CONCURRENT: 1},
        source=SOURCE_USER,
        version=LocalAgentConfigFlow.VERSION,
        minor_version=LocalAgentConfigFlow.MINOR_VERSION,
        unique_id=f"{url}#{model}",
        discovery_keys=MappingProxyType({}),
        subentries_data=[
            ConfigSubentryData(
                data={**agent_data(), **options},
                subentry_type=SUBENTRY_CONVERSATION,
                title=DEFAULT_AGENT_NAME,
                unique_id=None,
            )
        ],
    )
    await hass.config_entries.async_add(entry)
    await hass.async_block_till_done()
    try:
        if entry.state is not ConfigEntryState.LOADED:
            raise HarnessError(f"The server entry did not load: {entry.reason}")
        subentry_id = next(iter(entry.subentries))
        entity_id = er.async_get(hass).async_get_entity_id("conversation", DOMAIN, subentry_id)
        if entity_id is None:
            raise HarnessError("The server entry created no conversation entity")
        yield LocalAgentHandle(hass, entry, entity_id)
    finally:
        await hass.config_entries.async_unload(entry.entry_id)


async def async_bench(args: argparse.Namespace, model: Path) -> list[EngineResult]:
    """Boot Home Assistant with the demo home; run the turns on each engine."""
    engines = ENGINES if args.engine == "both" else (args.engine,)
    options = agent_options(args)
    results: list[EngineResult] = []
    with demo_platforms():
        async with async_home_assistant() as hass:
            await async_setup_demo_home(hass)
            if "inprocess" in engines:
                result = EngineResult("inprocess", "in-process")
                async with async_local_agent(
                    hass, model, engine_options={CONF_THREADS: args.threads}, agent_options=options
                ) as handle:
                    await run_turns(handle, args, result, server=False)
                results.append(result)
            if "server" in engines and args.server == "llama-server":
                result = EngineResult("server", f"llama-server ({args.mode})")
                with running_real_llama_server(model, threads=args.threads, n_ctx=8192) as llama:
                    async with async_server_agent(
                        hass, llama.base_url, llama.model_id, args.mode, options
                    ) as handle:
                        await run_turns(handle, args, result, server=True)
                results.append(result)
            elif "server" in engines:
                result = EngineResult("server", f"server ({args.mode})")
                template = gguf_chat_template(model)
                with (
                    running_llama_server(model, threads=args.threads) as llama,
                    patch.object(
                        server_worker_module,
                        "server_template",
                        lambda text: template or load_template(None),
                    ),
                ):
                    async with async_server_agent(
                        hass, llama.base_url, llama.model_id, args.mode, options
                    ) as handle:
                        await run_turns(handle, args, result, server=True)
                results.append(result)
    return results


def report(results: list[EngineResult], args: argparse.Namespace, model: Path) -> str:
    """The table: median seconds per part and tokens, one column per engine."""
    lines = [
        f"Turn latency: {model.name}, {args.threads} threads, sentence {args.sentence!r}, "
        f"median of {args.runs} turns{', first round forced to call' if args.force_call else ''}",
        "",
        f"{'':<22}" + "".join(f"{r.label:>28}" for r in results),
    ]
    for part in PARTS:
        label = f"{part} (ms)"
        lines.append(f"{label:<22}" + "".join(f"{r.median(part) * 1000:>28.1f}" for r in results))
    for name in ("prompt_tokens", "cached_tokens", "generated_tokens", "reasoning_tokens"):
        cells = []
        for result in results:
            value = result.median_tokens(name)
            cells.append(f"{'n/a' if value is None else f'{value:g}':>28}")
        lines.append(f"{name.replace('_', ' '):<22}" + "".join(cells))
        if name == "cached_tokens":
            cells = [f"{_median_evaluated(result):>28}" for result in results]
            lines.append(f"{'evaluated tokens':<22}" + "".join(cells))
    lines.append(
        f"{'rounds':<22}"
        + "".join(f"{statistics.median(t.rounds for t in r.turns):>28g}" for r in results)
    )
    if len(results) == 2:
        ratio = results[1].median("total") / results[0].median("total")
        lines += ["", f"server / in-process total latency: {ratio:.2f}x"]
    lines.append("")
    for result in results:
        turn = result.turns[-1]
        lines.append(f"{result.label}: calls {turn.calls or 'none'}; answer {turn.answer[:80]!r}")
    return "\n".join(lines)


def _median_evaluated(result: EngineResult) -> str:
    """Median prompt tokens evaluated (not taken from a cache or checkpoint) per turn."""
    evaluated = [
        turn.prompt_tokens - turn.cached_tokens
        for turn in result.turns
        if turn.prompt_tokens is not None and turn.cached_tokens is not None
    ]
    if not evaluated or len(evaluated) < len(result.turns):
        return "n/a"
    return f"{statistics.median(evaluated):g}"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; return the exit status."""
    args = parse_args(argv)
    configure_logging(verbose=args.verbose)
    if args.homes:
        return home_turns.main(args)
    if args.engine != "inprocess":
        missing = missing_llama_server if args.server == "llama-server" else None
        if reason := (missing or missing_server_dependencies)():
            print(f"scripts/bench turn: {reason}", file=sys.stderr)
            return 2
    try:
        model = resolve_model(args.model)
    except ModelFileError as err:
        print(f"scripts/bench turn: {err}", file=sys.stderr)
        return 2
    try:
        results = asyncio.run(async_bench(args, model))
    except HarnessError as err:
        print(f"scripts/bench turn: {err}", file=sys.stderr)
        return 1
    print(report(results, args, model))
    if args.json is not None:
        args.json.write_text(json.dumps([asdict(result) for result in results], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
