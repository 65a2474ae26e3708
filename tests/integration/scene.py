"""The safety tests' home: a house of locks, a garage door, valves and an alarm, the scene of a
person talking to agents on it (`Scene`, the `scene` fixture), and the helpers that script the
model aiming tools at it. conftest.py offers its fixtures to every test of the folder."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from collections.abc import Callable
from dataclasses import dataclass
import json
from typing import Any
from typing import ClassVar

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.common import MockUser

from custom_components.local_agent.const import CONF_CONFIRMATION_PIN
from custom_components.local_agent.const import CONF_HOME_TOOLS
from custom_components.local_agent.engine.markup import REASONING_CLOSE
from custom_components.local_agent.safety import confirmation
from homeassistant.components import conversation
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.const import Platform
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers import area_registry as ar
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import floor_registry as fr
from homeassistant.setup import async_setup_component
from testing.demo_home import instant_demo
from testing.home_builder import async_add_script
from testing.home_builder import async_expose_only
from testing.home_builder import async_place_in_area
from testing.turn import chat_log_of
from testing.turn import results_in

from .agents import Agent
from .agents import Talk
from .agents import async_setup_agent
from .agents import speech
from .agents import state
from .audit_log import outcomes
from .scripted_model import Script
from .scripted_model import ScriptedWorker
from .scripted_model import SeenRequest
from .scripted_model import answer
from .scripted_model import call
from .turns import ask_changing_nothing

PLATFORMS = [
    Platform.ALARM_CONTROL_PANEL,
    Platform.COVER,
    Platform.LIGHT,
    Platform.LOCK,
    Platform.MEDIA_PLAYER,
    Platform.VALVE,
]
SENSITIVE = (
    "lock.front_door",
    "lock.back_door",
    "lock.openable_lock",
    "cover.garage_door",
    "valve.orchard",
    "valve.front_garden",
    "alarm_control_panel.security",
)
EXPOSED = (
    *SENSITIVE,
    "cover.hall_window",
    "light.kitchen_lights",
    "light.bed_light",
    "media_player.living_room",
    "script.open_up",
)
SATELLITE_ID = "satellite-in-the-garage"


def sensitive_states(hass: HomeAssistant) -> dict[str, str]:
    return {entity_id: state(hass, entity_id) for entity_id in SENSITIVE}


def template_lock(name: str, unique_id: str, *, unlock: str) -> dict[str, Any]:
    """A template lock that is input_boolean.<unique_id>_locked; locking turns that on,
    unlocking runs input_boolean.<unlock> on it."""
    boolean = f"input_boolean.{unique_id}_locked"
    return {
        "name": name,
        "unique_id": unique_id,
        "state": f"{{{{ 'locked' if is_state('{boolean}', 'on') else 'unlocked' }}}}",
        "lock": {"action": "input_boolean.turn_on", "target": {"entity_id": boolean}},
        "unlock": {"action": f"input_boolean.{unlock}", "target": {"entity_id": boolean}},
    }


@pytest.fixture
async def house(hass: HomeAssistant) -> AsyncGenerator[None]:
    """Locks, a garage door, valves, an alarm, lights, a player and a script that unlocks.

    Hall (back door, hall window) and Garage (garage door, orchard valve) are on the ground
    floor; the back door answers to the alias "main entrance".
    """
    entry = MockConfigEntry(domain="demo")
    entry.add_to_hass(hass)
    with instant_demo(PLATFORMS):
        assert await hass.config_entries.async_setup(entry.entry_id)
        # Demo locks have no registry entry; this one has, so it can have an area and alias.
        assert await async_setup_component(
            hass,
            "input_boolean",
            {
                "input_boolean": {
                    "back_door_locked": {"initial": True},
                    "stuck_door_locked": {"initial": True},
                }
            },
        )
        assert await async_setup_component(
            hass,
            "template",
            {
                "template": [
                    {
                        "lock": [
                            template_lock("Back Door", "back_door", unlock="turn_off"),
                            # Its motor is broken: unlocking "succeeds" and changes nothing.
                            template_lock("Stuck Door", "stuck_door", unlock="turn_on"),
                        ]
                    }
                ]
            },
        )
        await async_add_script(hass, "open_up", "Open up", "lock.unlock", "lock.front_door")
        await hass.async_block_till_done()
        async_expose_only(hass, EXPOSED)
        ground = fr.async_get(hass).async_create("Ground")
        areas = ar.async_get(hass)
        hall = areas.async_create("Hall", floor_id=ground.floor_id)
        garage = areas.async_create("Garage", floor_id=ground.floor_id)
        entities = er.async_get(hass)
        devices = dr.async_get(hass)
        for entity_id, area in (
            ("lock.back_door", hall),
            ("cover.hall_window", hall),
            ("cover.garage_door", garage),
            ("valve.orchard", garage),
        ):
            assert entities.async_get(entity_id) is not None, entity_id
            async_place_in_area(hass, entity_id, area.id)
        entities.async_update_entity("lock.back_door", aliases=[er.COMPUTED_NAME, "main entrance"])
        satellite = devices.async_get_or_create(
            config_entry_id=entry.entry_id, identifiers={("test", SATELLITE_ID)}
        )
        devices.async_update_device(satellite.id, area_id=garage.id)
        yield
        # Demo covers move on a timer: stop them so no timer outlives the test.
        await hass.services.async_call("cover", "stop_cover", {"entity_id": "all"}, blocking=True)
        await hass.services.async_call("valve", "stop_valve", {"entity_id": "all"}, blocking=True)


def satellite_id(hass: HomeAssistant) -> str:
    return next(
        device.id
        for device in dr.async_get(hass).devices
        if ("test", SATELLITE_ID) in device.identifiers
    )


async def assist_agent(hass: HomeAssistant, worker: ScriptedWorker, **options: Any) -> Agent:
    return await async_setup_agent(
        hass,
        worker.info.path,
        **{CONF_HOME_TOOLS: False, CONF_LLM_HASS_API: ["assist"], **options},
    )


async def agent_with(tools: str, hass: HomeAssistant, worker: ScriptedWorker) -> Agent:
    """An agent with "our tools" or with Assist's ("assist")."""
    if tools == "our tools":
        return await async_setup_agent(hass, worker.info.path)
    return await assist_agent(hass, worker)


