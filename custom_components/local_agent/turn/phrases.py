"""Fixed, translated sentences the agent speaks itself (errors, confirmations)."""

from __future__ import annotations

from custom_components.local_agent.const import DOMAIN
from homeassistant.core import HomeAssistant
from homeassistant.helpers.translation import async_get_translations


async def async_phrase(hass: HomeAssistant, language: str, key: str, **placeholders: str) -> str:
    """Return the translated sentence `key` with its placeholders filled in.

    The sentences live in translations/<language>.json under "exceptions", so they are
    translated like every other message of the integration; English is the fallback.
    """
    translation_key = f"component.{DOMAIN}.exceptions.{key}.message"
    for lang in dict.fromkeys((language, language.split("-", maxsplit=1)[0], "en")):
        strings = await async_get_translations(hass, lang, "exceptions", [DOMAIN])
        if template := strings.get(translation_key):
            return template.format(**placeholders)
    return key
