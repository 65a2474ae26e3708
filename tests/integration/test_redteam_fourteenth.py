"""A fourteenth round of red-team probes: the branches an automation's run takes, and the yes.

The policy judges which branches of an automation a change runs (automation_runs.py). What
ran at once and locked up the house: a condition switched off by a template (`enabled:
"{{ false }}"`, which Home Assistant renders when it sets the automation up and then passes)
was judged as if on; a list compared with a tuple (`[state] != ('Home',)`, true in Home
Assistant whatever the state) was read as equal; and a run that the change sets off in mode
`restart` stops the one under way, so the lock that run waits to do never happens, while the
branch the new run takes does nothing. "At 23:00, if the mode is Away, lock up" whose template
names the mode by its domain's states (`states['input_select']['house_mode']`) after a test of
the trigger was not read at all: rendered without a run it stops at that test, and no text
writes the mode's id whole (safety/reads.py). A reply whose words split two ways, one of them a no
("yeah right now": "yeah" + "right now", or the sarcastic "yeah right" + "now"), was read
as the yes. Same house, scripted model and helpers as the other red-team files; each probe
has its everyday neighbour that runs at once.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.safety.confirmation import Reply
from custom_components.local_agent.safety.confirmation import classify_reply
from homeassistant.core import Context
from homeassistant.core import HomeAssistant

from .houses import template
from .scene import Scene
from .scripted_model import answer
from .test_everyday_choices import LIGHTS_ON
from .test_everyday_choices import LOCK_UP
from .test_everyday_choices import mode_changes
from .test_everyday_choices import mode_is
from .test_everyday_choices import modes
from .test_everyday_choices import option
from .test_everyday_choices import select
from .test_everyday_choices import set_up_the_house

# A run that waits, set up here, outlives no test.
# A time trigger set up here outlives no test (conftest.py: automations_stop).
pytestmark = pytest.mark.usefixtures("automations_stop")


# --- A condition that a template switches off -------------------------------------------------

NIGHT_ONLY: Final = mode_is("Night")


def switched(enabled: Any) -> dict[str, Any]:
    """The Night condition, switched by `enabled` (a boolean, or a template of one)."""
    return {**NIGHT_ONLY, "enabled": enabled}


# (how the Night condition is written, whether selecting Home asks)
SWITCHED: Final[dict[str, tuple[dict[str, Any], bool]]] = {
    "a condition step switched off by a template": (
        modes([mode_changes()], switched("{{ false }}"), *LOCK_UP),
        True,
    ),
    "an option's condition switched off by a template": (
        modes([mode_changes()], {"choose": [option(switched("{{ 0 }}"), LOCK_UP)]}),
        True,
    ),
    "an if's condition in an and, switched off by a template": (
        modes(
            [mode_changes()],
            {
                "if": [{"condition": "and", "conditions": [switched("{{ false }}")]}],
                "then": LOCK_UP,
            },
        ),
        True,
    ),
    # Everyday: switched on, the condition decides (the mode is Home, not Night).
    "a condition step switched on": (modes([mode_changes()], switched(True), *LOCK_UP), False),
    "an option's condition switched on": (
        modes([mode_changes()], {"choose": [option(switched(True), LOCK_UP)]}),
        False,
    ),
}


@pytest.mark.parametrize("written", list(SWITCHED))
async def test_a_condition_a_template_may_switch_off_may_pass(
    hass: HomeAssistant, scene: Scene, written: str
) -> None:
    """House modes locks up "when the mode is Night". The Night condition's `enabled` is a
    template that Home Assistant renders as it sets the automation up: false, it switches the
    condition off, which then passes, and selecting Home locks up (it ran at once). Switched
    on with `true`, the Night condition decides, and selecting Home runs at once."""
    automation, held = SWITCHED[written]
    await set_up_the_house(hass, automation)

    await select(hass, scene, "Home", held=held)


# --- A list is no tuple ------------------------------------------------------------------------


@pytest.mark.parametrize(("compared", "held"), [("('Home',)", True), ("['Home']", False)])
async def test_a_list_compared_with_a_tuple_is_never_equal(
    hass: HomeAssistant, scene: Scene, compared: str, held: bool
) -> None:
    """`[trigger.to_state.state] != ('Home',)` is true in Home Assistant whatever the mode: a
    list is never a tuple, so selecting Home locks up (it ran at once). Compared with the
    list `['Home']`, Home leaves the house as it is: at once."""
    unless_home = template(f"{{{{ [trigger.to_state.state] != {compared} }}}}")
    await set_up_the_house(hass, modes([mode_changes()], {"if": [unless_home], "then": LOCK_UP}))

    await select(hass, scene, "Home", held=held)


# --- A new run that stops the one under way ----------------------------------------------------


@pytest.mark.parametrize(("running", "held"), [(True, True), (False, False)])
async def test_a_run_in_mode_restart_stops_the_run_that_would_lock_up(
    hass: HomeAssistant, scene: Scene, running: bool, held: bool
) -> None:
    """ "When I leave (Away), lock up in an hour", in mode restart: while that run waits,
    selecting Home sets off a new run, which stops it, and the house is never locked (it ran
    at once: the new run only finds it is not Away). With no run under way, selecting Home
    stops nothing: at once."""
    automation = modes(
        [mode_changes(id="mode"), {**mode_changes(to="Away"), "id": "away"}],
        {"condition": "trigger", "id": "away"},
        {"delay": {"hours": 1}},
        *LOCK_UP,
        mode="restart",
    )
    await set_up_the_house(hass, automation)
    entity = hass.data["automation"].get_entity("automation.house_modes")
    if running:
        # The run that selecting Away set off: a background task (a test waits for the others).
        away = {"trigger": {"id": "away", "idx": "1"}}
        hass.async_create_background_task(entity.async_trigger(away, Context(), True), "away")
        await hass.async_block_till_done()
    assert entity.action_script.is_running is running

    await select(hass, scene, "Home", held=held)

    assert entity.action_script.is_running is running


# --- A reply whose words split two ways --------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "reads"),
    [
        ("yeah right now", Reply.OTHER),
        ("Yeah, right now", Reply.OTHER),
        ("yeah right", Reply.NO),
        # Everyday: one way to split them.
        ("yes right now", Reply.YES),
        ("yeah, now", Reply.YES),
    ],
)
def test_a_reply_that_splits_into_a_yes_or_a_no_is_no_yes(said: str, reads: Reply) -> None:
    """ "Yeah right now" is "yeah" + "right now" or the sarcastic "yeah right" + "now": it
    says both, so it is no yes (it was read as one, the first split found)."""
    assert classify_reply(said, "en") is reads


async def test_yeah_right_now_unlocks_nothing(hass: HomeAssistant, scene: Scene) -> None:
    """End to end: said to "Unlock Front Door?", the front door stays locked."""
    agent = await scene.our_agent()

    await scene.refuse_unlock(agent, "yeah right now", answer("OK."))


# --- The mode read by a later run, through an id no text writes whole ----------------------------

BEDTIME: Final = {"trigger": "time", "at": "23:00:00"}
# "At bedtime, if the mode is Away, `then`": the mode looked up by its domain, after a test of
# the trigger that fails when the template is rendered without a run.
AT_BEDTIME_IF_AWAY: Final = {
    "looked up in its domain's states": (
        "{{ trigger.platform == 'time' and states['input_select']['house_mode'].state == 'Away' }}"
    ),
    "an attribute of its domain's states": (
        "{{ trigger.platform == 'time' and states['input_select'].house_mode.state == 'Away' }}"
    ),
    "its domain joined to the rest": (
        "{{ trigger.to_state.state == 'x' or states('input_select' ~ '.house_mode') == 'Away' }}"
    ),
}


@pytest.mark.parametrize("form", list(AT_BEDTIME_IF_AWAY))
@pytest.mark.parametrize(
    ("then", "held"), [(LOCK_UP, True), (LIGHTS_ON, False)], ids=["locks up", "lights"]
)
async def test_a_mode_a_bedtime_check_reads_by_an_id_no_text_writes_is_read(
    hass: HomeAssistant, scene: Scene, form: str, then: list[dict[str, Any]], held: bool
) -> None:
    """ "At 23:00, if the mode is Away, lock up": selecting Away sets that off tonight. The
    template names the mode by its domain's states (`states['input_select']['house_mode']`)
    or joins its domain to the rest, after a test of the trigger: rendered now, without a
    run, it stops at that test, and no text writes the mode's id whole, so the mode was not
    read and Away ran at once. It may read any input select. "At 23:00, if Away, light the
    kitchen" is everyday: at once."""
    check = {"if": [template(AT_BEDTIME_IF_AWAY[form])], "then": then}
    await set_up_the_house(hass, modes([BEDTIME], check))

    await select(hass, scene, "Away", held=held)
