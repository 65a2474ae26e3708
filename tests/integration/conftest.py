"""Fixtures for tests that run in a real Home Assistant."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component
import pytest


@pytest.fixture(autouse=True)
async def home_assistant_ready(
    hass: HomeAssistant, enable_custom_integrations: None
) -> AsyncGenerator[None]:
    """Load custom_components/local_agent and the core integration conversation relies on."""
    assert await async_setup_component(hass, "homeassistant", {})
    yield
