"""Every intent and tool Home Assistant offers is classified by the safety gate.

An unclassified one is treated as sensitive (fail closed), so a new Home Assistant release stays
safe; these tests make the release's new intents visible, so they are classified instead of
asking for confirmation of harmless things.
"""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

from custom_components.local_agent.safety.intents import ASSIST_INTENTS
from custom_components.local_agent.safety.intents import ToolClass
from custom_components.local_agent.safety.tool_review import READ_ONLY_TOOLS
from custom_components.local_agent.safety.tool_review import SCRIPT_TOOL
from custom_components.local_agent.safety.tool_review import WITHIN_DOMAIN_TOOLS
from custom_components.local_agent.safety.tool_review import classify
from custom_components.local_agent.safety.tool_review import intent_rule
import homeassistant.components
from homeassistant.core import HomeAssistant
from homeassistant.helpers import intent
from homeassistant.helpers import llm
from homeassistant.setup import async_setup_component

COMPONENTS = Path(homeassistant.components.__file__).parent
# alexa/intent.py answers Alexa's own intents over HTTP; it registers none of Home Assistant's.
NOT_INTENT_PROVIDERS = {"alexa"}


def providers(module: str) -> list[str]:
    return sorted(
        path.parent.name
        for path in COMPONENTS.glob(f"*/{module}.py")
        if path.parent.name not in NOT_INTENT_PROVIDERS
    )


async def test_every_intent_home_assistant_registers_is_classified(hass: HomeAssistant) -> None:
    domains = sorted({*providers("intent"), *providers("llm"), "conversation"})
    for domain in domains:
        assert await async_setup_component(hass, domain, {domain: {}}), domain
    await hass.async_block_till_done()

    registered = {handler.intent_type for handler in intent.async_get(hass)}

    assert len(registered) > 40
    assert registered - set(ASSIST_INTENTS) == set(), "classify these in ASSIST_INTENTS"
    # The rules describe the handlers this release really registers (module, generic matching).
    mismatched = [name for name in registered if intent_rule(hass, name) is None]
    assert mismatched == []
    # The slots the table says a call with are the service handlers' own.
    unknown_slots = {
        handler.intent_type: set(said.slots) - {*handler.required_slots, *handler.optional_slots}
        for handler in intent.async_get(hass)
        if isinstance(handler, intent.DynamicServiceIntentHandler)
        and (said := ASSIST_INTENTS.get(handler.intent_type)) is not None
    }
    assert {name: slots for name, slots in unknown_slots.items() if slots} == {}


def test_every_tool_class_of_home_assistant_is_classified() -> None:
    found: set[str] = set()
    for domain in providers("llm"):
        module = importlib.import_module(f"homeassistant.components.{domain}.llm")
        for _name, cls in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(cls, llm.Tool)
                and cls.__module__ == module.__name__
                and not issubclass(cls, llm.IntentTool | llm.NamespacedTool)
            ):
                found.add(f"{cls.__module__}.{cls.__qualname__}")

    assert found, "no tool classes found: the discovery is broken"
    assert found - READ_ONLY_TOOLS - {SCRIPT_TOOL} - set(WITHIN_DOMAIN_TOOLS) == set()


async def test_a_tool_nobody_classified_is_unknown(hass: HomeAssistant) -> None:
    class NewTool(llm.Tool):
        name = "brand_new"
        annotations = llm.ToolAnnotations(read_only=True)  # its own word is not enough

        async def async_call(
            self, hass: HomeAssistant, tool_input: llm.ToolInput, llm_context: llm.LLMContext
        ) -> llm.ToolResult:
            return llm.ToolResult(data={})

    class NewIntent(intent.IntentHandler):
        intent_type = "HassSomethingNew"

    assert await async_setup_component(hass, "intent", {})
    intent.async_register(hass, NewIntent())

    assert classify(hass, NewTool()) is ToolClass.UNKNOWN
    assert classify(hass, llm.IntentTool("intent__HassSomethingNew", NewIntent())) is (
        ToolClass.UNKNOWN
    )
