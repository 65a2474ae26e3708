"""`scripts/bench prompt`: the prompt our agent builds for homes of 10 to 1000 exposed entities.

For each home size, a real Home Assistant runs in-process with a synthetic home of that many
exposed entities (testing/synthetic.py: lights, switches, sensors, covers, binary
sensors, fans, climate, locks and media players, in areas, some with aliases), and the Local
Agent is set up on it with a stand-in model that answers at once (testing/stand_in.py).

* Our prompt: the exact static and dynamic text the agent hands to the engine for the turn
  "turn on the kitchen light", tokenized as the engine does (static with BOS, then dynamic).
* Assist: what core's Ollama agent sends for the same home and sentence: the system prompt
  `ChatLog.async_provide_llm_data` builds with the "assist" LLM API and Home Assistant's default
  instructions, and every API tool formatted as the Ollama integration's `_format_tool` does
  (probatio.to_openapi), rendered through the same Qwen3.5 chat template, same tokenizer.
* Time per turn outside the model: the agent's own TurnReport.build_seconds (tools, overview,
  system text) plus the time spent rendering the chat template (the agent's renderer, timed
  by a wrapper), median over --turns turns each in a new conversation; tokenization is model
  time and is excluded. Also the whole conversation turn (Home Assistant's conversation API,
  chat log and our agent) with the instant stand-in, in wall and in CPU time, and the first
  turn after start (it loads every integration's service descriptions).

Token counts come from each tokenizer given (default: the qwen35 test model's 915-token
vocabulary, which splits text into many more tokens than the real Qwen3.5 vocabulary of
248k, and Gemma 3 270M's real 262k vocabulary, close to Qwen3.5's). `--model PATH` uses the
tokenizer of any GGUF file (vocabulary only).
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import asdict
from dataclasses import dataclass
from dataclasses import field
import json
from pathlib import Path
import statistics
import sys
import time
from typing import Any
from typing import Final

import probatio

from custom_components.local_agent import compat
from custom_components.local_agent.engine.chat_format import ChatTemplate
from custom_components.local_agent.engine.chat_format import load_template
from homeassistant.components import conversation
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm
from testing.agent import LocalAgentHandle
from testing.agent import async_local_agent
from testing.hass_runner import HarnessError
from testing.hass_runner import async_home_assistant
from testing.hass_runner import configure_logging
from testing.models import GEMMA
from testing.models import QWEN35_TEST
from testing.models import ModelFileError
from testing.models import resolve_model
from testing.stand_in import StandInWorker
from testing.synthetic import async_setup_synthetic_home
from testing.tokenizer import Tokenizer
from testing.turn import probe_turn

SIZES: Final = (10, 50, 200, 1000)
SENTENCE: Final = "turn on the kitchen light"
DEFAULT_TURNS: Final = 30
GOAL_MS_AT_200: Final = 5.0
OLLAMA_PLATFORM: Final = "ollama"


@dataclass(frozen=True, slots=True)
class PromptTexts:
    """The prompts of one home: ours (split) and Assist's (with and without its tools)."""

    static: str
    dynamic: str
    assist: str
    assist_without_tools: str
    tools: tuple[str, ...]
    assist_tools: int


@dataclass(frozen=True, slots=True)
class TurnTiming:
    """Seconds of one turn: the agent's build and render (wall), the whole turn (wall, CPU)."""

    build: float
    render: float
    wall: float
    cpu: float

    @property
    def ours(self) -> float:
        """Our code outside the model: build + render."""
        return self.build + self.render


@dataclass(slots=True)
class Timing:
    """Milliseconds per turn outside the model."""

    first_turn_ms: float
    build_ms: float
    render_ms: float
    ours_ms: float
    ours_min_ms: float
    turn_ms: float
    turn_cpu_ms: float


