"""AI tasks: ai_task.generate_data on the entry's model, with real inference on the test models.

The qwen35 test model has random weights: with a structure, the grammar alone makes what it
writes parse and have the declared types. Without one it writes gibberish text, returned as is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
import shutil
from typing import Any
from unittest.mock import patch

from freezegun.api import FrozenDateTimeFactory
import numpy as np
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.local_agent.ai_task import LocalAgentTaskEntity
from custom_components.local_agent.const import CONF_CONTEXT_SIZE
from custom_components.local_agent.const import CONF_MAX_TOKENS
from custom_components.local_agent.const import CONF_MODEL_PATH
from custom_components.local_agent.const import CONF_TEMPERATURE
from custom_components.local_agent.const import CONF_THINKING
from custom_components.local_agent.const import CONF_THINKING_BUDGET
from custom_components.local_agent.const import CONF_THREADS
from custom_components.local_agent.const import SUBENTRY_AI_TASK
from custom_components.local_agent.const import SUBENTRY_CONVERSATION
from custom_components.local_agent.engine.generation import GenerationRequest
from custom_components.local_agent.engine.local.llama import LoadedModel
from custom_components.local_agent.flows.subentry import default_agent_name
from custom_components.local_agent.turn.defaults import agent_data
from custom_components.local_agent.turn.defaults import ai_task_data
from homeassistant.components import ai_task
from homeassistant.components import conversation
from homeassistant.components.ai_task.const import DATA_COMPONENT as AI_TASK_COMPONENT
from homeassistant.config_entries import ConfigEntryState
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_NAME
from homeassistant.const import STATE_UNAVAILABLE
from homeassistant.core import Context
from homeassistant.core import Event
from homeassistant.core import HomeAssistant
from homeassistant.core import callback
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers.chat_session import async_get_chat_session
from homeassistant.setup import async_setup_component
from testing.any_tokens import longest_structure_tokens
from testing.model_files import llama_threads
from testing.stand_in import SeenRequest
from tests.engine.runtime_support import next_logits
from tests.engine.runtime_support import tokens_of

from .conftest import async_remove_subentry
from .conftest import async_setup_entry_with_subentries
from .conftest import entity_of
from .conftest import entry_state
from .conftest import friendly_name
from .conftest import generate_data
from .conftest import subentry
from .flow_helpers import async_add_subentry
from .flow_helpers import suggested_values

MARKUP = ("<think>", "</think>", "<tool_call>")

# A notification classified into fields, as an automation would ask (the service's format).
STRUCTURE: dict[str, Any] = {
    "urgent": {"selector": {"boolean": {}}, "required": True},
    "room": {"selector": {"text": {}}, "required": True},
    "count": {"selector": {"number": {"min": 0, "max": 10}}, "required": True},
    "kind": {"selector": {"select": {"options": ["alarm", "info"]}}, "required": True},
    "note": {"selector": {"text": {}}},
}


def task_subentry(title: str, **options: Any) -> ConfigSubentryData:
    # Room for the longest answer the structure's grammar allows: it always ends by itself.
    room = longest_structure_tokens(STRUCTURE)
    return subentry(SUBENTRY_AI_TASK, title, {**ai_task_data(), CONF_MAX_TOKENS: room, **options})


def agent_subentry(title: str) -> ConfigSubentryData:
    return subentry(SUBENTRY_CONVERSATION, title, agent_data())


@pytest.fixture
def requests() -> Iterator[list[SeenRequest]]:
    """Every request the in-process engine runs, and how many run at once (at most 1)."""
    seen: list[SeenRequest] = []
    original = LoadedModel.generate
    running = [0, 0]  # now, most

    def generate(self: LoadedModel, request: GenerationRequest, *args: Any) -> Any:
        seen.append(SeenRequest(request, self.render(request)))
        running[0] += 1
        running[1] = max(running)
        try:
            return original(self, request, *args)
        finally:
            running[0] -= 1

    with patch.object(LoadedModel, "generate", generate):
        yield seen
    assert running[1] <= 1, "two generations ran on one model at once"


@pytest.fixture
def plain_text(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the in-process model from ending its turn or writing think or call tags outside a
    grammar, whatever it would pick: an answer of all its tokens, of plain text."""
    sample = LoadedModel.sample_next
    banned: dict[int, list[int]] = {}

    def without(self: LoadedModel, sampler: Any, *, grammar: bool) -> int:
        if not grammar:
            tokens = banned.setdefault(id(self), tokens_of(self, endless=True, never=MARKUP))
            next_logits(self)[tokens] = -np.inf
        return sample(self, sampler, grammar=grammar)

    monkeypatch.setattr(LoadedModel, "sample_next", without)


