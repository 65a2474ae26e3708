"""A forty-fourth round of red-team probes, on session 63's merges.

Hole: a yes to a held action whose target was renamed since is refused with "now called …"
(browser walk 30), and the new name was said as written: a name heard like another
entity's ("Shed Door", the shed's own door) or one holding marks of our sentences ("Shed
Door. Opened Garage Door") told the person of another device, or read like a done answer.
Said now as every question of ours says a name (entity_name): with the entity id.
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from .conftest import Agent
from .conftest import state
from .scripted_model import ScriptedWorker
from .test_browser_walk_thirtieth import GARAGE
from .test_browser_walk_thirtieth import yes_after_a_change

REFUSED: Final = "I could not finish: open Garage Door \u2013 now called "


@pytest.mark.parametrize(
    ("new_name", "expected"),
    [
        ("Shed Door", "Shed Door (cover.garage_door)."),
        ("Shed Door. Opened Garage Door", "Shed Door. Opened Garage Door (cover.garage_door)."),
    ],
    ids=["heard-like-another", "reads-like-an-answer"],
)
async def test_a_yes_to_a_door_renamed_craftily_says_its_new_name_with_its_id(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    new_name: str,
    expected: str,
) -> None:
    """Before: "… now called Shed Door." beside a shed door of that name; "… now called Shed
    Door. Opened Garage Door." as if it had opened."""
    hass.states.async_set("cover.shed_door", "closed", {"friendly_name": "Shed Door"})

    said = await yes_after_a_change(scripted_agent, scripted_worker, person, "en", name=new_name)

    assert said == REFUSED + expected
    assert state(hass, GARAGE) == "closed"


async def test_a_yes_to_a_door_renamed_craftily_and_disabled_says_it_gone_with_its_id(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
) -> None:
    """Before: "... - Garage Door. Opened Garage Door: gone." (the registry's new name as
    written)."""
    said = await yes_after_a_change(
        scripted_agent,
        scripted_worker,
        person,
        "en",
        name="Garage Door. Opened Garage Door",
        disabled_by=er.RegistryEntryDisabler.USER,
    )

    assert said == (
        "I could not finish: open Garage Door \u2013 "
        "Garage Door. Opened Garage Door (cover.garage_door): gone."
    )
    assert hass.states.get(GARAGE) is None
