"""Selectors the flows' forms share: a number typed in a box, whose range the form checks."""

from __future__ import annotations

from collections.abc import Mapping
import math
from typing import Any
from typing import Final

import probatio

from homeassistant.data_entry_flow import section
from homeassistant.helpers.selector import NumberSelector
from homeassistant.helpers.selector import NumberSelectorConfig
from homeassistant.helpers.selector import NumberSelectorMode

# The error of a number outside its field's range; its placeholders are RangeProblem's.
OUT_OF_RANGE: Final = "number_out_of_range"


class NumberBox(NumberSelector):
    """A number field whose range the form checks itself (range_problem), in the user's words.

    Core's selector refused a number outside its range with its own text, "Value 999.0 is too
    large", shown as it is in every language, and before the flow could check anything else.
    """

    def __call__(self, data: Any) -> float:
        """Take any number; whether it is in range is the form's error."""
        return float(probatio.Coerce(float)(data))


def number_box(low: float, high: float, step: float) -> NumberBox:
    """Return a number field typed in a box (no slider), from low to high in steps."""
    return NumberBox(
        NumberSelectorConfig(min=low, max=high, step=step, mode=NumberSelectorMode.BOX)
    )


def _said(number: float) -> str:
    """Write a number as typed: 999, not 999.0; 0.05 stays 0.05 (no thousands separator)."""
    return f"{number:.12g}"


def range_problem(
    schema: probatio.Schema, user_input: Mapping[str, Any]
) -> tuple[str, dict[str, str]] | None:
    """Return the first number outside its field's range, None when every number fits.

    What comes back: where to show the error, and its placeholders (value, low, high). A field
    inside a section has its error on the form ("base"): the form opens its sections.
    """
    for key, field in schema.schema.items():
        name = str(key)
        if isinstance(field, section):
            inner = range_problem(field.schema, user_input.get(name) or {})
            if inner is not None:
                return "base", inner[1]
        elif isinstance(field, NumberBox) and (value := user_input.get(name)) is not None:
            low = field.config.get("min", -math.inf)
            high = field.config.get("max", math.inf)
            if not low <= value <= high:
                return name, {"value": _said(value), "low": _said(low), "high": _said(high)}
    return None
