"""What every fixture entity shares: identity from its fixture, a state that can be re-applied."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Coroutine
from collections.abc import Iterable
from collections.abc import Mapping
from typing import Any
from typing import ClassVar

from homeassistant.config_entries import ConfigEntry
from homeassistant.const import STATE_UNAVAILABLE
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers.device_registry import DeviceInfo
from homeassistant.helpers.entity import Entity
from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback
from testing.fixture_home.const import DOMAIN
from testing.fixture_home.const import ENTITIES

# Attributes Home Assistant derives itself (or that describe the entity, not its state).
COMMON_ATTRIBUTES = frozenset(
    {"friendly_name", "supported_features", "device_class", "icon", "entity_picture"}
)


class FixtureEntity(Entity):
    """An entity named and set up by its fixture; `load` puts it into a given state.

    Capabilities (features, modes, ranges, lists) come from the fixture's attributes once;
    `load` sets only what a state can change. Attributes a domain does not model are shown
    unchanged as extra state attributes, so the state looks like the fixture.

    Any text is a state, as in Home Assistant's state machine: one the domain's model does not
    hold (a vacuum that is `off`, a light that is `unknown`) is shown as it is, over the model
    resting in RESTING, until a service changes the entity. `unavailable` makes it unavailable.
    """

    _attr_should_poll = False
    _attr_has_entity_name = False
    # Attributes the domain class models or Home Assistant computes for the domain.
    HANDLED: ClassVar[frozenset[str]] = frozenset()
    # The states the domain's model holds (None: any text is the model's state).
    STATES: ClassVar[frozenset[str] | None] = None
    RESTING: ClassVar[str] = "off"
    # Attributes that only a feature the fixture does not implement changes, with the feature.
    UNSIMULATED: ClassVar[Mapping[str, str]] = {}
    # States a device passes through that no service of the fixture produces (it acts at once).
    MOMENTARY: ClassVar[frozenset[str]] = frozenset()
    # The field that holds the model's state, where it is one value (for `_set`).
    STATE_FIELD: ClassVar[str | None] = None

    def __init__(self, spec: Mapping[str, Any]) -> None:
        """Take id, name, device and capabilities from the fixture; start in its state."""
        self.entity_id = str(spec["entity_id"])
        self._attr_unique_id = self.entity_id
        if (name := spec.get("name")) is not None:
            self._attr_name = str(name)
        else:
            # No name of its own: Home Assistant names it after its device.
            self._attr_has_entity_name = True
            self._attr_name = None
        if device := spec.get("device"):
            self._attr_device_info = DeviceInfo(identifiers={(DOMAIN, str(device))})
        attributes: Mapping[str, Any] = spec.get("attributes") or {}
        self.touched = False
        self.refused: str | None = None  # why Home Assistant refused its last state, if it did
        self._text_state: str | None = None
        self.configure(attributes)
        self.load(str(spec["state"]), attributes)

    def configure(self, attributes: Mapping[str, Any]) -> None:
        """Device class, capabilities and features (a setup may change them: read each time)."""
        self._attr_device_class = attributes.get("device_class")
        if (flags := self.features_type()) is not int:
            self._attr_supported_features = flags(0)
        self.setup_capabilities(attributes)
        if (features := attributes.get("supported_features")) is not None:
            self._attr_supported_features = self.features_type()(int(features))
            self.features_changed(int(features))

    @classmethod
    def features_type(cls) -> Callable[[int], Any]:
        """Return the IntFlag of the domain's features."""
        return int

    def setup_capabilities(self, attributes: Mapping[str, Any]) -> None:
        """Read what the entity can do from its fixture attributes."""

    def features_changed(self, features: int) -> None:
        """Follow explicit supported_features (e.g. a speed declared only there)."""

    def load(self, state: str, attributes: Mapping[str, Any]) -> None:
        """Take the state and stateful attributes; keep unmodelled attributes as extras."""
        handled = COMMON_ATTRIBUTES | self.HANDLED
        extra = {key: value for key, value in attributes.items() if key not in handled}
        self._attr_extra_state_attributes = extra
        self._attr_available = state != STATE_UNAVAILABLE
        modelled = self.STATES is None or state in self.STATES
        self._text_state = None if modelled else state
        self.load_state(state if modelled else self.RESTING, attributes)

    @property
    def state(self) -> Any:
        """A state the model does not hold, as the fixture wrote it; else the model's."""
        return self._text_state if self._text_state is not None else super().state

    def load_state(self, state: str, attributes: Mapping[str, Any]) -> None:
        """Set the domain's state fields."""
        raise NotImplementedError

    @callback
    def async_apply(self, state: str, attributes: Mapping[str, Any]) -> None:
        """Put the entity into the given state now (a test's setup, or a reset)."""
        self.configure(attributes)
        self.load(state, attributes)
        self.touched = False
        try:
            self.async_write_ha_state()
        except (ValueError, HomeAssistantError) as err:  # a state Home Assistant refuses
            self.refused = str(err)
            raise
        self.refused = None

    def changed(self) -> None:
        """Publish a state a service call produced."""
        self.touched = True
        self._text_state = None
        self.async_write_ha_state()

    def _set(self, state: Any) -> None:
        """Put the entity into a state a service produced (for `moves_to`): into STATE_FIELD."""
        if self.STATE_FIELD is None:
            raise NotImplementedError(f"{type(self).__name__} has no STATE_FIELD")
        setattr(self, self.STATE_FIELD, state)
        self.changed()

    def take(
        self,
        attributes: Mapping[str, Any],
        fields: Mapping[str, str] | Iterable[str],
        read: Callable[[Any], Any] = lambda value: value,
    ) -> None:
        """Set each `_attr_<field>` to its fixture attribute as `read` reads it (None: missing).

        fields: field -> attribute, or names that are both.
        """
        pairs = fields.items() if isinstance(fields, Mapping) else ((name, name) for name in fields)
        for field, key in pairs:
            setattr(self, f"_attr_{field}", read(attributes.get(key)))

    async def async_added_to_hass(self) -> None:
        """Register the object so the evaluation can reset it."""
        await super().async_added_to_hass()
        self.hass.data.setdefault(ENTITIES, {})[self.entity_id] = self
        try:  # the first write, just after this, fails for the same reason
            _ = self.state, self.state_attributes, self.capability_attributes
        except (ValueError, HomeAssistantError) as err:
            self.refused = str(err)

    async def async_will_remove_from_hass(self) -> None:
        """Forget the object."""
        self.hass.data.get(ENTITIES, {}).pop(self.entity_id, None)
        await super().async_will_remove_from_hass()


