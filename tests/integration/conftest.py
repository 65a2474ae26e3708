"""Fixtures for tests that run in a real Home Assistant."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.common import MockUser

from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import CONF_MODEL_PHRASES_ANSWERS
from custom_components.local_agent.const import CONF_THREADS
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import EVENT_ACTION
from custom_components.local_agent.const import SUBENTRY_AI_TASK
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from custom_components.local_agent.engine.generation import Steering
from custom_components.local_agent.engine.local.worker import ModelWorker
from custom_components.local_agent.engine.settings import EngineSettings
from custom_components.local_agent.engine.types import ToolCall
from custom_components.local_agent.flows import progress
from custom_components.local_agent.home.tools import HomeTools
from custom_components.local_agent.home.tools import PlannedAction
from custom_components.local_agent.home.tools import async_build_home_tools
from custom_components.local_agent.runtime.local import LOCAL_ENGINES
from custom_components.local_agent.turn.defaults import agent_data
from custom_components.local_agent.turn.defaults import ai_task_data
from homeassistant.components import conversation
from homeassistant.config_entries import ConfigEntry
from homeassistant.config_entries import ConfigEntryState
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.core import Context
from homeassistant.core import Event
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers import entity_registry as er
from homeassistant.setup import async_setup_component
from testing.model_files import llama_threads
from testing.stand_in import stand_in_engines

from .home import async_setup_demo_home
from .scripted_model import Script
from .scripted_model import ScriptedWorker


@pytest.fixture(autouse=True)
async def home_assistant_ready(
    hass: HomeAssistant,
    enable_custom_integrations: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Load custom_components/local_agent and the core integration conversation relies on.

    What the integration writes under <config>/local_agent (models, saved prefixes) goes to
    the test's own folder: the test config folder is in the shared virtual environment.
    A progress step ends with its task: the time it stays up at least is for the frontend,
    which listens for its end only once it has it (test_config_flow covers that).
    """
    monkeypatch.setattr(progress, "PROGRESS_SHOWN_AT_LEAST", 0.0)
    config_path = hass.config.path

    def path(*parts: str) -> str:
        if parts[:1] == (DOMAIN,):
            return str(tmp_path.joinpath("config", *parts))
        return config_path(*parts)

    monkeypatch.setattr(hass.config, "path", path)
    assert await async_setup_component(hass, "homeassistant", {})


@pytest.fixture
async def demo_home(hass: HomeAssistant) -> AsyncGenerator[None]:
    """The demo entities, a subset exposed to Assist; demo locks move at once."""
    with patch("homeassistant.components.demo.lock.LOCK_UNLOCK_DELAY", 0):
        await async_setup_demo_home(hass)
        yield


@pytest.fixture
def model_loads() -> Iterator[list[Path]]:
    """Every load of a model into this process (the separate-process check is not one)."""
    loads: list[Path] = []
    original = ModelWorker.load.__func__  # type: ignore[attr-defined]

    async def load(cls: type[ModelWorker], path: Path, settings: Any) -> ModelWorker:
        loads.append(path)
        return await original(cls, path, settings)  # type: ignore[no-any-return]

    with patch.object(ModelWorker, "load", classmethod(load)):
        yield loads


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


async def async_setup_model_entry(
    hass: HomeAssistant,
    model_path: Path,
    options: dict[str, Any] | None = None,
    *,
    title: str = "Test model",
) -> MockConfigEntry:
    """Create a model entry without agents and set it up (it may fail: the tests look)."""
    entry = MockConfigEntry(
        domain=DOMAIN,
        title=title,
        data={CONF_MODEL_PATH: str(model_path)},
        options=options or {},
        unique_id=str(model_path),
    )
    await async_add_entry(hass, entry)
    return entry


async def async_add_entry(hass: HomeAssistant, entry: MockConfigEntry) -> bool:
    """Add an entry to Home Assistant and set it up (it may fail: the tests look); whether
    its setup succeeded."""
    entry.add_to_hass(hass)
    loaded = await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    return loaded


async def async_add_helper(hass: HomeAssistant, entry: MockConfigEntry) -> er.RegistryEntry:
    """Add a helper's entry (as the UI makes one) and set it up: it must load; its one entity."""
    assert await async_add_entry(hass, entry)
    [registered] = er.async_entries_for_config_entry(er.async_get(hass), entry.entry_id)
    return registered


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


def friendly_name(hass: HomeAssistant, entity_id: str) -> str:
    """The friendly name of an entity that must have a state."""
    current = hass.states.get(entity_id)
    assert current is not None, entity_id
    return str(current.attributes["friendly_name"])


