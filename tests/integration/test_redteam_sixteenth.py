"""A sixteenth round of red-team probes: calls of Home Assistant's own that wait.

The policy judges an automation's conditions by the state a call leaves its entity in, until
a step that waits (automation_runs.py `_may_wait`): a delay, a wait, a script or automation
run to its end (test_state_after_waits.py). A voice satellite's announcement waits too: Home
Assistant's `assist_satellite.announce` returns when the satellite has finished saying it,
`assist_satellite.start_conversation` when it has said its opening and listened (and
`assist_satellite.ask_question` when the person has answered: held already, as a call that
answers); a remote's `learn_command` when the button has been pressed, its `send_command`
when the command has been sent its repeats and delays apart. Meanwhile the kitchen lights
may have been switched off again: "when the kitchen lights come on, say so on the hall
satellite and, if they are off by then, lock up" ran at once. Same house, scripted model and
helpers as the other red-team files; each probe has its everyday neighbour that runs at once.

Checked and found judged right already (no new test; see the covering files): a wait in a
`choose`/`if`/`repeat`/`parallel`/`sequence`, a `wait_template` with a timeout that goes on, a
delay of 0, a variable read before a wait and compared after it, the automation's own step
switching its trigger entity back before a condition reads it (what the automation reads is
followed: test_everyday_choices), an automation in mode queued whose run waits under way
(a running program is judged whole: test_redteam_third), a numeric-state or template trigger
on a light's brightness, and trigger lists nested in a trigger list (read flattened, as Home
Assistant numbers them).
"""

from __future__ import annotations

from typing import Any
from typing import Final

import pytest

from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component

from .houses import act
from .probes import add_demo_platforms
from .scene import Scene
from .test_everyday_choices import LOCK_UP
from .test_everyday_choices import set_up_the_house
from .test_state_after_waits import KITCHEN_OFF
from .test_state_after_waits import lights_on_then
from .test_state_after_waits import turn_on_the_kitchen_lights

# A time trigger set up here outlives no test (conftest.py: automations_stop).
pytestmark = pytest.mark.usefixtures("automations_stop")

HALL_SATELLITE: Final = "assist_satellite.hall"
# Calls of Home Assistant's own services that return only when a device is done.
WAITING_CALLS: Final = {
    "an announcement": act("assist_satellite.announce", HALL_SATELLITE, message="Lights on"),
    "a conversation started": act(
        "assist_satellite.start_conversation", HALL_SATELLITE, start_message="Lights on"
    ),
    "a remote learning a command": act(
        "remote.learn_command", "remote.remote_one", command="power", timeout=30
    ),
    "a remote sending a command again and again": act(
        "remote.send_command", "remote.remote_one", command="up", num_repeats=10, delay_secs=2
    ),
    "an announcement in an if": {
        "if": [{"condition": "template", "value_template": "{{ true }}"}],
        "then": [act("assist_satellite.announce", HALL_SATELLITE, message="Lights on")],
    },
}


async def set_up_with_satellites(hass: HomeAssistant, *steps: Any) -> None:
    """The house, with Home Assistant's voice satellites (their services), and one automation
    run when the kitchen lights come on, taking these steps."""
    assert await async_setup_component(hass, "assist_satellite", {})
    await add_demo_platforms(hass, Platform.REMOTE)
    await set_up_the_house(hass, lights_on_then(*steps))


@pytest.mark.parametrize("waiting", list(WAITING_CALLS))
async def test_what_is_read_after_a_satellite_or_remote_waits_may_be_any_state(
    hass: HomeAssistant, scene: Scene, waiting: str
) -> None:
    """Before: only delays, waits and programs run to their end were steps that wait; the
    lights were judged still on after the announcement, "if they are off, lock up" never to
    pass, and turning them on ran at once."""
    await set_up_with_satellites(hass, WAITING_CALLS[waiting], KITCHEN_OFF, *LOCK_UP)

    await turn_on_the_kitchen_lights(hass, scene, held=True)


@pytest.mark.parametrize(
    "steps",
    [
        pytest.param(
            [KITCHEN_OFF, WAITING_CALLS["an announcement"], *LOCK_UP],
            id="read before the announcement",
        ),
        pytest.param(
            [KITCHEN_OFF, WAITING_CALLS["a remote sending a command again and again"], *LOCK_UP],
            id="read before the remote's commands",
        ),
        pytest.param(
            [WAITING_CALLS["an announcement"], act("light.turn_on", "light.bed_light")],
            id="an announcement and another light",
        ),
    ],
)
async def test_what_is_read_before_an_announcement_is_the_state_the_call_left(
    hass: HomeAssistant, scene: Scene, steps: list[Any]
) -> None:
    """Everyday: the lights are on when the condition reads them (or nothing sensitive
    follows), so turning them on runs at once."""
    await set_up_with_satellites(hass, *steps)

    await turn_on_the_kitchen_lights(hass, scene, held=False)