def number(value: Any, default: float | None = None) -> float | None:
    """Return value as a float, or default when it is missing or not a number."""
    if isinstance(value, bool) or value is None:
        return default
    try:
        return float(value)
    except TypeError, ValueError:
        return default


def whole(value: Any, default: int | None = None) -> int | None:
    """Return value as an int (rounded), or default."""
    result = number(value)
    return default if result is None else round(result)


def text_list(value: Any) -> list[str]:
    """Return a list attribute as strings."""
    if isinstance(value, (list, tuple)):
        return [str(item) for item in value]
    return []


# A service method of an entity class (Home Assistant awaits it with the service's fields).
ServiceMethod = Callable[..., Coroutine[Any, Any, None]]


def stores(parameter: str, field: str | None = None, *, doc: str) -> ServiceMethod:
    """A service method that stores the value of `parameter` as `_attr_<field>` (default: the
    parameter's name) and publishes the state.

    Home Assistant passes the value by name from a service call, or alone and by position
    from its own handler (climate's set_fan_mode); other fields (a vacuum's) are not used.
    """
    attribute = f"_attr_{field or parameter}"

    async def service(self: FixtureEntity, *args: Any, **kwargs: Any) -> None:
        setattr(self, attribute, args[0] if args else kwargs[parameter])
        self.changed()

    service.__doc__ = doc
    return service


def moves_to(state: Any, *, doc: str) -> ServiceMethod:
    """A service method that puts the entity into `state` through its `_set`; what it is given
    (an alarm code, a vacuum's options) is not used."""

    async def service(self: FixtureEntity, *args: Any, **kwargs: Any) -> None:
        self._set(state)

    service.__doc__ = doc
    return service


def setup_domain(
    domain: str, factory: Callable[[Mapping[str, Any]], Entity]
) -> Callable[[HomeAssistant, ConfigEntry, AddConfigEntryEntitiesCallback], Any]:
    """Return a platform's async_setup_entry that adds the entry's entities of domain."""

    async def async_setup_entry(
        hass: HomeAssistant, entry: ConfigEntry, async_add_entities: AddConfigEntryEntitiesCallback
    ) -> None:
        async_add_entities(
            factory(spec)
            for spec in entry.data["entities"]
            if str(spec["entity_id"]).startswith(f"{domain}.")
        )

    return async_setup_entry
