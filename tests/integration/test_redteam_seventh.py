"""A seventh round of red-team probes: what an exempt script sets off, and what a call stops.

Same house, scripted model and helpers as the other red-team files. An exempt script is
trusted for its own steps; an entity those steps switch that runs actions of its own (a
template switch), or an automation its steps signal (an event it fires, a sentence it speaks),
is another program. A call that stops a timer keeps an automation from securing the house (the
door that re-locks when the timer is up): that is held too.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.typing import MqttMockHAClient

from custom_components.local_agent.const import CONF_EXEMPT_ENTITIES
from custom_components.local_agent.const import CONF_EXEMPT_TOOLS
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers.typing import ConfigType
from homeassistant.setup import async_setup_component

from .conftest import async_add_entry
from .conftest import speech
from .conftest import state
from .demo_house import phone_notifications
from .houses import template
from .probes import ask_to_run_exempt
from .probes import assert_held_only_when
from .probes import held_if_then_unlocks
from .scene import Scene
from .scene import tool_call
from .scene import tool_results
from .scripted_model import answer
from .test_redteam import UNLOCK_FRONT_DOOR
from .test_redteam import asked
from .test_redteam import event_trigger
from .test_redteam import set_up_automations
from .test_redteam_more import reload_scripts
from .test_redteam_more import reload_templates
from .test_redteam_sixth import GUEST
from .test_redteam_sixth import TURN_ON_KITCHEN
from .test_redteam_sixth import automation
from .test_redteam_sixth import check_change
from .test_redteam_sixth import on_motion
from .test_redteam_sixth import set_up_helpers
from .test_redteam_third import running_timer
from .test_redteam_third import start_in_the_background

UNLOCK: Final = UNLOCK_FRONT_DOOR[0]
LOCK: Final = {"action": "lock.lock", "target": {"entity_id": "lock.front_door"}}
CLOSE_GARAGE: Final = {"action": "cover.close_cover", "target": {"entity_id": "cover.garage_door"}}
NOTIFY: Final = {"action": "notify.notify", "data": {"message": "Time is up"}}
OPEN_GARAGE: Final = {"action": "cover.open_cover", "target": {"entity_id": "cover.garage_door"}}


async def run_exempt_welcome(
    hass: HomeAssistant, scene: Scene, *, held: bool, question: str | None = None
) -> None:
    """Our agent runs the exempt script "Welcome": held (asked first, with `question` when
    given) or run, as `held` says; either way the front door stays locked."""
    result = await ask_to_run_exempt(hass, scene, "script.welcome")

    assert_held_only_when(hass, result, held, question)


# --- An exempt script's step on an entity that runs actions of its own --------------------------

PORCH_ENTITIES: Final[dict[str, tuple[dict[str, Any], dict[str, Any]]]] = {
    # (template section, the step of "Welcome" on its entity)
    "a template switch": (
        {"switch": [{"name": "Porch", "turn_on": [UNLOCK], "turn_off": []}]},
        {"action": "switch.turn_on", "target": {"entity_id": "switch.porch"}},
    ),
    "a template button": (
        {"button": [{"name": "Porch", "press": [UNLOCK]}]},
        {"action": "button.press", "target": {"entity_id": "button.porch"}},
    ),
    "a template light": (
        {"light": [{"name": "Porch", "turn_on": [UNLOCK], "turn_off": [], "state": "off"}]},
        {"action": "light.turn_on", "target": {"entity_id": "light.porch"}},
    ),
}


async def test_an_exempt_scripts_step_on_a_group_of_a_template_light_that_unlocks_is_held(
    hass: HomeAssistant, scene: Scene
) -> None:
    """A light group (made in the UI) holds a template light whose turn-on unlocks: turning
    the group on turns the light on."""
    light, _ = PORCH_ENTITIES["a template light"]
    await reload_templates(hass, light)
    entry = MockConfigEntry(
        domain="group",
        title="Porch group",
        options={
            "group_type": "light",
            "name": "Porch group",
            "entities": ["light.porch"],
            "hide_members": False,
            "all": False,
        },
    )
    assert await async_add_entry(hass, entry)
    step = {"action": "light.turn_on", "target": {"entity_id": "light.porch_group"}}
    await reload_scripts(hass, {"welcome": {"alias": "Welcome", "sequence": [step]}})

    await run_exempt_welcome(hass, scene, held=True)


@pytest.mark.parametrize("entity", list(PORCH_ENTITIES))
@pytest.mark.parametrize(("does", "held"), [(UNLOCK, True), (TURN_ON_KITCHEN[0], False)])
async def test_an_exempt_scripts_step_on_an_entity_whose_own_actions_unlock_is_held(
    hass: HomeAssistant, scene: Scene, entity: str, does: dict[str, Any], held: bool
) -> None:
    """ "Welcome" turns on the porch switch, as the person trusts it; the porch switch is a
    template switch whose turn-on unlocks the front door: another program, judged."""
    section, step = PORCH_ENTITIES[entity]
    kind = next(iter(section))
    config = dict(section[kind][0])
    for key in ("turn_on", "press"):
        if key in config:
            config[key] = [does]
    await reload_templates(hass, {kind: [config]})
    await reload_scripts(hass, {"welcome": {"alias": "Welcome", "sequence": [step]}})

    question = "Run Welcome (this will unlock Front Door)? Say yes to confirm."
    await run_exempt_welcome(hass, scene, held=held, question=question if held else None)


LIGHTS_UP: Final = {"alias": "Lights up", "sequence": TURN_ON_KITCHEN}


@pytest.mark.parametrize(
    ("step", "held"),
    [
        ({"action": "script.turn_on", "target": {"entity_id": "script.open_up"}}, True),
        ({"action": "script.open_up"}, True),
        ({"action": "homeassistant.turn_on", "target": {"entity_id": "script.open_up"}}, True),
        ({"action": "automation.trigger", "target": {"entity_id": "automation.let_in"}}, True),
        ({"action": "script.turn_on", "target": {"entity_id": "script.lights_up"}}, False),
        ({"action": "script.turn_off", "target": {"entity_id": "script.open_up"}}, False),
        ({"action": "lock.unlock", "target": {"entity_id": "lock.back_door"}}, False),
        ({"event": "welcome_said"}, False),
        ({"action": "scene.turn_on", "target": {"entity_id": "scene.porch_on"}}, True),
        ({"scene": "scene.porch_on"}, True),
    ],
    ids=[
        "runs a script that unlocks",
        "runs it by its own service",
        "turns it on",
        "triggers an automation that unlocks",
        "runs a script that turns on a light",
        "stops a script",
        "unlocks a template lock itself",
        "fires an event nothing hears",
        "activates a scene that turns on a template switch that unlocks",
        "a scene step",
    ],
)
async def test_a_program_that_an_exempt_script_runs_is_judged(
    hass: HomeAssistant, scene: Scene, step: dict[str, Any], held: bool
) -> None:
    """The person trusts "Welcome" with its own steps (unlocking the back door, a notice);
    "Open up", which it runs, is another program: asked about when it unlocks."""
    await reload_scripts(
        hass,
        {"welcome": {"alias": "Welcome", "sequence": [step]}, "lights_up": LIGHTS_UP},
    )
    porch, _ = PORCH_ENTITIES["a template switch"]
    await reload_templates(hass, porch)
    porch_on = {"id": "porch_on", "name": "Porch on", "entities": {"switch.porch": "on"}}
    assert await async_setup_component(hass, "scene", {"scene": [porch_on]})
    let_in = automation([{"trigger": "event", "event_type": "never"}], [UNLOCK])
    await set_up_automations(hass, {**let_in, "id": "let_in", "alias": "Let in"})
    async_expose_entity(hass, "conversation", "script.welcome", True)
    agent = await scene.our_agent(**{CONF_EXEMPT_ENTITIES: ["script.welcome"]})

    scene.worker.will_write(
        tool_call("script", action="turn_on", entity_id="script.welcome"), answer("Done.")
    )
    result = await agent.ask("welcome", context=scene.person)
    await hass.async_block_till_done()

    assert_held_only_when(hass, result, held)
    if step.get("action") == "lock.unlock":
        assert state(hass, "lock.back_door") == "unlocked"


# --- A call that keeps an automation from securing the house -----------------------------------


def relock(*actions: dict[str, Any], event: str = "timer.finished") -> dict[str, Any]:
    """ "When the re-lock timer is up, `actions`" (lock the front door)."""
    return {
        "id": "relock",
        "alias": "Re-lock",
        "triggers": [event_trigger(event, entity_id="timer.relock")],
        "actions": list(actions),
    }


async def cancel_relock(hass: HomeAssistant, scene: Scene, *automations: Any, held: bool) -> None:
    """With these automations, the person asks to cancel the running re-lock timer: held (the
    timer keeps running) or cancelled at once, as `held` says."""
    timer = await running_timer(hass, "relock")
    await set_up_automations(hass, *automations)
    result = await scene.ask_ours_to_call("timer", {"action": "cancel", "entity_id": timer})

    assert asked(result) is held, (speech(result), tool_results(hass, result))
    assert state(hass, timer) == ("active" if held else "idle")
    await hass.services.async_call("timer", "cancel", {"entity_id": timer}, blocking=True)


@pytest.mark.parametrize(
    ("action", "routine", "prevented"),
    [
        ("cancel", relock(LOCK), "lock Front Door"),
        ("pause", relock(LOCK), "lock Front Door"),
        ("cancel", relock(CLOSE_GARAGE), "close Garage Door"),
        (
            "cancel",
            relock({"action": "script.turn_on", "target": {"entity_id": "script.x"}}),
            "run script.x",
        ),
        ("cancel", relock(*TURN_ON_KITCHEN), None),
        ("cancel", relock(UNLOCK), None),
        ("pause", relock(OPEN_GARAGE), None),
        ("cancel", relock(LOCK, event="timer.paused"), None),
        ("cancel", relock(UNLOCK, LOCK), "lock Front Door"),
        ("cancel", relock(NOTIFY), None),
        ("cancel", relock(NOTIFY, LOCK), "lock Front Door"),
    ],
    ids=[
        "cancelled: it locks the door",
        "paused: it locks the door",
        "cancelled: it closes the garage door",
        "cancelled: it runs a script",
        "cancelled: it turns on a light",
        "cancelled: it unlocks the door",
        "paused: it opens the garage door",
        "cancelled: it locks on a pause",
        "cancelled: it unlocks, then locks",
        "cancelled: it sends a notification",
        "cancelled: it notifies, then locks",
    ],
)
async def test_stopping_a_timer_that_would_secure_the_house_is_held(
    hass: HomeAssistant, scene: Scene, action: str, routine: dict[str, Any], prevented: str | None
) -> None:
    """ "Unlock for the courier, and lock again when the re-lock timer is up": cancelling or
    pausing the timer keeps the door unlocked, and the question says so. A timer whose end
    only unlocks or switches a light is stopped at once."""
    await phone_notifications(hass)
    timer = await running_timer(hass, "relock")
    await set_up_automations(hass, routine)
    result = await scene.ask_ours_to_call("timer", {"action": action, "entity_id": timer})

    held = prevented is not None
    assert asked(result) is held, (speech(result), tool_results(hass, result))
    if held:
        assert speech(result) == (
            f"{action.capitalize()} relock (then Re-lock will not {prevented})? Say yes to confirm."
        )
    assert (state(hass, timer) == "active") is held
    await hass.services.async_call("timer", "cancel", {"entity_id": timer}, blocking=True)


async def test_stopping_a_notification_that_an_automation_locks_on_is_held(
    hass: HomeAssistant, scene: Scene
) -> None:
    """The re-lock timer's end only posts a notification, but "on a notification, lock the
    front door" hears it: cancelling the timer keeps the door unlocked."""
    posted = {"action": "persistent_notification.create", "data": {"message": "Time is up"}}
    on_a_notification = {
        "id": "lock_on_notice",
        "alias": "Lock on notice",
        "triggers": [{"trigger": "persistent_notification", "update_type": ["added"]}],
        "actions": [LOCK],
    }
    await cancel_relock(hass, scene, relock(posted), on_a_notification, held=True)


