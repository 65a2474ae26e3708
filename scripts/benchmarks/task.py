"""`scripts/bench task`: time for a small structured AI task, in process.

The request is the one an AI task entity sends (data_task.build_request): the instructions, no
tools, and the grammar of a four-field structure (a notification classified into
`{"urgent": bool, "room": str, "kind": "alarm"|"info"|"reminder", "people": number}`). With
thinking off the model answers at once under the grammar; with thinking on it reasons up to
the budget first. Each line is the median of --runs, from a cold context (no prefix reused),
so the figure is what one automation call costs on this machine.

Default model: the BotPsy-sized speed twin (twin-q8_0, random weights with Qwen3.5-0.8B's
dimensions, so its speed is BotPsy-0.8B Q8_0's; its answers are gibberish, the grammar keeps
them valid). `--model qwen35` runs the tiny test model instead.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from custom_components.local_agent.engine.local.llama import LoadedModel
from custom_components.local_agent.engine.markup import THINK_CLOSE
from custom_components.local_agent.engine.settings import EngineSettings
from custom_components.local_agent.engine.settings import physical_cores
from custom_components.local_agent.engine.structure import parse_structure
from custom_components.local_agent.turn.data_task import TaskOptions
from custom_components.local_agent.turn.data_task import build_request
from custom_components.local_agent.turn.data_task import structure_schema
from homeassistant.components.ai_task.services import _validate_structure_fields
from testing.models import SHORTCUTS
from testing.models import resolve_model

STRUCTURE = {
    "urgent": {"selector": {"boolean": {}}, "required": True},
    "room": {"selector": {"text": {}}, "required": True},
    "kind": {"selector": {"select": {"options": ["alarm", "info", "reminder"]}}, "required": True},
    "people": {"selector": {"number": {"min": 0, "max": 20}}, "required": True},
}
INSTRUCTIONS = "Classify this notification: Smoke detected in the kitchen, two people at home."


def main() -> None:
    """Run the benchmark and print one line per thinking mode."""
    parser = argparse.ArgumentParser(prog="scripts/bench task", description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="twin-q8_0", help=f"path or {', '.join(SHORTCUTS)}")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=physical_cores())
    parser.add_argument("--thinking-budget", type=int, default=64)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()

    path = resolve_model(args.model)
    runtime = LoadedModel(path, EngineSettings(n_ctx=4096, n_threads=args.threads))
    schema = structure_schema(_validate_structure_fields(STRUCTURE))
    results = []
    try:
        for thinking in (False, True):
            options = TaskOptions.from_data(
                {"thinking": thinking, "thinking_budget": args.thinking_budget}
            )
            request = build_request(options, INSTRUCTIONS, schema)
            times, tokens, prompt = [], [], 0
            for _ in range(args.runs):
                runtime.reset_cache()
                started = time.perf_counter()
                output = runtime.generate(request)
                times.append(time.perf_counter() - started)
                answer = output.text.partition(THINK_CLOSE)[2] if thinking else output.text
                parse_structure(answer, schema)  # raises if the grammar failed
                tokens.append(output.stats.generated_tokens)
                prompt = output.stats.prompt_tokens
            results.append(
                {
                    "model": path.name,
                    "thinking": thinking,
                    "seconds": round(statistics.median(times), 3),
                    "generated_tokens": int(statistics.median(tokens)),
                    "prompt_tokens": prompt,
                    "threads": args.threads,
                }
            )
    finally:
        runtime.close()
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for row in results:
        mode = f"thinking (budget {args.thinking_budget})" if row["thinking"] else "no thinking"
        print(
            f"structured task, {row['model']}, {mode}: {row['seconds']:.2f} s "
            f"({row['prompt_tokens']} prompt + {row['generated_tokens']} generated tokens, "
            f"{row['threads']} threads, median of {args.runs}, cold context)"
        )


if __name__ == "__main__":
    main()
