"""Lights: on/off, dimmable, colour temperature and colour, as the fixture says."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from typing import ClassVar

from homeassistant.components.light import LightEntity
from homeassistant.components.light.const import ATTR_BRIGHTNESS
from homeassistant.components.light.const import ATTR_COLOR_TEMP_KELVIN
from homeassistant.components.light.const import ATTR_HS_COLOR
from homeassistant.components.light.const import ATTR_RGB_COLOR
from homeassistant.components.light.const import ColorMode
from homeassistant.components.light.const import LightEntityFeature
from homeassistant.util import color as color_util
from testing.fixture_home.entity import FixtureEntity
from testing.fixture_home.entity import setup_domain
from testing.fixture_home.entity import text_list
from testing.fixture_home.entity import whole

_COLOR_MODES = (ColorMode.HS, ColorMode.RGB, ColorMode.XY)


def brightness_from(attributes: Mapping[str, Any]) -> int | None:
    """Return brightness 0-255 from `brightness`, or from the `brightness_pct` shorthand."""
    if (brightness := whole(attributes.get("brightness"))) is not None:
        return brightness
    if (percent := whole(attributes.get("brightness_pct"))) is not None:
        return round(percent * 255 / 100)
    return None


class FixtureLight(FixtureEntity, LightEntity):  # type: ignore[misc]  # any text is a state (entity.py)
    """A light whose colour modes come from the fixture (or are inferred from it)."""

    STATES = frozenset({"on", "off"})
    UNSIMULATED: ClassVar[Mapping[str, str]] = {"effect": "EFFECT"}

    HANDLED = frozenset(
        {
            "brightness", "brightness_pct", "color_mode", "supported_color_modes",
            "color_temp_kelvin", "min_color_temp_kelvin", "max_color_temp_kelvin",
            "color_temp", "min_mireds", "max_mireds", "hs_color", "rgb_color", "xy_color",
            "rgbw_color", "rgbww_color", "effect", "effect_list",
        }
    )  # fmt: skip

    @classmethod
    def features_type(cls) -> Any:
        """Light features."""
        return LightEntityFeature

    def setup_capabilities(self, attributes: Mapping[str, Any]) -> None:
        """Colour modes: as listed, or inferred from the attributes present."""
        listed = text_list(attributes.get("supported_color_modes"))
        modes = {ColorMode(mode) for mode in listed}
        if not modes:
            if any(key in attributes for key in ("rgb_color", "hs_color", "xy_color")):
                modes.add(ColorMode.HS)
            if "color_temp_kelvin" in attributes:
                modes.add(ColorMode.COLOR_TEMP)
            if not modes:
                dimmable = "brightness" in attributes or "brightness_pct" in attributes
                modes.add(ColorMode.BRIGHTNESS if dimmable else ColorMode.ONOFF)
        self._attr_supported_color_modes = modes
        self._attr_min_color_temp_kelvin = whole(attributes.get("min_color_temp_kelvin")) or 2000
        self._attr_max_color_temp_kelvin = whole(attributes.get("max_color_temp_kelvin")) or 6500

    def _default_mode(self) -> ColorMode:
        modes = self._attr_supported_color_modes or {ColorMode.ONOFF}
        for mode in (ColorMode.COLOR_TEMP, *_COLOR_MODES, ColorMode.BRIGHTNESS):
            if mode in modes:
                return mode
        return next(iter(modes))

    def load_state(self, state: str, attributes: Mapping[str, Any]) -> None:
        """On/off, brightness, colour temperature and colour."""
        self._attr_is_on = state == "on"
        self._attr_brightness = brightness_from(attributes)
        if self._attr_brightness is None and self._attr_is_on:
            self._attr_brightness = 255
        self._attr_color_temp_kelvin = whole(attributes.get("color_temp_kelvin"))
        hs = attributes.get("hs_color")
        self._attr_hs_color = (float(hs[0]), float(hs[1])) if hs else None
        rgb = attributes.get("rgb_color")
        self._attr_rgb_color = (int(rgb[0]), int(rgb[1]), int(rgb[2])) if rgb else None
        mode = attributes.get("color_mode")
        if mode is not None and ColorMode(mode) in (self._attr_supported_color_modes or ()):
            self._attr_color_mode = ColorMode(mode)
        elif (rgb or hs) and ColorMode.RGB in (self._attr_supported_color_modes or ()):
            self._attr_color_mode = ColorMode.RGB
        elif (rgb or hs) and ColorMode.HS in (self._attr_supported_color_modes or ()):
            self._attr_color_mode = ColorMode.HS
        else:
            self._attr_color_mode = self._default_mode()
        self._fill_color()
        if self._attr_color_mode == ColorMode.COLOR_TEMP and self._attr_color_temp_kelvin is None:
            self._attr_color_temp_kelvin = 3000

    def _fill_color(self) -> None:
        """Derive the colour of the current mode from whichever form the fixture gave."""
        if self._attr_color_mode == ColorMode.HS and self._attr_hs_color is None:
            rgb = self._attr_rgb_color or (255, 255, 255)
            self._attr_hs_color = color_util.color_RGB_to_hs(*rgb)
        if self._attr_color_mode == ColorMode.RGB and self._attr_rgb_color is None:
            hs = self._attr_hs_color or (0.0, 0.0)
            self._attr_rgb_color = color_util.color_hs_to_RGB(*hs)

    async def async_turn_on(self, **kwargs: Any) -> None:
        """Turn on, at the brightness, colour temperature or colour asked."""
        self._attr_is_on = True
        if ATTR_BRIGHTNESS in kwargs:
            self._attr_brightness = int(kwargs[ATTR_BRIGHTNESS])
        elif not self._attr_brightness:
            self._attr_brightness = 255
        if ATTR_COLOR_TEMP_KELVIN in kwargs:
            self._attr_color_temp_kelvin = int(kwargs[ATTR_COLOR_TEMP_KELVIN])
            self._attr_color_mode = ColorMode.COLOR_TEMP
        if ATTR_HS_COLOR in kwargs:
            self._attr_hs_color = kwargs[ATTR_HS_COLOR]
            self._attr_color_mode = ColorMode.HS
        if ATTR_RGB_COLOR in kwargs:
            self._attr_rgb_color = kwargs[ATTR_RGB_COLOR]
            self._attr_color_mode = ColorMode.RGB
        self.changed()

    async def async_turn_off(self, **kwargs: Any) -> None:
        """Turn off."""
        self._attr_is_on = False
        self.changed()


async_setup_entry = setup_domain("light", FixtureLight)