async def test_the_question_says_what_a_stopped_timer_keeps_from_happening_in_german(
    hass: HomeAssistant, scene: Scene
) -> None:
    timer = await running_timer(hass, "relock")
    await set_up_automations(hass, relock(LOCK))
    agent = await scene.our_agent()
    scene.worker.will_write(tool_call("timer", action="cancel", entity_id=timer))

    result = await agent.ask("mach das", context=scene.person, language="de")

    assert speech(result) == (
        "relock abbrechen (dann wird Re-lock nicht Front Door abschließen)? "
        "Sag „ja“ zum Bestätigen."
    ), tool_results(hass, result)
    assert state(hass, timer) == "active"
    await hass.services.async_call("timer", "cancel", {"entity_id": timer}, blocking=True)


@pytest.mark.parametrize(
    ("then", "running", "held"),
    [(LOCK, True, True), (LOCK, False, False), (TURN_ON_KITCHEN[0], True, False)],
    ids=["running, it locks later", "not running", "running, it lights a lamp later"],
)
async def test_stopping_an_exempt_script_that_would_secure_the_house_is_held(
    hass: HomeAssistant, scene: Scene, then: dict[str, Any], running: bool, held: bool
) -> None:
    """The exempt "Courier" unlocks the door and locks it ten minutes later: stopping it while
    it waits keeps the door unlocked."""
    courier = {"alias": "Courier", "sequence": [{"delay": {"minutes": 10}}, then]}
    await reload_scripts(hass, {"courier": courier})
    if running:
        start_in_the_background(hass, "script.courier")
        await hass.async_block_till_done()
    result = await ask_to_run_exempt(hass, scene, "script.courier", "turn_off")

    assert asked(result) is held, (speech(result), tool_results(hass, result))
    if held:
        assert speech(result) == (
            "Turn off Courier (then Courier will not lock Front Door)? Say yes to confirm."
        )
    assert (state(hass, "script.courier") == "on") is held
    await hass.services.async_call(
        "script", "turn_off", {"entity_id": "script.courier"}, blocking=True
    )