async def setup_entry(
    hass: HomeAssistant, model_path: Path, *subentries: ConfigSubentryData, title: str = "Tiny"
) -> MockConfigEntry:
    return await async_setup_entry_with_subentries(
        hass,
        *subentries,
        title=title,
        data={CONF_MODEL_PATH: str(model_path)},
        # One thread: the test models gain nothing from more, and a busy machine stays steady.
        # The context holds a prompt and the longest structured answer.
        options={CONF_THREADS: llama_threads(1), CONF_CONTEXT_SIZE: 4096},
        unique_id=str(model_path),
    )


def only_subentry(entry: MockConfigEntry, subentry_type: str) -> str:
    return next(s for s, sub in entry.subentries.items() if sub.subentry_type == subentry_type)


@pytest.mark.parametrize("thinking", [False, True])
async def test_structure_is_always_valid_even_from_random_weights(
    hass: HomeAssistant,
    qwen35_model_path: Path,
    requests: list[SeenRequest],
    thinking: bool,
) -> None:
    options = {CONF_THINKING: thinking, CONF_THINKING_BUDGET: 16, CONF_TEMPERATURE: 1.0}
    entry = await setup_entry(hass, qwen35_model_path, task_subentry("Task", **options))
    entity_id = entity_of(hass, "ai_task", only_subentry(entry, SUBENTRY_AI_TASK))

    for _ in range(40):  # random weights at temperature 1: many answers, each must parse
        response = await generate_data(
            hass, entity_id, instructions="Smoke in the kitchen!", structure=STRUCTURE
        )
        data = response["data"]
        assert isinstance(data, dict), data
        assert isinstance(data["urgent"], bool)
        assert isinstance(data["room"], str)
        assert isinstance(data["count"], int | float)
        assert not isinstance(data["count"], bool)
        assert data["count"] >= 0
        assert data["kind"] in ("alarm", "info")
        assert set(data) <= set(STRUCTURE)

    request = requests[-1]
    budget = request.request.thinking_budget or 0
    assert request.request.max_tokens >= budget + longest_structure_tokens(STRUCTURE)
    assert request.tools == ()  # an AI task is never offered a tool
    assert request.answer_schema is not None
    assert request.answer_schema["required"] == ["urgent", "room", "count", "kind"]
    prompt = request.static_prompt + request.dynamic_prompt
    assert "Smoke in the kitchen!" in prompt
    assert "JSON" not in prompt  # the grammar does the work, not the prompt
    assert request.prompt.starts_in_reasoning is thinking
    assert request.thinking_budget == (16 if thinking else None)


async def test_plain_text_without_structure_and_thinking_stays_out(
    hass: HomeAssistant,
    qwen35_model_path: Path,
    requests: list[SeenRequest],
    freezer: FrozenDateTimeFactory,
    plain_text: None,
) -> None:
    # Greedy at a fixed time (the prompt holds it): the same gibberish answer every run.
    freezer.move_to("2026-11-30 18:30:00+00:00")
    options = {
        CONF_THINKING: True,
        CONF_THINKING_BUDGET: 8,
        CONF_MAX_TOKENS: 24,
        CONF_TEMPERATURE: 0.0,
    }
    entry = await setup_entry(hass, qwen35_model_path, task_subentry("Task", **options))
    entity_id = entity_of(hass, "ai_task", only_subentry(entry, SUBENTRY_AI_TASK))

    response = await generate_data(hass, entity_id, instructions="Summarise: all lights are off.")

    assert isinstance(response["data"], str)
    assert response["data"]
    assert requests[-1].answer_schema is None
    assert requests[-1].prompt.starts_in_reasoning
    for tag in ("<think>", "</think>", "<|im_end|>", "<|im_start|>"):
        assert tag not in response["data"]


async def test_gemma_real_weights_write_the_structure(
    hass: HomeAssistant, gemma_model_path: Path
) -> None:
    options = {CONF_TEMPERATURE: 0.0, CONF_MAX_TOKENS: 48, CONF_THINKING: False}
    entry = await setup_entry(hass, gemma_model_path, task_subentry("Gemma task", **options))
    entity_id = entity_of(hass, "ai_task", only_subentry(entry, SUBENTRY_AI_TASK))

    structured = await generate_data(
        hass,
        entity_id,
        instructions="Is the house on fire? Answer yes or no.",
        structure={"answer": {"selector": {"select": {"options": ["yes", "no"]}}}},
    )

    # This base model, given a chat prompt, ends its turn at once; the grammar made it answer.
    assert structured["data"]["answer"] in ("yes", "no")