@dataclass(slots=True)
class SizeResult:
    """Everything measured for one home size."""

    entities: int
    tools: list[str]
    assist_tools: int
    chars: dict[str, int]
    tokens: dict[str, dict[str, int]] = field(default_factory=dict)
    timing: Timing | None = None


def format_tool(tool: llm.Tool, custom_serializer: Callable[[Any], Any] | None) -> dict[str, Any]:
    """Format a tool exactly as homeassistant.components.ollama.entity._format_tool does.

    (Copied: importing the Ollama integration needs the `ollama` client library.)
    """
    tool_spec: dict[str, Any] = {
        "name": tool.name,
        "parameters": probatio.to_openapi(
            tool.parameters, custom_serializer=custom_serializer, openapi_version="3.1.0"
        ),
    }
    if tool.description:
        tool_spec["description"] = tool.description
    return {"type": "function", "function": tool_spec}


async def async_assist_prompt(
    hass: HomeAssistant, template: ChatTemplate, text: str
) -> tuple[str, str, int]:
    """Return the prompt core's Ollama agent sends with the Assist API, without its tools,
    and the number of tools."""
    user_input = conversation.ConversationInput(
        text=text,
        context=Context(),
        conversation_id=None,
        device_id=None,
        satellite_id=None,
        language="en",
        agent_id=f"conversation.{OLLAMA_PLATFORM}",
    )
    with (
        compat.async_get_chat_session(hass, None, user_input.context) as session,
        conversation.async_get_chat_log(hass, session, user_input) as chat_log,
    ):
        await chat_log.async_provide_llm_data(
            user_input.as_llm_context(OLLAMA_PLATFORM), llm.LLM_API_ASSIST, None, None
        )
        api = chat_log.llm_api
        if api is None:
            raise HarnessError("The Assist LLM API is not available")
        tools = [format_tool(tool, api.custom_serializer) for tool in api.tools]
        system = chat_log.content[0]
        if not isinstance(system, conversation.SystemContent):
            raise HarnessError("The chat log does not start with a system prompt")
        messages = [
            {"role": "system", "content": system.content},
            {"role": "user", "content": text},
        ]

    def render(with_tools: list[dict[str, Any]] | None) -> str:
        return template.compiled.render(
            messages=messages, tools=with_tools, enable_thinking=True, add_generation_prompt=True
        )

    return render(tools or None), render(None), len(tools)


def _median_ms(values: Sequence[float]) -> float:
    return statistics.median(values) * 1000


async def async_time_turn(handle: LocalAgentHandle) -> TurnTiming:
    """Send the sentence in a new conversation; time the agent's parts and the whole turn.

    The whole turn's CPU time is the event loop thread's (Home Assistant and our agent; the
    stand-in costs next to nothing); unlike wall time, other processes cannot inflate it.
    """
    with probe_turn(handle) as probe:
        cpu_started = time.thread_time()
        started = time.perf_counter()
        await handle.async_ask(SENTENCE)
        wall = time.perf_counter() - started
        cpu = time.thread_time() - cpu_started
    report = handle.agent.last_report
    await handle.hass.async_block_till_done()
    build = report.build_seconds if report is not None else 0.0
    return TurnTiming(build=build, render=probe.render_seconds, wall=wall, cpu=cpu)


def timing_of(first: TurnTiming, turns: Sequence[TurnTiming]) -> Timing:
    """Summarise the turns' times (the first turn apart)."""
    return Timing(
        first_turn_ms=first.ours * 1000,
        build_ms=_median_ms([t.build for t in turns]),
        render_ms=_median_ms([t.render for t in turns]),
        ours_ms=_median_ms([t.ours for t in turns]),
        ours_min_ms=min(t.ours for t in turns) * 1000,
        turn_ms=_median_ms([t.wall for t in turns]),
        turn_cpu_ms=_median_ms([t.cpu for t in turns]),
    )