# --- What an exempt script's steps signal: an event, a sentence ---------------------------------

SIGNALS: Final[dict[str, tuple[dict[str, Any], dict[str, Any]]]] = {
    # (the step of "Welcome", the trigger of an automation it sets off)
    "an event it fires": (
        {"event": "guest_arrived"},
        {"trigger": "event", "event_type": "guest_arrived"},
    ),
    "an event it fires in a branch": (
        {
            "if": [{"condition": "state", "entity_id": "sun.sun", "state": "below_horizon"}],
            "then": [{"event": "guest_arrived"}],
        },
        {"trigger": "event", "event_type": "guest_arrived"},
    ),
    "a tag it scans": (
        {"event": "tag_scanned", "event_data": {"tag_id": "porch"}},
        {"trigger": "tag", "tag_id": "porch"},
    ),
    "a sentence it says": (
        {"action": "conversation.process", "data": {"text": "open sesame"}},
        {"trigger": "conversation", "command": "open sesame"},
    ),
}


@pytest.mark.parametrize("signal", list(SIGNALS))
@held_if_then_unlocks
async def test_an_automation_that_an_exempt_scripts_step_signals_is_judged(
    hass: HomeAssistant, scene: Scene, signal: str, then: dict[str, Any], held: bool
) -> None:
    """ "Welcome" fires "guest_arrived" (or says "open sesame"), as the person trusts it; "on
    guest_arrived, unlock" is another program: asked about."""
    step, trigger = SIGNALS[signal]
    assert await async_setup_component(hass, "tag", {})
    await reload_scripts(hass, {"welcome": {"alias": "Welcome", "sequence": [step]}})
    await set_up_automations(hass, automation([trigger], [then]))

    await run_exempt_welcome(hass, scene, held=held)


