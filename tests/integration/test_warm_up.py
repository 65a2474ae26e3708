"""Warming up (turn/warm_up.py): the prefix is evaluated before the first command, and again
when the home's structure changes; the home list is kept across restarts; a command that has to
wait for the prefix says so first."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
import threading
import time
from typing import Any

from freezegun.api import FrozenDateTimeFactory
import pytest
from pytest_homeassistant_custom_component.common import async_fire_time_changed

from custom_components.local_agent.const import CONF_HISTORY_TOKENS
from custom_components.local_agent.const import CONF_MAX_TOKENS
from custom_components.local_agent.const import CONF_TEMPERATURE
from custom_components.local_agent.const import CONF_THINKING
from custom_components.local_agent.conversation import LocalAgentConversationEntity
from custom_components.local_agent.engine.errors import GenerationCancelledError
from custom_components.local_agent.engine.local.worker import ModelWorker
from custom_components.local_agent.engine.types import Conversation
from custom_components.local_agent.engine.types import Message
from custom_components.local_agent.turn import agent as agent_module
from custom_components.local_agent.turn import home_context
from custom_components.local_agent.turn.agent import AgentOptions
from custom_components.local_agent.turn.defaults import agent_data
from custom_components.local_agent.turn.home_context import time_text
from custom_components.local_agent.turn.warm_up import DEBOUNCE_SECONDS
from homeassistant.components import conversation
from homeassistant.components.conversation.const import DATA_COMPONENT
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import EVENT_HOMEASSISTANT_STOP
from homeassistant.core import CoreState
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import entity_registry as er
from homeassistant.util import dt as dt_util
from testing.agent import LocalAgentHandle
from testing.turn import chat_log_of

from .conftest import Agent
from .conftest import async_setup_agent
from .conftest import speech
from .home import NOT_EXPOSED
from .scripted_model import ScriptedWorker
from .scripted_model import answer


async def _after_debounce(hass: HomeAssistant) -> None:
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=DEBOUNCE_SECONDS + 1))
    await hass.async_block_till_done(wait_background_tasks=True)


async def switch_kitchen_lights(hass: HomeAssistant, service: str) -> None:
    """A state change (no change of the home's structure): "turn_on" or "turn_off"."""
    await hass.services.async_call(
        "light", service, {"entity_id": "light.kitchen_lights"}, blocking=True
    )


Tick = Callable[[int], Awaitable[None]]


@pytest.fixture
def tick(hass: HomeAssistant, freezer: FrozenDateTimeFactory) -> Tick:
    """Move the clock to a minute of the next hour and let that minute's job run.

    The hour follows the real clock the test starts at, so the clock only ever moves forward.
    """
    next_hour = dt_util.utcnow().replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)

    async def to_minute(minute: int) -> None:
        freezer.move_to(next_hour + timedelta(minutes=minute))
        async_fire_time_changed(hass, dt_util.utcnow())
        await hass.async_block_till_done(wait_background_tasks=True)

    return to_minute


@pytest.fixture
async def warm_agent(hass: HomeAssistant, scripted_agent: Agent) -> Agent:
    """The scripted agent once the warm-up it started with has run."""
    await hass.async_block_till_done(wait_background_tasks=True)
    return scripted_agent


