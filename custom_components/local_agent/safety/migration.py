"""Safety options written by earlier versions, brought to what they mean now.

- Extra sensitive and exempt entities were entity ids: they become entity registry ids, so they
  keep naming the same entity when its entity id is renamed.
- An exempt tool was a bare name, which any API could offer: it becomes "API id/tool name".
  With one API the name could only mean that API's tool; with several, a name prefixed with
  the slug of one of the agent's API ids means that API's. Any other bare name is dropped
  (fail closed) and a repair issue says which, so the user can choose them again.
"""

from __future__ import annotations

from collections.abc import Sequence

from slugify import slugify

from custom_components.local_agent.const import CONF_EXEMPT_TOOLS
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from custom_components.local_agent.runtime.issues import async_raise_dropped_exemptions
from homeassistant.config_entries import ConfigEntry
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant
from homeassistant.core import callback

from .policy import TOOL_EXEMPTION_SEPARATOR
from .policy import parse_tool_exemption
from .stored_options import options_to_store


def migrated_tool_exemptions(
    names: Sequence[str], api_ids: Sequence[str]
) -> tuple[list[str], list[str]]:
    """Return the exemptions as "API id/tool name", and the bare names no API can be told for."""
    kept: list[str] = []
    dropped: list[str] = []
    for text in names:
        if parse_tool_exemption(text) is not None:
            kept.append(text)
            continue
        namespace, prefixed, inner = text.partition("__")
        by_prefix = [api for api in api_ids if prefixed and inner and slugify(api) == namespace]
        if len(api_ids) == 1:
            kept.append(f"{api_ids[0]}{TOOL_EXEMPTION_SEPARATOR}{text}")
        elif len(by_prefix) == 1:
            kept.append(f"{by_prefix[0]}{TOOL_EXEMPTION_SEPARATOR}{inner}")
        elif api_ids:
            dropped.append(text)
        # Without any API the name never exempted anything: it goes silently.
    return kept, dropped


@callback
def async_migrate_agent_options(hass: HomeAssistant, entry: ConfigEntry) -> None:
    """Rewrite every agent subentry's entity and tool options (entry minor version 3)."""
    for subentry in list(entry.subentries.values()):
        if subentry.subentry_type != SUBENTRY_CONVERSATION:
            continue
        data = options_to_store(hass, subentry.data)
        apis = data.get(CONF_LLM_HASS_API) or []
        api_ids = [apis] if isinstance(apis, str) else list(apis)
        kept, dropped = migrated_tool_exemptions(
            [str(name) for name in data.get(CONF_EXEMPT_TOOLS) or []], api_ids
        )
        if CONF_EXEMPT_TOOLS in data:
            data[CONF_EXEMPT_TOOLS] = kept
        if data != dict(subentry.data):
            hass.config_entries.async_update_subentry(entry, subentry, data=data)
        if dropped:
            async_raise_dropped_exemptions(hass, subentry.subentry_id, subentry.title, dropped)


__all__ = ["async_migrate_agent_options", "migrated_tool_exemptions"]
