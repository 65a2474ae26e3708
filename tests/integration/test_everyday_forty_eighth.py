"""Answers that must be ours, not the model's guess (everyday47).

Fixed here (each row marked "before:" failed before):
- A step on something already at the end it steps toward ("dim the kitchen light" while it
  is off, "brighter" at full brightness) succeeds and changes nothing. The model then had the
  last word and could say "I dimmed it"; the person now hears ours, in the
  request's language: "Kitchen Lights: already off", "Kitchen Lights: schon 100 %".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from typing import Final

import pytest

from homeassistant.core import HomeAssistant

from .agents import Talk
from .conftest import Agent
from .conftest import speech
from .scripted_model import answer
from .scripted_model import call

KITCHEN: Final = "light.kitchen_lights"
K: Final = "Kitchen Lights"
FULL: Final = 255
HALF: Final = 128
# What a model may claim after a call that changed nothing: never what the person hears.
CLAIM: Final = "I did it."


@dataclass(frozen=True, slots=True)
class Step:
    """Before: `service` on `entity_id` with `data`; then the model writes `writes`."""

    language: str
    before: tuple[str, str, str, dict[str, Any]]
    writes: str
    said: str


def dim(language: str, step: int, said: str, **before: Any) -> Step:
    """The kitchen light (off, or on with `before`) stepped by `step` percent."""
    service = "turn_on" if before else "turn_off"
    return Step(
        language,
        ("light", service, KITCHEN, before),
        call("light", action="turn_on", entity_id=KITCHEN, brightness_step_pct=step),
        said,
    )


STEPS: Final[dict[str, Step]] = {
    "en dimmer while off (before: claimed)": dim("en", -10, K + ": already off"),
    "de dunkler while off (before: claimed)": dim("de", -10, K + ": schon ausgeschaltet"),
    "fr moins fort while off (before: claimed)": dim("fr", -20, K + "\u00a0: déjà éteint"),
    "es while off (before: claimed)": dim("es", -10, K + ": ya apagad"),
    "it while off (before: claimed)": dim("it", -10, K + ": già spent"),
    "nl while off (before: claimed)": dim("nl", -10, K + ": al uit"),
    "pt while off (before: claimed)": dim("pt", -10, K + ": já desligad"),
    "en brighter at full (before: claimed)": dim("en", 10, K + ": already 100%", brightness=FULL),
    "de heller at full (before: claimed)": dim("de", 25, K + ": schon 100 %", brightness=FULL),
    "en dimmer while on is done": dim("en", -10, "Lowered the brightness of " + K, brightness=HALF),
    "en brighter while off turns it on": dim("en", 10, "Changed the brightness of " + K),
}  # fmt: skip


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    """The agent the person talks to (conftest's talk): the scripted one."""
    return scripted_agent


@pytest.mark.parametrize("step", list(STEPS.values()), ids=list(STEPS))
async def test_a_step_at_its_end_is_said_by_us(hass: HomeAssistant, talk: Talk, step: Step) -> None:
    """What the person hears is ours and true, never the model's claim after it."""
    domain, service, entity_id, data = step.before
    await hass.services.async_call(domain, service, {"entity_id": entity_id, **data}, blocking=True)

    result = await talk.say("…", step.language, step.writes, answer(CLAIM))

    said = speech(result)
    assert step.said in said
    assert CLAIM not in said
