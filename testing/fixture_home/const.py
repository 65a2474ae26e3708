"""Constants of the fixture home integration."""

from __future__ import annotations

from typing import TYPE_CHECKING
from typing import Final

from homeassistant.util.hass_dict import HassKey

if TYPE_CHECKING:
    from testing.fixture_home.entity import FixtureEntity

DOMAIN: Final = "fixture_home"
# The live entity objects by entity id, so scripts/evaluation can reset them directly.
ENTITIES: HassKey[dict[str, FixtureEntity]] = HassKey(f"{DOMAIN}_entities")
