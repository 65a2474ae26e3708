"""Build a home in Home Assistant: fixture entities, floors and areas, names, and exposure.

One API for every test home that scripts and tests build:

* `async_add_fixture_home()` registers testing/fixture_home/ with Home Assistant's loader and
  adds a config entry of devices and entity fixtures (the synthetic benchmark homes,
  synthetic.py, and the evaluation homes, scripts/evaluation/home.py);
* `async_area()`, `async_place_entity()` and `async_place_in_area()` put entities in areas
  (with their aliases) the way a user does;
* `async_expose_only()` exposes exactly the given entities to Assist;
* `async_add_script()` sets up a script of one step, as a user writes one in the editor.

Home Assistant's demo homes (demo_home.py, tests/integration/home.py) use the placing and
exposure helpers; their entities come from the demo integration.
"""

from __future__ import annotations

from collections.abc import Iterable
from collections.abc import Mapping
from collections.abc import Sequence
from types import MappingProxyType
from typing import Any

from custom_components.local_agent.const import ASSISTANT
from homeassistant import loader
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import SOURCE_USER
from homeassistant.config_entries import ConfigEntry
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr
from homeassistant.setup import async_setup_component
from testing.fixture_home.const import DOMAIN as FIXTURE_HOME
from testing.hass_runner import HarnessError


async def async_register_fixture_home(hass: HomeAssistant) -> None:
    """Make fixture_home known to Home Assistant's loader as a custom integration."""
    custom = await loader.async_get_custom_components(hass)
    if FIXTURE_HOME in custom:
        return
    import testing

    integration = await hass.async_add_executor_job(
        loader.Integration.resolve_from_root, hass, testing, FIXTURE_HOME
    )
    if integration is None:
        raise HarnessError("The fixture_home integration could not be resolved")
    custom[FIXTURE_HOME] = integration


async def async_add_fixture_home(
    hass: HomeAssistant,
    title: str,
    entities: Sequence[Mapping[str, Any]],
    devices: Sequence[Mapping[str, Any]] = (),
) -> ConfigEntry:
    """Create the devices and entities (fixture dicts) of a home; return its loaded entry."""
    await async_register_fixture_home(hass)
    entry = ConfigEntry(
        domain=FIXTURE_HOME,
        title=title,
        data={"devices": list(devices), "entities": list(entities)},
        options={},
        source=SOURCE_USER,
        version=1,
        minor_version=1,
        unique_id=None,
        discovery_keys=MappingProxyType({}),
        subentries_data=None,
    )
    await hass.config_entries.async_add(entry)
    await hass.async_block_till_done()
    if entry.state is not ConfigEntryState.LOADED:
        raise HarnessError(f"{title} did not load: {entry.reason or entry.state}")
    return entry


def async_floor(hass: HomeAssistant, name: str, level: int | None = None) -> str:
    """Return the id of the floor of that name, created when missing."""
    floors = fr.async_get(hass)
    floor = floors.async_get_floor_by_name(name) or floors.async_create(name, level=level)
    return floor.floor_id


def async_area(hass: HomeAssistant, name: str, floor_id: str | None = None) -> str:
    """Return the id of the area of that name, created (on floor_id) when missing."""
    areas = ar.async_get(hass)
    area = areas.async_get_area_by_name(name) or areas.async_create(name, floor_id=floor_id)
    return area.id


def async_place_entity(
    hass: HomeAssistant, entity_id: str, area_id: str | None, aliases: Iterable[str] = ()
) -> None:
    """Give an entity its aliases and (when given) its own area; it must be registered."""
    registry = er.async_get(hass)
    if registry.async_get(entity_id) is None:
        raise HarnessError(f"{entity_id} has no entity registry entry")
    # COMPUTED_NAME keeps the entity's own name among its names, as the UI does.
    names: list[str | er.ComputedNameType] = [er.COMPUTED_NAME, *aliases]
    changes: dict[str, Any] = {"aliases": names}
    if area_id is not None:
        changes["area_id"] = area_id
    registry.async_update_entity(entity_id, **changes)


def async_place_device(hass: HomeAssistant, entry_id: str, device: str, area_id: str) -> None:
    """Put a fixture home's device (by its fixture id) in an area."""
    devices = dr.async_get(hass)
    entry = devices.async_get_device_by_identifier((FIXTURE_HOME, device), entry_id)
    if entry is not None:
        devices.async_update_device(entry.id, area_id=area_id)


def async_place_in_area(hass: HomeAssistant, entity_id: str, area_id: str) -> None:
    """Put an entity in an area: through its device when it has one, as users do."""
    entities = er.async_get(hass)
    entry = entities.async_get(entity_id)
    if entry is None:
        return
    if entry.device_id is not None:
        dr.async_get(hass).async_update_device(entry.device_id, area_id=area_id)
    else:
        entities.async_update_entity(entity_id, area_id=area_id)


def async_expose_only(hass: HomeAssistant, entity_ids: Iterable[str]) -> None:
    """Expose the given entities to Assist, and nothing else."""
    wanted = set(entity_ids)
    for state in hass.states.async_all():
        async_expose_entity(hass, ASSISTANT, state.entity_id, state.entity_id in wanted)


async def async_add_script(
    hass: HomeAssistant, object_id: str, alias: str, action: str, entity_id: str
) -> None:
    """Set up the script integration with one script whose one step runs `action` on an entity."""
    step = {"action": action, "target": {"entity_id": entity_id}}
    config = {"script": {object_id: {"alias": alias, "sequence": [step]}}}
    if not await async_setup_component(hass, "script", config):
        raise HarnessError(f"the script integration did not set up {object_id}")
