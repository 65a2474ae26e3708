"""The model and agent flags scripts/ask and scripts/eval share, and the entry options they set."""

from __future__ import annotations

import argparse
from typing import Any

from custom_components.local_agent.const import CONF_CONTEXT_SIZE
from custom_components.local_agent.const import CONF_MAX_TOKENS
from custom_components.local_agent.const import CONF_THINKING
from custom_components.local_agent.const import CONF_THREADS


def positive_int(text: str) -> int:
    """Read a flag's whole number of at least 1 (an argparse `type`)."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_model_flags(parser: argparse.ArgumentParser, *, context_flag: str) -> None:
    """Add --threads, the context size (named `context_flag`), --max-tokens and --thinking.

    Each is None when not given: the entry's default applies.
    """
    parser.add_argument(
        "--threads", type=positive_int, help="CPU threads for the model (default: physical cores)"
    )
    parser.add_argument(
        context_flag,
        dest="context_size",
        type=positive_int,
        metavar="TOKENS",
        help="model context in tokens",
    )
    parser.add_argument(
        "--max-tokens", type=positive_int, help="tokens the model may write per round"
    )
    parser.add_argument(
        "--thinking",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="thinking mode (default: the agent's setting, on)",
    )


def entry_options(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any]]:
    """Map the flags of add_model_flags to the engine's and the agent's entry options."""
    engine: dict[str, Any] = {}
    if args.threads is not None:
        engine[CONF_THREADS] = args.threads
    if args.context_size is not None:
        engine[CONF_CONTEXT_SIZE] = args.context_size
    agent: dict[str, Any] = {}
    if args.thinking is not None:
        agent[CONF_THINKING] = args.thinking
    if args.max_tokens is not None:
        agent[CONF_MAX_TOKENS] = args.max_tokens
    return engine, agent
