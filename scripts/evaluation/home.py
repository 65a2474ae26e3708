"""Build an evaluation home in Home Assistant from its fixtures; set up and reset its state.

Entities of `eval_home` are created from the fixtures (registry entries, devices, areas,
floors, aliases), timers by Home Assistant's own `timer` integration, and exactly the fixture
entities marked exposed are exposed to Assist. Between sentences `async_prepare` puts back
only what changed (entities a service touched, the previous test's setup), then applies the
next test's setup: no restart, a few milliseconds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from homeassistant import loader
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import SOURCE_USER, ConfigEntry, ConfigEntryState
from homeassistant.core import HomeAssistant
from homeassistant.helpers import (
    area_registry as ar,
    device_registry as dr,
    entity_registry as er,
    floor_registry as fr,
)
from homeassistant.setup import async_setup_component
from scripts.harness.hass_runner import HarnessError

from .dataset import EntityFixture, Home, StateSpec
from .eval_home.const import DOMAIN, ENTITIES

ASSISTANT: Final = "conversation"
# Shorthands a fixture may use instead of the attribute Home Assistant reports.
SHORTHANDS: Final[Mapping[str, str]] = {
    "brightness_pct": "brightness",
    "brightness": "brightness_pct",
}

type Snapshot = dict[str, tuple[str, dict[str, Any]]]


def merged(fixture: EntityFixture, spec: StateSpec | None) -> tuple[str, dict[str, Any]]:
    """The fixture's state with a setup applied on top (a shorthand replaces its long form)."""
    if spec is None:
        return fixture.state, dict(fixture.attributes)
    attributes = dict(fixture.attributes)
    for key, value in spec.attributes.items():
        if (other := SHORTHANDS.get(key)) is not None:
            attributes.pop(other, None)
        attributes[key] = value
    return spec.state or fixture.state, attributes


async def async_register_integration(hass: HomeAssistant) -> None:
    """Make eval_home known to Home Assistant's loader as a custom integration."""
    custom = await loader.async_get_custom_components(hass)
    if DOMAIN in custom:
        return
    from scripts import evaluation

    integration = await hass.async_add_executor_job(
        loader.Integration.resolve_from_root, hass, evaluation, DOMAIN
    )
    if integration is None:
        raise HarnessError("The eval_home integration could not be resolved")
    custom[DOMAIN] = integration


@dataclass(slots=True)
class FixtureHome:
    """A home set up in Home Assistant, ready to be reset for each sentence."""

    hass: HomeAssistant
    home: Home
    entry: ConfigEntry
    baseline: Snapshot = field(default_factory=dict)
    _last_setup: frozenset[str] = frozenset()

    @property
    def entity_ids(self) -> list[str]:
        """Every fixture entity, exposed or not."""
        return [entity.entity_id for entity in self.home.entities]

    def snapshot(self) -> Snapshot:
        """The state and attributes of every fixture entity now."""
        snapshot: Snapshot = {}
        for entity_id in self.entity_ids:
            state = self.hass.states.get(entity_id)
            if state is not None:
                snapshot[entity_id] = (state.state, dict(state.attributes))
        return snapshot

    async def async_prepare(self, setup: Mapping[str, StateSpec]) -> None:
        """Put the home back into its fixture state, then apply a test's setup."""
        entities = self.hass.data.get(ENTITIES, {})
        for fixture in self.home.entities:
            entity_id = fixture.entity_id
            spec = setup.get(entity_id)
            if fixture.domain == "timer":
                await self._async_prepare_timer(fixture, spec)
                continue
            entity = entities[entity_id]
            current = self.hass.states.get(entity_id)
            if (
                spec is not None
                or entity_id in self._last_setup
                or entity.touched
                or current is None
                or (current.state, dict(current.attributes)) != self.baseline.get(entity_id)
            ):
                entity.async_apply(*merged(fixture, spec))
        self._last_setup = frozenset(setup)
        await self.hass.async_block_till_done()

    async def _async_prepare_timer(self, fixture: EntityFixture, spec: StateSpec | None) -> None:
        state, attributes = merged(fixture, spec)
        current = self.hass.states.get(fixture.entity_id)
        target = {"entity_id": fixture.entity_id}
        if current is not None and (
            current.state != "idle" or fixture.entity_id in self._last_setup
        ):
            await self.hass.services.async_call("timer", "cancel", target, blocking=True)
        if state in ("active", "paused"):
            duration = attributes.get("remaining") or attributes.get("duration")
            data = {**target, "duration": duration} if duration else target
            await self.hass.services.async_call("timer", "start", data, blocking=True)
        if state == "paused":
            await self.hass.services.async_call("timer", "pause", target, blocking=True)