async def test_automation_uses_the_result_of_generate_data(
    hass: HomeAssistant, qwen35_model_path: Path
) -> None:
    """An automation asks for a structure and uses its typed fields in a later action."""
    options = {CONF_THINKING: False, CONF_TEMPERATURE: 1.0}
    entry = await setup_entry(hass, qwen35_model_path, task_subentry("Task", **options))
    entity_id = entity_of(hass, "ai_task", only_subentry(entry, SUBENTRY_AI_TASK))
    seen: list[Event[Any]] = []

    @callback
    def record(event: Event[Any]) -> None:
        seen.append(event)

    hass.bus.async_listen("classified", record)
    assert await async_setup_component(
        hass,
        "automation",
        {
            "automation": {
                "trigger": {"platform": "event", "event_type": "notification"},
                "action": [
                    {
                        "action": "ai_task.generate_data",
                        "data": {
                            "task_name": "classify",
                            "entity_id": entity_id,
                            "instructions": "Classify: {{ trigger.event.data.text }}",
                            "structure": STRUCTURE,
                        },
                        "response_variable": "result",
                    },
                    {
                        "event": "classified",
                        "event_data": {
                            "urgent": "{{ result.data.urgent }}",
                            "kind": "{{ result.data.kind }}",
                            "is_bool": "{{ result.data.urgent is boolean }}",
                        },
                    },
                ],
            }
        },
    )

    hass.bus.async_fire("notification", {"text": "Water leak under the sink"})
    await hass.async_block_till_done()

    assert len(seen) == 1
    assert seen[0].data["is_bool"] is True
    assert seen[0].data["kind"] in ("alarm", "info")


async def _run_task(hass: HomeAssistant, entity_id: str, task: ai_task.GenDataTask) -> Any:
    entity = hass.data[AI_TASK_COMPONENT].get_entity(entity_id)
    assert isinstance(entity, LocalAgentTaskEntity)
    with async_get_chat_session(hass) as session:
        return await entity.internal_async_generate_data(session, task)


async def test_attachments_the_model_cannot_read_are_refused(
    hass: HomeAssistant, qwen35_model_path: Path, tmp_path: Path, requests: list[SeenRequest]
) -> None:
    entry = await setup_entry(hass, qwen35_model_path, task_subentry("Task", thinking=False))
    entity_id = entity_of(hass, "ai_task", only_subentry(entry, SUBENTRY_AI_TASK))
    image = tmp_path / "snapshot.jpg"
    image.write_bytes(b"\xff\xd8\xff\xe0 not text")
    notes = tmp_path / "notes.txt"
    notes.write_text("The boiler pressure is 0.4 bar.", encoding="utf-8")

    def attach(path: Path, mime_type: str) -> conversation.Attachment:
        return conversation.Attachment(f"media-source://x/{path.name}", mime_type, path)

    with pytest.raises(HomeAssistantError) as caught:
        await _run_task(
            hass,
            entity_id,
            ai_task.GenDataTask(
                name="look", instructions="What is this?", attachments=[attach(image, "image/jpeg")]
            ),
        )
    assert caught.value.translation_key == "attachment_not_text"
    assert caught.value.translation_placeholders == {
        "name": "snapshot.jpg",
        "mime_type": "image/jpeg",
    }
    assert "reads text only" in str(caught.value)
    assert requests == []  # refused before the model was asked anything

    # A text attachment is read into the prompt.
    result = await _run_task(
        hass,
        entity_id,
        ai_task.GenDataTask(
            name="read",
            instructions="Is the pressure fine?",
            attachments=[attach(notes, "text/plain")],
        ),
    )
    assert isinstance(result.data, str)
    assert "The boiler pressure is 0.4 bar." in requests[-1].dynamic_prompt


async def test_tasks_share_the_agents_model_and_queue_and_can_be_cancelled(
    hass: HomeAssistant, qwen35_model_path: Path, requests: list[SeenRequest]
) -> None:
    entry = await setup_entry(
        hass,
        qwen35_model_path,
        agent_subentry("Agent"),
        task_subentry("Task A", thinking=False),
        task_subentry("Task B", thinking=False),
    )
    task_ids = [s for s, sub in entry.subentries.items() if sub.subentry_type == SUBENTRY_AI_TASK]
    a, b = (entity_of(hass, "ai_task", s) for s in task_ids)
    worker = entry.runtime_data.worker
    entities = [hass.data[AI_TASK_COMPONENT].get_entity(e) for e in (a, b)]
    for task_entity in entities:
        assert isinstance(task_entity, LocalAgentTaskEntity)
        assert task_entity.entry.runtime_data.worker is worker

    # Two tasks and a conversation at once: one generation at a time (the fixture checks).
    agent_id = entity_of(hass, "conversation", only_subentry(entry, SUBENTRY_CONVERSATION))
    results = await asyncio.gather(
        generate_data(hass, a, instructions="one", structure=STRUCTURE),
        generate_data(hass, b, instructions="two", structure=STRUCTURE),
        conversation.async_converse(hass, "hello", None, Context(), agent_id=agent_id),
    )
    assert isinstance(results[0]["data"], dict)
    assert isinstance(results[1]["data"], dict)
    assert len(requests) >= 3

    # Cancelling the caller stops its generation and frees the model for the next one.
    pending = hass.async_create_task(generate_data(hass, a, instructions="long " * 200))
    for _ in range(10_000):  # until the task is queued on the model
        if worker.busy:
            break
        await asyncio.sleep(0)
    assert worker.busy
    pending.cancel()
    with pytest.raises(asyncio.CancelledError):
        await pending
    assert not worker.busy
    after = await generate_data(hass, b, instructions="again", structure=STRUCTURE)
    assert isinstance(after["data"], dict)