def tool_call(suffix: str, **arguments: Any) -> Callable[[SeenRequest], str]:
    """A scripted answer calling the offered tool whose name ends with `suffix`."""

    def write(request: SeenRequest) -> str:
        names = [spec.name for spec in request.tools if spec.name.endswith(suffix)]
        assert names, f"{suffix} is not offered: {[spec.name for spec in request.tools]}"
        values = {
            key: json.dumps(value) if isinstance(value, list) else value
            for key, value in arguments.items()
        }
        return answer(call(names[0], **values))

    return write


def tool_calls(*made: tuple[str, dict[str, Any]]) -> Callable[[SeenRequest], str]:
    """One scripted answer with several of tool_call's calls."""

    def write(request: SeenRequest) -> str:
        texts = (tool_call(suffix, **arguments)(request) for suffix, arguments in made)
        return answer("\n".join(text.split(REASONING_CLOSE)[1] for text in texts))

    return write


def tool_results(
    hass: HomeAssistant, result: conversation.ConversationResult
) -> list[dict[str, Any]]:
    return results_in(chat_log_of(hass, result))


@dataclass
class Home:
    """A house, its scripted model and a person talking to the agents; nothing `sensitive` in
    it (the safety tests' house's, unless a house says otherwise) changes before a yes."""

    sensitive: ClassVar[tuple[str, ...]] = SENSITIVE
    hass: HomeAssistant
    worker: ScriptedWorker
    person: Context

    async def agent_with(self, tools: str) -> Agent:
        return await agent_with(tools, self.hass, self.worker)

    async def ask_to_call(
        self,
        agent: Agent,
        suffix: str,
        arguments: dict[str, Any],
        *after: str,
        context: Context | None = None,
    ) -> conversation.ConversationResult:
        """Say "do it" (as the person unless context says who), the model calling the offered
        tool whose name ends with suffix, then writing after: nothing sensitive has changed once
        the turn is over."""
        talk = Talk(agent, self.worker, context or self.person)
        return await ask_changing_nothing(
            talk, self.sensitive, tool_call(suffix, **arguments), *after
        )


