"""Run tests against the agent inside Home Assistant, one home at a time.

Per home: one Home Assistant (started in-process), the home built from its fixtures, one
agent (a real model or the reference policy), and an admin user who speaks. Per sentence: the
home is reset and the test's setup applied, the sentence is sent, "yes" is answered when the
agent asks for a confirmation (seen as a `local_agent_action` event with outcome "proposed"),
and the result is judged. With the reference policy, a sentence that fails where the plan
said why the expectation cannot be reached is reported as unreachable (with the reasons),
not as a failure of the integration.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
import contextlib
from dataclasses import dataclass
from dataclasses import field
from dataclasses import fields
from dataclasses import replace
import json
from pathlib import Path
import tempfile
import time
import traceback
from typing import Any
from typing import Final
from unittest.mock import patch

from custom_components.local_agent.const import EVENT_ACTION
from custom_components.local_agent.engine.generation import GenerationOutput
from custom_components.local_agent.engine.generation import GenerationRequest
from custom_components.local_agent.engine.tool_calls import ParseEvent
from custom_components.local_agent.engine.tool_calls import ToolCallFailed
from custom_components.local_agent.engine.tool_calls import read_xml_call
from custom_components.local_agent.engine.words import YES_WORD
from homeassistant.core import Event
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers import device_registry as dr
from testing.agent import LocalAgentHandle
from testing.agent import async_create_person
from testing.agent import async_local_agent
from testing.fixture_home.const import DOMAIN as FIXTURE_HOME
from testing.hass_runner import CoreSettings
from testing.hass_runner import HarnessError
from testing.hass_runner import async_home_assistant
from testing.stand_in import StandInWorker
from testing.turn import TurnRecord
from testing.turn import async_run_turn

from .clock import HomeClock
from .clock import offset_time_zone
from .dataset import REFUSED
from .dataset import Findings
from .dataset import Home
from .dataset import TestCase
from .home import FixtureHome
from .home import async_setup_fixture_home
from .reference import ReferencePolicy
from .scoring import Failure
from .scoring import Verdict
from .scoring import expects_confirmation
from .scoring import judge
from .scoring import sensitive_targets

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
    language: str | None = None  # None: each home's (or its set's) `language`, else English

    def language_of(self, home: Home) -> str:
        """The conversation language for a home."""
        return self.language or home.language or "en"

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
    raw: str | None = None  # the model's text of a call that could not be read


@dataclass(slots=True, kw_only=True)
class Costs:
    """The tokens and seconds of a sentence's turns (a result's, or a summary's)."""

    prompt_tokens: int = 0
    cached_tokens: int = 0
    generated_tokens: int = 0
    reasoning_tokens: int = 0
    build_seconds: float = 0.0
    prompt_seconds: float = 0.0
    generation_seconds: float = 0.0
    tool_seconds: float = 0.0
    total_seconds: float = 0.0


COSTS: Final = tuple(cost.name for cost in fields(Costs))
SECONDS: Final = tuple(name for name in COSTS if name.endswith("_seconds"))
# What a case adds up from its turns' reports (its total seconds are the turns' wall time).
_REPORT_SUMS: Final = ("rounds", *(name for name in COSTS if name != "total_seconds"))


@dataclass(slots=True)
class CaseResult(Costs):
    """Everything measured for one sentence (a skipped one: only why, in `skipped`)."""

    home: str
    category: str
    test_id: str
    sentence: str
    success: bool = False
    failures: list[dict[str, str]] = field(default_factory=list)
    confirmation_expected: bool = False
    confirmation_asked: bool = False
    answer: str = ""
    tool_calls: list[CallResult] = field(default_factory=list)
    tool_errors: int = 0
    rounds: int = 0
    notes: list[str] = field(default_factory=list)
    # Reference policy: why a failed sentence's expectation cannot be reached (empty: it can).
    unreachable: list[str] = field(default_factory=list)
    context_device: str | None = None
    # Why the sentence was not run (a kind of dataset.Findings; empty: it ran).
    skipped: str = ""


