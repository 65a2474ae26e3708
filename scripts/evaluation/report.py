"""Sum results up per home, per category and overall; write JSON and a readable table."""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
import contextlib
from dataclasses import asdict
from dataclasses import dataclass
from dataclasses import field
import json
import os
from pathlib import Path
import platform
from typing import Any
from typing import Final

from .runner import COSTS
from .runner import SECONDS
from .runner import CaseResult
from .runner import Costs

MAX_FAILURES_SHOWN: Final = 40


@dataclass(slots=True)
class Summary(Costs):
    """Totals and means over a group of sentences (of the costs: tokens summed, mean seconds)."""

    sentences: int = 0
    passed: int = 0
    # Failed sentences whose expectation the reference policy showed to be out of reach.
    unreachable: int = 0
    # Sentences not run: what they need is not simulated (dataset.Findings says why).
    skipped: int = 0
    tests: int = 0
    tests_passed: int = 0
    confirmations_expected: int = 0
    confirmations_asked: int = 0
    confirmations_correct: int = 0
    confirmations_missing: int = 0
    confirmations_unexpected: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    crashes: int = 0
    failure_kinds: dict[str, int] = field(default_factory=dict)

    @property
    def reachable(self) -> int:
        """Sentences run whose expectation can be reached."""
        return self.sentences - self.unreachable - self.skipped

    @property
    def success_rate(self) -> float:
        """Passed sentences out of the reachable ones that ran, 0..1."""
        return self.passed / self.reachable if self.reachable else 0.0

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly, with the success rate."""
        return asdict(self) | {"success_rate": round(self.success_rate, 4)}


def summarise(results: Sequence[CaseResult]) -> Summary:
    """Sum up a group of results."""
    summary = Summary(sentences=len(results))
    by_test: dict[str, bool] = {}
    ran = [result for result in results if not result.skipped]
    summary.skipped = len(results) - len(ran)
    for result in ran:
        summary.passed += result.success
        summary.unreachable += bool(result.unreachable) and not result.success
        by_test[result.test_id] = by_test.get(result.test_id, True) and result.success
        summary.confirmations_expected += result.confirmation_expected
        summary.confirmations_asked += result.confirmation_asked
        summary.confirmations_correct += result.confirmation_expected == result.confirmation_asked
        summary.confirmations_missing += (
            result.confirmation_expected and not result.confirmation_asked
        )
        summary.confirmations_unexpected += (
            result.confirmation_asked and not result.confirmation_expected
        )
        summary.tool_calls += len(result.tool_calls)
        summary.tool_errors += result.tool_errors
        for failure in result.failures:
            kind = failure["kind"]
            summary.failure_kinds[kind] = summary.failure_kinds.get(kind, 0) + 1
            summary.crashes += kind == "crash"
        for name in COSTS:
            setattr(summary, name, getattr(summary, name) + getattr(result, name))
    if ran:
        for name in SECONDS:
            setattr(summary, name, getattr(summary, name) / len(ran))
    summary.tests = len(by_test)
    summary.tests_passed = sum(by_test.values())
    return summary


def skipped_by_kind(results: Iterable[CaseResult]) -> dict[str, int]:
    """How many sentences each kind of finding skipped."""
    counts: dict[str, int] = {}
    for result in results:
        if result.skipped:
            counts[result.skipped] = counts.get(result.skipped, 0) + 1
    return counts


def _grouped(results: Iterable[CaseResult], key: str) -> dict[str, list[CaseResult]]:
    groups: dict[str, list[CaseResult]] = {}
    for result in results:
        groups.setdefault(str(getattr(result, key)), []).append(result)
    return groups


def cpu_name() -> str:
    """The CPU's model name as Linux reports it, else what the platform module knows."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def machine() -> dict[str, Any]:
    """Where the run happened."""
    return {
        "cpu": cpu_name(),
        "cores": os.cpu_count(),
        "system": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
    }


def build_report(results: Sequence[CaseResult], run: Mapping[str, Any]) -> dict[str, Any]:
    """The whole report as JSON data."""
    tests: dict[str, dict[str, Any]] = {}
    for result in results:
        entry = tests.setdefault(
            result.test_id,
            {"test": result.test_id, "category": result.category, "sentences": 0, "passed": 0},
        )
        entry["sentences"] += 1
        entry["passed"] += result.success
    return {
        "run": dict(run) | {"machine": machine()},
        "summary": summarise(results).as_dict(),
        "homes": {k: summarise(v).as_dict() for k, v in _grouped(results, "home").items()},
        "categories": {k: summarise(v).as_dict() for k, v in _grouped(results, "category").items()},
        "tests": list(tests.values()),
        "results": [asdict(result) for result in results],
    }


