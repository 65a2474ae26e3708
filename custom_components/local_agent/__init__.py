"""The Local Agent integration: a tool-calling language model inside Home Assistant."""

from __future__ import annotations

from homeassistant.config_entries import ConfigEntry
from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import Platform
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.exceptions import ConfigEntryError
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import device_registry as dr

from .const import CONF_BACKEND
from .const import DOMAIN
from .conversation import LocalAgentConversationEntity
from .home.colours import ENGLISH
from .home.colours import async_colour_words
from .home.entity_view import forget_heard_names
from .home.exposed import forget_exposed_index
from .home.unexposed import forget_name_index
from .runtime import issues
from .runtime import updates
from .runtime.backend import Backend
from .runtime.backend import entry_backend
from .runtime.data import LocalAgentConfigEntry
from .runtime.data import LocalAgentData
from .runtime.data import ModelSetup
from .runtime.local import async_setup_local
from .runtime.server import async_setup_server
from .runtime.stand_ins import async_end_stand_in
from .runtime.stand_ins import async_stand_in_while_not_loaded
from .safety import local_intents
from .safety.confirmation import async_load_confirmations
from .safety.migration import async_migrate_agent_options
from .safety.reads import forget_reading

PLATFORMS = (Platform.AI_TASK, Platform.CONVERSATION)


async def async_migrate_entry(hass: HomeAssistant, entry: ConfigEntry) -> bool:
    """Bring an entry made by an earlier version up to date (a later version's: refused)."""
    if entry.version > 1:
        return False
    if entry.minor_version < 2:
        hass.config_entries.async_update_entry(
            entry, data={**entry.data, CONF_BACKEND: entry_backend(entry).value}, minor_version=2
        )
    if entry.minor_version < 3:
        async_migrate_agent_options(hass, entry)
        hass.config_entries.async_update_entry(entry, minor_version=3)
    return True


async def async_setup_entry(hass: HomeAssistant, entry: LocalAgentConfigEntry) -> bool:
    """Set up the entry's model where its backend runs it, then its agents.

    Each backend's set-up raises the entry error (and the repair issue) when it fails.
    """
    await async_end_stand_in(hass, entry.entry_id)
    # A yes to a question Home Assistant's restart closed is told so (not taken as a request).
    await async_load_confirmations(hass)
    # Loading a model takes a while: meanwhile its agents say so (instead of core's "Oops").
    await async_stand_in_while_not_loaded(hass, entry)
    try:
        model = await _async_setup_model(hass, entry)
    except HomeAssistantError:
        # Its agents keep their entities meanwhile, which say why (instead of core's "Oops").
        await async_stand_in_while_not_loaded(hass, entry)
        raise
    issues.async_clear_entry_issues(hass, entry.entry_id)
    device_id = _async_register_model_device(hass, entry, model)
    entry.runtime_data = LocalAgentData(
        model_path=model.model_path,
        worker=model.worker,
        release=model.release,
        device_id=device_id,
    )
    # The colours a light's state is read by (home/colours.py), read once from the disk here.
    await async_colour_words(hass, ENGLISH)
    await async_end_stand_in(hass, entry.entry_id)
    await hass.config_entries.async_forward_entry_setups(entry, PLATFORMS)
    updates.async_listen(hass, entry, device_id)
    await local_intents.async_watch(hass)
    return True


async def _async_setup_model(hass: HomeAssistant, entry: LocalAgentConfigEntry) -> ModelSetup:
    """Load the entry's model where its backend runs it (or raise the entry's error)."""
    try:
        backend = entry_backend(entry)
    except ValueError as err:
        # A backend this version does not know: the entry comes from a later version.
        raise ConfigEntryError(
            translation_domain=DOMAIN,
            translation_key="unknown_backend",
            translation_placeholders={"backend": str(entry.data.get(CONF_BACKEND))},
        ) from err
    setup = {
        Backend.LLAMA_CPP: async_setup_local,
        Backend.SERVER: async_setup_server,
    }[backend]
    return await setup(hass, entry)


@callback
def _async_register_model_device(hass: HomeAssistant, entry: ConfigEntry, model: ModelSetup) -> str:
    """Register one device per model entry; the agents' devices point to it (via_device_id)."""
    info = model.worker.info
    device = dr.async_get(hass).async_get_or_create(
        config_entry_id=entry.entry_id,
        identifiers={(DOMAIN, entry.entry_id)},
        name=entry.title,
        manufacturer="Local Agent",
        model=info.name or info.path.name,
        model_id=info.architecture,
        sw_version=model.software,
        entry_type=dr.DeviceEntryType.SERVICE,
    )
    return device.id


async def async_unload_entry(hass: HomeAssistant, entry: LocalAgentConfigEntry) -> bool:
    """Unload the agents, then give the model back (freed when no other entry uses it)."""
    if not await hass.config_entries.async_unload_platforms(entry, PLATFORMS):
        return False
    await entry.runtime_data.release()
    if not any(
        other.entry_id != entry.entry_id and other.state is ConfigEntryState.LOADED
        for other in hass.config_entries.async_entries(DOMAIN)
    ):
        local_intents.async_unwatch(hass)
        forget_reading(hass)
        forget_exposed_index(hass)
        forget_heard_names(hass)
        forget_name_index(hass)
    return True


async def async_remove_entry(hass: HomeAssistant, entry: ConfigEntry) -> None:
    """Forget the entry's repair issues and what its agents kept; the model file stays."""
    issues.async_clear_entry_issues(hass, entry.entry_id)
    for subentry_id in entry.subentries:
        LocalAgentConversationEntity.forget_subentry(hass, subentry_id)
