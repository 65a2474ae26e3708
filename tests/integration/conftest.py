"""Fixtures for tests that run in a real Home Assistant."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from collections.abc import AsyncIterator
from collections.abc import Awaitable
from collections.abc import Callable
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest.mock import patch

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.common import MockUser
from pytest_homeassistant_custom_component.typing import WebSocketGenerator

from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import CONF_MODEL_PHRASES_ANSWERS
from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.const import EVENT_ACTION
from custom_components.local_agent.engine.local.worker import ModelWorker
from custom_components.local_agent.engine.settings import EngineSettings
from custom_components.local_agent.engine.types import ToolCall
from custom_components.local_agent.flows import progress
from custom_components.local_agent.home import runner
from custom_components.local_agent.home.tools import HomeTools
from custom_components.local_agent.home.tools import PlannedAction
from custom_components.local_agent.home.tools import async_build_home_tools
from custom_components.local_agent.runtime.local import LOCAL_ENGINES
from homeassistant.components.demo.light import DemoLight
from homeassistant.config_entries import ConfigEntry
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import Context
from homeassistant.core import Event
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.helpers import entity_registry as er
from homeassistant.setup import async_setup_component
from testing.stand_in import stand_in_engines

from .agents import SUBENTRY_KINDS
from .agents import Agent
from .agents import Talk
from .agents import async_add_entry
from .agents import async_setup_agent
from .agents import async_setup_entry_with_agent
from .agents import async_setup_entry_with_subentries
from .agents import entity_of
from .agents import speech
from .agents import state
from .agents import subentry
from .demo_house import demo_house
from .home import async_setup_demo_home
from .scene import clock
from .scene import house
from .scene import lights_only_user
from .scene import scene
from .scripted_model import ScriptedWorker
from .turns import turn_held_at_question

# The shared support and the safety tests' home, for `from .conftest import ...` and, for
# the fixtures, for every test of the folder.
__all__ = [
    "SUBENTRY_KINDS",
    "Agent",
    "Talk",
    "async_add_entry",
    "async_setup_agent",
    "async_setup_entry_with_agent",
    "async_setup_entry_with_subentries",
    "clock",
    "demo_house",
    "entity_of",
    "house",
    "lights_only_user",
    "scene",
    "speech",
    "state",
    "subentry",
    "turn_held_at_question",
]


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
async def automations_stop(hass: HomeAssistant) -> AsyncGenerator[None]:
    """Every automation is switched off after the test: a time trigger set up in it outlives
    no test (a module asks for it with `pytestmark = pytest.mark.usefixtures(...)`)."""
    yield
    if "automation" in hass.config.components:
        await hass.services.async_call(
            "automation", "turn_off", {"entity_id": "all"}, blocking=True
        )


@pytest.fixture
async def silent_server(socket_enabled: None) -> AsyncIterator[str]:
    """A server that takes every connection and never says a word (another service's port)."""
    held: list[asyncio.StreamWriter] = []

    async def hold(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(hold, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}"
    for writer in held:
        writer.close()
    server.close()
    await server.wait_closed()


@pytest.fixture
def quick_settle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Devices that do not report their new state are given up on at once.

    Waited for as long as a slow device may take, in a test a moment.
    """
    monkeypatch.setattr(runner, "SETTLE_SECONDS", 0.05)


@pytest.fixture
def dead_bulb(monkeypatch: pytest.MonkeyPatch, quick_settle: None) -> None:
    """The kitchen light's bulb takes the call and stays as it was (no error)."""
    turn_on = DemoLight.async_turn_on

    async def stays_off(light: DemoLight, **kwargs: Any) -> None:
        if light.entity_id != "light.kitchen_lights":
            await turn_on(light, **kwargs)

    monkeypatch.setattr(DemoLight, "async_turn_on", stays_off)


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


async def async_add_helper(hass: HomeAssistant, entry: MockConfigEntry) -> er.RegistryEntry:
    """Add a helper's entry (as the UI makes one) and set it up: it must load; its one entity."""
    assert await async_add_entry(hass, entry)
    [registered] = er.async_entries_for_config_entry(er.async_get(hass), entry.entry_id)
    return registered


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


def entry_state(entry: ConfigEntry) -> ConfigEntryState:
    """The entry's state now. mypy keeps the type an earlier `assert entry.state is ...`
    narrowed it to, even after the awaits that change it: read it here to compare it again."""
    return entry.state


@pytest.fixture
def audit(hass: HomeAssistant) -> list[dict[str, Any]]:
    """Every local_agent_action event fired."""
    events: list[dict[str, Any]] = []

    @callback
    def collect(event: Event) -> None:
        events.append(dict(event.data))

    hass.bus.async_listen(EVENT_ACTION, collect)
    return events


type Assist = Callable[..., Awaitable[list[dict[str, Any]]]]


@pytest.fixture
async def assist(
    hass: HomeAssistant, hass_ws_client: WebSocketGenerator, scripted_agent: Agent
) -> Assist:
    """Say a text to the agent as the Assist dialog does (its pipeline); return the events."""
    assert await async_setup_component(hass, "assist_pipeline", {})

    async def run(text: str, until: str = "run-end", **options: Any) -> list[dict[str, Any]]:
        client = await hass_ws_client(hass)
        await client.send_json_auto_id(
            {
                "type": "assist_pipeline/run",
                "start_stage": "intent",
                "end_stage": "intent",
                "input": {"text": text},
                "pipeline": scripted_agent.entity_id,
                **options,
            }
        )
        assert (await client.receive_json())["success"]
        events: list[dict[str, Any]] = []
        while not events or events[-1]["type"] != until:
            events.append((await client.receive_json())["event"])
        return events

    return run


@pytest.fixture
async def person(hass: HomeAssistant, hass_admin_user: MockUser) -> Context:
    """A real user talking to the agent."""
    return Context(user_id=hass_admin_user.id)


@pytest.fixture
async def talk(agent: Agent, scripted_worker: ScriptedWorker, person: Context) -> Talk:
    """The person talking to the test module's `agent` fixture."""
    return Talk(agent, scripted_worker, person)
