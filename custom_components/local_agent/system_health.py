"""System health: runtime, models in memory, process memory, recent generation speed."""

from __future__ import annotations

from typing import Any

from homeassistant.components import system_health
from homeassistant.core import HomeAssistant
from homeassistant.core import callback

from .const import DOMAIN
from .home.call_texts import async_phrase
from .models.runtime_package import llama_cpp_version
from .runtime.memory import process_rss
from .runtime.stats import async_agent_stats
from .runtime.stats import tokens_per_second


@callback
def async_register(hass: HomeAssistant, register: system_health.SystemHealthRegistration) -> None:
    """Register the info callback."""
    register.async_register_info(system_health_info)


async def system_health_info(hass: HomeAssistant) -> dict[str, Any]:
    """Return the figures shown under Settings → System → Repairs → System information."""
    entries = hass.config_entries.async_loaded_entries(DOMAIN)
    version = await hass.async_add_executor_job(llama_cpp_version)
    rss = await hass.async_add_executor_job(process_rss)
    agents = [stats for entry in entries for stats in async_agent_stats(hass, entry).values()]
    speed = tokens_per_second(agents)
    # The labels are the frontend's to translate; a word among the values is ours, in the
    # server's language (the only one Home Assistant gives a backend text).
    language = hass.config.language
    return {
        "runtime": version or await async_phrase(hass, language, "health_runtime_missing"),
        "models_loaded": ", ".join(entry.title for entry in entries)
        or await async_phrase(hass, language, "health_no_models"),
        "memory_used": f"{rss / 2**20:.0f} MiB",
        "generation_speed": f"{speed:.1f} tokens/s"
        if speed is not None
        else await async_phrase(hass, language, "health_no_turns"),
    }
