"""Red team 17: attacks on this morning's narrowed places.

An exempt script or automation that an automation runs when a call sets it off is judged as
that entity (commit 1e87b61): it runs at once unless the automation passes it data, which may
steer it. Data reaches a program in more ways than a step's `data`: `automation.trigger`'s
`variables`, the target a script's own service is given (Home Assistant puts it among the
service data, which are the script's variables), and `homeassistant.turn_on` of a script,
which passes its data on to `script.turn_on` (its `variables`). Each of these still asks,
and the same runs without data still run at once.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import probatio
import pytest

from custom_components.local_agent.const import CONF_EXEMPT_TOOLS
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers import llm
from homeassistant.setup import async_setup_component

from .conftest import speech
from .conftest import state
from .houses import act
from .other_integrations import OtherAPI
from .scene import Scene
from .scene import tool_calls
from .test_programs_run_by_automations import EVENING
from .test_programs_run_by_automations import KITCHEN
from .test_programs_run_by_automations import lights_on_run
from .test_programs_run_by_automations import set_up
from .test_programs_run_by_automations import turn_on_the_kitchen_lights
from .test_redteam import set_up_automations
from .test_redteam_more import reload_scripts

FRONT_DOOR: Final = "lock.front_door"
LET_IN: Final = "automation.let_in"
# Exempt programs whose steps unlock what their variables name: harmless as the person runs
# them, steered by whatever data reaches them.
UNLOCK_WHAT_IT_IS_GIVEN: Final = [
    {"action": "lock.unlock", "target": {"entity_id": "{{ door | default('lock.none') }}"}}
]
UNLOCK_ITS_TARGET: Final = [
    {"action": "lock.unlock", "target": {"entity_id": "{{ entity_id | default([]) }}"}}
]


def let_in(actions: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": "let_in", "alias": "Let in", "triggers": [], "actions": actions}


@pytest.mark.parametrize(
    ("data", "held"),
    [({"variables": {"door": FRONT_DOOR}}, True), ({}, False), ({"skip_condition": False}, False)],
)
async def test_an_exempt_automation_triggered_with_variables_asks(
    hass: HomeAssistant, scene: Scene, data: dict[str, Any], held: bool
) -> None:
    """`automation.trigger`'s variables are the run's variables: they may steer it."""
    run = lights_on_run(act("automation.trigger", LET_IN, **data))
    await set_up(hass, [], run, let_in(UNLOCK_WHAT_IT_IS_GIVEN))

    await turn_on_the_kitchen_lights(hass, scene, [LET_IN], held=held)


@pytest.mark.parametrize(
    ("target", "held"),
    [
        ({"target": {"entity_id": FRONT_DOOR}}, True),
        ({"entity_id": FRONT_DOOR}, True),
        ({"target": {"area_id": "hall"}}, True),
        ({}, False),
    ],
)
async def test_a_target_given_to_an_exempt_scripts_own_service_asks(
    hass: HomeAssistant, scene: Scene, target: dict[str, Any], held: bool
) -> None:
    """Home Assistant puts a call's target among its data: the script's `entity_id`."""
    run = lights_on_run({"action": EVENING, **target})
    await set_up(hass, UNLOCK_ITS_TARGET, run)

    await turn_on_the_kitchen_lights(hass, scene, [EVENING], held=held)


@pytest.mark.parametrize(
    ("data", "held"), [({"variables": {"door": FRONT_DOOR}}, True), ({}, False)]
)
async def test_an_exempt_script_turned_on_through_homeassistant_with_variables_asks(
    hass: HomeAssistant, scene: Scene, data: dict[str, Any], held: bool
) -> None:
    """`homeassistant.turn_on` passes its data on to `script.turn_on`: its `variables`."""
    run = lights_on_run(act("homeassistant.turn_on", EVENING, **data))
    await set_up(hass, UNLOCK_WHAT_IT_IS_GIVEN, run)

    await turn_on_the_kitchen_lights(hass, scene, [EVENING], held=held)


async def test_script_turn_on_of_an_exempt_and_a_script_that_is_not_asks(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Checked and fine: each script `script.turn_on` runs is judged as itself."""
    await reload_scripts(
        hass,
        {
            "evening": {"alias": "Evening", "sequence": [act("light.turn_on", "light.bed_light")]},
            "let_in": {"alias": "Let in", "sequence": [act("lock.unlock", FRONT_DOOR)]},
        },
    )
    await set_up_automations(hass, lights_on_run(act("script.turn_on", [EVENING, "script.let_in"])))
    await hass.services.async_call("light", "turn_off", {"entity_id": KITCHEN}, blocking=True)

    await turn_on_the_kitchen_lights(hass, scene, [EVENING], held=True)


