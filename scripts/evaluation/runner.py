"""Run tests against the agent inside Home Assistant, one home at a time.

Per home: one Home Assistant (started in-process), the home built from its fixtures, one
agent (a real model or the reference policy), and an admin user who speaks. Per sentence: the
home is reset and the test's setup applied, the sentence is sent, "yes" is answered when the
agent asks for a confirmation (seen as a `local_agent_action` event with outcome "proposed"),
and the result is judged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
import contextlib
from dataclasses import dataclass, field
import json
from pathlib import Path
import tempfile
import time
import traceback
from typing import Any, Final

from custom_components.local_agent.agent import TurnReport
from custom_components.local_agent.const import EVENT_ACTION
from homeassistant.core import Event, HomeAssistant, callback
from scripts.harness.agent import LocalAgentHandle, async_create_person, async_local_agent
from scripts.harness.hass_runner import CoreSettings, async_home_assistant
from scripts.harness.stand_in import StandInWorker
from scripts.harness.turn import TurnRecord, async_run_turn

from .dataset import Home, TestCase
from .home import FixtureHome, async_setup_fixture_home
from .reference import ReferencePolicy
from .scoring import Failure, Verdict, expects_confirmation, judge

# What the user answers to a confirmation question, per language.
YES: Final[Mapping[str, str]] = {
    "de": "ja",
    "en": "yes",
    "es": "sí",
    "fr": "oui",
    "it": "sì",
    "nl": "ja",
    "pt": "sim",
}
MAX_RESULT_CHARS: Final = 300


@dataclass(frozen=True, slots=True)
class Case:
    """One sentence of one test: the unit that is run and judged."""

    home: Home
    test: TestCase
    sentence: str


@dataclass(frozen=True, slots=True)
class AgentSetup:
    """Which model answers, and the agent's options."""

    model_path: Path | None  # None: the reference policy
    agent_options: Mapping[str, Any] = field(default_factory=dict)
    engine_options: Mapping[str, Any] = field(default_factory=dict)
    language: str = "en"

    @property
    def reference(self) -> bool:
        """Whether the reference policy answers."""
        return self.model_path is None


@dataclass(slots=True)
class CallResult:
    """One tool call and its outcome."""

    tool: str
    arguments: dict[str, Any]
    error: bool
    result: str


@dataclass(slots=True)
class CaseResult:
    """Everything measured for one sentence."""

    home: str
    category: str
    test_id: str
    sentence: str
    success: bool
    failures: list[dict[str, str]]
    confirmation_expected: bool
    confirmation_asked: bool
    answer: str
    tool_calls: list[CallResult]
    tool_errors: int
    rounds: int
    prompt_tokens: int
    cached_tokens: int
    generated_tokens: int
    reasoning_tokens: int
    build_seconds: float
    prompt_seconds: float
    generation_seconds: float
    tool_seconds: float
    total_seconds: float
    notes: list[str] = field(default_factory=list)


def expand(homes: Sequence[Home]) -> list[Case]:
    """Every sentence of every test, in dataset order."""
    return [
        Case(home, test, sentence)
        for home in homes
        for test in home.tests
        for sentence in test.sentences
    ]


@contextlib.contextmanager
def _audit_listener(hass: HomeAssistant) -> Iterator[list[dict[str, Any]]]:
    records: list[dict[str, Any]] = []

    @callback
    def record(event: Event) -> None:
        records.append(dict(event.data))

    remove = hass.bus.async_listen(EVENT_ACTION, record)
    try:
        yield records
    finally:
        remove()


async def async_run_home(
    home: Home,
    cases: Sequence[Case],
    setup: AgentSetup,
    on_result: Callable[[CaseResult], None] | None = None,
) -> list[CaseResult]:
    """Run the cases of one home in a fresh Home Assistant; return their results."""
    results: list[CaseResult] = []
    core = CoreSettings(name=home.title, language=setup.language)
    with contextlib.ExitStack() as stack:
        policy: ReferencePolicy | None = None
        stand_in: StandInWorker | None = None
        model_path = setup.model_path
        if model_path is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="eval-")))
            model_path = folder / "reference-policy.gguf"
            model_path.write_bytes(b"GGUF" + bytes(60))
            policy = ReferencePolicy()
            stand_in = StandInWorker(model_path, script=policy)
        async with async_home_assistant(core=core) as hass:
            fixture_home = await async_setup_fixture_home(hass, home)
            user_id = await async_create_person(hass, "Evaluator")
            async with async_local_agent(
                hass,
                model_path,
                engine_options=setup.engine_options,
                agent_options=setup.agent_options,
                stand_in=stand_in,
            ) as handle:
                for case in cases:
                    result = await async_run_case(
                        handle, fixture_home, case, user_id, setup.language, policy
                    )
                    results.append(result)
                    if on_result is not None:
                        on_result(result)
    return results


