"""Generated homes of N exposed entities (a mix of domains, with areas, names and aliases).

The entities are real: the fixture home integration (testing/fixture_home/) creates them from
a config entry (home_builder.py), so they have registry entries, areas, aliases, and the
services of their domains. `EntitySpec.fixture()` gives each its starting state.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
from typing import Any
from typing import Final

from homeassistant.config_entries import ConfigEntry
from homeassistant.core import HomeAssistant
from homeassistant.util import slugify
from testing.home_builder import async_add_fixture_home
from testing.home_builder import async_area
from testing.home_builder import async_expose_only
from testing.home_builder import async_place_entity

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


SOURCES: Final = ("Radio", "Spotify", "TV", "Bluetooth")

type Fixture = tuple[str, dict[str, Any]]


def _on_off(on: bool) -> str:
    return "on" if on else "off"


def _climate(index: int) -> Fixture:
    return "heat", {
        "hvac_modes": ["off", "heat", "cool", "auto"],
        "temperature": 21.0,
        "current_temperature": 19.5 + index % 4,
        "target_temp_step": 0.5,
        "min_temp": 7,
        "max_temp": 30,
    }


def _cover(index: int) -> Fixture:
    is_open = index % 2 == 0
    return ("open" if is_open else "closed"), {"current_position": 100 if is_open else 0}


def _light(index: int) -> Fixture:
    """Dimmable; every other one also sets its colour temperature."""
    tunable = index % 2 == 0
    on = index % 3 == 0
    attributes: dict[str, Any] = {
        "supported_color_modes": ["color_temp" if tunable else "brightness"],
        "min_color_temp_kelvin": 2200,
        "max_color_temp_kelvin": 6500,
    }
    if on:
        attributes["brightness"] = 180
    if tunable:
        attributes["color_temp_kelvin"] = 3000
    return _on_off(on), attributes


def _media_player(index: int) -> Fixture:
    playing = index % 2 == 0
    attributes: dict[str, Any] = {
        "volume_level": 0.3,
        "is_volume_muted": False,
        "source_list": list(SOURCES),
        "source": SOURCES[index % len(SOURCES)],
    }
    if playing:
        attributes["media_title"] = "Morning News"
    return ("playing" if playing else "idle"), attributes


def _sensor(device_class: str | None, index: int) -> Fixture:
    """A temperature, or a humidity by device class."""
    if device_class == "humidity":
        return str(40 + index % 20), {"unit_of_measurement": "%", "state_class": "measurement"}
    value = 18.0 + (index % 50) / 10
    return str(value), {"unit_of_measurement": "°C", "state_class": "measurement"}


def starting_state(domain: str, index: int, device_class: str | None) -> Fixture:
    """Return the starting state and attributes of an entity of domain, by its index."""
    match domain:
        case "binary_sensor":
            return _on_off(index % 4 == 0), {}
        case "climate":
            return _climate(index)
        case "cover":
            return _cover(index)
        case "fan":
            # Off; "percentage" is the speed it turns on at.
            return "off", {"percentage": 50, "oscillating": False}
        case "light":
            return _light(index)
        case "lock":
            return "locked", {}
        case "media_player":
            return _media_player(index)
        case "sensor":
            return _sensor(device_class, index)
        case "switch":
            return _on_off(index % 2 == 1), {}
    raise ValueError(f"No synthetic {domain}")


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

    @property
    def entity_id(self) -> str:
        """The id Home Assistant would give an entity of this name."""
        return f"{self.domain}.{slugify(self.name)}"

    def fixture(self) -> dict[str, Any]:
        """Return the entity as a fixture_home entity: its starting state, by index."""
        state, attributes = starting_state(self.domain, self.index, self.device_class)
        if self.device_class is not None:
            attributes = {"device_class": self.device_class, **attributes}
        return {
            "entity_id": self.entity_id,
            "name": self.name,
            "state": state,
            "attributes": attributes,
        }


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


async def async_setup_synthetic_home(hass: HomeAssistant, count: int) -> SyntheticHome:
    """Create a home of count entities, all exposed to Assist (and nothing else exposed)."""
    specs = home_specs(count)
    entry = await async_add_fixture_home(
        hass, f"Synthetic home ({count} entities)", [spec.fixture() for spec in specs]
    )
    for spec in specs:
        async_place_entity(hass, spec.entity_id, async_area(hass, spec.area), spec.aliases)
    entity_ids = tuple(spec.entity_id for spec in specs)
    async_expose_only(hass, entity_ids)
    areas = tuple(dict.fromkeys(spec.area for spec in specs))
    return SyntheticHome(entry, tuple(specs), entity_ids, areas)