@pytest.mark.parametrize(("then", "held"), [("lock.unlock", True), ("light.turn_on", False)])
async def test_an_exempt_script_that_runs_itself_and_another_script(
    hass: HomeAssistant, scene: Scene, then: str, held: bool
) -> None:
    """Checked and fine: Evening runs Late, which is not exempt, and itself again while the
    bed light is off: Late is judged by its steps, and the judging ends."""
    target = FRONT_DOOR if then == "lock.unlock" else "light.bed_light"
    await reload_scripts(
        hass,
        {
            "evening": {
                "alias": "Evening",
                "mode": "parallel",
                "sequence": [
                    act("script.late"),
                    {"condition": "state", "entity_id": "light.bed_light", "state": "off"},
                    act("script.turn_on", EVENING),
                ],
            },
            "late": {"alias": "Late", "sequence": [act(then, target)]},
        },
    )
    await set_up_automations(hass, lights_on_run(act(EVENING)))
    await hass.services.async_call("light", "turn_off", {"entity_id": KITCHEN}, blocking=True)

    await turn_on_the_kitchen_lights(hass, scene, [EVENING], held=held)


@pytest.mark.parametrize("service", ["automation.trigger", "automation.turn_on"])
@pytest.mark.parametrize(("then", "held"), [("unlock", True), ("light", False)])
async def test_an_exempt_automation_whose_event_sets_off_another(
    hass: HomeAssistant, scene: Scene, service: str, then: str, held: bool
) -> None:
    """Checked and fine: what the exempt automation's event sets off is another program,
    judged as any other (triggered now, or switched on to run when its triggers fire)."""
    signal = {
        "id": "signal",
        "alias": "Signal",
        "triggers": [{"trigger": "event", "event_type": "doorbell_rang"}],
        "actions": [{"event": "guests_arrived"}],
    }
    step = act("lock.unlock", FRONT_DOOR) if then == "unlock" else act("light.turn_on", KITCHEN)
    hears = {
        "id": "hears",
        "alias": "Hears",
        "triggers": [{"trigger": "event", "event_type": "guests_arrived"}],
        "actions": [step],
    }
    await set_up(hass, [], lights_on_run(act(service, "automation.signal")), signal, hears)
    await hass.services.async_call(
        "automation", "turn_off", {"entity_id": "automation.signal"}, blocking=True
    )

    await turn_on_the_kitchen_lights(hass, scene, ["automation.signal"], held=held)


@pytest.mark.parametrize(("door", "held"), [(FRONT_DOOR, True), ("lock.none", False)])
async def test_an_exempt_script_that_reads_what_the_automation_set_before(
    hass: HomeAssistant, scene: Scene, door: str, held: bool
) -> None:
    """Checked and fine: the automation sets a text that Evening reads, then runs it without
    data; the text steers Evening (judged by Evening's actions, as any change it reads)."""
    assert await async_setup_component(hass, "input_text", {"input_text": {"door": {}}})
    evening = [
        {
            "action": "lock.unlock",
            "target": {"entity_id": "{{ states('input_text.door') }}"},
        }
    ]
    run = lights_on_run(act(EVENING))
    run["actions"] = [act("input_text.set_value", "input_text.door", value=door), act(EVENING)]
    await set_up(hass, evening if held else [act("light.turn_on", "light.bed_light")], run)

    await turn_on_the_kitchen_lights(hass, scene, [EVENING], held=held)


async def test_a_scripts_own_service_runs_the_script_of_that_key_not_of_that_entity_id(
    hass: HomeAssistant, scene: Scene
) -> None:
    """`script.evening` runs the script whose key is `evening` (Home Assistant registers it
    under the key), whatever its entity id now is. Renamed in the UI, the unlocking script's
    entity is `script.unlocker` and the exempt Bedtime's is `script.evening`: the automation's
    `script.evening` unlocks, and was judged as Bedtime."""
    await reload_scripts(
        hass,
        {
            "evening": {"alias": "Evening", "sequence": [act("lock.unlock", FRONT_DOOR)]},
            "bedtime": {"alias": "Bedtime", "sequence": [act("light.turn_on", "light.bed_light")]},
        },
    )
    registry = er.async_get(hass)
    registry.async_update_entity(EVENING, new_entity_id="script.unlocker")
    registry.async_update_entity("script.bedtime", new_entity_id=EVENING)
    await hass.async_block_till_done()
    await set_up_automations(hass, lights_on_run(act(EVENING)))
    await hass.services.async_call("light", "turn_off", {"entity_id": KITCHEN}, blocking=True)

    await turn_on_the_kitchen_lights(hass, scene, [EVENING], held=True)