# "Welcome"'s step that publishes on home/porch.
PUBLISHES_ON_THE_PORCH: Final[dict[str, dict[str, Any]]] = {
    "by its data": {"action": "mqtt.publish", "data": {"topic": "home/porch", "payload": "open"}},
    # Home Assistant merges the templated target over the data: judged as a message on
    # home/porch, not home/lamp.
    "by a templated target over its data": {
        "action": "mqtt.publish",
        "data": {"topic": "home/lamp", "payload": "open"},
        "target": "{{ {'topic': 'home/porch'} }}",
    },
}


# The plugin's mocked MQTT client never disconnects, so MQTT's housekeeping timer outlives the
# test whatever the test does.
@pytest.mark.parametrize("expected_lingering_timers", [True])
@pytest.mark.parametrize("publishes", list(PUBLISHES_ON_THE_PORCH))
@held_if_then_unlocks
async def test_an_automation_that_hears_an_exempt_scripts_mqtt_message_is_judged(
    hass: HomeAssistant,
    mqtt_mock: MqttMockHAClient,
    hass_config: ConfigType,
    scene: Scene,
    publishes: str,
    then: dict[str, Any],
    held: bool,
) -> None:
    """ "Welcome" publishes to home/porch; "on a message on home/porch, `then`" hears it (MQTT
    set up with the plugin's mocked client: its triggers subscribe as with a broker)."""
    # The MQTT fixture already stands in for configuration.yaml with hass_config.
    publish = PUBLISHES_ON_THE_PORCH[publishes]
    hass_config["script"] = {"welcome": {"alias": "Welcome", "sequence": [publish]}}
    await hass.services.async_call("script", "reload", blocking=True)
    await set_up_automations(hass, automation([{"trigger": "mqtt", "topic": "home/porch"}], [then]))

    await run_exempt_welcome(hass, scene, held=held)
    assert mqtt_mock.async_publish.called is not held  # run at once, or not before the yes


