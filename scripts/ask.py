"""Ask the Local Agent one sentence in an in-process Home Assistant with the demo home.

    scripts/ask "turn on the kitchen light" [--model PATH|qwen35|gemma] [--repeat N] ...

Prints the answer, the tool calls with their results, the state changes and the timings of
each turn. Exit status: 0 on success, 1 when Home Assistant or the agent fails, 2 for a bad
command line or model file.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
import sys
import time

from scripts.model_flags import add_model_flags
from scripts.model_flags import entry_options
from scripts.model_flags import positive_int
from testing.agent import LocalAgentHandle
from testing.agent import async_create_person
from testing.agent import async_local_agent
from testing.demo_home import async_setup_demo_home
from testing.demo_home import demo_platforms
from testing.hass_runner import HarnessError
from testing.hass_runner import async_home_assistant
from testing.hass_runner import configure_logging
from testing.models import SHORTCUTS
from testing.models import ModelFileError
from testing.models import resolve_model
from testing.printing import format_turn
from testing.printing import section
from testing.turn import async_run_turn

EXIT_FAILED = 1
EXIT_USAGE = 2


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="scripts/ask",
        description="Send a sentence to the Local Agent in a Home Assistant with the demo home.",
    )
    parser.add_argument("sentence", help="what the user says")
    parser.add_argument(
        "--model",
        help=f"GGUF file, or {' / '.join(SHORTCUTS)} for the test models (default: qwen35)",
    )
    parser.add_argument("--language", default="en", help="conversation language (default: en)")
    parser.add_argument(
        "--repeat",
        type=positive_int,
        default=1,
        help="send the sentence N times in one conversation",
    )
    parser.add_argument("--show-prompt", action="store_true", help="print each round's prompt")
    parser.add_argument("--show-reasoning", action="store_true", help="print the reasoning")
    parser.add_argument(
        "--as-automation",
        action="store_true",
        help="send without a user, as an automation does (default: an admin user speaks)",
    )
    add_model_flags(parser, context_flag="--ctx")
    parser.add_argument("-v", "--verbose", action="store_true", help="log Home Assistant debug")
    return parser.parse_args(argv)


async def async_ask(args: argparse.Namespace, model: Path) -> None:
    """Boot Home Assistant with the demo home and the agent; run and print the turns."""
    started = time.perf_counter()
    engine_options, agent_options = entry_options(args)
    with demo_platforms():
        async with async_home_assistant() as hass:
            exposed = await async_setup_demo_home(hass)
            async with async_local_agent(
                hass, model, engine_options=engine_options, agent_options=agent_options
            ) as handle:
                print(_header(handle, len(exposed), time.perf_counter() - started))
                user_id = None
                if not args.as_automation:
                    user_id = await async_create_person(hass, "Terminal user")
                conversation_id: str | None = None
                for number in range(1, args.repeat + 1):
                    record = await async_run_turn(
                        handle,
                        args.sentence,
                        conversation_id=conversation_id,
                        language=args.language,
                        user_id=user_id,
                    )
                    conversation_id = record.conversation_id
                    if args.repeat > 1:
                        print(section(f"Turn {number} of {args.repeat}"))
                    print(
                        format_turn(
                            record, show_prompt=args.show_prompt, show_reasoning=args.show_reasoning
                        ),
                        flush=True,
                    )


def _header(handle: LocalAgentHandle, exposed: int, setup_seconds: float) -> str:
    info = handle.worker.info
    settings = handle.worker.settings
    return "\n".join(
        [
            section("Setup"),
            f"model: {info.path} ({info.name or 'unnamed'}, {info.architecture}, "
            f"{info.size_bytes / 1e6:.1f} MB, vocabulary {info.n_vocab})",
            f"context {info.n_ctx} tokens, {settings.threads} threads; "
            f"agent {handle.entity_id}; {exposed} entities exposed",
            f"Home Assistant and model ready in {setup_seconds:.2f} s",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    """Run the command; return the exit status."""
    args = parse_args(argv)
    configure_logging(verbose=args.verbose)
    try:
        model = resolve_model(args.model)
    except ModelFileError as err:
        print(f"scripts/ask: {err}", file=sys.stderr)
        return EXIT_USAGE
    try:
        asyncio.run(async_ask(args, model))
    except HarnessError as err:
        print(f"scripts/ask: {err}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("scripts/ask: interrupted", file=sys.stderr)
        return EXIT_FAILED
    return 0


if __name__ == "__main__":
    sys.exit(main())