async def async_measure_home(
    count: int, model_path: Path, template: ChatTemplate, turns: int
) -> tuple[PromptTexts, Timing]:
    """Boot Home Assistant with a home of count entities; return its prompts and timings."""
    async with async_home_assistant() as hass:
        home = await async_setup_synthetic_home(hass, count)
        stand_in = StandInWorker(model_path, chat_template=template.text)
        async with async_local_agent(hass, model_path, stand_in=stand_in) as handle:
            first = await async_time_turn(handle)
            timings = [await async_time_turn(handle) for _ in range(turns)]
        request = stand_in.requests[-1]
        assist, assist_bare, assist_tools = await async_assist_prompt(hass, template, SENTENCE)
    if len(home.entity_ids) != count:
        raise HarnessError(f"The home has {len(home.entity_ids)} entities, not {count}")
    texts = PromptTexts(
        static=request.static_prompt,
        dynamic=request.dynamic_prompt,
        assist=assist,
        assist_without_tools=assist_bare,
        tools=tuple(spec.name for spec in request.tools),
        assist_tools=assist_tools,
    )
    return texts, timing_of(first, timings)


def count_tokens(texts: PromptTexts, tokenizer: Tokenizer) -> dict[str, int]:
    """Return our static/dynamic/total and Assist's total/tool tokens."""
    static, dynamic = tokenizer.count_prompt(texts.static, texts.dynamic)
    assist = tokenizer.count(texts.assist, add_bos=True)
    assist_bare = tokenizer.count(texts.assist_without_tools, add_bos=True)
    return {
        "static": static,
        "dynamic": dynamic,
        "total": static + dynamic,
        "assist_total": assist,
        "assist_tools": assist - assist_bare,
    }


def result_for(count: int, texts: PromptTexts, timing: Timing) -> SizeResult:
    """Start a size's result from its prompts and timing."""
    return SizeResult(
        entities=count,
        tools=list(texts.tools),
        assist_tools=texts.assist_tools,
        chars={
            "static": len(texts.static),
            "dynamic": len(texts.dynamic),
            "assist": len(texts.assist),
        },
        timing=timing,
    )


def token_table(results: Sequence[SizeResult], label: str, tokenizer: Tokenizer) -> list[str]:
    """Return the token table for one tokenizer."""
    lines = [
        f"Prompt tokens, tokenizer {label} ({tokenizer.n_vocab:,}-token vocabulary)",
        f"{'entities':>8} | {'ours static':>11} {'dynamic':>8} {'total':>8} | "
        f"{'Assist total':>12} {'of it tools':>11} | {'ours/Assist':>11}",
    ]
    for result in results:
        t = result.tokens[label]
        ratio = t["total"] / t["assist_total"] if t["assist_total"] else float("nan")
        lines.append(
            f"{result.entities:>8} | {t['static']:>11,} {t['dynamic']:>8,} {t['total']:>8,} | "
            f"{t['assist_total']:>12,} {t['assist_tools']:>11,} | {ratio:>11.2f}"
        )
    return lines