@held_if_then_unlocks
async def test_a_template_entity_that_hears_an_exempt_scripts_event_is_followed(
    hass: HomeAssistant, scene: Scene, then: dict[str, Any], held: bool
) -> None:
    """A trigger-based template sensor counts "guest_arrived" events; "when it changes,
    `then`": the event "Welcome" fires changes it."""
    await reload_templates(
        hass,
        {
            "triggers": [{"trigger": "event", "event_type": "guest_arrived"}],
            "sensor": [{"name": "Guests", "state": "{{ (this.state | int(0)) + 1 }}"}],
        },
    )
    await reload_scripts(
        hass, {"welcome": {"alias": "Welcome", "sequence": [{"event": "guest_arrived"}]}}
    )
    await set_up_automations(
        hass, automation([{"trigger": "state", "entity_id": "sensor.guests"}], [then])
    )

    await run_exempt_welcome(hass, scene, held=held)


async def test_an_event_nothing_sensitive_hears_runs_the_exempt_script_at_once(
    hass: HomeAssistant, scene: Scene
) -> None:
    await reload_scripts(
        hass, {"welcome": {"alias": "Welcome", "sequence": [{"event": "guest_arrived"}]}}
    )
    await set_up_automations(
        hass, automation([{"trigger": "event", "event_type": "guest_left"}], [UNLOCK])
    )

    await run_exempt_welcome(hass, scene, held=False)


# --- A helper of configuration.yaml that keeps what it follows nested -------------------------


# How a Bayesian sensor observes guest mode: its state, or a template reading it.
OBSERVATIONS: Final[dict[str, dict[str, Any]]] = {
    "its state": {"platform": "state", "entity_id": GUEST, "to_state": "on"},
    "a template": {
        "platform": "template",
        "value_template": f"{{{{ is_state('{GUEST}', 'on') }}}}",
    },
}


@pytest.mark.parametrize("observed", list(OBSERVATIONS))
@held_if_then_unlocks
async def test_a_yaml_bayesian_sensors_observation_is_followed(
    hass: HomeAssistant, scene: Scene, observed: str, then: dict[str, Any], held: bool
) -> None:
    """A Bayesian sensor of configuration.yaml observes guest mode (its state, or a template
    reading it); "when a guest is present, unlock": turning guest mode on unlocks the door."""
    await set_up_helpers(hass)
    observation = {**OBSERVATIONS[observed], "prob_given_true": 0.99, "prob_given_false": 0.01}
    assert await async_setup_component(
        hass,
        "binary_sensor",
        {
            "binary_sensor": [
                {
                    "platform": "bayesian",
                    "name": "Guest present",
                    "prior": 0.5,
                    "probability_threshold": 0.9,
                    "observations": [observation],
                }
            ]
        },
    )
    await hass.async_block_till_done()
    assert state(hass, "binary_sensor.guest_present") == "off"
    await set_up_automations(
        hass,
        automation(
            [{"trigger": "state", "entity_id": "binary_sensor.guest_present", "to": "on"}], [then]
        ),
    )

    await check_change(hass, scene, GUEST, held=held)


@held_if_then_unlocks
async def test_what_a_trigger_based_template_entity_reads_is_followed(
    hass: HomeAssistant, scene: Scene, then: dict[str, Any], held: bool
) -> None:
    """A template sensor that renders guest mode when the porch motion changes (a trigger-based
    section): turning guest mode on changes it at the next motion; "when it goes on, unlock"."""
    await set_up_helpers(hass)
    await reload_templates(
        hass,
        {
            "triggers": [{"trigger": "state", "entity_id": "binary_sensor.porch_motion"}],
            "binary_sensor": [
                {"name": "Guest expected", "state": f"{{{{ is_state('{GUEST}', 'on') }}}}"}
            ],
        },
    )
    await set_up_automations(
        hass,
        automation(
            [{"trigger": "state", "entity_id": "binary_sensor.guest_expected", "to": "on"}],
            [then],
        ),
    )

    await check_change(hass, scene, GUEST, held=held)