def skipped_result(case: Case, kind: str, notes: Sequence[str] = ()) -> CaseResult:
    """A sentence that is not run, and why."""
    test = case.test
    return CaseResult(
        case.home.name, test.category, test.id, case.sentence, notes=list(notes), skipped=kind
    )


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
    findings: Findings,
    on_result: Callable[[CaseResult], None] | None = None,
) -> list[CaseResult]:
    """Run the cases of one home in a fresh Home Assistant; return their results.

    Skipped tests are not run; what Home Assistant refuses is added to findings.
    """
    results: list[CaseResult] = []
    language = setup.language_of(home)
    core = CoreSettings(name=home.title, language=language)
    if (zone := _time_zone(home)) is not None:
        core = replace(core, time_zone=zone)
    clock = HomeClock()
    with contextlib.ExitStack() as stack:
        stack.callback(clock.release)
        policy: ReferencePolicy | None = None
        stand_in: StandInWorker | None = None
        model_path = setup.model_path
        if model_path is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="eval-")))
            model_path = folder / "reference-policy.gguf"
            model_path.write_bytes(b"GGUF" + bytes(60))
            policy = ReferencePolicy({e.entity_id for e in home.entities if e.exposed})
            stand_in = StandInWorker(model_path, script=policy)
        async with async_home_assistant(core=core) as hass:
            fixture_home = await async_setup_fixture_home(hass, home)
            for entity_id, why in fixture_home.refused.items():
                findings.add(REFUSED, f"{home.name}: {entity_id}: {why}")
            user_id = await async_create_person(hass, "Evaluator")
            async with async_local_agent(
                hass,
                model_path,
                engine_options=setup.engine_options,
                agent_options=setup.agent_options,
                stand_in=stand_in,
            ) as handle:
                for case in cases:
                    if case.test.skip or case.test.needs & fixture_home.refused.keys():
                        result = skipped_result(case, case.test.skip or REFUSED)
                    else:
                        clock.at(case.test.context_now)
                        result = await async_run_case(
                            handle, fixture_home, case, user_id, language, policy
                        )
                        for note in result.notes if result.skipped else ():
                            findings.add(result.skipped, f"{case.test.id}: {note}")
                    results.append(result)
                    if on_result is not None:
                        on_result(result)
    return results


def _time_zone(home: Home) -> str | None:
    """The time zone of the moments the home's tests are asked at (None: the default one)."""
    moment = next((t.context_now for t in home.tests if t.context_now is not None), None)
    return offset_time_zone(moment) if moment is not None else None


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
    if refused := await fixture_home.async_prepare(case.test.setup):
        return skipped_result(case, REFUSED, [f"{e}: {why}" for e, why in refused.items()])
    before = fixture_home.snapshot()
    sensitive = sensitive_targets(hass, case.test)
    if policy is not None:
        policy.begin(case.test, before, case.sentence)
    turns: list[TurnRecord] = []
    asked = False
    crash: str | None = None
    device_id = _device_id(fixture_home, case.test.context_device)
    with (
        _audit_listener(hass) as audit,
        _failed_calls(handle) as failed,
    ):
        try:
            first = await async_run_turn(
                handle, case.sentence, language=language, user_id=user_id, device_id=device_id
            )
            turns.append(first)
            asked = any(record.get("outcome") == "proposed" for record in audit)
            if asked:
                turns.append(
                    await async_run_turn(
                        handle,
                        YES_WORD.get(language.split("-", maxsplit=1)[0], "yes"),
                        conversation_id=first.conversation_id,
                        language=language,
                        user_id=user_id,
                        device_id=device_id,
                    )
                )
        except Exception as err:
            crash = f"{type(err).__name__}: {err}\n{traceback.format_exc(limit=8)}"
    await hass.async_block_till_done()
    after = fixture_home.snapshot()
    answers = [turn.answer for turn in turns]
    verdict = judge(case.test, before, after, asked, answers[:1], sensitive)
    if crash is not None:
        verdict.add(Failure.CRASH, crash)
    notes: list[str] = []
    unreachable: list[str] = []
    if policy is not None and not verdict.success and crash is None:
        # The reference's gaps explain a failure; on a passing sentence they mean nothing.
        unreachable = list(policy.gaps)
    if asked and turns and not turns[0].continue_conversation:
        notes.append("a confirmation was proposed but the conversation was not kept open")
    result = _result(case, verdict, turns, asked, notes, time.perf_counter() - started, failed)
    result.unreachable = unreachable
    result.confirmation_expected = expects_confirmation(case.test, sensitive, before)
    return result


