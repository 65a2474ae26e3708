"""Build an evaluation home in Home Assistant from its fixtures; set up and reset its state.

Entities of `fixture_home` (testing/fixture_home/) are created from the fixtures by
testing/home_builder.py (registry entries, devices, areas, floors, aliases), timers
by Home Assistant's own `timer` integration, and exactly the fixture entities marked exposed
are exposed to Assist. Between sentences `async_prepare` puts back
only what changed (entities a service touched, the previous test's setup), then applies the
next test's setup: no restart, a few milliseconds. A state Home Assistant refuses (a text for
a numeric sensor) is not an error: the entity, or that test's setup, is reported as refused.
"""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Mapping
import contextlib
from dataclasses import dataclass
from dataclasses import field
import logging
from typing import Any
from typing import Final

from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant
from homeassistant.exceptions import HomeAssistantError
from homeassistant.setup import async_setup_component
from testing.fixture_home.const import ENTITIES
from testing.hass_runner import HarnessError
from testing.home_builder import async_add_fixture_home
from testing.home_builder import async_area
from testing.home_builder import async_expose_only
from testing.home_builder import async_floor
from testing.home_builder import async_place_device
from testing.home_builder import async_place_entity

from .dataset import EntityFixture
from .dataset import Home
from .dataset import StateSpec

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


@dataclass(slots=True)
class FixtureHome:
    """A home set up in Home Assistant, ready to be reset for each sentence."""

    hass: HomeAssistant
    home: Home
    entry: ConfigEntry
    baseline: Snapshot = field(default_factory=dict)
    # Entities Home Assistant refused to create, with its reason.
    refused: dict[str, str] = field(default_factory=dict)
    _last_setup: frozenset[str] = frozenset()

    @property
    def entity_ids(self) -> list[str]:
        """Every fixture entity Home Assistant holds, exposed or not."""
        return [e.entity_id for e in self.home.entities if e.entity_id not in self.refused]

    def snapshot(self) -> Snapshot:
        """The state and attributes of every fixture entity now."""
        snapshot: Snapshot = {}
        for entity_id in self.entity_ids:
            state = self.hass.states.get(entity_id)
            if state is not None:
                snapshot[entity_id] = (state.state, dict(state.attributes))
        return snapshot

    async def async_prepare(self, setup: Mapping[str, StateSpec]) -> dict[str, str]:
        """Put the home back into its fixture state, then apply a test's setup.

        Returns the setup states Home Assistant refused, by entity (empty: all applied).
        """
        entities = self.hass.data.get(ENTITIES, {})
        refused: dict[str, str] = {}
        for fixture in self.home.entities:
            entity_id = fixture.entity_id
            spec = setup.get(entity_id)
            if entity_id in self.refused:
                continue
            if fixture.domain == "timer":
                await self._async_prepare_timer(fixture, spec)
                continue
            entity = entities[entity_id]
            current = self.hass.states.get(entity_id)
            if (
                spec is not None
                or entity_id in self._last_setup
                or entity.touched
                or entity.refused
                or current is None
                or (current.state, dict(current.attributes)) != self.baseline.get(entity_id)
            ):
                try:
                    entity.async_apply(*merged(fixture, spec))
                except (ValueError, HomeAssistantError) as err:
                    refused[entity_id] = str(err)
        self._last_setup = frozenset(setup)
        await self.hass.async_block_till_done()
        return refused

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


@contextlib.contextmanager
def _quiet_refusals(hass: HomeAssistant, home: Home) -> Iterator[None]:
    """Leave out Home Assistant's traceback for an entity whose state it refuses.

    The refusal is reported once, as a warning line of the evaluation (FixtureEntity.refused).
    """

    def logged(record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        entity = hass.data.get(ENTITIES, {}).get(str(args[0])) if args else None
        return entity is None or not entity.refused

    loggers = [
        logging.getLogger(f"homeassistant.components.{domain}")
        for domain in {entity.domain for entity in home.entities}
    ]
    for logger in loggers:
        logger.addFilter(logged)
    try:
        yield
    finally:
        for logger in loggers:
            logger.removeFilter(logged)


async def async_setup_fixture_home(hass: HomeAssistant, home: Home) -> FixtureHome:
    """Create the home's floors, areas, devices and entities; expose the fixture entities."""
    with _quiet_refusals(hass, home):
        entry = await async_add_fixture_home(
            hass,
            f"Evaluation home {home.title}",
            [
                {
                    "entity_id": e.entity_id,
                    "name": e.name,
                    "state": e.state,
                    "attributes": dict(e.attributes),
                    "device": e.device,
                }
                for e in home.entities
                if e.domain != "timer"
            ],
            [{"id": d.id, "name": d.name, **d.info} for d in home.devices],
        )
    await _async_setup_timers(hass, home)
    entities = hass.data.get(ENTITIES, {})
    fixture_home = FixtureHome(hass, home, entry)
    for entity in home.entities:
        created = entities.get(entity.entity_id)
        if hass.states.get(entity.entity_id) is None and created is not None and created.refused:
            fixture_home.refused[entity.entity_id] = created.refused
    area_ids = _create_areas(hass, home)
    for device in home.devices:
        if device.area is not None:
            async_place_device(hass, entry.entry_id, device.id, area_ids[device.area])
    for entity in home.entities:
        if entity.entity_id not in fixture_home.refused:
            area_id = area_ids[entity.area] if entity.area is not None else None
            async_place_entity(hass, entity.entity_id, area_id, entity.aliases)
    async_expose_only(hass, (entity.entity_id for entity in home.entities if entity.exposed))
    await hass.async_block_till_done()
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
    floor_ids = {floor.id: async_floor(hass, floor.name, floor.level) for floor in home.floors}
    return {
        area.id: async_area(hass, area.name, floor_ids.get(area.floor) if area.floor else None)
        for area in home.areas
    }