@pytest.mark.parametrize("exempt", ["script.unlocker", "script.evening"])
async def test_a_renamed_exempt_scripts_own_service_runs_at_once(
    hass: HomeAssistant, scene: Scene, exempt: str
) -> None:
    """The neighbour: Evening (harmless) renamed `script.unlocker` and exempt, run by its own
    service `script.evening`, runs at once; with only the name `script.evening` exempt (no
    script has that entity id), it asks."""
    await reload_scripts(
        hass,
        {"evening": {"alias": "Evening", "sequence": [act("light.turn_on", "light.bed_light")]}},
    )
    er.async_get(hass).async_update_entity(EVENING, new_entity_id="script.unlocker")
    await hass.async_block_till_done()
    await set_up_automations(hass, lights_on_run(act(EVENING)))
    await hass.services.async_call("light", "turn_off", {"entity_id": KITCHEN}, blocking=True)

    await turn_on_the_kitchen_lights(hass, scene, [exempt], held=exempt == EVENING)


@pytest.mark.parametrize(
    ("data", "held"),
    [
        ({"entity_id": EVENING}, False),
        ({"entity_id": EVENING, "variables": {"door": FRONT_DOOR}}, True),
    ],
)
async def test_script_turn_on_naming_its_script_in_data_is_no_data_for_it(
    hass: HomeAssistant, scene: Scene, data: dict[str, Any], held: bool
) -> None:
    """Checked and fine: the older way to write it, `data: {entity_id: script.evening}`,
    names the script (Home Assistant's validation makes it the target): Evening gets no
    variables and runs at once; `variables` beside it still ask."""
    await set_up(hass, UNLOCK_WHAT_IT_IS_GIVEN, lights_on_run(act("script.turn_on", **data)))

    await turn_on_the_kitchen_lights(hass, scene, [EVENING], held=held)


async def test_homeassistant_turn_on_of_a_group_of_an_exempt_script_with_variables_asks(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Checked and fine: Home Assistant turns the group's members on with the data, Evening's
    `variables`; a script turned on through an old-style group asks (also without data)."""
    data = {"variables": {"door": FRONT_DOOR}}
    run = lights_on_run(act("homeassistant.turn_on", "group.evening_scripts", **data))
    await set_up(hass, UNLOCK_WHAT_IT_IS_GIVEN, run)
    assert await async_setup_component(
        hass, "group", {"group": {"evening_scripts": {"entities": [EVENING]}}}
    )
    await hass.async_block_till_done()

    await turn_on_the_kitchen_lights(hass, scene, [EVENING], held=True)


NIGHTLY: Final = "automation.nightly"


@pytest.mark.parametrize(
    ("step", "held"),
    [
        (act("automation.toggle", NIGHTLY), True),
        (act("homeassistant.toggle", NIGHTLY), True),
        (act("homeassistant.turn_off", NIGHTLY), True),
        (act("automation.turn_on", NIGHTLY), False),
        (act("automation.trigger", NIGHTLY), False),
    ],
)
async def test_an_automation_that_switches_off_an_exempt_securing_one_asks(
    hass: HomeAssistant, scene: Scene, step: dict[str, Any], held: bool
) -> None:
    """The exempt "Nightly" locks the door at bedtime. A toggle switches it off (it is on), and
    then it locks no more: as when the person switches it off, a question. Switching it on or
    running it now runs at once."""
    nightly = {
        "id": "nightly",
        "alias": "Nightly",
        "triggers": [{"trigger": "event", "event_type": "bedtime"}],
        "actions": [act("lock.lock", FRONT_DOOR)],
    }
    await set_up(hass, [], lights_on_run(step), nightly)

    await turn_on_the_kitchen_lights(hass, scene, [NIGHTLY], held=held)
    assert state(hass, NIGHTLY) == "on"


class MessageTool(llm.Tool):
    """Another integration's tool that answers with a status of its own, as a held call's
    result reads: {"status": "sent"}."""

    name = "send_message"
    description = "Sends a message"
    integration = "other"
    parameters = probatio.Schema({probatio.Required("text"): str})

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def async_call(
        self, hass: HomeAssistant, tool_input: llm.ToolInput, llm_context: llm.LLMContext
    ) -> llm.ToolResult:
        self.sent.append(tool_input.tool_args["text"])
        return llm.ToolResult(data={"status": "sent"})


async def test_a_tool_that_ran_beside_a_question_is_said_done_whatever_its_result_holds(
    hass: HomeAssistant, scene: Scene
) -> None:
    """A held call is told by its result's class, not its keys: the exempt message tool's
    {"status": "sent"} read as a held call's, and the person heard only the question."""
    tool = MessageTool()
    llm.async_register_api(hass, OtherAPI(hass, tool))
    agent = await scene.assist_agent(
        **{
            CONF_LLM_HASS_API: ["other_api", "assist"],
            CONF_EXEMPT_TOOLS: ["other_api/send_message"],
        }
    )
    scene.worker.will_write(
        tool_calls(("send_message", {"text": "hi"}), ("HassTurnOff", {"name": "Front Door"}))
    )

    result = await agent.ask("tell them and open up", context=scene.person)

    assert tool.sent == ["hi"]
    assert speech(result).startswith("Done. "), speech(result)
    assert "Front Door" in speech(result)
    assert state(hass, "lock.front_door") == "locked"
