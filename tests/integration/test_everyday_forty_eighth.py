"""Answers that must be ours, not the model's guess (everyday47).

Fixed here (each row marked "before:" failed before):
- A step on something already at the end it steps toward ("dim the kitchen light" while it
  is off, "brighter" at full brightness) succeeds and changes nothing. The model then had the
  last word and could say "I dimmed it"; the person now hears ours, in the
  request's language: "Kitchen Lights: already off", "Kitchen Lights: schon 100 %".

The same for a player's volume and a fan's speed (everyday48): "louder" at full volume, "quieter"
at 0, "louder" on a player that is off, "faster" at 100 %, "slower" on a fan that is off. The
scripted agent's own home loads no media player and exposes no fan: these rows run on the whole
demo (`demo_house`) with the target exposed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from typing import Final

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant

from .agents import Talk
from .conftest import Agent
from .conftest import speech
from .scene import Home
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


def step(language: str, service: str, said: str, before: tuple[str, dict[str, Any]]) -> Step:
    """A player's volume or a fan's speed (by `service`'s domain) stepped after `before`."""
    domain = "media_player" if service.startswith("volume") else "fan"
    entity_id = {"media_player": PLAYER, "fan": FAN}[domain]
    return Step(
        language,
        (domain, before[0], entity_id, before[1]),
        call(domain, action=service, entity_id=entity_id),
        said,
    )


PLAYER: Final = "media_player.walkman"
FAN: Final = "fan.living_room_fan"
F: Final = "Living Room Fan"
LOUD: Final = ("volume_set", {"volume_level": 1})
MUTE: Final = ("volume_set", {"volume_level": 0})
OFF: Final[tuple[str, dict[str, Any]]] = ("turn_off", {})
FAST: Final = ("set_percentage", {"percentage": 100})
SLOW: Final = ("set_percentage", {"percentage": 33})
LEVEL_STEPS: Final[dict[str, Step]] = {
    "en louder at full (before: unreached)": step("en", "volume_up", "Walkman: already 100%", LOUD),
    "de lauter at full volume": step("de", "volume_up", "Walkman: schon 100 %", LOUD),
    "en quieter at 0 (before: unreached)": step("en", "volume_down", "Walkman: already 0%", MUTE),
    "fr moins fort at 0": step("fr", "volume_down", "Walkman\u00a0: déjà 0\u00a0%", MUTE),
    "en louder while off (before: unreached)": step("en", "volume_up", "Walkman: already off", OFF),
    "it louder while off": step("it", "volume_up", "Walkman: già spent", OFF),
    "en faster, 100 (before: unreached)": step("en", "increase_speed", F + ": already 100%", FAST),
    "nl sneller at 100 %": step("nl", "increase_speed", F + ": al 100", FAST),
    "en slower, off (before: unreached)": step("en", "decrease_speed", F + ": already off", OFF),
    "pt mais devagar while off": step("pt", "decrease_speed", F + ": já desligad", OFF),
    "es más lento while off": step("es", "decrease_speed", F + ": ya apagad", OFF),
}  # fmt: skip
# Steps that move: what the person hears is that it was done.
MOVING_STEPS: Final[dict[str, Step]] = {
    "en faster from a third is done": step("en", "increase_speed", "Sped up " + F, SLOW),
    "en faster while off turns it on": step("en", "increase_speed", "Sped up " + F, OFF),
}


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    """The agent the person talks to (conftest's talk): the scripted one."""
    return scripted_agent


ALL_STEPS: Final = {**STEPS, **LEVEL_STEPS, **MOVING_STEPS}


@pytest.mark.parametrize("step", list(ALL_STEPS.values()), ids=list(ALL_STEPS))
async def test_a_step_at_its_end_is_said_by_us(
    hass: HomeAssistant, demo_house: Home, talk: Talk, step: Step
) -> None:
    """What the person hears is ours and true, never the model's claim after it."""
    said = await _said_after(hass, talk, step)

    assert step.said in said
    assert CLAIM not in said


async def _said_after(hass: HomeAssistant, talk: Talk, step: Step) -> str:
    domain, service, entity_id, data = step.before
    async_expose_entity(hass, "conversation", entity_id, True)
    await hass.services.async_call(domain, service, {"entity_id": entity_id, **data}, blocking=True)
    await hass.async_block_till_done()
    return speech(await talk.say("…", step.language, step.writes, answer(CLAIM)))
