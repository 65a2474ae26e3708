"""An agent set up in a real Home Assistant and a person talking to it (the support every
integration test, fixture and helper module shares; conftest.py re-exports it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import CONF_THREADS
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import SUBENTRY_AI_TASK
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from custom_components.local_agent.engine.generation import Steering
from custom_components.local_agent.turn.defaults import agent_data
from custom_components.local_agent.turn.defaults import ai_task_data
from homeassistant.components import conversation
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from testing.model_files import llama_threads

from .scripted_model import Script
from .scripted_model import ScriptedWorker


@dataclass
class Agent:
    """A set-up agent entry and a way to talk to it."""

    hass: HomeAssistant
    entry: MockConfigEntry
    entity_id: str

    async def ask(
        self,
        text: str,
        *,
        conversation_id: str | None = None,
        context: Context | None = None,
        device_id: str | None = None,
        satellite_id: str | None = None,
        language: str = "en",
    ) -> conversation.ConversationResult:
        # Each message has a context of its own, as Home Assistant gives each request one
        # (a websocket message, a pipeline run, a service call); the person is the same.
        said_in = Context(user_id=context.user_id, parent_id=context.parent_id) if context else None
        return await conversation.async_converse(
            self.hass,
            text,
            conversation_id,
            said_in or Context(),
            language=language,
            agent_id=self.entity_id,
            device_id=device_id,
            satellite_id=satellite_id,
        )

    def chat_log_text(self, result: conversation.ConversationResult) -> str:
        return str(result.response.speech["plain"]["speech"])

    def steer(self, steering: Steering | None) -> None:
        """Make the model write what the steering says (testing/steering.py)."""
        self.entry.runtime_data.worker.steering = steering


async def async_setup_agent(hass: HomeAssistant, model_path: Path, **agent_options: Any) -> Agent:
    """Create a model entry with one agent subentry and set it up (threads: one per core, or
    LOCAL_AGENT_TEST_THREADS)."""
    threads = llama_threads(0)
    options: dict[str, Any] = {"options": {CONF_THREADS: threads}} if threads else {}
    return await async_setup_entry_with_agent(
        hass,
        agent_options,
        data={CONF_MODEL_PATH: str(model_path)},
        unique_id=str(model_path),
        **options,
    )


async def async_add_entry(hass: HomeAssistant, entry: MockConfigEntry) -> bool:
    """Add an entry to Home Assistant and set it up (it may fail: the tests look); whether
    its setup succeeded."""
    entry.add_to_hass(hass)
    loaded = await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    return loaded


def subentry(subentry_type: str, title: str, data: dict[str, Any]) -> ConfigSubentryData:
    """A subentry of an entry created by a test (an agent, an AI task)."""
    return ConfigSubentryData(data=data, subentry_type=subentry_type, title=title, unique_id=None)


async def async_setup_entry_with_subentries(
    hass: HomeAssistant, *subentries: ConfigSubentryData, **entry_fields: Any
) -> MockConfigEntry:
    """Create an entry (model file or server) with these subentries and set it up: it must load."""
    entry = MockConfigEntry(domain=DOMAIN, subentries_data=list(subentries), **entry_fields)
    assert await async_add_entry(hass, entry)
    return entry


def entity_of(hass: HomeAssistant, domain: str, subentry_id: str) -> str:
    """The entity id of a subentry's entity on a platform (conversation, ai_task)."""
    entity_id = er.async_get(hass).async_get_entity_id(domain, DOMAIN, subentry_id)
    assert entity_id is not None
    return entity_id


# What a set-up entry's one subentry is, by type: its defaults, its title, its entity's platform.
SUBENTRY_KINDS: dict[str, tuple[Callable[[], dict[str, Any]], str, str]] = {
    SUBENTRY_CONVERSATION: (agent_data, "Local Agent", "conversation"),
    SUBENTRY_AI_TASK: (ai_task_data, "Task", "ai_task"),
}


async def async_setup_entry_with_agent(
    hass: HomeAssistant,
    agent_options: dict[str, Any],
    *,
    subentry_type: str = SUBENTRY_CONVERSATION,
    **entry_fields: Any,
) -> Agent:
    """Create an entry (model file or server) with one agent subentry (or another subentry type:
    SUBENTRY_KINDS) and set it up."""
    defaults, title, platform = SUBENTRY_KINDS[subentry_type]
    agent = subentry(subentry_type, title, {**defaults(), **agent_options})
    entry = await async_setup_entry_with_subentries(hass, agent, **entry_fields)
    return Agent(hass, entry, entity_of(hass, platform, next(iter(entry.subentries))))


def state(hass: HomeAssistant, entity_id: str) -> str:
    """The current state of an entity that must exist."""
    current = hass.states.get(entity_id)
    assert current is not None, entity_id
    return current.state


def speech(result: conversation.ConversationResult) -> str:
    """What the agent said."""
    return str(result.response.speech["plain"]["speech"])


@dataclass
class Talk:
    """A person talking to an agent whose model writes what the test scripts; what the person
    says is the model's to read, so it matters only in a reply (a yes, a follow-up)."""

    agent: Agent
    worker: ScriptedWorker
    person: Context

    async def ask(
        self, language: str, *writes: Script, device_id: str | None = None
    ) -> conversation.ConversationResult:
        """The model will write `writes` in a new conversation."""
        return await self.say("…", language, *writes, device_id=device_id)

    async def reply(
        self, to: conversation.ConversationResult, said: str, language: str, *writes: Script
    ) -> conversation.ConversationResult:
        """The person says `said` in the conversation of `to`; the model will write `writes`."""
        return await self.say(said, language, *writes, conversation_id=to.conversation_id)

    async def say(
        self,
        said: str,
        language: str,
        *writes: Script,
        conversation_id: str | None = None,
        device_id: str | None = None,
    ) -> conversation.ConversationResult:
        self.worker.will_write(*writes)
        result = await self.agent.ask(
            said,
            conversation_id=conversation_id,
            context=self.person,
            device_id=device_id,
            language=language,
        )
        await self.agent.hass.async_block_till_done()
        return result
