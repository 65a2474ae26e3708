"""Entries are created by scripts only; Home Assistant requires a flow to exist."""

from __future__ import annotations

from typing import Any

from homeassistant.config_entries import ConfigFlow
from homeassistant.config_entries import ConfigFlowResult
from testing.fixture_home.const import DOMAIN


class FixtureHomeConfigFlow(ConfigFlow, domain=DOMAIN):
    """No user-facing flow."""

    VERSION = 1

    async def async_step_user(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Refuse: fixture homes are built by scripts (testing/home_builder.py)."""
        return self.async_abort(reason="not_supported")
