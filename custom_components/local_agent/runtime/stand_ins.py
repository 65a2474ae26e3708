"""Agents and AI tasks that stand in while their model entry loads or does not load, saying so.

Without them an agent's entity is gone while its entry loads its model (a minute on a small
machine after a restart) or fails (retrying, or in error), so a pipeline that uses it finds no
agent and the Assist dialog shows core's "Oops, an error has occurred"; an automation's
`ai_task.generate_data` fails with "entity not found". Each keeps its entity id and device,
unavailable, and says that the model is still loading, or the entry's own reason, in the
user's language.
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
from homeassistant.const import Platform
from homeassistant.core import CALLBACK_TYPE
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import intent
from homeassistant.helpers.dispatcher import async_dispatcher_connect
from homeassistant.helpers.entity import Entity
from homeassistant.helpers.entity_platform import EntityPlatform
from homeassistant.helpers.importlib import async_import_module
from homeassistant.util.hass_dict import HassKey

# The states of an entry in which its agents stand in (it loads its model, or it failed and
# waits, or retries).
_NOT_LOADED: Final = (
    ConfigEntryState.SETUP_IN_PROGRESS,
    ConfigEntryState.SETUP_RETRY,
    ConfigEntryState.SETUP_ERROR,
)
# The sentence said instead of a "not loaded" one while the entry still loads its model.
_STILL_LOADING: Final = {
    "agent_model_not_loaded": "agent_model_loading",
    "task_model_not_loaded": "task_model_loading",
}
AI_TASK_DOMAIN: Final = Platform.AI_TASK.value
_STAND_INS: HassKey[dict[str, tuple[tuple[EntityPlatform, ...], CALLBACK_TYPE]]] = HassKey(
    f"{DOMAIN}_agents_not_loaded"
)


async def async_not_loaded_text(
    hass: HomeAssistant, entry: ConfigEntry, language: str, key: str
) -> str:
    """Say (sentence `key`) that the entry's model is not loaded, with the entry's reason.

    While the entry is still setting up, say instead that its model is loading. A set-up that
    stopped without a reason (an unexpected error, a cancelled load) says so, and what to do.
    """
    if entry.state is ConfigEntryState.SETUP_IN_PROGRESS:
        return await async_phrase(hass, language, _STILL_LOADING[key], title=entry.title)
    reason = entry.reason or ""
    if entry.error_reason_translation_key is not None:
        reason = await async_phrase(
            hass,
            language,
            entry.error_reason_translation_key,
            **(entry.error_reason_translation_placeholders or {}),
        )
    if not reason.strip():
        reason = await async_phrase(hass, language, "model_setup_stopped")
    return await async_phrase(hass, language, key, title=entry.title, reason=reason)


class StandIn(Entity):
    """An entity of an entry that does not load: its registered id and device, unavailable."""

    _attr_has_entity_name = True
    _attr_name = None
    _attr_available = False

    def __init__(self, entry: ConfigEntry, registered: er.RegistryEntry) -> None:
        """Take the entity's registered id, unique id and device."""
        self.entry = entry
        self.entity_id = registered.entity_id
        self._attr_unique_id = registered.unique_id
        self._attr_device_info = dr.DeviceInfo(identifiers={(DOMAIN, registered.unique_id)})


class NotLoadedConversationEntity(StandIn, conversation.ConversationEntity):
    """An agent whose model entry does not load: it answers why, in the user's language."""

    _attr_supported_features = conversation.ConversationEntityFeature.CONTROL

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
        text = await async_not_loaded_text(
            self.hass, self.entry, language, "agent_model_not_loaded"
        )
        response = intent.IntentResponse(language=language)
        response.async_set_error(intent.IntentResponseErrorCode.UNKNOWN, text)
        return conversation.ConversationResult(
            response=response, conversation_id=chat_log.conversation_id
        )


NOT_LOADED_ENTITY: Final = NotLoadedConversationEntity
# The platforms that stand in, with the module of each one's entity (the AI task's is read
# only when one stands in: Home Assistant's ai_task imports its camera and image helpers).
_STAND_IN_MODULES: Final = {
    conversation.DOMAIN: __name__,
    AI_TASK_DOMAIN: "custom_components.local_agent.ai_task",
}


async def _async_stand_in_type(hass: HomeAssistant, domain: str) -> type[StandIn]:
    """Return the entity that stands in on a platform (its module's NOT_LOADED_ENTITY)."""
    module = await async_import_module(hass, _STAND_IN_MODULES[domain])
    found: type[StandIn] = module.NOT_LOADED_ENTITY
    return found


async def async_stand_in_while_not_loaded(hass: HomeAssistant, entry: ConfigEntry) -> None:
    """Give the agents and AI tasks of a loading or failed entry entities that say so.

    Called as its set-up starts and as it fails; they stay until its model has loaded, or the
    entry is unloaded or removed.
    """
    await async_end_stand_in(hass, entry.entry_id)
    registered = [
        entity
        for entity in er.async_entries_for_config_entry(er.async_get(hass), entry.entry_id)
        if entity.domain in _STAND_IN_MODULES
        and entity.platform == DOMAIN
        and entity.config_subentry_id in entry.subentries
        and entity.disabled_by is None
    ]
    if not registered:
        return
    platforms = {
        domain: entry_entity_platform(hass, entry, domain)
        for domain in dict.fromkeys(entity.domain for entity in registered)
    }
    first = next(iter(platforms.values()))

    @callback
    def entry_changed(change: ConfigEntryChange, changed: ConfigEntry) -> None:
        if changed.entry_id != entry.entry_id:
            return
        if change is ConfigEntryChange.REMOVED or changed.state not in _NOT_LOADED:
            hass.async_create_task(async_end_stand_in(hass, entry.entry_id, first))

    stop_listening = async_dispatcher_connect(hass, SIGNAL_CONFIG_ENTRY_CHANGED, entry_changed)
    hass.data.setdefault(_STAND_INS, {})[entry.entry_id] = (
        tuple(platforms.values()),
        stop_listening,
    )
    for entity in registered:
        stand_in = await _async_stand_in_type(hass, entity.domain)
        await platforms[entity.domain].async_add_entities(
            [stand_in(entry, entity)],
            config_subentry_id=entity.config_subentry_id,
        )


async def async_end_stand_in(
    hass: HomeAssistant, entry_id: str, platform: EntityPlatform | None = None
) -> None:
    """Remove the entities that stand in for an entry (only those `platform` is among, if given)."""
    stand_ins = hass.data.get(_STAND_INS, {})
    current = stand_ins.get(entry_id)
    if current is None or (platform is not None and platform not in current[0]):
        return
    del stand_ins[entry_id]
    current[1]()
    for each in current[0]:
        await each.async_reset()
