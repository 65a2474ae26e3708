"""One call path: few files from "unlock the front door" to "yes", one runner, checks once.

The path starts where the agent gets the model's calls (and asks its question) and where it
gets the person's reply; the prompt and the model of the first turn are not part of it.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
import sys
from types import FrameType
from typing import Any
from unittest.mock import patch

import pytest
from pytest_homeassistant_custom_component.common import MockUser

from custom_components.local_agent.const import CONF_HOME_TOOLS
from custom_components.local_agent.safety.gate import SafetyGate
from custom_components.local_agent.turn.agent import ConversationAgent
from custom_components.local_agent.turn.agent import async_turn_context
from homeassistant.auth.permissions import PolicyPermissions
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.core import ServiceRegistry

from .call_path import product_file
from .call_path import traced
from .conftest import Agent
from .conftest import async_setup_agent
from .conftest import speech
from .conftest import state
from .scripted_model import ScriptedWorker
from .scripted_model import SeenRequest
from .scripted_model import answer
from .scripted_model import call

ROOTS = (
    async_turn_context,  # who asks
    ConversationAgent._async_run_calls,  # the model's calls: validated, decided, run or held
    SafetyGate.async_hold,  # the question
    ConversationAgent._async_reply,  # the person's answer, and running what it confirms
)


async def test_unlock_then_yes_crosses_few_files_and_never_comes_back_up(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    async_expose_entity(hass, "conversation", "lock.front_door", True)
    # A first turn builds what every later turn reuses (the service catalog, the home list).
    await scripted_agent.ask("hello", context=person)
    scripted_worker.will_write(answer(call("lock", action="unlock", entity_id="lock.front_door")))

    with traced(ROOTS) as path:
        question = await scripted_agent.ask("unlock the front door", context=person)
        done = await scripted_agent.ask(
            "yes", conversation_id=question.conversation_id, context=person
        )

    assert speech(question) == "Unlock Front Door? Say yes to confirm."
    assert speech(done) == "Done: unlock Front Door."
    assert state(hass, "lock.front_door") == "unlocked"
    print("files:", path.files)
    print("main line:", path.main_line)
    print("calls:", {k: sorted(v) for k, v in path.calls.items()})
    assert path.from_below == []
    # The gate only decides: what it allows or holds, the agent checks and runs through the
    # runner; the gate reaches neither the runner nor the service registry.
    assert "home/runner.py" not in path.calls["safety/gate.py"]
    # 15, measured again when the gate stopped calling the runner: each file is still entered
    # for work of its own, none only to be passed through. safety/reads.py is one module for
    # what the home's programs read, and the reading kept between questions (a question's work
    # no longer grows with the automations in the house). Each other file is one concern the
    # path needs (see the module docstrings): the plan (home/actions.py) is shared by the
    # planner, the gate and the runner; entity names (home/entity_view.py), references to ids
    # (home/resolver.py), the service catalog, the audit trail and the reply's words
    # (engine/words.py) are computed for this call.
    assert len(path.files) <= 15
    # 7 since a name is said on one line and bounded as the home list cuts it: call_texts hands
    # the name to entity_view.one_line (a leaf), so the question cannot carry a name's line breaks.
    assert len(path.main_line) <= 7


def nearest_product_file() -> str | None:
    """The product file nearest on the current call stack."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if (name := product_file(frame.f_code)) is not None:
            return name
        frame = frame.f_back
    return None


@pytest.fixture
def service_callers(hass: HomeAssistant) -> Iterator[list[str | None]]:
    """The product file that made each service call (None: not the product)."""
    callers: list[str | None] = []
    original = ServiceRegistry.async_call

    async def recording(self: ServiceRegistry, *args: Any, **kwargs: Any) -> Any:
        callers.append(nearest_product_file())
        return await original(self, *args, **kwargs)

    with patch.object(ServiceRegistry, "async_call", recording):
        yield callers


@pytest.mark.parametrize(
    ("tool_options", "unlock_call"),
    [
        ({}, ("lock", {"action": "unlock", "entity_id": "lock.front_door"})),
        (
            {CONF_HOME_TOOLS: False, CONF_LLM_HASS_API: ["assist"]},
            ("HassTurnOff", {"name": "Front Door"}),
        ),
    ],
    ids=["our tools", "assist"],
)
async def test_every_call_immediate_or_confirmed_runs_in_the_one_runner(
    hass: HomeAssistant,
    demo_home: None,
    scripted_worker: ScriptedWorker,
    person: Context,
    service_callers: list[str | None],
    tool_options: dict[str, Any],
    unlock_call: tuple[str, dict[str, Any]],
) -> None:
    async_expose_entity(hass, "conversation", "lock.front_door", True)
    agent = await async_setup_agent(hass, scripted_worker.info.path, **tool_options)

    def offered(suffix: str, arguments: dict[str, Any]) -> Callable[[SeenRequest], str]:
        def write(request: SeenRequest) -> str:
            name = next(spec.name for spec in request.tools if spec.name.endswith(suffix))
            return answer(call(name, **arguments))

        return write

    light = (
        ("light", {"action": "turn_on", "entity_id": "light.bed_light"})
        if not tool_options
        else ("HassTurnOn", {"name": "Bed Light"})
    )
    # Our tools' plain action is answered by the agent itself; an API's goes back to the model.
    scripted_worker.will_write(offered(*light), *([answer("On.")] if tool_options else []))
    await agent.ask("bed light on", context=person)
    scripted_worker.will_write(offered(*unlock_call))
    question = await agent.ask("unlock the front door", context=person)
    await agent.ask("yes", conversation_id=question.conversation_id, context=person)

    assert state(hass, "light.bed_light") == "on"
    assert state(hass, "lock.front_door") == "unlocked"
    # Home Assistant's intent handlers call services from tasks of their own (no product
    # frame on their stack); every call the product makes itself comes from the runner.
    made = [caller for caller in service_callers if caller is not None]
    assert set(made) <= {"home/runner.py"}
    if not tool_options:
        assert len(made) == 2


async def test_an_immediate_call_checks_permission_once(
    hass: HomeAssistant, scripted_agent: Agent, scripted_worker: ScriptedWorker
) -> None:
    user = MockUser().add_to_hass(hass)
    user.mock_policy({"entities": {"all": True}})
    checks: list[str | None] = []
    original = PolicyPermissions.check_entity

    def counting(self: PolicyPermissions, entity_id: str, key: str) -> bool:
        # Our own checks only (Home Assistant's service call checks once more, for itself).
        if (caller := product_file(sys._getframe(1).f_code)) is not None:
            checks.append(caller)
        return original(self, entity_id, key)

    scripted_worker.will_write(
        answer(call("light", action="turn_on", entity_id="light.bed_light")), answer("On.")
    )
    with patch.object(PolicyPermissions, "check_entity", counting):
        await scripted_agent.ask("bed light on", context=Context(user_id=user.id))

    assert state(hass, "light.bed_light") == "on"
    assert checks == ["home/runner.py"]