async def test_the_prefix_is_warmed_when_the_agent_starts(
    hass: HomeAssistant, warm_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    assert len(scripted_worker.warmed) == 1
    system, tools, room = scripted_worker.warmed[0]
    assert "light.kitchen_lights" in system
    assert tools[:3] == ("climate", "cover", "light")
    assert room == AgentOptions.from_data(agent_data()).turn_room

    scripted_worker.will_write(answer("Hello."))
    await warm_agent.ask("hello")
    assert scripted_worker.requests[0].static_prompt.count(system) == 1  # the same prefix


async def test_structure_changes_warm_it_again_once(
    hass: HomeAssistant, warm_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    registry = er.async_get(hass)

    async_expose_entity(hass, "conversation", NOT_EXPOSED, True)
    registry.async_update_entity("light.bed_light", name="Reading Lamp")
    await _after_debounce(hass)

    assert len(scripted_worker.warmed) == 2  # the changes came together: one warm-up
    system = scripted_worker.warmed[-1][0]
    assert NOT_EXPOSED in system
    assert "Reading Lamp" in system

    area = ar.async_get(hass).async_create("Attic")
    registry.async_update_entity("light.bed_light", area_id=area.id)
    await _after_debounce(hass)
    assert "Attic:" in scripted_worker.warmed[-1][0]


async def test_state_changes_alone_do_not_warm_up(
    hass: HomeAssistant, warm_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    await switch_kitchen_lights(hass, "turn_off")
    await _after_debounce(hass)
    assert len(scripted_worker.warmed) == 1


async def test_a_change_just_before_home_assistant_stops_warms_nothing(
    hass: HomeAssistant, warm_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """Home Assistant stops without unloading entries, and its executor goes before the timer."""
    async_expose_entity(hass, "conversation", NOT_EXPOSED, True)
    hass.set_state(CoreState.stopping)
    try:
        await _after_debounce(hass)
    finally:
        hass.set_state(CoreState.running)
    assert len(scripted_worker.warmed) == 1  # only the start's

    async_expose_entity(hass, "conversation", NOT_EXPOSED, False)
    await _after_debounce(hass)
    assert len(scripted_worker.warmed) == 2  # the control: running, a change warms up


async def test_each_minute_the_next_message_is_prepared_up_to_its_time_line(
    hass: HomeAssistant,
    warm_agent: Agent,
    scripted_worker: ScriptedWorker,
    tick: Tick,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    system = scripted_worker.warmed[-1][0]
    await tick(42)

    static, prepared = scripted_worker.prepared[-1]
    assert system in static
    assert prepared.endswith(f"<|im_start|>user\nNow: {time_text(dt_util.now())}")
    scripted_worker.will_write(answer("Hello."))
    await warm_agent.ask("hello")  # in that minute: it goes on from there
    request = scripted_worker.requests[-1]
    assert request.static_prompt == static
    assert request.dynamic_prompt.startswith(prepared)

    # While its chat session lasts, that conversation's next turn stays the one prepared.
    await tick(44)
    _static, follow_up = scripted_worker.prepared[-1]
    assert "hello" in follow_up
    assert follow_up.endswith(
        f"Hello.<|im_end|>\n<|im_start|>user\nNow: {time_text(dt_util.now())}"
    )

    # A home list that more states outgrew than a message lists is taken again and warmed
    # now, so the next command need not.
    monkeypatch.setattr(home_context, "CHANGE_LIMIT", 0)
    await switch_kitchen_lights(hass, "turn_off")
    prepared_so_far = len(scripted_worker.prepared)
    await tick(45)
    assert len(scripted_worker.prepared) == prepared_so_far
    retaken = scripted_worker.warmed[-1][0]
    assert retaken != system
    assert "kitchen_lights (aliases: cooking light): off" in retaken
    # The conversation's session lasts, but over the old list: a new conversation instead.
    await tick(46)
    _static, prepared = scripted_worker.prepared[-1]
    assert "hello" not in prepared
    assert prepared.endswith(f"<|im_start|>user\nNow: {time_text(dt_util.now())}")
    scripted_worker.will_write(answer("Hello."))
    await warm_agent.ask("hello")  # the command goes on from the list warmed
    assert retaken in scripted_worker.requests[-1].static_prompt


async def test_the_changed_states_are_prepared_with_the_time_line(
    hass: HomeAssistant,
    warm_agent: Agent,
    scripted_worker: ScriptedWorker,
    tick: Tick,
) -> None:
    """A new conversation's changes outlast the minute; a follow-up's come with it too."""
    await switch_kitchen_lights(hass, "turn_off")
    await tick(42)
    _static, prepared = scripted_worker.prepared[-1]
    changes = "<|im_start|>user\nChanged since:\n- light.kitchen_lights: off\n"
    assert prepared.endswith(f"{changes}Now: {time_text(dt_util.now())}")
    scripted_worker.will_write(answer("Hello."))
    first = await warm_agent.ask("hello")  # a new conversation goes on from there
    assert scripted_worker.requests[-1].dynamic_prompt.startswith(prepared)

    await switch_kitchen_lights(hass, "turn_on")
    await tick(43)
    _static, follow_up = scripted_worker.prepared[-1]
    assert "hello" in follow_up
    next_message = follow_up.rsplit("<|im_start|>user\n", 1)[1]
    assert next_message.startswith("Changed since:\n- light.kitchen_lights: on")
    assert next_message.endswith(f"\nNow: {time_text(dt_util.now())}")
    scripted_worker.will_write(answer("Hello again."))
    await warm_agent.ask("and now?", conversation_id=first.conversation_id)
    assert scripted_worker.requests[-1].dynamic_prompt.startswith(follow_up)


async def test_an_outgrown_home_list_is_taken_again_at_most_a_quarter_of_the_time(
    hass: HomeAssistant,
    warm_agent: Agent,
    scripted_worker: ScriptedWorker,
    tick: Tick,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A home whose sensors keep changing must not keep the engine evaluating its prefix."""
    monkeypatch.setattr(home_context, "CHANGE_LIMIT", 0)
    clock = [1000.0]
    monkeypatch.setattr(agent_module, "monotonic", lambda: clock[0])
    real_warm = scripted_worker.warm

    async def warm_taking_a_minute(*args: Any, **kwargs: Any) -> None:
        clock[0] += 60.0
        await real_warm(*args, **kwargs)

    monkeypatch.setattr(scripted_worker, "warm", warm_taking_a_minute)

    async def outgrow_then_tick(service: str, minute: int) -> int:
        await switch_kitchen_lights(hass, service)
        await tick(minute)
        return len(scripted_worker.warmed)

    warmed = len(scripted_worker.warmed)
    # A change of the structure is the debounced warm-up's, not the minute's.
    async_expose_entity(hass, "conversation", NOT_EXPOSED, True)
    agent = LocalAgentHandle(hass, warm_agent.entry, warm_agent.entity_id).agent
    await agent.async_prepare_this_minute()
    assert len(scripted_worker.warmed) == warmed
    await _after_debounce(hass)
    warmed = len(scripted_worker.warmed)

    assert await outgrow_then_tick("turn_off", 1) == warmed + 1
    clock[0] += 179.0  # the retake took 60 s: the next waits 180 s
    assert await outgrow_then_tick("turn_on", 2) == warmed + 1
    clock[0] += 1.0
    assert await outgrow_then_tick("turn_on", 3) == warmed + 2

    # None starts while one runs (a large home's retake outlasts several minutes).
    clock[0] += 1000.0
    entered, release = asyncio.Event(), asyncio.Event()

    async def warm_until_released(*args: Any, **kwargs: Any) -> None:
        if not entered.is_set():  # the first waits
            entered.set()
            await release.wait()
        await real_warm(*args, **kwargs)

    monkeypatch.setattr(scripted_worker, "warm", warm_until_released)
    await switch_kitchen_lights(hass, "turn_off")
    running = hass.async_create_task(agent.async_prepare_this_minute())
    await entered.wait()
    await switch_kitchen_lights(hass, "turn_on")
    await agent.async_prepare_this_minute()  # outgrown again, while the first still runs
    release.set()
    await running
    assert len(scripted_worker.warmed) == warmed + 3


async def test_a_warm_up_that_outlasts_its_minute_prepares_the_new_time_line(
    hass: HomeAssistant,
    warm_agent: Agent,
    scripted_worker: ScriptedWorker,
    tick: Tick,
    freezer: FrozenDateTimeFactory,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A large home's prefix takes minutes, and the minute's job prepares nothing meanwhile."""
    await tick(10)
    real_warm = scripted_worker.warm
    during_warm: list[Callable[[], Awaitable[None]]] = []

    async def warm_then(*args: Any, **kwargs: Any) -> None:
        await real_warm(*args, **kwargs)
        for step in during_warm:
            await step()

    monkeypatch.setattr(scripted_worker, "warm", warm_then)

    async def minute_passes() -> None:
        freezer.tick(timedelta(minutes=1))

    async def structure_changes(exposed: bool) -> list[tuple[str, str]]:
        prepared = len(scripted_worker.prepared)
        async_expose_entity(hass, "conversation", NOT_EXPOSED, exposed)
        await _after_debounce(hass)
        return scripted_worker.prepared[prepared:]

    assert await structure_changes(True) == []  # within its minute: prepared with it

    during_warm[:] = [minute_passes]
    [(static, prepared)] = await structure_changes(False)
    assert scripted_worker.warmed[-1][0] in static
    assert prepared.endswith(f"<|im_start|>user\nNow: {time_text(dt_util.now())}")

    # A command took another home list meanwhile: the context holds that one now.
    async def command_takes_another_list() -> None:
        monkeypatch.setattr(home_context, "CHANGE_LIMIT", 0)
        await switch_kitchen_lights(hass, "turn_off")
        scripted_worker.will_write(answer("Hello."))
        await warm_agent.ask("hello")

    during_warm[:] = [minute_passes, command_takes_another_list]
    [(_static, follow_up)] = await structure_changes(True)
    assert "hello" in follow_up  # the command's next turn, not an opening over the old list


async def test_the_home_list_survives_a_restart(
    hass: HomeAssistant, warm_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    """The same prefix text after a reload, so the engine can restore it from disk."""
    before = scripted_worker.warmed[-1][0]
    await switch_kitchen_lights(hass, "turn_off")
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(minutes=5))  # the store saves
    await hass.async_block_till_done()

    assert await hass.config_entries.async_reload(warm_agent.entry.entry_id)
    await hass.async_block_till_done(wait_background_tasks=True)

    assert scripted_worker.warmed[-1][0] == before
    scripted_worker.will_write(answer("Hello."))
    await warm_agent.ask("hello")
    request = scripted_worker.requests[-1]
    assert before in request.static_prompt
    # What changed since the kept list goes into the message, as for any change.
    assert "- light.kitchen_lights: off" in request.dynamic_prompt


async def test_a_command_waiting_for_the_prefix_says_so_first(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    scripted_worker.warming_left = 41.2
    scripted_worker.will_write(answer("Hello."), answer("Hello again."))
    streamed: list[str] = []
    handle = LocalAgentHandle(hass, scripted_agent.entry, scripted_agent.entity_id)

    result = await handle.async_ask(
        "hello", on_delta=lambda delta: streamed.append(delta.get("content") or "")
    )

    chat_log = chat_log_of(hass, result)
    said = [c.content for c in chat_log.content if isinstance(c, conversation.AssistantContent)]
    assert said == ["I am still reading your home, about 42 seconds.\n\n", "Hello."]
    # Streamed as it is said (the Assist dialog shows it while the command waits), first.
    assert [text for text in streamed if text][:1] == [said[0]]
    assert speech(result) == "Hello."
    scripted_worker.warming_left = 1.0  # short waits say nothing
    await scripted_agent.ask("hi", conversation_id=result.conversation_id)
    prompt = scripted_worker.requests[-1].dynamic_prompt
    assert "still reading your home" not in prompt  # never part of what the model reads
    assert "Hello.<|im_end|>" in prompt


async def test_a_real_model_evaluates_little_in_the_first_turn_and_after_a_reload(
    hass: HomeAssistant, demo_home: None, qwen35_model_path: Path
) -> None:
    # What is asserted is the prompt's evaluation: a short answer without reasoning keeps the
    # turn far inside its time limit, which 1,000 random tokens on a busy machine outran.
    short_answer = {CONF_THINKING: False, CONF_MAX_TOKENS: 8}
    agent = await async_setup_agent(
        hass,
        qwen35_model_path,
        **{CONF_TEMPERATURE: 0.0, CONF_HISTORY_TOKENS: 500, **short_answer},
    )
    await hass.async_block_till_done(wait_background_tasks=True)
    folder = Path(hass.config.path("local_agent", "prefixes"))
    saved = await hass.async_add_executor_job(lambda: list(folder.glob("*.state")))
    assert len(saved) == 1

    assert await hass.config_entries.async_reload(agent.entry.entry_id)
    worker = agent.entry.runtime_data.worker
    assert isinstance(worker, ModelWorker)
    await hass.async_block_till_done(wait_background_tasks=True)
    await agent.ask("hello")
    entity = hass.data[DATA_COMPONENT].get_entity(agent.entity_id)
    assert isinstance(entity, LocalAgentConversationEntity)
    assert entity.agent is not None
    report = entity.agent.last_report
    assert report is not None
    assert report.last is not None
    stats = report.last
    assert stats.cached_tokens > 0.8 * stats.prompt_tokens  # the prefix was restored, not read


async def test_a_batch_running_when_home_assistant_stops_ends_before_its_threads_are_stopped(
    hass: HomeAssistant, demo_home: None, qwen35_model_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Home Assistant interrupts executor threads 10 s after its last stage: a batch llama.cpp
    is in (minutes on a slow board) ended as a CRITICAL traceback of a thread killed in it."""
    agent = await async_setup_agent(hass, qwen35_model_path)
    await hass.async_block_till_done(wait_background_tasks=True)
    worker = agent.entry.runtime_data.worker
    assert isinstance(worker, ModelWorker)
    in_batch = threading.Event()
    batch_ended = threading.Event()

    def one_long_batch(*_args: object, **_options: object) -> None:
        in_batch.set()
        time.sleep(1.0)  # llama.cpp does not stop inside a background batch
        batch_ended.set()
        raise GenerationCancelledError

    monkeypatch.setattr(worker._model, "warm", one_long_batch)
    conversation_text = Conversation("system", (Message("user", "hello"),))
    hass.async_create_background_task(worker.prepare(conversation_text, ()), "prepare")
    assert await hass.async_add_executor_job(in_batch.wait, 60)
    ended_when_stopping: list[bool] = []
    hass.bus.async_listen_once(
        EVENT_HOMEASSISTANT_STOP, lambda _event: ended_when_stopping.append(batch_ended.is_set())
    )

    await hass.async_stop(force=True)

    assert ended_when_stopping == [True]