async def test_ai_tasks_come_and_go_without_reloading_the_model(
    hass: HomeAssistant, qwen35_model_path: Path, model_loads: list[Path]
) -> None:
    entry = await setup_entry(hass, qwen35_model_path, agent_subentry("Agent"), title="Tiny Qwen")
    agent = entity_of(hass, "conversation", only_subentry(entry, SUBENTRY_CONVERSATION))
    worker = entry.runtime_data.worker
    assert len(model_loads) == 1

    result = await async_add_subentry(hass, entry.entry_id, SUBENTRY_AI_TASK)
    assert result["type"] is FlowResultType.FORM
    suggested = suggested_values(result["data_schema"])
    assert suggested[CONF_NAME] == "Local Agent AI Task (Tiny Qwen)"
    form = {**ai_task_data(), CONF_NAME: suggested[CONF_NAME], CONF_THINKING: False}
    result = await hass.config_entries.subentries.async_configure(result["flow_id"], form)
    await hass.async_block_till_done()
    assert result["type"] is FlowResultType.CREATE_ENTRY
    task_id = only_subentry(entry, SUBENTRY_AI_TASK)
    task = entity_of(hass, "ai_task", task_id)
    assert friendly_name(hass, task) == "Local Agent AI Task (Tiny Qwen)"
    assert (await generate_data(hass, task, instructions="hi"))["data"]

    # A second one gets a name of its own.
    assert default_agent_name(hass, entry.title, SUBENTRY_AI_TASK) == (
        "Local Agent AI Task (Tiny Qwen) 2"
    )

    # Reconfigure: new name, thinking on; then remove it.
    result = await entry.start_subentry_reconfigure_flow(hass, task_id)
    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"], {**form, CONF_NAME: "Classifier", CONF_THINKING: True}
    )
    await hass.async_block_till_done()
    assert result["reason"] == "reconfigure_successful"
    assert friendly_name(hass, task) == "Classifier"

    await async_remove_subentry(hass, entry, task_id, task)

    assert len(model_loads) == 1
    assert entry.state is ConfigEntryState.LOADED
    assert entry.runtime_data.worker is worker
    agent_state = hass.states.get(agent)
    assert agent_state is not None
    assert agent_state.state != "unavailable"


async def test_a_task_whose_model_file_is_gone_says_why_not_that_it_is_not_found(
    hass: HomeAssistant, tmp_path: Path, qwen35_model_path: Path
) -> None:
    """The model file removed, the entry reloaded: a task said "AI Task entity … not found".

    The entry waits for its file (setup retry), so the AI task entity was gone and an
    automation's `ai_task.generate_data` failed with core's "not found". It now stays,
    unavailable, and the task fails saying that the model is not loaded and why.
    """
    model = tmp_path / "model.gguf"
    shutil.copy(qwen35_model_path, model)
    entry = await setup_entry(hass, model, task_subentry("Task"))
    entity_id = entity_of(hass, "ai_task", only_subentry(entry, SUBENTRY_AI_TASK))
    model.unlink()
    await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()
    assert entry_state(entry) is ConfigEntryState.SETUP_RETRY

    with pytest.raises(HomeAssistantError) as failed:
        await generate_data(hass, entity_id, instructions="Summarise the day")
    said = str(failed.value)
    assert said.startswith(f"The task cannot run: the model {entry.title} is not loaded.")
    assert f"The model file {model} does not exist." in said
    state = hass.states.get(entity_id)
    assert state is not None
    assert state.state == STATE_UNAVAILABLE

    shutil.copy(qwen35_model_path, model)
    await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()
    assert entry_state(entry) is ConfigEntryState.LOADED
    assert isinstance(hass.data[AI_TASK_COMPONENT].get_entity(entity_id), LocalAgentTaskEntity)