def timing_table(results: Sequence[SizeResult], turns: int) -> list[str]:
    """Return the table of time per turn outside the model."""
    lines = [
        f"Time per turn outside the model, ms (median of {turns} turns; first turn apart)",
        f"{'entities':>8} | {'build':>7} {'render':>7} {'ours':>7} {'ours min':>8} | "
        f"{'turn wall':>9} {'turn CPU':>8} | {'first turn':>10}",
    ]
    for result in results:
        t = result.timing
        if t is None:
            continue
        lines.append(
            f"{result.entities:>8} | {t.build_ms:>7.2f} {t.render_ms:>7.2f} {t.ours_ms:>7.2f} "
            f"{t.ours_min_ms:>8.2f} | {t.turn_ms:>9.2f} {t.turn_cpu_ms:>8.2f} | "
            f"{t.first_turn_ms:>10.1f}"
        )
    lines += [
        "build: TurnReport.build_seconds (tool specs, home overview, system text); render: the",
        "chat template; ours = build + render (wall time: other processes can inflate it; 'ours",
        "min' is the fastest turn). turn: conversation.async_converse with an instant stand-in",
        "model (Home Assistant's conversation API, chat log and our agent), wall and CPU time.",
        "first turn: ours on the first turn after start (it loads all service descriptions).",
    ]
    at_200 = next((r.timing for r in results if r.entities == 200 and r.timing), None)
    if at_200 is not None:
        verdict = "met" if at_200.ours_ms < GOAL_MS_AT_200 else "NOT met"
        lines.append(
            f"Goal < {GOAL_MS_AT_200:g} ms at 200 entities: {verdict} "
            f"(median {at_200.ours_ms:.2f} ms, fastest {at_200.ours_min_ms:.2f} ms)"
        )
    return lines


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="scripts/bench prompt", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--model",
        action="append",
        help=f"tokenizer GGUF file or {QWEN35_TEST}/{GEMMA}; repeatable "
        f"(default: {QWEN35_TEST} and {GEMMA})",
    )
    parser.add_argument(
        "--sizes",
        type=lambda text: [int(part) for part in text.split(",")],
        default=list(SIZES),
        help="home sizes, comma-separated (default: 10,50,200,1000)",
    )
    parser.add_argument("--turns", type=int, default=DEFAULT_TURNS, help="timed turns per size")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("-v", "--verbose", action="store_true", help="log Home Assistant debug")
    return parser.parse_args(argv)


def load_tokenizers(names: Sequence[str]) -> dict[str, Tokenizer]:
    """Return the tokenizers by label; raises ModelFileError."""
    tokenizers: dict[str, Tokenizer] = {}
    for name in names:
        path = resolve_model(name)
        label = {QWEN35_TEST: "qwen35-test", GEMMA: "gemma-3-270m"}.get(name, path.name)
        tokenizers[label] = Tokenizer(path, label)
    return tokenizers


async def async_run(
    sizes: Sequence[int], turns: int, tokenizers: dict[str, Tokenizer]
) -> list[SizeResult]:
    """Measure every size; count its prompts with every tokenizer."""
    model_path = resolve_model(QWEN35_TEST)  # only its GGUF header is read: the model is a stand-in
    template = load_template(None)  # the bundled Qwen3.5 template, as the test model carries
    results: list[SizeResult] = []
    for count in sizes:
        texts, timing = await async_measure_home(count, model_path, template, turns)
        result = result_for(count, texts, timing)
        for label, tokenizer in tokenizers.items():
            result.tokens[label] = count_tokens(texts, tokenizer)
        results.append(result)
        print(f"measured {count} entities", file=sys.stderr, flush=True)
    return results


def report(results: Sequence[SizeResult], tokenizers: dict[str, Tokenizer], turns: int) -> str:
    """Return the printed report."""
    lines: list[str] = []
    for label, tokenizer in tokenizers.items():
        lines += [*token_table(results, label, tokenizer), ""]
    tools = ", ".join(results[-1].tools) if results else ""
    lines.append(
        f"Our tools at {results[-1].entities} entities: {tools}; Assist offers "
        f"{results[-1].assist_tools} tools."
        if results
        else ""
    )
    lines += ["", *timing_table(results, turns)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; return the exit status."""
    args = parse_args(argv)
    configure_logging(verbose=args.verbose)
    try:
        tokenizers = load_tokenizers(args.model or [QWEN35_TEST, GEMMA])
        results = asyncio.run(async_run(args.sizes, args.turns, tokenizers))
    except (HarnessError, ModelFileError) as err:
        print(f"scripts/bench prompt: {err}", file=sys.stderr)
        return 1
    print(report(results, tokenizers, args.turns))
    if args.json is not None:
        figures = {
            "sentence": SENTENCE,
            "turns": args.turns,
            "tokenizers": {label: t.n_vocab for label, t in tokenizers.items()},
            "sizes": [asdict(result) for result in results],
        }
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
