"""Load the Local Agent integration with a model file (or a stand-in) as a real config entry."""

from __future__ import annotations

from collections.abc import AsyncIterator
from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Mapping
import contextlib
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from custom_components.local_agent.config_flow import LocalAgentConfigFlow
from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import DEFAULT_AGENT_NAME
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from custom_components.local_agent.conversation import LocalAgentConversationEntity
from custom_components.local_agent.engine.interface import GenerationEngine
from custom_components.local_agent.runtime.data import LocalAgentConfigEntry
from custom_components.local_agent.runtime.local import LOCAL_ENGINES
from custom_components.local_agent.turn.agent import ConversationAgent
from custom_components.local_agent.turn.defaults import agent_data
from homeassistant.auth.const import GROUP_ID_ADMIN
from homeassistant.auth.const import GROUP_ID_USER
from homeassistant.components import conversation
from homeassistant.components.conversation.const import DATA_COMPONENT
from homeassistant.config_entries import SOURCE_USER
from homeassistant.config_entries import ConfigEntry
from homeassistant.config_entries import ConfigEntryState
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import chat_session
from homeassistant.helpers import entity_registry as er
from testing.hass_runner import HarnessError
from testing.stand_in import StandInWorker
from testing.stand_in import stand_in_engines


@dataclass(slots=True)
class LocalAgentHandle:
    """A loaded model entry with one agent, and a way to talk to it."""

    hass: HomeAssistant
    entry: LocalAgentConfigEntry
    entity_id: str

    @property
    def entity(self) -> LocalAgentConversationEntity:
        """Return the conversation entity object of the agent."""
        entity = self.hass.data[DATA_COMPONENT].get_entity(self.entity_id)
        if not isinstance(entity, LocalAgentConversationEntity):
            raise HarnessError(f"{self.entity_id} is not a Local Agent conversation entity")
        return entity

    @property
    def agent(self) -> ConversationAgent:
        """Return the agent that runs the entity's turns."""
        agent = self.entity.agent
        if agent is None:
            raise HarnessError(f"{self.entity_id} has no agent yet")
        return agent

    @property
    def worker(self) -> GenerationEngine:
        """Return the loaded model (or the stand-in)."""
        return self.entry.runtime_data.worker

    async def async_ask(
        self,
        text: str,
        *,
        conversation_id: str | None = None,
        language: str = "en",
        context: Context | None = None,
        device_id: str | None = None,
        on_delta: Callable[[dict[str, Any]], None] | None = None,
    ) -> conversation.ConversationResult:
        """Send a sentence through Home Assistant's conversation API to this agent.

        device_id: the device it was spoken to (a satellite in its area), if any.
        on_delta: called with each piece of the answer as it streams (what a voice pipeline
        hears: reasoning, calls, results, words), through the chat log's delta listener.
        """
        context = context or Context()
        with contextlib.ExitStack() as listening:
            if on_delta is not None:
                # As the Assist pipeline does: open the chat log with a listener, then converse
                # in it.
                session = listening.enter_context(
                    chat_session.async_get_chat_session(self.hass, conversation_id)
                )
                user_input = conversation.ConversationInput(
                    text=text,
                    context=context,
                    conversation_id=session.conversation_id,
                    device_id=device_id,
                    satellite_id=None,
                    language=language,
                    agent_id=self.entity_id,
                )
                listening.enter_context(
                    conversation.async_get_chat_log(
                        self.hass,
                        session,
                        user_input,
                        chat_log_delta_listener=lambda _log, delta: on_delta(delta),
                    )
                )
                conversation_id = session.conversation_id
            return await conversation.async_converse(
                self.hass,
                text,
                conversation_id,
                context,
                language=language,
                agent_id=self.entity_id,
                device_id=device_id,
            )


async def async_create_person(hass: HomeAssistant, name: str, *, admin: bool = True) -> str:
    """Create a Home Assistant user (someone talking to the agent); return the user id."""
    groups = [GROUP_ID_ADMIN if admin else GROUP_ID_USER]
    user = await hass.auth.async_create_user(name, group_ids=groups)
    return user.id


def model_entry(
    model_path: Path,
    *,
    engine_options: Mapping[str, Any] | None = None,
    agent_options: Mapping[str, Any] | None = None,
) -> ConfigEntry:
    """Return the config entry the config flow would create, with options already set."""
    subentry = ConfigSubentryData(
        data={**agent_data(), **(agent_options or {})},
        subentry_type=SUBENTRY_CONVERSATION,
        title=DEFAULT_AGENT_NAME,
        unique_id=None,
    )
    return ConfigEntry(
        domain=DOMAIN,
        title=model_path.name,
        data={CONF_MODEL_PATH: str(model_path)},
        options=dict(engine_options or {}),
        source=SOURCE_USER,
        version=LocalAgentConfigFlow.VERSION,
        minor_version=LocalAgentConfigFlow.MINOR_VERSION,
        unique_id=str(model_path),
        discovery_keys=MappingProxyType({}),
        subentries_data=[subentry],
    )


@contextlib.asynccontextmanager
async def async_local_agent(
    hass: HomeAssistant,
    model_path: Path,
    *,
    engine_options: Mapping[str, Any] | None = None,
    agent_options: Mapping[str, Any] | None = None,
    stand_in: StandInWorker | None = None,
) -> AsyncIterator[LocalAgentHandle]:
    """Set up a model entry with one agent; unload it (freeing the model) afterwards.

    `stand_in` replaces the loaded model with an object that behaves like a ModelWorker
    (see stand_in.py); the file at model_path must still look like a GGUF file.
    """
    entry = model_entry(model_path, engine_options=engine_options, agent_options=agent_options)
    with _model_replaced_by(hass, stand_in):
        await hass.config_entries.async_add(entry)
        await hass.async_block_till_done()
    try:
        if entry.state is not ConfigEntryState.LOADED:
            reason = entry.reason or entry.state.value
            raise HarnessError(f"The Local Agent entry did not load: {reason}")
        yield LocalAgentHandle(hass, entry, _agent_entity_id(hass, entry))
    finally:
        if entry.state is ConfigEntryState.LOADED:
            await hass.config_entries.async_unload(entry.entry_id)


@contextlib.contextmanager
def _model_replaced_by(hass: HomeAssistant, stand_in: StandInWorker | None) -> Iterator[None]:
    """While the entry sets up, its model file loads as the stand-in (if any)."""
    if stand_in is None:
        yield
        return
    previous = hass.data.get(LOCAL_ENGINES)
    hass.data[LOCAL_ENGINES] = stand_in_engines(stand_in)
    try:
        yield
    finally:
        if previous is None:
            hass.data.pop(LOCAL_ENGINES, None)
        else:
            hass.data[LOCAL_ENGINES] = previous


def _agent_entity_id(hass: HomeAssistant, entry: ConfigEntry) -> str:
    subentry_id = next(iter(entry.subentries))
    entity_id = er.async_get(hass).async_get_entity_id("conversation", DOMAIN, subentry_id)
    if entity_id is None:
        raise HarnessError("The Local Agent entry loaded but created no conversation entity")
    return entity_id