def _device_id(fixture_home: FixtureHome, device: str | None) -> str | None:
    """The registry id of a fixture device (a test's context_device)."""
    if device is None:
        return None
    registry = dr.async_get(fixture_home.hass)
    entry = registry.async_get_device_by_identifier(
        (FIXTURE_HOME, device), fixture_home.entry.entry_id
    )
    if entry is None:
        raise HarnessError(f"The evaluation home has no device {device!r}")
    return entry.id


@contextlib.contextmanager
def _failed_calls(handle: LocalAgentHandle) -> Iterator[list[ToolCallFailed]]:
    """Collect the calls the parser could not read, with their text, in order."""
    failed: list[ToolCallFailed] = []
    worker = handle.worker
    generate = worker.generate

    async def recording(
        request: GenerationRequest, on_event: Callable[[ParseEvent], None] | None = None
    ) -> GenerationOutput:
        output = await generate(request, on_event)
        failed.extend(e for e in output.events if isinstance(e, ToolCallFailed))
        return output

    with patch.object(worker, "generate", recording):
        yield failed


def raw_arguments(raw: str) -> dict[str, Any]:
    """The parameters of a call's XML as written (texts; JSON values read when they parse)."""
    arguments: dict[str, Any] = {}
    _, given, _ = read_xml_call(raw)
    for name, text in given:
        try:
            arguments[name] = json.loads(text)
        except ValueError:
            arguments[name] = text.strip()
    return arguments


def _result(  # noqa: PLR0917 - assembling one record
    case: Case,
    verdict: Verdict,
    turns: Sequence[TurnRecord],
    asked: bool,
    notes: list[str],
    seconds: float,
    failed: Sequence[ToolCallFailed],
) -> CaseResult:
    calls: list[CallResult] = []
    unread = list(failed)
    for turn in turns:
        for call in turn.tool_calls:
            record = CallResult(call.name, call.arguments, call.error, _short(call.result))
            if call.error and not call.arguments and unread:
                # A call the parser could not read reaches the chat log without arguments:
                # show what the model wrote.
                raw = unread.pop(0).error.raw
                record.raw = raw
                record.arguments = raw_arguments(raw)
            calls.append(record)
    result = CaseResult(
        home=case.home.name,
        category=case.test.category,
        test_id=case.test.id,
        sentence=case.sentence,
        success=verdict.success,
        failures=[{"kind": kind.value, "message": message} for kind, message in verdict.problems],
        confirmation_asked=asked,
        answer=" / ".join(turn.answer for turn in turns),
        tool_calls=calls,
        tool_errors=sum(1 for call in calls if call.error),
        total_seconds=sum(turn.wall_seconds for turn in turns) or seconds,
        notes=notes,
        context_device=case.test.context_device,
    )
    for report in (turn.report for turn in turns if turn.report is not None):
        for name in _REPORT_SUMS:
            setattr(result, name, getattr(result, name) + getattr(report, name))
    return result


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= MAX_RESULT_CHARS else text[: MAX_RESULT_CHARS - 1] + "…"