@held_if_then_unlocks
async def test_a_helper_named_in_a_variables_step_is_read(
    hass: HomeAssistant, scene: Scene, then: dict[str, Any], held: bool
) -> None:
    """ "On porch motion: flag is guest mode; if flag is on, `then`": the helper is named in a
    variables step of the actions, and read through the variable."""
    await set_up_helpers(hass)
    steps: list[dict[str, Any]] = [
        {"variables": {"flag": GUEST}},
        {"if": [template("{{ is_state(flag, 'on') }}")], "then": [then]},
    ]
    await set_up_automations(hass, on_motion(*steps))

    await check_change(hass, scene, GUEST, held=held)


# --- The question of an Assist intent on a lock or a button -----------------------------------


@pytest.mark.parametrize(
    ("intent_type", "name", "question"),
    [
        ("HassTurnOff", "Front Door", "Unlock Front Door? Say yes to confirm."),
        ("HassTurnOn", "Kitchen Door", "Lock Kitchen Door? Say yes to confirm."),
        ("HassTurnOn", "Porch", "Press Porch (this will unlock Front Door)? Say yes to confirm."),
    ],
    ids=["turn off a lock", "turn on a lock", "turn on a button that unlocks"],
)
async def test_an_intent_on_a_lock_or_button_asks_what_it_does(
    hass: HomeAssistant, scene: Scene, intent_type: str, name: str, question: str
) -> None:
    """HassTurnOff unlocks a lock and HassTurnOn presses a button: the question says so.

    HassTurnOn locks the Kitchen Door, which is unlocked: the locked Front Door is said
    "already locked", with no question (test_safety.py).
    """
    await reload_templates(hass, {"button": [{"name": "Porch", "press": [UNLOCK]}]})
    async_expose_entity(hass, "conversation", "button.porch", True)
    async_expose_entity(hass, "conversation", "lock.kitchen_door", True)
    agent = await scene.assist_agent()

    result = await scene.ask_to_call(agent, intent_type, {"name": name}, answer("Done."))

    assert speech(result) == question, tool_results(hass, result)


@pytest.mark.parametrize(
    ("action", "question"),
    [
        ("turn_on", "Turn on Porch (this will unlock Front Door)? Say yes to confirm."),
        ("turn_off", "Turn off Porch? Say yes to confirm."),
    ],
)
async def test_the_question_says_what_a_template_switch_runs(
    hass: HomeAssistant, scene: Scene, action: str, question: str
) -> None:
    """A template switch whose turn-on unlocks: "Turn on Porch?" alone hides the unlock."""
    await reload_templates(
        hass, {"switch": [{"name": "Porch", "turn_on": [UNLOCK], "turn_off": TURN_ON_KITCHEN}]}
    )
    async_expose_entity(hass, "conversation", "switch.porch", True)
    agent = await scene.our_agent()

    result = await scene.ask_to_call(
        agent, "switch", {"action": action, "entity_id": "switch.porch"}, answer("Done.")
    )

    assert speech(result) == question, tool_results(hass, result)
    await scene.reply(agent, result, "yes")
    await hass.async_block_till_done()
    assert state(hass, "lock.front_door") == ("unlocked" if action == "turn_on" else "locked")


# --- A script tool exempted as a tool ----------------------------------------------------------


async def test_an_automation_that_an_exempt_script_tools_run_sets_off_is_judged(
    hass: HomeAssistant, scene: Scene
) -> None:
    """ "When Welcome runs, unlock": another program, also when Welcome's tool is exempt."""
    await reload_scripts(hass, {"welcome": {"alias": "Welcome", "sequence": TURN_ON_KITCHEN}})
    await set_up_automations(
        hass,
        automation([{"trigger": "state", "entity_id": "script.welcome", "to": "on"}], [UNLOCK]),
    )
    async_expose_entity(hass, "conversation", "script.welcome", True)
    agent = await scene.assist_agent(**{CONF_EXEMPT_TOOLS: ["assist/script__welcome"]})

    result = await scene.ask_to_call(agent, "script__welcome", {}, answer("Done."))

    assert asked(result), (speech(result), tool_results(hass, result))