@dataclass
class Scene(Home):
    """The house, its scripted model, a person talking to the agents, and the audit of what
    they proposed and did."""

    audit: list[dict[str, Any]]

    async def assist_agent(self, **options: Any) -> Agent:
        return await assist_agent(self.hass, self.worker, **options)

    async def shell_agent(self) -> Agent:
        """An agent offered only the tools of OtherAPI (the shell_tool fixture registers it)."""
        return await self.assist_agent(**{CONF_LLM_HASS_API: ["other_api"]})

    async def our_agent(self, **options: Any) -> Agent:
        return await async_setup_agent(self.hass, self.worker.info.path, **options)

    async def pin_agent(self) -> Agent:
        return await pin_agent(self.hass, self.worker)

    async def said_after_call(self, domain: str, arguments: dict[str, Any], language: str) -> str:
        """What our agent says in language to the person once the model made this one call of
        the tool named after domain."""
        agent = await self.our_agent()
        self.worker.will_write(tool_call(domain, **arguments))
        result = await agent.ask("…", context=self.person, language=language)
        return speech(result)

    async def ask_to_unlock(
        self, agent: Agent, language: str = "en"
    ) -> conversation.ConversationResult:
        return await ask_to_unlock(agent, self.worker, self.person, language)

    async def ours_asked_to_unlock(self, *writes: Script) -> conversation.ConversationResult:
        """Our agent asked to unlock the front door, the model writing `writes`: the answer once
        every run is over."""
        agent = await self.our_agent()
        self.worker.will_write(*writes)
        result = await agent.ask("unlock the front door", context=self.person)
        await self.hass.async_block_till_done()
        return result

    async def pin_question(
        self, language: str = "en"
    ) -> tuple[Agent, conversation.ConversationResult]:
        """An agent with the scene's PIN, and its question asking for it to unlock the door."""
        agent = await self.pin_agent()
        return agent, await self.ask_to_unlock(agent, language)

    async def ask_ours_to_call(
        self, suffix: str, arguments: dict[str, Any], **options: Any
    ) -> conversation.ConversationResult:
        """Set up our agent (with these options) and ask it as ask_to_call does, the model
        saying "Done." after the call."""
        agent = await self.our_agent(**options)
        return await self.ask_to_call(agent, suffix, arguments, answer("Done."))

    async def reply(
        self, agent: Agent, question: conversation.ConversationResult, text: str, **kwargs: Any
    ) -> conversation.ConversationResult:
        """The person says text in the question's conversation."""
        return await agent.ask(
            text, conversation_id=question.conversation_id, context=self.person, **kwargs
        )

    async def confirm_unlock(
        self, agent: Agent, said: str, language: str
    ) -> conversation.ConversationResult:
        """Ask to unlock the front door and answer the question with what was said: the door
        is unlocked."""
        question = await self.ask_to_unlock(agent, language)
        reply = await self.reply(agent, question, said, language=language)
        assert state(self.hass, "lock.front_door") == "unlocked"
        return reply

    async def door_after_answering(self, agent: Agent, said: str, language: str) -> str:
        """Ask to unlock the front door, answer the question with what was said (the model
        then writing "Okay."): the front door's state once every run is over."""
        question = await self.ask_to_unlock(agent, language)
        self.worker.will_write(answer("Okay."))
        await self.reply(agent, question, said, language=language)
        await self.hass.async_block_till_done()
        return state(self.hass, "lock.front_door")

    async def say_yes_after(
        self, agent: Agent, clock: Clock, seconds: float
    ) -> conversation.ConversationResult:
        """Ask to unlock the front door; `seconds` later on the questions' clock, the person
        says "yes" in its conversation. Returns the question."""
        question = await self.ask_to_unlock(agent)
        clock.now += seconds
        await self.reply(agent, question, "yes")
        return question

    async def refuse_unlock(
        self, agent: Agent, said: str, *writes: Script, language: str = "en"
    ) -> conversation.ConversationResult:
        """Ask to unlock the front door and answer the question with what was said (the model
        then writes `writes`): the door stays locked, and the question is cancelled."""
        question = await self.ask_to_unlock(agent, language)
        self.worker.will_write(*writes)
        reply = await self.reply(agent, question, said, language=language)
        assert state(self.hass, "lock.front_door") == "locked"
        assert self.outcomes() == ["proposed", "cancelled"]
        return reply

    def model_saw(self) -> str:
        return model_saw(self.worker)

    def outcomes(self) -> list[str]:
        return outcomes(self.audit)


@pytest.fixture
def scene(
    hass: HomeAssistant,
    house: None,
    scripted_worker: ScriptedWorker,
    person: Context,
    audit: list[dict[str, Any]],
) -> Scene:
    return Scene(hass, scripted_worker, person, audit)


PIN = "4711"


async def pin_agent(hass: HomeAssistant, worker: ScriptedWorker) -> Agent:
    return await async_setup_agent(hass, worker.info.path, **{CONF_CONFIRMATION_PIN: PIN})


def unlock(*also: str) -> str:
    """The model's answer calling our lock tool on the front door, then the calls `also`."""
    return answer("\n".join([call("lock", action="unlock", entity_id="lock.front_door"), *also]))


async def ask_to_unlock(
    agent: Agent,
    worker: ScriptedWorker,
    context: Context,
    language: str = "en",
    device_id: str | None = None,
) -> conversation.ConversationResult:
    """Ask to unlock the front door, the model calling our lock tool."""
    worker.will_write(unlock())
    return await agent.ask(
        "unlock the front door", context=context, language=language, device_id=device_id
    )


def model_saw(worker: ScriptedWorker) -> str:
    return "\n".join(
        f"{request.static_prompt}{request.dynamic_prompt}" for request in worker.requests
    )


@pytest.fixture
def lights_only_user(hass: HomeAssistant) -> MockUser:
    """A user who may control the lights and nothing else."""
    user = MockUser().add_to_hass(hass)
    user.mock_policy({"entities": {"domains": {"light": True}}})
    return user


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(hass: HomeAssistant) -> Clock:
    """A clock the test moves, which every question's age is measured on."""
    moved = Clock()
    hass.data[confirmation.CONFIRMATIONS] = confirmation.ConfirmationStore(clock=moved)
    return moved