async def async_setup_fixture_home(hass: HomeAssistant, home: Home) -> FixtureHome:
    """Create the home's floors, areas, devices and entities; expose the fixture entities."""
    await async_register_integration(hass)
    entities = [e for e in home.entities if e.domain != "timer"]
    entry = ConfigEntry(
        domain=DOMAIN,
        title=f"Evaluation home {home.title}",
        data={
            "devices": [{"id": d.id, "name": d.name, **d.info} for d in home.devices],
            "entities": [
                {
                    "entity_id": e.entity_id,
                    "name": e.name,
                    "state": e.state,
                    "attributes": dict(e.attributes),
                    "device": e.device,
                }
                for e in entities
            ],
        },
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
        raise HarnessError(f"The evaluation home did not load: {entry.reason or entry.state}")
    await _async_setup_timers(hass, home)
    area_ids = _create_areas(hass, home)
    _place_devices(hass, home, entry.entry_id, area_ids)
    _place_entities(hass, home, area_ids)
    _expose(hass, home)
    await hass.async_block_till_done()
    fixture_home = FixtureHome(hass, home, entry)
    fixture_home.baseline = fixture_home.snapshot()
    missing = [e for e in fixture_home.entity_ids if e not in fixture_home.baseline]
    if missing:
        raise HarnessError(f"The evaluation home did not create {', '.join(missing)}")
    return fixture_home


async def _async_setup_timers(hass: HomeAssistant, home: Home) -> None:
    timers = {
        e.entity_id.split(".", 1)[1]: {
            "name": e.name,
            "duration": str(e.attributes.get("duration") or "0:00:00"),
        }
        for e in home.entities
        if e.domain == "timer"
    }
    if not timers:
        return
    if not await async_setup_component(hass, "timer", {"timer": timers}):
        raise HarnessError("Home Assistant could not set up the timers")
    for entity in home.entities:
        if entity.domain == "timer" and entity.state != "idle":
            duration = entity.attributes.get("remaining") or entity.attributes.get("duration")
            data = {"entity_id": entity.entity_id}
            if duration:
                data["duration"] = str(duration)
            await hass.services.async_call("timer", "start", data, blocking=True)
            if entity.state == "paused":
                await hass.services.async_call(
                    "timer", "pause", {"entity_id": entity.entity_id}, blocking=True
                )


def _create_areas(hass: HomeAssistant, home: Home) -> dict[str, str]:
    """Create floors and areas; return registry area ids by dataset area id."""
    floors = fr.async_get(hass)
    floor_ids: dict[str, str] = {}
    for floor in home.floors:
        floor_entry = floors.async_get_floor_by_name(floor.name) or floors.async_create(
            floor.name, level=floor.level
        )
        floor_ids[floor.id] = floor_entry.floor_id
    areas = ar.async_get(hass)
    area_ids: dict[str, str] = {}
    for area in home.areas:
        floor_id = floor_ids.get(area.floor) if area.floor else None
        area_entry = areas.async_get_area_by_name(area.name) or areas.async_create(
            area.name, floor_id=floor_id
        )
        area_ids[area.id] = area_entry.id
    return area_ids


def _place_devices(
    hass: HomeAssistant, home: Home, entry_id: str, area_ids: Mapping[str, str]
) -> None:
    devices = dr.async_get(hass)
    for device in home.devices:
        entry = devices.async_get_device_by_identifier((DOMAIN, device.id), entry_id)
        if entry is not None and device.area is not None:
            devices.async_update_device(entry.id, area_id=area_ids[device.area])


def _place_entities(hass: HomeAssistant, home: Home, area_ids: Mapping[str, str]) -> None:
    registry = er.async_get(hass)
    for entity in home.entities:
        if registry.async_get(entity.entity_id) is None:
            raise HarnessError(f"{entity.entity_id} has no entity registry entry")
        # COMPUTED_NAME keeps the entity's own name among its names, as the UI does.
        aliases: list[str | er.ComputedNameType] = [er.COMPUTED_NAME, *entity.aliases]
        changes: dict[str, Any] = {"aliases": aliases}
        if entity.area is not None:
            changes["area_id"] = area_ids[entity.area]
        registry.async_update_entity(entity.entity_id, **changes)


def _expose(hass: HomeAssistant, home: Home) -> None:
    """Expose the fixture entities marked exposed, and nothing else."""
    exposed = {entity.entity_id for entity in home.entities if entity.exposed}
    for state in hass.states.async_all():
        async_expose_entity(hass, ASSISTANT, state.entity_id, state.entity_id in exposed)
