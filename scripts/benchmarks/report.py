"""`scripts/bench report`: every benchmark in one Markdown report, with a plot.

Runs, on this machine:

* `prompt`: prompt tokens of our agent vs Home Assistant's Assist API for homes of 10 to 1000
  exposed entities, and our time per turn outside the model;
* turn time against the number of exposed entities: a real Home Assistant with a synthetic
  home of N entities and the given model (default Gemma 270M, real weights), one command per
  conversation, median of --runs turns after a warm-up turn (which saves the prefix checkpoint);
* `turn`: one command on the demo home, in-process and (where scripts/setup built it) on
  llama.cpp's llama-server, split into phases (build, prompt evaluation, cached
  tokens, reasoning, tool call, execution, answer);
* `engine` (unless --skip-engine): our engine vs raw llama-cpp-python, and prefix caching.

Writes `<out>/benchmarks.md`, `<out>/benchmarks.png` (prompt tokens and turn time against
exposed entities) and the raw figures as JSON beside them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from dataclasses import asdict
from dataclasses import dataclass
import io
import json
import os
from pathlib import Path
import platform
import statistics
import sys
import time
from typing import Any

import psutil

from custom_components.local_agent.const import CONF_CONTEXT_SIZE
from custom_components.local_agent.const import CONF_MAX_TOKENS
from custom_components.local_agent.const import CONF_TEMPERATURE
from custom_components.local_agent.const import CONF_THINKING_BUDGET
from custom_components.local_agent.const import CONF_THREADS
from homeassistant.core import Context
from scripts.evaluation.report import cpu_name
from testing.agent import async_create_person
from testing.agent import async_local_agent
from testing.hass_runner import HarnessError
from testing.hass_runner import async_home_assistant
from testing.hass_runner import configure_logging
from testing.models import ModelFileError
from testing.models import resolve_model
from testing.real_llama_server import missing_llama_server
from testing.synthetic import async_setup_synthetic_home

from . import engine as engine_bench
from . import prompt as prompt_bench
from . import turn as turn_bench

SENTENCE = "turn on the light in the kitchen"


@dataclass(slots=True)
class SizeTurn:
    """Turn time of one home size (None when the prompt does not fit the context)."""

    entities: int
    turn_seconds: float | None
    prompt_tokens: int | None
    cached_tokens: int | None
    generated_tokens: int | None
    note: str = ""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command line."""
    parser = argparse.ArgumentParser(prog="scripts/bench report", description=__doc__)
    parser.add_argument("--model", default="gemma", help="PATH, gemma or qwen35 (turn figures)")
    parser.add_argument("--sizes", default="10,50,200,1000", help="exposed entities to measure")
    parser.add_argument("--context-size", type=int, default=32768)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=3, help="counted turns per size")
    parser.add_argument("--skip-engine", action="store_true", help="leave out scripts/bench engine")
    parser.add_argument("--out", type=Path, default=Path("reports"))
    parser.add_argument("-v", "--verbose", action="store_true")
    return parser.parse_args(argv)


