"""Generated homes of N exposed entities (a mix of domains, with areas, names and aliases).

The entities are real: a small integration (synthetic_home/) creates them from a config
entry, so they have registry entries, areas, aliases, and the services of their domains.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
import math
from types import MappingProxyType
from typing import Any, Final

from homeassistant import loader
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.config_entries import SOURCE_USER, ConfigEntry, ConfigEntryState
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar, entity_registry as er

from . import synthetic_home
from .hass_runner import HarnessError

DOMAIN: Final = synthetic_home.DOMAIN

# One cycle of the domain mix; a home of N entities takes the first N of it repeated, so even
# ten entities cover every domain: lights 25 %, sensors 15 %, switches, covers, binary
# sensors, fans and media players 10 % each, climate and locks 5 % each.
DOMAIN_CYCLE: Final = (
    "light", "switch", "sensor", "cover", "climate", "lock", "media_player", "fan",
    "binary_sensor", "light", "sensor", "light", "switch", "cover", "light", "binary_sensor",
    "sensor", "light", "fan", "media_player",
)  # fmt: skip
NOUNS: Final[dict[str, tuple[str, ...]]] = {
    "binary_sensor": ("Door", "Window", "Motion"),
    "climate": ("Thermostat",),
    "cover": ("Blinds", "Shutter", "Window", "Curtain"),
    "fan": ("Fan", "Ceiling Fan"),
    "light": ("Ceiling Light", "Lamp", "Spotlights", "Light Strip"),
    "lock": ("Door Lock",),
    "media_player": ("Speaker", "TV"),
    "sensor": ("Temperature", "Humidity"),
    "switch": ("Plug", "Heater", "Coffee Maker"),
}
DEVICE_CLASSES: Final[dict[str, tuple[str | None, ...]]] = {
    "binary_sensor": ("door", "window", "motion"),
    "cover": ("blind", "shutter", "window", "curtain"),
    "media_player": ("speaker", "tv"),
    "sensor": ("temperature", "humidity"),
}
AREA_NAMES: Final = (
    "Kitchen", "Living Room", "Bedroom", "Office", "Bathroom", "Hallway", "Dining Room",
    "Kids Room", "Guest Room", "Garage", "Garden", "Basement", "Attic", "Laundry", "Porch",
    "Study",
)  # fmt: skip
ENTITIES_PER_AREA: Final = 8
MAX_AREAS: Final = 60
ALIAS_EVERY: Final = 5


@dataclass(frozen=True, slots=True)
class EntitySpec:
    """One entity of a synthetic home."""

    index: int
    domain: str
    key: str
    name: str
    area: str
    device_class: str | None
    aliases: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        """Return the spec as JSON-friendly config entry data."""
        return asdict(self) | {"aliases": list(self.aliases)}


@dataclass(frozen=True, slots=True)
class SyntheticHome:
    """A set-up synthetic home."""

    entry: ConfigEntry
    specs: tuple[EntitySpec, ...]
    entity_ids: tuple[str, ...]
    areas: tuple[str, ...]


def area_names(count: int) -> list[str]:
    """Return count distinct area names: the base list, then "Bedroom 2" and so on."""
    names: list[str] = []
    for round_number in range(math.ceil(count / len(AREA_NAMES))):
        suffix = f" {round_number + 1}" if round_number else ""
        names.extend(f"{name}{suffix}" for name in AREA_NAMES)
    return names[:count]


def home_specs(count: int) -> list[EntitySpec]:
    """Return the entities of a home of count entities (deterministic)."""
    areas = area_names(min(max(3, math.ceil(count / ENTITIES_PER_AREA)), MAX_AREAS))
    seen: dict[str, int] = {}
    specs: list[EntitySpec] = []
    for index in range(count):
        domain = DOMAIN_CYCLE[index % len(DOMAIN_CYCLE)]
        area = areas[index % len(areas)]
        variant = index // len(DOMAIN_CYCLE)
        nouns = NOUNS[domain]
        base = f"{area} {nouns[variant % len(nouns)]}"
        seen[base] = seen.get(base, 0) + 1
        name = base if seen[base] == 1 else f"{base} {seen[base]}"
        classes = DEVICE_CLASSES.get(domain, (None,))
        aliases = (f"{area} {domain.replace('_', ' ')}",) if index % ALIAS_EVERY == 4 else ()
        specs.append(
            EntitySpec(
                index=index,
                domain=domain,
                key=f"{domain}_{index:04d}",
                name=name,
                area=area,
                device_class=classes[variant % len(classes)],
                aliases=aliases,
            )
        )
    return specs


async def async_register_integration(hass: HomeAssistant) -> None:
    """Make synthetic_home known to Home Assistant's loader as a custom integration."""
    custom = await loader.async_get_custom_components(hass)
    if DOMAIN in custom:
        return
    from scripts import harness

    integration = await hass.async_add_executor_job(
        loader.Integration.resolve_from_root, hass, harness, DOMAIN
    )
    if integration is None:
        raise HarnessError("The synthetic_home integration could not be resolved")
    custom[DOMAIN] = integration


async def async_setup_synthetic_home(hass: HomeAssistant, count: int) -> SyntheticHome:
    """Create a home of count entities, all exposed to Assist (and nothing else exposed)."""
    await async_register_integration(hass)
    specs = home_specs(count)
    entry = ConfigEntry(
        domain=DOMAIN,
        title=f"Synthetic home ({count} entities)",
        data={"entities": [spec.as_dict() for spec in specs]},
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
        raise HarnessError(f"The synthetic home did not load: {entry.reason or entry.state}")
    entity_ids = _place_and_name(hass, specs)
    _expose_only(hass, entity_ids)
    areas = tuple(dict.fromkeys(spec.area for spec in specs))
    return SyntheticHome(entry, tuple(specs), entity_ids, areas)


def _place_and_name(hass: HomeAssistant, specs: Sequence[EntitySpec]) -> tuple[str, ...]:
    areas = ar.async_get(hass)
    entities = er.async_get(hass)
    entity_ids: list[str] = []
    for spec in specs:
        entity_id = entities.async_get_entity_id(spec.domain, DOMAIN, spec.key)
        if entity_id is None:
            raise HarnessError(f"The synthetic home did not create {spec.domain} {spec.name}")
        area = areas.async_get_area_by_name(spec.area) or areas.async_create(spec.area)
        # COMPUTED_NAME keeps the entity's own name among its names, as the UI does.
        aliases: list[str | er.ComputedNameType] = [er.COMPUTED_NAME, *spec.aliases]
        entities.async_update_entity(entity_id, area_id=area.id, aliases=aliases)
        entity_ids.append(entity_id)
    return tuple(entity_ids)


def _expose_only(hass: HomeAssistant, entity_ids: Sequence[str]) -> None:
    wanted = set(entity_ids)
    for state in hass.states.async_all():
        async_expose_entity(hass, "conversation", state.entity_id, state.entity_id in wanted)
