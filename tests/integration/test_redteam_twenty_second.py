"""A twenty-second round of red-team probes: the new actions, the saved questions, the second tab.

Changing a player's sound mode beside "when the Walkman goes off, lock the front door" was
held: the sound mode service was not known to leave the player's state as it is (volume,
shuffle and repeat were), so the gate took it for one that may switch the player off. Same
house, scripted model and helpers as the other red-team files; each probe has its neighbour.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.safety import policy
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant

from . import test_adversarial
from .home import async_setup_demo
from .test_adversarial import Scene
from .test_redteam import UNLOCK_FRONT_DOOR
from .test_redteam import set_up_automations
from .test_redteam_more import reload_scripts
from .test_redteam_seventh import LOCK
from .test_redteam_tenth import nightly
from .test_redteam_twenty_first import held

house = test_adversarial.house
scene = test_adversarial.scene

WALKMAN: Final = "media_player.walkman"
DOORBELL_RINGS: Final = {"trigger": "state", "entity_id": "binary_sensor.doorbell", "to": "on"}


def walkman_program(trigger: dict[str, Any], actions: list[Any]) -> dict[str, Any]:
    """An automation "Walkman program": on `trigger`, `actions`."""
    return {
        "id": "walkman_program",
        "alias": "Walkman program",
        "triggers": [trigger],
        "actions": actions,
    }


# --- A sound mode keeps the player's state ---------------------------------------------------


IN_MOVIE_MODE: Final = {
    "condition": "state",
    "entity_id": WALKMAN,
    "attribute": "sound_mode",
    "state": "Movie",
}


@pytest.mark.parametrize(
    ("program", "is_held"),
    [
        (walkman_program({"trigger": "state", "entity_id": WALKMAN, "to": "off"}, [LOCK]), False),
        (None, False),
        (
            walkman_program(
                {"trigger": "state", "entity_id": WALKMAN, "attribute": "sound_mode"},
                UNLOCK_FRONT_DOOR,
            ),
            True,
        ),
        (walkman_program({"trigger": "state", "entity_id": WALKMAN}, UNLOCK_FRONT_DOOR), True),
        (
            walkman_program(DOORBELL_RINGS, [{"if": [IN_MOVIE_MODE], "then": UNLOCK_FRONT_DOOR}]),
            True,
        ),
    ],
    ids=[
        "locks when the player goes off",
        "no program",
        "sound mode watched",
        "any change watched",
        "the doorbell unlocks in movie mode",
    ],
)
async def test_a_sound_mode_is_judged_by_what_it_sets_off(
    hass: HomeAssistant, scene: Scene, program: dict[str, Any] | None, is_held: bool
) -> None:
    """ "Put the Walkman in movie mode" beside "when the Walkman goes off, lock the front
    door": the sound mode service (the media player component's, calling the player's own
    select_sound_mode) leaves the player playing, as a volume change does, so the lock
    program is not set off and nothing needs a yes (it was held). A program that watches the
    sound mode, any change of the player, or reads the sound mode when the doorbell rings to
    unlock: held."""
    assert scene.person is not None  # the house, with its lock
    await async_setup_demo(hass, [Platform.MEDIA_PLAYER])
    if program is not None:
        await set_up_automations(hass, program)
    await hass.async_block_till_done()

    assert held(hass, "media_player", "select_sound_mode", WALKMAN) is is_held


# --- Scripts that each run the next two ------------------------------------------------------


LAYERS: Final = 12


def two_ways_down(then: dict[str, Any]) -> dict[str, Any]:
    """Scripts in LAYERS layers of two ("Left 0", "Right 0", ...): each runs both of the next
    layer, the last ones `then`. 2 ** LAYERS ways lead from the first to `then`."""
    scripts: dict[str, Any] = {}
    for layer in range(LAYERS):
        below = (
            [{"action": f"script.{side}_{layer + 1}"} for side in ("left", "right")]
            if layer + 1 < LAYERS
            else [then]
        )
        for side in ("left", "right"):
            scripts[f"{side}_{layer}"] = {"alias": f"{side} {layer}", "sequence": below}
    return scripts


async def test_scripts_that_each_run_the_next_two_are_read_once_each(
    hass: HomeAssistant, scene: Scene, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Nightly" runs "Left 0", which runs Left 1 and Right 1, each of which runs Left 2 and
    Right 2, ... twelve layers down to a step that locks the front door. Disabling Nightly
    read the steps of the scripts once for each way down (4,096 ways, twice as many with each
    more layer: 28 scripts blocked Home Assistant for a second, 40 would for minutes); each
    script's steps are now read a few times at most, and the question is the same: held."""
    assert scene.person is not None  # the house, with its lock
    scripts = two_ways_down(LOCK)
    await reload_scripts(hass, scripts)
    await set_up_automations(hass, nightly({"action": "script.left_0"}))
    reads: list[str] = []
    read_script = policy.script_sequence

    def counted(hass: HomeAssistant, entity_id: str) -> list[Any] | None:
        reads.append(entity_id)
        return read_script(hass, entity_id)

    monkeypatch.setattr(policy, "script_sequence", counted)

    nightly_id = "automation.nightly"
    assert held(hass, "automation", "turn_off", nightly_id, nightly_id)
    assert len(reads) < 20 * len(scripts), len(reads)
