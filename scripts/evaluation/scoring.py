"""Judge one sentence: the states it left behind, the confirmation, and (optionally) the answer.

Rules (eval/README.md, "Scoring"):
* An entity in `expect_changes` must end with the expected state (or keep its state when none
  is given) and every listed attribute must match; its other attributes may change.
* Every other fixture entity must not change (state or attributes), except the attributes
  listed under `ignore_changes` (`state` ignores the state) and VOLATILE ones.
* Values match after normalisation: texts case-insensitively, numbers within 0.001 (brightness
  within 1, as percentages round), lists of texts in any order, null as missing.
  `brightness_pct` on a light is checked against its brightness (0-255).
* A confirmation must be asked exactly when expected (explicit `expect_confirmation`, else:
  an expected change that really changes an entity the product's own SafetyPolicy, with the
  default agent options, holds for confirmation in the live home: a lock listed as staying
  locked asks for nothing; a relay on a garage door's device does).
* `expect_answer` texts must all appear in the answer, one of the `expect_response` texts
  (upstream) must; `expect_question` wants a "?".
"""

from __future__ import annotations

from collections.abc import Collection
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from enum import Enum
import math
from typing import Any
from typing import Final

from custom_components.local_agent.safety.policy import SafetyPolicy
from homeassistant.core import HomeAssistant

from .dataset import IGNORE_ALL
from .dataset import StateSpec
from .dataset import TestCase
from .home import Snapshot

# Attributes that change by themselves (timestamps), per domain.
VOLATILE: Final[Mapping[str, frozenset[str]]] = {
    "timer": frozenset({"finishes_at", "last_transition", "remaining"}),
    "media_player": frozenset({"media_position", "media_position_updated_at"}),
}
NUMBER_TOLERANCE: Final = 1e-3
# Attributes that are percentages scaled to 0-255 (a percentage round-trips within 1).
COARSE_NUMBERS: Final[Mapping[str, float]] = {"brightness": 1.0, "brightness_pct": 1.0}
# The product's safety rules under the default agent options.
DEFAULT_POLICY: Final = SafetyPolicy.from_data({})


class Failure(Enum):
    """Why a sentence failed (a sentence may fail for several reasons)."""

    WRONG_STATE = "wrong_state"
    UNEXPECTED_CHANGE = "unexpected_change"
    CONFIRMATION_MISSING = "confirmation_missing"
    CONFIRMATION_UNEXPECTED = "confirmation_unexpected"
    ANSWER = "answer"
    CRASH = "crash"


@dataclass(slots=True)
class Verdict:
    """The judgement of one sentence."""

    problems: list[tuple[Failure, str]] = field(default_factory=list)

    @property
    def success(self) -> bool:
        """True when nothing went wrong."""
        return not self.problems

    def add(self, failure: Failure, message: str) -> None:
        """Record a problem."""
        self.problems.append((failure, message))


def sensitive_targets(hass: HomeAssistant, test: TestCase) -> frozenset[str]:
    """The expected entities whose change the default SafetyPolicy holds for confirmation."""
    return frozenset(DEFAULT_POLICY.sensitive_entities(hass, test.expect_changes))


def expects_confirmation(test: TestCase, sensitive: Collection[str], before: Snapshot) -> bool:
    """Explicit `expect_confirmation`, else whether an expected change is sensitive.

    sensitive: the expected entities the policy holds (sensitive_targets). Only an
    expectation that differs from the state before the sentence is a change.
    """
    if test.expect_confirmation is not None:
        return test.expect_confirmation
    return any(
        entity_id in sensitive and changes(test, entity_id, before)
        for entity_id in test.expect_changes
    )


def changes(test: TestCase, entity_id: str, before: Snapshot) -> bool:
    """Whether the expectation for entity_id differs from its state before the sentence."""
    expected = test.expect_changes[entity_id]
    state, attributes = before.get(entity_id, ("unknown", {}))
    if expected.state is not None and not values_match(expected.state, state):
        return True
    return not all(
        attribute_matches(value, entity_id, state, attributes, name)
        for name, value in expected.attributes.items()
    )


def normalise(value: Any) -> Any:
    """Enums to their values, tuples to lists, recursively."""
    if isinstance(value, Enum):
        return normalise(value.value)
    if isinstance(value, (list, tuple, set, frozenset)):
        return [normalise(item) for item in value]
    if isinstance(value, Mapping):
        return {str(k): normalise(v) for k, v in value.items()}
    return value


def values_match(expected: Any, actual: Any, attribute: str = "") -> bool:
    """Compare an expected value with an actual one under the scoring rules."""
    expected, actual = normalise(expected), normalise(actual)
    if expected is None:
        return actual is None
    if isinstance(expected, bool) or isinstance(actual, bool):
        return _as_bool(expected) is not None and _as_bool(expected) == _as_bool(actual)
    if isinstance(expected, (int, float)):
        number = _as_number(actual)
        tolerance = COARSE_NUMBERS.get(attribute, NUMBER_TOLERANCE)
        return number is not None and math.isclose(expected, number, abs_tol=tolerance)
    if isinstance(expected, str):
        if isinstance(actual, (int, float)):
            number = _as_number(expected)
            return number is not None and math.isclose(number, actual, abs_tol=NUMBER_TOLERANCE)
        return isinstance(actual, str) and expected.strip().casefold() == actual.strip().casefold()
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(expected) != len(actual):
            return False
        if all(isinstance(item, str) for item in expected):
            return sorted(i.strip().casefold() for i in expected) == sorted(
                str(i).strip().casefold() for i in actual
            )
        return all(values_match(e, a, attribute) for e, a in zip(expected, actual, strict=True))
    if isinstance(expected, dict):
        return isinstance(actual, dict) and all(
            values_match(v, actual.get(k), k) for k, v in expected.items()
        )
    return bool(expected == actual)


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "on", "yes"):
        return True
    if isinstance(value, str) and value.strip().lower() in ("false", "off", "no"):
        return False
    return None


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        return None