async def async_remove_subentry(
    hass: HomeAssistant, entry: MockConfigEntry, subentry_id: str, entity_id: str
) -> None:
    """Remove a subentry: its entity goes with it."""
    assert hass.config_entries.async_remove_subentry(entry, subentry_id)
    await hass.async_block_till_done()
    assert hass.states.get(entity_id) is None


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


async def generate_data(hass: HomeAssistant, entity_id: str, **fields: Any) -> dict[str, Any]:
    """The response of ai_task.generate_data for an AI task entity."""
    response = await hass.services.async_call(
        "ai_task",
        "generate_data",
        {"task_name": "test", "entity_id": entity_id, **fields},
        blocking=True,
        return_response=True,
    )
    assert response is not None
    return dict(response)


@pytest.fixture
async def tools(hass: HomeAssistant, demo_home: None) -> HomeTools:
    """Our own tools on the demo home."""
    return await async_build_home_tools(hass)


@pytest.fixture
async def repairs(hass: HomeAssistant) -> Any:
    """Home Assistant's repairs flow manager (the repairs integration set up)."""
    assert await async_setup_component(hass, "repairs", {})
    return hass.data["repairs"]["flow_manager"]


@pytest.fixture
async def truncated_model(hass: HomeAssistant, tmp_path: Path, qwen35_model_path: Path) -> Path:
    """The test model cut to two fifths: a file llama.cpp refuses to load, saying why."""
    truncated = tmp_path / "truncated.gguf"
    content = await hass.async_add_executor_job(qwen35_model_path.read_bytes)
    await hass.async_add_executor_job(truncated.write_bytes, content[: len(content) * 2 // 5])
    return truncated


def plan(tools: HomeTools, name: str, **arguments: Any) -> PlannedAction:
    """A call of our tools that must validate."""
    result = tools.plan(ToolCall(name, arguments))
    assert isinstance(result, PlannedAction), result
    return result


@pytest.fixture
def scripted_worker(hass: HomeAssistant, tmp_path: Path) -> ScriptedWorker:
    """Every model file loads as a scripted stand-in (deterministic behaviour tests)."""
    model_path = tmp_path / "scripted.gguf"
    model_path.write_bytes(b"GGUF" + bytes(60))
    worker = ScriptedWorker(model_path, EngineSettings())
    hass.data[LOCAL_ENGINES] = stand_in_engines(worker)
    return worker


@pytest.fixture
async def scripted_agent(
    hass: HomeAssistant, demo_home: None, scripted_worker: ScriptedWorker
) -> Agent:
    """An agent on the demo home whose model writes what the test scripts."""
    return await async_setup_agent(hass, scripted_worker.info.path)


@pytest.fixture
async def phrasing_agent(
    hass: HomeAssistant, demo_home: None, scripted_worker: ScriptedWorker
) -> Agent:
    """The scripted agent with "let the model phrase every answer" on: a model round follows
    every call, a plain action's too (tests of the tool loop itself)."""
    return await async_setup_agent(
        hass, scripted_worker.info.path, **{CONF_MODEL_PHRASES_ANSWERS: True}
    )


def state(hass: HomeAssistant, entity_id: str) -> str:
    """The current state of an entity that must exist."""
    current = hass.states.get(entity_id)
    assert current is not None, entity_id
    return current.state


def entry_state(entry: ConfigEntry) -> ConfigEntryState:
    """The entry's state now. mypy keeps the type an earlier `assert entry.state is ...`
    narrowed it to, even after the awaits that change it: read it here to compare it again."""
    return entry.state


def speech(result: conversation.ConversationResult) -> str:
    """What the agent said."""
    return str(result.response.speech["plain"]["speech"])


@pytest.fixture
def audit(hass: HomeAssistant) -> list[dict[str, Any]]:
    """Every local_agent_action event fired."""
    events: list[dict[str, Any]] = []

    @callback
    def collect(event: Event) -> None:
        events.append(dict(event.data))

    hass.bus.async_listen(EVENT_ACTION, collect)
    return events


@pytest.fixture
async def person(hass: HomeAssistant, hass_admin_user: MockUser) -> Context:
    """A real user talking to the agent."""
    return Context(user_id=hass_admin_user.id)


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


@pytest.fixture
async def talk(agent: Agent, scripted_worker: ScriptedWorker, person: Context) -> Talk:
    """The person talking to the test module's `agent` fixture."""
    return Talk(agent, scripted_worker, person)