def run_module(main: Any, argv: list[str]) -> str:
    """Run another benchmark's main() and return what it printed."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        status = main(argv)
    if status:
        raise HarnessError(f"benchmark {main.__module__} {' '.join(argv)} exited with {status}")
    return buffer.getvalue()


async def async_turn_times(
    model: Path, sizes: list[int], args: argparse.Namespace
) -> list[SizeTurn]:
    """Median turn time for homes of each size, with the real model."""
    results = []
    for size in sizes:
        async with async_home_assistant() as hass:
            await async_setup_synthetic_home(hass, size)
            person = Context(user_id=await async_create_person(hass, "Bench"))
            async with async_local_agent(
                hass,
                model,
                engine_options={CONF_CONTEXT_SIZE: args.context_size, CONF_THREADS: args.threads},
                agent_options={
                    CONF_TEMPERATURE: 0.0,
                    CONF_THINKING_BUDGET: 32,
                    CONF_MAX_TOKENS: 64,
                },
            ) as handle:
                times: list[float] = []
                report = None
                for run in range(args.runs + 1):
                    started = time.perf_counter()
                    await handle.async_ask(SENTENCE, context=person)
                    elapsed = time.perf_counter() - started
                    report = handle.agent.last_report
                    if report is not None and report.rounds == 0:
                        break
                    if run > 0:  # the first turn saves the static prefix checkpoint
                        times.append(elapsed)
                if not times or report is None or report.rounds == 0:
                    results.append(SizeTurn(size, None, None, None, None, "prompt over context"))
                    continue
                results.append(
                    SizeTurn(
                        entities=size,
                        turn_seconds=statistics.median(times),
                        prompt_tokens=report.prompt_tokens,
                        cached_tokens=report.cached_tokens,
                        generated_tokens=report.generated_tokens,
                    )
                )
    return results


def machine() -> str:
    """The machine the figures come from."""
    memory = psutil.virtual_memory().total / 2**30
    return (
        f"{cpu_name()}, {psutil.cpu_count(logical=False)} physical / "
        f"{os.cpu_count()} logical cores, "
        f"{memory:.0f} GiB RAM, {platform.system()} {platform.machine()}, "
        f"Python {platform.python_version()}"
    )


def plot(prompt: dict[str, Any], turns: list[SizeTurn], path: Path) -> None:
    """Prompt tokens (ours, Assist) and turn time against exposed entities."""
    import matplotlib as mpl

    mpl.use("Agg")
    import matplotlib.pyplot as plt

    tokenizer = (
        "gemma-3-270m"
        if "gemma-3-270m" in prompt["tokenizers"]
        else next(iter(prompt["tokenizers"]))
    )
    sizes = [entry["entities"] for entry in prompt["sizes"]]
    ours = [entry["tokens"][tokenizer]["total"] for entry in prompt["sizes"]]
    assist = [entry["tokens"][tokenizer]["assist_total"] for entry in prompt["sizes"]]
    figure, tokens_axis = plt.subplots(figsize=(8, 4.5))
    tokens_axis.plot(sizes, ours, "o-", label="Local Agent prompt tokens")
    tokens_axis.plot(sizes, assist, "s--", label="Assist API prompt + tools (as Ollama sends)")
    tokens_axis.set_xscale("log")
    tokens_axis.set_xticks(sizes, [str(size) for size in sizes])
    tokens_axis.set_ylim(bottom=0)
    tokens_axis.set_xlabel("exposed entities")
    tokens_axis.set_ylabel(f"prompt tokens ({tokenizer} tokenizer)")
    measured = [t for t in turns if t.turn_seconds is not None]
    if measured:
        time_axis = tokens_axis.twinx()
        time_axis.plot(
            [t.entities for t in measured],
            [t.turn_seconds or 0.0 for t in measured],
            "^-",
            color="tab:red",
            label="turn time (s), model in-process",
        )
        time_axis.set_ylabel("seconds per command")
        time_axis.set_ylim(bottom=0)
        time_axis.legend(loc="lower right")
    tokens_axis.legend(loc="upper left")
    tokens_axis.set_title("Prompt size and turn time against the size of the home")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def markdown(
    *,
    args: argparse.Namespace,
    model: Path,
    prompt_text: str,
    turns: list[SizeTurn],
    turn_text: str,
    engine_text: str | None,
) -> str:
    """The report."""
    lines = [
        "# Local Agent benchmarks",
        "",
        f"Machine: {machine()}.",
        f"Model for turn figures: `{model.name}`, {args.threads} threads, context "
        f"{args.context_size} tokens. Generated by `scripts/bench report`.",
        "",
        "![Prompt tokens and turn time against exposed entities](benchmarks.png)",
        "",
        "## Turn time against exposed entities",
        "",
        f'One command ("{SENTENCE}") per conversation, median of {args.runs} turns after a '
        "warm-up turn; thinking budget 32 tokens, at most 64 tokens per answer.",
        "",
        "| exposed entities | turn (s) | prompt tokens | cached tokens | generated tokens |",
        "|---:|---:|---:|---:|---:|",
    ]
    for turn in turns:
        if turn.turn_seconds is None:
            lines.append(f"| {turn.entities} | {turn.note} | | | |")
        else:
            lines.append(
                f"| {turn.entities} | {turn.turn_seconds:.2f} | {turn.prompt_tokens} | "
                f"{turn.cached_tokens} | {turn.generated_tokens} |"
            )
    lines += _printed("## Prompt size (`scripts/bench prompt`)", prompt_text)
    lines += _printed("## One command, phase by phase (`scripts/bench turn`)", turn_text)
    if engine_text is not None:
        lines += _printed("## Engine vs raw llama-cpp-python (`scripts/bench engine`)", engine_text)
    return "\n".join(lines) + "\n"


def _printed(heading: str, text: str) -> list[str]:
    """A section of the report: what a benchmark printed, as a code block."""
    return ["", heading, "", "```", text.rstrip(), "```"]


def main(argv: list[str] | None = None) -> int:
    """Run every benchmark and write the report."""
    args = parse_args(argv)
    configure_logging(verbose=args.verbose)
    sizes = [int(size) for size in args.sizes.split(",")]
    args.out.mkdir(parents=True, exist_ok=True)
    try:
        model = resolve_model(args.model)
        prompt_json = args.out / "prompt.json"
        prompt_text = run_module(
            prompt_bench.main, ["--sizes", args.sizes, "--turns", "10", "--json", str(prompt_json)]
        )
        turns = asyncio.run(async_turn_times(model, sizes, args))
        # In-process next to llama.cpp's llama-server where scripts/setup could build it.
        no_server = missing_llama_server()
        turn_text = run_module(
            turn_bench.main,
            ["--model", str(model), "--engine", "inprocess" if no_server else "both",
             "--runs", str(args.runs), "--threads", str(args.threads), "--force-call"],
        )  # fmt: skip
        if no_server:
            turn_text += f"\n(llama-server left out: {no_server})\n"
        engine_text = None
        if not args.skip_engine:
            engine_text = run_module(engine_bench.main, ["--runs", "3", "--threads", "1"])
    except (HarnessError, ModelFileError) as err:
        print(f"scripts/bench report: {err}", file=sys.stderr)
        return 1
    prompt = json.loads(prompt_json.read_text(encoding="utf-8"))
    plot(prompt, turns, args.out / "benchmarks.png")
    (args.out / "turns.json").write_text(
        json.dumps([asdict(turn) for turn in turns], indent=2) + "\n", encoding="utf-8"
    )
    report = markdown(
        args=args,
        model=model,
        prompt_text=prompt_text,
        turns=turns,
        turn_text=turn_text,
        engine_text=engine_text,
    )
    (args.out / "benchmarks.md").write_text(report, encoding="utf-8")
    print(report)
    print(f"Report written to {args.out / 'benchmarks.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
