"""Every intent Home Assistant registers and what it does: the one table of Assist's intents.

The safety review reads it to tell core's own handler from anyone else's and where a call can
reach; the words that describe a call read it to say the service the intent really calls. It is
plain data, so the review depends on no text-making code. Each entry follows the handler in
Home Assistant's source (homeassistant/components/*/intent.py, helpers/intent.py); an intent
that is not here is of unknown effect, and held.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from enum import Enum
from typing import Any
from typing import Final


class ToolClass(Enum):
    """What kind of effect a tool has."""

    READ_ONLY = "read_only"
    TARGETED = "targeted"
    NO_ENTITY_EFFECT = "no_entity_effect"
    UNKNOWN = "unknown"


# The domain whose generic services (homeassistant.turn_on) call the same service of each
# target's own domain (light.turn_on).
GENERIC_DOMAIN: Final = "homeassistant"


@dataclass(frozen=True, slots=True)
class AssistIntent:
    """One intent of Home Assistant: the handler core registers for it, and what that does.

    `handler` is the class of core's handler ("module:Class"); the registered handler must be
    an instance of that very class, with no method replaced, and a service handler must be
    registered with `service` (a handler of the same class that calls something else is
    someone else's). `generic` handlers are dry-run through their own matching; `domains` are
    the only domains a handler with matching of its own can change.

    What it calls on a target: `service` ("homeassistant" for the target's own domain), unless
    `services_by_domain` names the service the handler picks for that domain (HassTurnOff on a
    lock: unlock); `service_in_words` ("set_position") names a call no one service names, on a
    target whose domain is not known. `slots` names the service field a slot sets, where the
    field's words say its value with its unit ("brightness" is a percentage: "brightness_pct");
    `fields` are set whatever the slots say (HassMediaPlayerMute mutes).
    """

    tool_class: ToolClass
    handler: str
    service: tuple[str, str] | None = None
    domains: frozenset[str] | None = None
    generic: bool = False
    services_by_domain: Mapping[str, str] = field(default_factory=dict)
    slots: Mapping[str, str] = field(default_factory=dict)
    fields: Mapping[str, Any] = field(default_factory=dict)
    service_in_words: str | None = None

    def called_service(self, domain: str) -> tuple[str, str] | None:
        """Return the (domain, service) it calls on a `domain` target; None when unknown."""
        if (service := self.services_by_domain.get(domain)) is not None:
            return domain, service
        if self.service is None:
            return None
        service_domain, service = self.service
        return (domain if service_domain == GENERIC_DOMAIN else service_domain), service


def _read_only(handler: str) -> AssistIntent:
    return AssistIntent(ToolClass.READ_ONLY, handler)


def _no_entity(handler: str) -> AssistIntent:
    return AssistIntent(ToolClass.NO_ENTITY_EFFECT, handler)


def _generic(
    handler: str,
    service: tuple[str, str] | None = None,
    *,
    services_by_domain: Mapping[str, str] | None = None,
    slots: Mapping[str, str] | None = None,
    service_in_words: str | None = None,
) -> AssistIntent:
    return AssistIntent(
        ToolClass.TARGETED,
        handler,
        service=service,
        generic=True,
        services_by_domain=services_by_domain or {},
        slots=slots or {},
        service_in_words=service_in_words,
    )


def _within(
    domain: str,
    handler: str,
    service: str | None = None,
    *,
    slots: Mapping[str, str] | None = None,
    fields: Mapping[str, Any] | None = None,
) -> AssistIntent:
    return AssistIntent(
        ToolClass.TARGETED,
        handler,
        service=(domain, service) if service is not None else None,
        domains=frozenset({domain}),
        slots=slots or {},
        fields=fields or {},
    )


def _to_do(handler: str, service: str, *, completes: bool = False) -> AssistIntent:
    """Change a to-do item: the item slot is the service's item; completing marks it completed."""
    fields = {"status": "completed"} if completes else None
    return _within("todo", handler, service, slots={"item": "item"}, fields=fields)


_SERVICE: Final = "homeassistant.helpers.intent:ServiceIntentHandler"
_INTENT: Final = "homeassistant.components.intent:"
_ON_OFF: Final = f"{_INTENT}OnOffIntentHandler"
_TIMERS: Final = "homeassistant.components.intent.timers:"
_MEDIA: Final = "homeassistant.components.media_player.intent:"
_MUTE: Final = f"{_MEDIA}MediaPlayerMuteUnmuteHandler"
_CLIMATE: Final = "homeassistant.components.climate.intent:"
_HUMIDIFIER: Final = "homeassistant.components.humidifier.intent:"
_TODO: Final = "homeassistant.components.todo.intent:"
_SHOPPING: Final = "homeassistant.components.shopping_list.intent:"

# Every intent Home Assistant 2026.10/2026.11 registers. A test fails when a release adds one.
ASSIST_INTENTS: Final[Mapping[str, AssistIntent]] = {
    # Read-only.
    "HassGetState": _read_only(f"{_INTENT}GetStateIntentHandler"),
    "HassGetWeather": _read_only("homeassistant.components.weather.intent:GetWeatherIntent"),
    "HassClimateGetTemperature": _read_only(f"{_INTENT}GetTemperatureIntent"),
    "HassGetCurrentDate": _read_only(f"{_INTENT}GetCurrentDateIntentHandler"),
    "HassGetCurrentTime": _read_only(f"{_INTENT}GetCurrentTimeIntentHandler"),
    "HassTimerStatus": _read_only(f"{_TIMERS}TimerStatusIntentHandler"),
    "HassNevermind": _read_only(f"{_INTENT}NevermindIntentHandler"),
    "HassRespond": _read_only(f"{_INTENT}RespondIntentHandler"),
    "HassShoppingListLastItems": _read_only(f"{_SHOPPING}ListTopItemsIntent"),
    # Timers and announcements act on no entity.
    "HassStartTimer": _no_entity(f"{_TIMERS}StartTimerIntentHandler"),
    "HassCancelTimer": _no_entity(f"{_TIMERS}CancelTimerIntentHandler"),
    "HassCancelAllTimers": _no_entity(f"{_TIMERS}CancelAllTimersIntentHandler"),
    "HassIncreaseTimer": _no_entity(f"{_TIMERS}IncreaseTimerIntentHandler"),
    "HassDecreaseTimer": _no_entity(f"{_TIMERS}DecreaseTimerIntentHandler"),
    "HassPauseTimer": _no_entity(f"{_TIMERS}PauseTimerIntentHandler"),
    "HassUnpauseTimer": _no_entity(f"{_TIMERS}UnpauseTimerIntentHandler"),
    "HassBroadcast": _no_entity(
        "homeassistant.components.assist_satellite.intent:BroadcastIntentHandler"
    ),
    # Generic service intents: resolved by the handler's own matching. OnOffIntentHandler
    # presses buttons, opens and closes covers and valves, locks and unlocks locks; any other
    # target gets homeassistant.turn_on/turn_off, that is its own domain's.
    "HassTurnOn": _generic(
        _ON_OFF,
        (GENERIC_DOMAIN, "turn_on"),
        services_by_domain={
            "button": "press",
            "input_button": "press",
            "cover": "open_cover",
            "lock": "lock",
            "valve": "open_valve",
        },
    ),
    # A button cannot be turned off: the handler raises before any call.
    "HassTurnOff": _generic(
        _ON_OFF,
        (GENERIC_DOMAIN, "turn_off"),
        services_by_domain={"cover": "close_cover", "lock": "unlock", "valve": "close_valve"},
    ),
    "HassToggle": _generic(_SERVICE, (GENERIC_DOMAIN, "toggle")),
    "HassSetPosition": _generic(
        f"{_INTENT}SetPositionIntentHandler",
        services_by_domain={"cover": "set_cover_position", "valve": "set_valve_position"},
        service_in_words="set_position",
    ),
    "HassStopMoving": _generic(
        f"{_INTENT}StopMovingIntentHandler",
        services_by_domain={"cover": "stop_cover", "valve": "stop_valve"},
        service_in_words="stop",
    ),
    "HassOpenCover": _generic(_SERVICE, ("cover", "open_cover")),
    "HassCloseCover": _generic(_SERVICE, ("cover", "close_cover")),
    # The color slot is a color's name, which light.turn_on takes as color_name too (the
    # handler turns it into rgb_color itself).
    "HassLightSet": _generic(
        _SERVICE,
        ("light", "turn_on"),
        slots={
            "brightness": "brightness_pct",
            "color": "color_name",
            "temperature": "color_temp_kelvin",
        },
    ),
    # fan.turn_on with a percentage, not fan.set_percentage (fan/intent.py).
    "HassFanSetSpeed": _generic(_SERVICE, ("fan", "turn_on"), slots={"percentage": "percentage"}),
    "HassMediaNext": _generic(_SERVICE, ("media_player", "media_next_track")),
    "HassMediaPrevious": _generic(_SERVICE, ("media_player", "media_previous_track")),
    "HassMediaPause": _generic(f"{_MEDIA}MediaPauseHandler", ("media_player", "media_pause")),
    "HassMediaUnpause": _generic(f"{_MEDIA}MediaUnpauseHandler", ("media_player", "media_play")),
    # The slot is a percentage; the handler passes volume_level as a fraction of one.
    "HassSetVolume": _generic(
        _SERVICE, ("media_player", "volume_set"), slots={"volume_level": "volume_pct"}
    ),
    "HassVacuumStart": _generic(_SERVICE, ("vacuum", "start")),
    "HassVacuumReturnToBase": _generic(_SERVICE, ("vacuum", "return_to_base")),
    "HassLawnMowerDock": _generic(_SERVICE, ("lawn_mower", "dock")),
    "HassLawnMowerStartMowing": _generic(_SERVICE, ("lawn_mower", "start_mowing")),
    # Handlers with matching of their own, each inside its domain.
    "HassMediaPlayerMute": _within(
        "media_player", _MUTE, "volume_mute", fields={"is_volume_muted": True}
    ),
    "HassMediaPlayerUnmute": _within(
        "media_player", _MUTE, "volume_mute", fields={"is_volume_muted": False}
    ),
    # Calls the players' volume_up, volume_down or set_volume_level itself, no service.
    "HassSetVolumeRelative": _within(
        "media_player", f"{_MEDIA}MediaSetVolumeRelativeHandler", "volume_set"
    ),
    "HassMediaSearchAndPlay": _within("media_player", f"{_MEDIA}MediaSearchAndPlayHandler"),
    "HassClimateSetTemperature": _within(
        "climate",
        f"{_CLIMATE}SetTemperatureIntent",
        "set_temperature",
        slots={"temperature": "temperature"},
    ),
    "HassClimateSetFanMode": _within(
        "climate", f"{_CLIMATE}SetFanModeIntent", "set_fan_mode", slots={"fan_mode": "fan_mode"}
    ),
    # Both turn a humidifier that is off on first.
    "HassHumidifierMode": _within(
        "humidifier", f"{_HUMIDIFIER}SetModeHandler", "set_mode", slots={"mode": "mode"}
    ),
    "HassHumidifierSetpoint": _within(
        "humidifier",
        f"{_HUMIDIFIER}HumidityHandler",
        "set_humidity",
        slots={"humidity": "humidity"},
    ),
    "HassVacuumCleanArea": _within(
        "vacuum", "homeassistant.components.vacuum.intent:CleanAreaIntentHandler"
    ),
    # To-do lists are changed through their entities' methods, no service: said as the
    # service that does the same.
    "HassListAddItem": _to_do(f"{_TODO}ListAddItemIntentHandler", "add_item"),
    "HassListCompleteItem": _to_do(
        f"{_TODO}ListCompleteItemIntentHandler", "update_item", completes=True
    ),
    "HassListRemoveItem": _to_do(f"{_TODO}ListRemoveItemIntentHandler", "remove_item"),
    # The shopping list's own data, which its to-do entity shows.
    "HassShoppingListAddItem": _to_do(f"{_SHOPPING}AddItemIntent", "add_item"),
    "HassShoppingListCompleteItem": _to_do(
        f"{_SHOPPING}CompleteItemIntent", "update_item", completes=True
    ),
}
