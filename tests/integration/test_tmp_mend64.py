from __future__ import annotations

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant

from .agents import Talk
from .conftest import Agent
from .conftest import speech
from .scripted_model import call


@pytest.fixture
def agent(scripted_agent: Agent) -> Agent:
    return scripted_agent


@pytest.mark.parametrize("written", ["iphone charger", "iPhone", "iPod", "switch.iphone_charger", "switch.iphone", "Bed light"])
@pytest.mark.parametrize("tool", ["get_state", "switch"])
async def test_show(hass: HomeAssistant, agent: Agent, talk: Talk, written: str, tool: str) -> None:
    hass.states.async_set("switch.plug_3", "off", {"friendly_name": "iPhone Charger"})
    async_expose_entity(hass, "conversation", "switch.plug_3", True)
    args = {"entity_id": written} if tool == "get_state" else {"action": "turn_on", "entity_id": written}
    r = await talk.ask("en", call(tool, **args))
    print("\nSAID", tool, written, "->", speech(r))
    print("LOG", talk.worker.requests[-1])