async def async_run_case(  # noqa: PLR0917 - one sentence's context, kept explicit
    handle: LocalAgentHandle,
    fixture_home: FixtureHome,
    case: Case,
    user_id: str,
    language: str,
    policy: ReferencePolicy | None,
) -> CaseResult:
    """Reset the home, send the sentence (and "yes" when asked), judge the outcome."""
    hass = handle.hass
    started = time.perf_counter()
    await fixture_home.async_prepare(case.test.setup)
    before = fixture_home.snapshot()
    if policy is not None:
        policy.begin(case.test, before)
    turns: list[TurnRecord] = []
    asked = False
    crash: str | None = None
    with _audit_listener(hass) as audit:
        try:
            first = await async_run_turn(handle, case.sentence, language=language, user_id=user_id)
            turns.append(first)
            asked = any(record.get("outcome") == "proposed" for record in audit)
            if asked:
                turns.append(
                    await async_run_turn(
                        handle,
                        YES.get(language.split("-", maxsplit=1)[0], "yes"),
                        conversation_id=first.conversation_id,
                        language=language,
                        user_id=user_id,
                    )
                )
        except Exception as err:
            crash = f"{type(err).__name__}: {err}\n{traceback.format_exc(limit=8)}"
    await hass.async_block_till_done()
    after = fixture_home.snapshot()
    answers = [turn.answer for turn in turns]
    verdict = judge(case.home, case.test, before, after, asked, answers[:1])
    if crash is not None:
        verdict.add(Failure.CRASH, crash)
    notes = list(policy.gaps) if policy is not None else []
    if asked and turns and not turns[0].continue_conversation:
        notes.append("a confirmation was proposed but the conversation was not kept open")
    return _result(case, verdict, turns, asked, notes, time.perf_counter() - started)


def _result(  # noqa: PLR0917 - assembling one record
    case: Case,
    verdict: Verdict,
    turns: Sequence[TurnRecord],
    asked: bool,
    notes: list[str],
    seconds: float,
) -> CaseResult:
    reports = [turn.report for turn in turns if turn.report is not None]
    total = TurnReport()
    for report in reports:
        for name in (
            "rounds", "tool_calls", "tool_errors", "prompt_tokens", "cached_tokens",
            "generated_tokens", "reasoning_tokens", "prompt_seconds", "generation_seconds",
            "tool_seconds", "build_seconds",
        ):  # fmt: skip
            setattr(total, name, getattr(total, name) + getattr(report, name))
    calls = [
        CallResult(
            tool=call.name,
            arguments=call.arguments,
            error=call.error,
            result=_short(call.result),
        )
        for turn in turns
        for call in turn.tool_calls
    ]
    return CaseResult(
        home=case.home.name,
        category=case.test.category,
        test_id=case.test.id,
        sentence=case.sentence,
        success=verdict.success,
        failures=[{"kind": kind.value, "message": message} for kind, message in verdict.problems],
        confirmation_expected=expects_confirmation(case.home, case.test),
        confirmation_asked=asked,
        answer=" / ".join(turn.answer for turn in turns),
        tool_calls=calls,
        tool_errors=sum(1 for call in calls if call.error),
        rounds=total.rounds,
        prompt_tokens=total.prompt_tokens,
        cached_tokens=total.cached_tokens,
        generated_tokens=total.generated_tokens,
        reasoning_tokens=total.reasoning_tokens,
        build_seconds=total.build_seconds,
        prompt_seconds=total.prompt_seconds,
        generation_seconds=total.generation_seconds,
        tool_seconds=total.tool_seconds,
        total_seconds=sum(turn.wall_seconds for turn in turns) or seconds,
        notes=notes,
    )


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= MAX_RESULT_CHARS else text[: MAX_RESULT_CHARS - 1] + "…"