def attribute_value(entity_id: str, state: str, attributes: Mapping[str, Any], name: str) -> Any:
    """An attribute as reported, or a shorthand computed from one (`brightness_pct`).

    A light that is off reports no brightness: it reads as brightness 0.
    """
    if name in ("brightness", "brightness_pct") and entity_id.startswith("light."):
        brightness = attributes.get("brightness")
        if brightness is None:
            return 0 if state == "off" else None
        return round(float(brightness) * 100 / 255) if name == "brightness_pct" else brightness
    return attributes.get(name)


def attribute_matches(
    wanted: Any, entity_id: str, state: str, attributes: Mapping[str, Any], name: str
) -> bool:
    """Whether an attribute is as wanted (null: missing; shorthands computed)."""
    actual = (
        attributes.get(name)
        if wanted is None
        else attribute_value(entity_id, state, attributes, name)
    )
    return values_match(wanted, actual, name)


def show(value: Any) -> str:
    """A value as it reads in a failure message."""
    value = normalise(value)
    if isinstance(value, float):
        return f"{value:g}"
    return repr(value) if isinstance(value, str) else str(value)


def judge_states(test: TestCase, before: Snapshot, after: Snapshot, verdict: Verdict) -> None:
    """Check expected changes and that nothing else changed."""
    for entity_id in sorted(before.keys() | after.keys()):
        old_state, old_attributes = before.get(entity_id, ("missing", {}))
        new_state, new_attributes = after.get(entity_id, ("missing", {}))
        expected = test.expect_changes.get(entity_id)
        if expected is not None:
            _judge_expected(entity_id, expected, (old_state, new_state), new_attributes, verdict)
            continue
        ignored = set(test.ignore_changes.get(entity_id, ()))
        if IGNORE_ALL in ignored:
            continue
        ignored |= VOLATILE.get(entity_id.split(".", 1)[0], frozenset())
        if old_state != new_state and "state" not in ignored:
            verdict.add(
                Failure.UNEXPECTED_CHANGE, f"{entity_id}: state changed {old_state} -> {new_state}"
            )
            continue
        for name in sorted(old_attributes.keys() | new_attributes.keys()):
            old, new = old_attributes.get(name), new_attributes.get(name)
            if name not in ignored and normalise(old) != normalise(new):
                verdict.add(
                    Failure.UNEXPECTED_CHANGE,
                    f"{entity_id}: {name} changed {show(old)} -> {show(new)}",
                )


def _judge_expected(
    entity_id: str,
    expected: StateSpec,
    states: tuple[str, str],
    attributes: Mapping[str, Any],
    verdict: Verdict,
) -> None:
    old_state, new_state = states
    wanted_state = expected.state if expected.state is not None else old_state
    if not values_match(wanted_state, new_state):
        verdict.add(Failure.WRONG_STATE, f"{entity_id}: state {new_state}, expected {wanted_state}")
    for name, wanted in expected.attributes.items():
        if not attribute_matches(wanted, entity_id, new_state, attributes, name):
            actual = attribute_value(entity_id, new_state, attributes, name)
            verdict.add(
                Failure.WRONG_STATE, f"{entity_id}: {name} {show(actual)}, expected {show(wanted)}"
            )


def judge_answer(test: TestCase, answers: Sequence[str], verdict: Verdict) -> None:
    """Check the texts the answer must contain, and that it asks when it should."""
    said = " ".join(answers).casefold()
    missing = [text for text in test.expect_answer if text.casefold() not in said]
    if missing:
        verdict.add(Failure.ANSWER, f"the answer does not mention {', '.join(map(repr, missing))}")
    if test.expect_response and not any(text.casefold() in said for text in test.expect_response):
        options = " or ".join(map(repr, test.expect_response))
        verdict.add(Failure.ANSWER, f"the answer mentions none of {options}")
    if test.expect_question and "?" not in said:
        verdict.add(Failure.ANSWER, "the answer should ask a question")


def judge_confirmation(expected: bool, asked: bool, verdict: Verdict) -> None:
    """A confirmation must be asked exactly when expected."""
    if expected and not asked:
        verdict.add(Failure.CONFIRMATION_MISSING, "no confirmation was asked")
    elif asked and not expected:
        verdict.add(Failure.CONFIRMATION_UNEXPECTED, "a confirmation was asked, none expected")


def judge(  # noqa: PLR0917 - the inputs of a judgement, kept explicit
    test: TestCase,
    before: Snapshot,
    after: Snapshot,
    asked_confirmation: bool,
    answers: Sequence[str],
    sensitive: Collection[str] = (),
) -> Verdict:
    """Judge one sentence's outcome; sensitive: as sensitive_targets says."""
    verdict = Verdict()
    judge_states(test, before, after, verdict)
    judge_confirmation(expects_confirmation(test, sensitive, before), asked_confirmation, verdict)
    judge_answer(test, answers, verdict)
    return verdict
