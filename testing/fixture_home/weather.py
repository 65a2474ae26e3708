"""Weather: the condition is the state; temperatures and the forecast in the fixture's units.

Values are the entity's native ones (`temperature` in `temperature_unit`, °C when not given);
Home Assistant converts them to the home's units as it does for any weather entity, in the
state attributes and in `weather.get_forecasts`. The daily forecast is the fixture's
`forecast` list, or one day of today's conditions when it has none.
"""

from __future__ import annotations

from collections.abc import Mapping
import datetime as dt
from typing import Any
from typing import Final
from typing import cast

from homeassistant.components.weather import Forecast
from homeassistant.components.weather import WeatherEntity
from homeassistant.components.weather.const import WeatherEntityFeature
from homeassistant.const import UnitOfPressure
from homeassistant.const import UnitOfSpeed
from homeassistant.const import UnitOfTemperature
from homeassistant.util import dt as dt_util
from testing.fixture_home.entity import FixtureEntity
from testing.fixture_home.entity import number
from testing.fixture_home.entity import setup_domain

# The current values that are numbers, by field: in the entity's units (`native_`) or unitless.
_NUMBERS: Final = {
    **{
        f"native_{key}": key
        for key in ("temperature", "apparent_temperature", "dew_point", "pressure", "wind_speed",
                    "wind_gust_speed", "visibility")
    },
    **{key: key for key in ("humidity", "uv_index", "ozone")},
}  # fmt: skip

# Forecast keys that carry a value in the entity's units (Home Assistant's `native_` names).
_FORECAST_NATIVE: Final = frozenset(
    {"temperature", "templow", "apparent_temperature", "dew_point", "pressure", "precipitation",
     "wind_speed", "wind_gust_speed"}
)  # fmt: skip


class FixtureWeather(FixtureEntity, WeatherEntity):  # type: ignore[misc]  # any text is a state (entity.py)
    """A weather service reporting the fixture's conditions and forecast."""

    HANDLED = frozenset(
        {
            "temperature", "temperature_unit", "apparent_temperature", "dew_point", "humidity",
            "pressure", "pressure_unit", "wind_speed", "wind_speed_unit", "wind_bearing",
            "wind_gust_speed", "visibility", "visibility_unit", "precipitation_unit",
            "cloud_coverage", "uv_index", "ozone", "forecast",
        }
    )  # fmt: skip
    _attr_supported_features = WeatherEntityFeature.FORECAST_DAILY

    @classmethod
    def features_type(cls) -> Any:
        """Weather features."""
        return WeatherEntityFeature

    def setup_capabilities(self, attributes: Mapping[str, Any]) -> None:
        """The units the fixture's values are in."""
        self._attr_supported_features = WeatherEntityFeature.FORECAST_DAILY
        self._attr_native_temperature_unit = str(
            attributes.get("temperature_unit") or UnitOfTemperature.CELSIUS
        )
        self._attr_native_pressure_unit = str(attributes.get("pressure_unit") or UnitOfPressure.HPA)
        self._attr_native_wind_speed_unit = str(
            attributes.get("wind_speed_unit") or UnitOfSpeed.KILOMETERS_PER_HOUR
        )
        self._attr_native_visibility_unit = attributes.get("visibility_unit")
        self._attr_native_precipitation_unit = attributes.get("precipitation_unit")

    def load_state(self, state: str, attributes: Mapping[str, Any]) -> None:
        """The condition and the current values."""
        self._attr_condition = None if state == "unknown" else state
        self.take(attributes, _NUMBERS, number)
        self.take(attributes, ("wind_bearing", "cloud_coverage"))
        self._forecast = [_forecast_item(item) for item in attributes.get("forecast") or ()]

    async def async_forecast_daily(self) -> list[Forecast] | None:
        """The fixture's forecast, or today's conditions as a one-day forecast."""
        if self._forecast:
            return self._forecast
        today: Forecast = {
            "datetime": dt_util.start_of_local_day().isoformat(),
            "condition": self._attr_condition,
            "native_temperature": self._attr_native_temperature,
            "humidity": self._attr_humidity,
        }
        return [today]


def _forecast_item(item: Any) -> Forecast:
    """A forecast entry as the fixture writes it (values in the entity's units)."""
    entry: dict[str, Any] = {}
    for key, value in dict(item).items():
        name = str(key).removeprefix("native_")
        text = value.isoformat() if isinstance(value, (dt.date, dt.datetime)) else value
        entry[f"native_{name}" if name in _FORECAST_NATIVE else name] = text
    entry.setdefault("datetime", dt_util.start_of_local_day().isoformat())
    return cast(Forecast, entry)


async_setup_entry = setup_domain("weather", FixtureWeather)
