"""Agents that stand in while their model entry does not load, saying why.

Without them an agent's entity is gone while its entry fails (retrying, or in error), so a
pipeline that uses it finds no agent and the Assist dialog shows core's "Oops, an error has
occurred". Each agent keeps its entity id and device, unavailable, and answers with the
entry's own reason in the user's language.
"""

from __future__ import annotations

from typing import Final
from typing import Literal

from custom_components.local_agent.compat import entry_entity_platform
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.home.call_texts import async_phrase
from homeassistant.components import conversation
from homeassistant.config_entries import SIGNAL_CONFIG_ENTRY_CHANGED
from homeassistant.config_entries import ConfigEntry
from homeassistant.config_entries import ConfigEntryChange
from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import MATCH_ALL
from homeassistant.core import CALLBACK_TYPE
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import intent
from homeassistant.helpers.dispatcher import async_dispatcher_connect
from homeassistant.helpers.entity_platform import EntityPlatform
from homeassistant.util.hass_dict import HassKey

# The states of an entry in which its agents stand in (the entry failed and waits, or retries).
_NOT_LOADED: Final = (ConfigEntryState.SETUP_RETRY, ConfigEntryState.SETUP_ERROR)
_STAND_INS: HassKey[dict[str, tuple[EntityPlatform, CALLBACK_TYPE]]] = HassKey(
    f"{DOMAIN}_agents_not_loaded"
)


class NotLoadedConversationEntity(conversation.ConversationEntity):
    """An agent whose model entry does not load: it answers why, in the user's language.

    Without it the agent's entity is gone while its entry fails, so a pipeline that uses it
    finds no agent and the Assist dialog shows core's "Oops, an error has occurred".
    """

    _attr_has_entity_name = True
    _attr_name = None
    _attr_available = False
    _attr_supported_features = conversation.ConversationEntityFeature.CONTROL

    def __init__(self, entry: ConfigEntry, registered: er.RegistryEntry) -> None:
        """Take the agent's registered id, unique id and device."""
        self.entry = entry
        self.entity_id = registered.entity_id
        self._attr_unique_id = registered.unique_id
        self._attr_device_info = dr.DeviceInfo(identifiers={(DOMAIN, registered.unique_id)})

    @property
    def supported_languages(self) -> list[str] | Literal["*"]:
        """Say it in any language."""
        return MATCH_ALL

    async def _async_handle_message(
        self,
        user_input: conversation.ConversationInput,
        chat_log: conversation.ChatLog,
    ) -> conversation.ConversationResult:
        """Say that the model is not loaded, and why (the entry's own reason)."""
        language = user_input.language
        entry = self.entry
        reason = entry.reason or ""
        if entry.error_reason_translation_key is not None:
            reason = await async_phrase(
                self.hass,
                language,
                entry.error_reason_translation_key,
                **(entry.error_reason_translation_placeholders or {}),
            )
        text = await async_phrase(
            self.hass, language, "agent_model_not_loaded", title=entry.title, reason=reason
        )
        response = intent.IntentResponse(language=language)
        response.async_set_error(intent.IntentResponseErrorCode.UNKNOWN, text)
        return conversation.ConversationResult(
            response=response, conversation_id=chat_log.conversation_id
        )


async def async_stand_in_while_not_loaded(hass: HomeAssistant, entry: ConfigEntry) -> None:
    """Give the agents of an entry that failed to load entities that say why.

    Called as its set-up fails; they stay until it loads again, or is unloaded or removed.
    """
    await async_end_stand_in(hass, entry.entry_id)
    registered = [
        entity
        for entity in er.async_entries_for_config_entry(er.async_get(hass), entry.entry_id)
        if entity.domain == conversation.DOMAIN
        and entity.platform == DOMAIN
        and entity.config_subentry_id in entry.subentries
        and entity.disabled_by is None
    ]
    if not registered:
        return
    platform = entry_entity_platform(hass, entry, conversation.DOMAIN)

    @callback
    def entry_changed(change: ConfigEntryChange, changed: ConfigEntry) -> None:
        if changed.entry_id != entry.entry_id:
            return
        if change is ConfigEntryChange.REMOVED or changed.state not in _NOT_LOADED:
            hass.async_create_task(async_end_stand_in(hass, entry.entry_id, platform))

    stop_listening = async_dispatcher_connect(hass, SIGNAL_CONFIG_ENTRY_CHANGED, entry_changed)
    hass.data.setdefault(_STAND_INS, {})[entry.entry_id] = (platform, stop_listening)
    for entity in registered:
        await platform.async_add_entities(
            [NotLoadedConversationEntity(entry, entity)],
            config_subentry_id=entity.config_subentry_id,
        )


async def async_end_stand_in(
    hass: HomeAssistant, entry_id: str, platform: EntityPlatform | None = None
) -> None:
    """Remove the entities that stand in for an entry's agents (only `platform`'s if given)."""
    stand_ins = hass.data.get(_STAND_INS, {})
    current = stand_ins.get(entry_id)
    if current is None or (platform is not None and current[0] is not platform):
        return
    del stand_ins[entry_id]
    current[1]()
    await current[0].async_reset()
