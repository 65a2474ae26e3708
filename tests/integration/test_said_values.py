"""What a sentence repeats of a call: what ran, and only values we can say (said63).

- A done answer said the values as the model wrote them, while the runner ran them as the
  tools planned them: a colour written "RED" ran as "red" and was said "(RED)". It now says
  the planned action's data, the values that ran.
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.core import HomeAssistant

from .agents import Talk
from .conftest import Agent
from .conftest import speech
from .scripted_model import call

BED_LIGHT: Final = "light.bed_light"


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    """The agent the person talks to (conftest's talk): the scripted one."""
    return scripted_agent


async def test_a_colour_is_said_as_the_colour_that_ran(hass: HomeAssistant, talk: Talk) -> None:
    """Before: "Turned on Bed Light (RED)."; the light was set to the colour "red"."""
    result = await talk.ask(
        "en", call("light", action="turn_on", entity_id=BED_LIGHT, color_name="RED")
    )

    assert speech(result) == "Turned on Bed Light (red)."
