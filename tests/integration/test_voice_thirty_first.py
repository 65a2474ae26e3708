"""No PIN oracle (round 31).

- With a PIN set, a message that answers no question had every digit hidden when it held the
  exact PIN, at any time: "set a timer for 4711" (the PIN) reached the model as "set a timer
  for ****", "set a timer for 4712" whole. Whether the model saw the number told whether it
  was the PIN: a guess per message, without any lock-out. What is hidden now depends on the
  message's shape alone (a stretch with as many digits as any PIN has, 4), so both are hidden
  alike; times and shorter numbers reach the model whole.
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.core import HomeAssistant
from testing.turn import chat_log_of
from testing.turn import logged_words

from .scene import Scene
from .scripted_model import answer


async def seen(hass: HomeAssistant, scene: Scene, said: str) -> tuple[str, str]:
    """Say `said` to a PIN agent when no question is open: its chat log's words, and the
    model's prompts."""
    agent = await scene.pin_agent()
    scene.worker.will_write(answer("Okay."))
    result = await agent.ask(said, context=scene.person)
    return logged_words(chat_log_of(hass, result)), scene.model_saw()


# The PIN (4711), and numbers as long as it that are not: each message is treated the same.
TIMERS: Final = ["set a timer for 4711 please", "set a timer for 4712 please"]


@pytest.mark.parametrize("said", TIMERS)
async def test_whether_a_number_is_the_pin_changes_nothing_the_model_sees(
    hass: HomeAssistant, scene: Scene, said: str
) -> None:
    logged, prompts = await seen(hass, scene, said)

    assert "set a timer for **** please" in logged
    assert "set a timer for **** please" in prompts
    assert said[16:20] not in prompts


# Ordinary numbers where no question is open: they reach the model whole.
ORDINARY: Final = [
    "set the kitchen light to 100 percent",
    "set the heating to 21 degrees",
    "wake me at 10:30",
    "start a timer for 90 seconds",
    "set the heating to twenty one degrees",
]


@pytest.mark.parametrize("said", ORDINARY)
async def test_ordinary_numbers_reach_the_model_whole(
    hass: HomeAssistant, scene: Scene, said: str
) -> None:
    await assert_reaches_the_model_whole(hass, scene, said)


async def assert_reaches_the_model_whole(hass: HomeAssistant, scene: Scene, said: str) -> None:
    """Say `said` to the PIN agent: its chat log and the model's prompts hold it whole."""
    logged, prompts = await seen(hass, scene, said)

    assert said in logged
    assert said in prompts
