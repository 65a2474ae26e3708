"""The command line of scripts/eval."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
import datetime as dt
from pathlib import Path
import sys
import time
from typing import Final

from scripts.model_flags import add_model_flags
from scripts.model_flags import entry_options
from scripts.model_flags import positive_int
from testing.hass_runner import REPO_ROOT
from testing.hass_runner import HarnessError
from testing.hass_runner import configure_logging
from testing.models import GEMMA
from testing.models import QWEN35_TEST
from testing.models import ModelFileError
from testing.models import resolve_model

from .dataset import DatasetError
from .dataset import Findings
from .dataset import Home
from .dataset import NotAHomeSet
from .dataset import home_names
from .dataset import load_homes
from .report import build_report
from .report import format_failures
from .report import format_table
from .report import format_unreachable
from .report import skipped_by_kind
from .report import write_json
from .runner import AgentSetup
from .runner import Case
from .runner import CaseResult
from .runner import async_run_home
from .runner import expand

EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2
REFERENCE: Final = "reference"
DEFAULT_HOMES: Final = REPO_ROOT / "eval" / "homes"
# Extra names of the test models on this command line.
MODEL_ALIASES: Final = {"qwen35-test": QWEN35_TEST, QWEN35_TEST: QWEN35_TEST, GEMMA: GEMMA}


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="scripts/eval",
        description=(
            "Score the Local Agent on evaluation homes (home-assistant-datasets format) "
            "in an in-process Home Assistant."
        ),
    )
    who = parser.add_mutually_exclusive_group()
    who.add_argument(
        "--policy",
        choices=[REFERENCE],
        help=(
            "the reference policy writes the ideal calls: measures the integration alone "
            "(the default without --model)"
        ),
    )
    who.add_argument(
        "--model",
        help="GGUF file, or gemma / qwen35-test for the test models",
    )
    parser.add_argument(
        "--homes",
        type=Path,
        default=DEFAULT_HOMES,
        help="a home, or a folder of homes at any depth (default: eval/homes)",
    )
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="HOME[/CATEGORY]",
        help="run only this home or category (repeatable)",
    )
    parser.add_argument(
        "--limit",
        type=positive_int,
        help="at most N sentences, taken in turn from each home and category",
    )
    parser.add_argument("--json", type=Path, help="write the full report to this JSON file")
    parser.add_argument(
        "--language",
        help=(
            "conversation language (default: each home's `language`, else that of its set's "
            "dataset_card.yaml, else en)"
        ),
    )
    add_model_flags(parser, context_flag="--context-size")
    parser.add_argument(
        "--fail-under",
        type=float,
        metavar="PERCENT",
        help="exit with status 1 when the success rate is below PERCENT",
    )
    parser.add_argument("--quiet", action="store_true", help="no line per sentence while running")
    parser.add_argument("--verbose", action="store_true", help="log Home Assistant's debug output")
    return parser.parse_args(argv)


@dataclass(frozen=True, slots=True)
class Selection:
    """What --only asked for: home names, and categories per home (empty: all)."""

    homes: list[str]
    categories: dict[str, set[str]]

    @classmethod
    def parse(cls, only: Sequence[str], names: Sequence[str] = ()) -> Selection:
        """Read --only; a home's name may hold "/" itself (a home in a sub-folder)."""
        homes: list[str] = []
        categories: dict[str, set[str]] = {}
        for item in only:
            home, category = item, ""
            if item not in names and "/" in item:
                home, _, category = item.rpartition("/")
            if home not in homes:
                homes.append(home)
            if category:
                categories.setdefault(home, set()).add(category)
        return cls(homes, categories)

    def unknown_categories(self, homes: Sequence[Home]) -> list[str]:
        """A message for each category asked for that a home does not have."""
        problems: list[str] = []
        for home in homes:
            for category in sorted(self.categories.get(home.name, set())):
                if category not in home.categories:
                    known = ", ".join(sorted(home.categories))
                    problems.append(f"{home.name} has no category {category!r} ({known})")
        return problems

    def cases(self, homes: Sequence[Home], limit: int | None) -> list[Case]:
        """The selected sentences; with a limit, taken in turn from each home and category."""
        cases = [
            case
            for case in expand(homes)
            if not self.categories.get(case.home.name)
            or case.test.category in self.categories[case.home.name]
        ]
        if limit is None:
            return cases
        cases = [case for case in cases if not case.test.skip]
        # One queue per home and category, ordered so that each pass visits every home:
        # (home 1, category 1), (home 2, category 1), (home 1, category 2), ...
        groups: dict[str, dict[str, list[Case]]] = {}
        for case in cases:
            groups.setdefault(case.home.name, {}).setdefault(case.test.category, []).append(case)
        by_home = [list(categories.values()) for categories in groups.values()]
        queues = [
            home[index]
            for index in range(max(len(home) for home in by_home))
            for home in by_home
            if index < len(home)
        ]
        chosen: list[Case] = []
        while len(chosen) < limit and any(queues):
            for queue in queues:
                if queue and len(chosen) < limit:
                    chosen.append(queue.pop(0))
        order = {id(case): index for index, case in enumerate(cases)}
        return sorted(chosen, key=lambda case: order[id(case)])