def write_json(report: Mapping[str, Any], path: Path) -> None:
    """Write the report (creating the folder)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


_COLUMNS: Final = (
    ("", 22, "<"),
    ("sent", 5, ">"),
    ("pass", 5, ">"),
    ("unreach", 7, ">"),
    ("skip", 5, ">"),
    ("rate", 7, ">"),
    ("confirm", 8, ">"),
    ("calls", 6, ">"),
    ("errors", 6, ">"),
    ("prompt tok", 11, ">"),
    ("cached", 9, ">"),
    ("gen tok", 8, ">"),
    ("build ms", 9, ">"),
    ("eval ms", 9, ">"),
    ("gen ms", 9, ">"),
    ("tools ms", 9, ">"),
    ("turn ms", 9, ">"),
)


def _row(label: str, s: Summary) -> str:
    n = max(s.sentences - s.skipped, 1)
    values = (
        label,
        str(s.sentences),
        str(s.passed),
        str(s.unreachable),
        str(s.skipped),
        f"{100 * s.success_rate:.1f}%" if s.reachable else "-",
        f"{s.confirmations_correct}/{s.sentences - s.skipped}",
        str(s.tool_calls),
        str(s.tool_errors),
        f"{s.prompt_tokens / n:.0f}",
        f"{s.cached_tokens / n:.0f}",
        f"{s.generated_tokens / n:.0f}",
        f"{1000 * s.build_seconds:.1f}",
        f"{1000 * s.prompt_seconds:.1f}",
        f"{1000 * s.generation_seconds:.1f}",
        f"{1000 * s.tool_seconds:.1f}",
        f"{1000 * s.total_seconds:.1f}",
    )
    return "  ".join(
        f"{value:{align}{width}}" for value, (_, width, align) in zip(values, _COLUMNS, strict=True)
    )


def format_table(results: Sequence[CaseResult]) -> str:
    """Per category, per home and overall; tokens and times are means per sentence."""
    header = "  ".join(f"{name:{align}{width}}" for name, width, align in _COLUMNS)
    lines = [header, "-" * len(header)]
    for category, group in sorted(_grouped(results, "category").items()):
        lines.append(_row(category, summarise(group)))
    lines.append("-" * len(header))
    for home, group in _grouped(results, "home").items():
        lines.append(_row(f"home {home}", summarise(group)))
    lines.append("-" * len(header))
    overall = summarise(results)
    lines.append(_row("overall", overall))
    lines.append(
        f"tests passed {overall.tests_passed}/{overall.tests}; confirmations: "
        f"{overall.confirmations_asked} asked, {overall.confirmations_expected} expected, "
        f"{overall.confirmations_missing} missing, {overall.confirmations_unexpected} unexpected; "
        f"crashes {overall.crashes}"
    )
    if overall.unreachable:
        lines.append(
            f"{overall.unreachable} sentences cannot be reached by any agent (see Unreachable): "
            "the rate counts the other sentences"
        )
    if overall.skipped:
        lines.append(
            f"{overall.skipped} sentences skipped: what they need is not simulated (see Warnings);"
            " the rate counts the sentences that ran"
        )
    return "\n".join(lines)


def format_failures(results: Sequence[CaseResult], limit: int = MAX_FAILURES_SHOWN) -> str:
    """The failed sentences with their reasons (the first `limit`); unreachable ones apart."""
    failed = [r for r in results if not r.success and not r.unreachable and not r.skipped]
    lines: list[str] = []
    for result in failed[:limit]:
        lines.extend(_describe(result))
    if len(failed) > limit:
        lines.append(f"… and {len(failed) - limit} more (see the JSON report)")
    return "\n".join(lines)


def format_unreachable(results: Sequence[CaseResult], limit: int = MAX_FAILURES_SHOWN) -> str:
    """Sentences no agent can pass, each with why (the reference policy found out)."""
    unreachable = [r for r in results if not r.success and r.unreachable and not r.skipped]
    lines: list[str] = []
    for result in unreachable[:limit]:
        lines.append(f"- {result.test_id} {result.sentence!r}")
        lines.extend(f"    cannot reach: {reason}" for reason in result.unreachable)
        lines.extend(f"    {f['kind']}: {f['message'].splitlines()[0]}" for f in result.failures)
    if len(unreachable) > limit:
        lines.append(f"… and {len(unreachable) - limit} more (see the JSON report)")
    return "\n".join(lines)


def _describe(result: CaseResult) -> list[str]:
    lines = [f"✗ {result.test_id} {result.sentence!r}"]
    lines.extend(f"    {f['kind']}: {f['message'].splitlines()[0]}" for f in result.failures)
    for call in result.tool_calls:
        outcome = "error" if call.error else "ok"
        arguments = json.dumps(call.arguments, ensure_ascii=False)
        lines.append(f"    call {call.tool}({arguments}) -> {outcome}: {call.result[:160]}")
    lines.extend(f"    note: {note}" for note in result.notes)
    lines.append(f"    answer: {result.answer[:200]!r}")
    return lines
