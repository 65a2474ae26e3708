"""Selectors the flows' forms share: a number typed in a box."""

from __future__ import annotations

from homeassistant.helpers.selector import NumberSelector
from homeassistant.helpers.selector import NumberSelectorConfig
from homeassistant.helpers.selector import NumberSelectorMode


def number_box(low: float, high: float, step: float) -> NumberSelector:
    """Return a number field typed in a box (no slider), from low to high in steps."""
    return NumberSelector(
        NumberSelectorConfig(min=low, max=high, step=step, mode=NumberSelectorMode.BOX)
    )