def agent_setup(args: argparse.Namespace) -> AgentSetup:
    """The model (None for the reference policy) and the agent and engine options."""
    engine_options, agent_options = entry_options(args)
    model_path = None
    if args.model is not None:
        model_path = resolve_model(MODEL_ALIASES.get(args.model, args.model))
    return AgentSetup(model_path, agent_options, engine_options, args.language)


def _progress(result: CaseResult) -> None:
    if result.skipped:
        print(f"- {result.test_id:<28} skipped    {result.sentence}", file=sys.stderr, flush=True)
        return
    mark = "✓" if result.success else "✗"
    confirm = " [confirmed]" if result.confirmation_asked else ""
    print(
        f"{mark} {result.test_id:<28} {result.total_seconds * 1000:7.0f} ms"
        f"{confirm}  {result.sentence}",
        file=sys.stderr,
        flush=True,
    )


async def async_run(args: argparse.Namespace) -> int:
    """Run the evaluation; return the exit status."""
    findings = Findings()
    try:
        selection = Selection.parse(args.only, home_names(args.homes))
        homes = load_homes(args.homes, selection.homes or None, findings)
        setup = agent_setup(args)
    except NotAHomeSet as err:
        print(
            f"scripts/eval: {args.homes} is not a set of evaluation homes: {err}", file=sys.stderr
        )
        return EXIT_USAGE
    except DatasetError as err:
        print("The evaluation dataset has problems:", file=sys.stderr)
        for problem in err.problems:
            print(f"  {problem}", file=sys.stderr)
        return EXIT_USAGE
    except ModelFileError as err:
        print(f"scripts/eval: {err}", file=sys.stderr)
        return EXIT_USAGE
    if unknown := selection.unknown_categories(homes):
        for problem in unknown:
            print(f"scripts/eval: {problem}", file=sys.stderr)
        return EXIT_USAGE
    cases = selection.cases(homes, args.limit)
    if not cases:
        print("scripts/eval: no sentences selected", file=sys.stderr)
        return EXIT_USAGE
    started_at = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    started = time.perf_counter()
    results: list[CaseResult] = []
    progress = None if args.quiet else _progress
    for home in homes:
        home_cases = [case for case in cases if case.home is home]
        if home_cases:
            results.extend(await async_run_home(home, home_cases, setup, findings, progress))
    run = {
        "policy": REFERENCE if setup.reference else "model",
        "model": str(setup.model_path) if setup.model_path else None,
        "homes_path": str(args.homes.resolve()),
        "homes": [home.name for home in homes],
        "only": args.only,
        "limit": args.limit,
        "language": {home.name: setup.language_of(home) for home in homes},
        "agent_options": dict(setup.agent_options),
        "engine_options": dict(setup.engine_options),
        "started": started_at,
        "seconds": round(time.perf_counter() - started, 2),
    }
    warnings = findings.lines(skipped_by_kind(results))
    report = build_report(results, run | {"warnings": warnings})
    who = "reference policy" if setup.reference else f"model {setup.model_path}"
    print(f"== Evaluation of the {who} ({run['seconds']} s)")
    print(format_table(results))
    if failures := format_failures(results):
        print("\n== Failures")
        print(failures)
    if unreachable := format_unreachable(results):
        print("\n== Unreachable (the expectation cannot be met; not counted in the rate)")
        print(unreachable)
    if warnings:
        print("\n== Warnings (what is not simulated is skipped, not counted in the rate)")
        print("\n".join(warnings))
    if args.json:
        write_json(report, args.json)
        print(f"\nJSON report: {args.json}")
    rate = 100 * report["summary"]["success_rate"]
    if args.fail_under is not None and rate < args.fail_under:
        return EXIT_FAILED
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    args = parse_args(argv)
    configure_logging(verbose=args.verbose)
    try:
        return asyncio.run(async_run(args))
    except HarnessError as err:
        print(f"scripts/eval: {err}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return EXIT_FAILED
