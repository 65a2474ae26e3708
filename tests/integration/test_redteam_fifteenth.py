"""A fifteenth round of red-team probes: the relay a DIY lock drives, followed further.

A relay that a sensitive template entity's own actions switch is held like that entity
(test_relay_drivers.py): switching it on is what unlocking does. What ran at once, though it
unlocked the side door: a relay switched by an automation on the event that a script the
lock's unlock runs fires; on the MQTT message or the sentence the lock's unlock sends; and the
relay of a template switch the person named sensitive themselves (an extra sensitive entity:
"Garage opener"). Same house, scripted model and helpers as the other red-team files; each
probe has its everyday neighbour that runs at once.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import pytest
from pytest_homeassistant_custom_component.typing import MqttMockHAClient

from custom_components.local_agent.const import CONF_EXEMPT_ENTITIES
from custom_components.local_agent.const import CONF_SENSITIVE_ENTITIES
from custom_components.local_agent.home.actions import PlannedAction
from custom_components.local_agent.safety.policy import SafetyPolicy
from custom_components.local_agent.safety.policy import sensitive_targets_of_action
from custom_components.local_agent.turn.defaults import AGENT_DEFAULTS
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers.typing import ConfigType

from .conftest import state
from .probes import KITCHEN_ON
from .probes import ask_to_run_exempt
from .probes import assert_held_only_when
from .scene import Scene
from .test_redteam import relay
from .test_redteam import set_up_automations
from .test_redteam import template_helper
from .test_redteam_more import reload_scripts
from .test_redteam_seventh import LOCK
from .test_redteam_third import start_in_the_background
from .test_relay_drivers import UNLOCK_EVENT
from .test_relay_drivers import relays_beside
from .test_relay_drivers import side_door
from .test_relay_drivers import switches_on
from .test_relay_drivers import switching_on_is_held_only_when

OPEN_SIDE_DOOR: Final = "automation.open_side_door"
DOOR_OR_SPARE: Final = pytest.mark.parametrize(
    ("which", "held"), [("door", True), ("spare", False)]
)


# --- The event a script of the lock fires -----------------------------------------------------


@DOOR_OR_SPARE
async def test_a_relay_switched_on_the_event_a_script_of_the_lock_fires_is_held(
    hass: HomeAssistant, scene: Scene, which: str, held: bool
) -> None:
    """The lock's unlock runs the script "Side door signal", which fires "side_door_unlock";
    an automation on that event switches the door relay on."""
    door_relay, spare = await relays_beside(hass, {"trigger": "event", "event_type": UNLOCK_EVENT})
    await reload_scripts(
        hass,
        {"side_door_signal": {"alias": "Side door signal", "sequence": [{"event": UNLOCK_EVENT}]}},
    )
    await side_door(hass, [{"action": "script.side_door_signal"}])
    await hass.async_block_till_done()

    await switching_on_is_held_only_when(
        hass, scene, door_relay if which == "door" else spare, held
    )


# --- An automation switched off, which the lock triggers --------------------------------------


@DOOR_OR_SPARE
async def test_a_relay_switched_by_a_switched_off_automation_the_lock_triggers_is_held(
    hass: HomeAssistant, scene: Scene, which: str, held: bool
) -> None:
    """ "Open side door" is switched off (no trigger of its own sets it off), but the lock's
    unlock triggers it: `automation.trigger` runs the actions of an automation that is off."""
    door_relay, spare = await relays_beside(hass, alias="Open side door", initial_state=False)
    assert state(hass, OPEN_SIDE_DOOR) == "off"
    trigger = {"action": "automation.trigger", "target": {"entity_id": OPEN_SIDE_DOOR}}
    await side_door(hass, [trigger])
    await hass.async_block_till_done()

    await switching_on_is_held_only_when(
        hass, scene, door_relay if which == "door" else spare, held
    )

    # What the question says: unlocking the side door switches the door relay on.
    await hass.services.async_call("lock", "unlock", {"entity_id": "lock.side_door"}, blocking=True)
    await hass.async_block_till_done()
    assert state(hass, door_relay) == "on"


# --- A sentence the lock says -----------------------------------------------------------------


@DOOR_OR_SPARE
async def test_a_relay_switched_on_a_sentence_the_lock_says_is_held(
    hass: HomeAssistant, scene: Scene, which: str, held: bool
) -> None:
    """The lock's unlock says "buzz the side door" to Assist; a sentence trigger on it switches
    the door relay on."""
    door_relay, spare = await relays_beside(
        hass, {"trigger": "conversation", "command": "buzz the side door"}
    )
    process = {"action": "conversation.process", "data": {"text": "buzz the side door"}}
    await side_door(hass, [process])
    await hass.async_block_till_done()

    await switching_on_is_held_only_when(
        hass, scene, door_relay if which == "door" else spare, held
    )


# --- An MQTT message the lock publishes -------------------------------------------------------

MQTT_LOADED: Final[ConfigType] = {"mqtt": {}}
SIDE_DOOR_TOPIC: Final = "diy/side_door/unlock"


# The plugin's mocked MQTT client never disconnects, so MQTT's housekeeping timer outlives the
# test whatever the test does.
@pytest.mark.parametrize("expected_lingering_timers", [True])
@pytest.mark.parametrize("hass_config", [MQTT_LOADED])
@pytest.mark.parametrize(
    ("topic", "held"),
    [
        (SIDE_DOOR_TOPIC, True),
        ("diy/+/unlock", True),
        ("diy/#", True),
        # Everyday: a remote's button on a topic of its own switches the relay.
        ("zigbee2mqtt/remote/action", False),
    ],
)
async def test_a_relay_switched_on_the_mqtt_message_the_lock_publishes_is_held(
    hass: HomeAssistant,
    mqtt_mock: MqttMockHAClient,
    hass_config: ConfigType,
    scene: Scene,
    topic: str,
    held: bool,
) -> None:
    """The lock's unlock publishes on diy/side_door/unlock; an automation on a message on the
    topic switches the door relay on."""
    door_relay, _spare = await relays_beside(hass, {"trigger": "mqtt", "topic": topic})
    publish = {"action": "mqtt.publish", "data": {"topic": SIDE_DOOR_TOPIC, "payload": "1"}}
    await side_door(hass, [publish])
    await hass.async_block_till_done()

    await switching_on_is_held_only_when(hass, scene, door_relay, held)


# --- A template switch the person named sensitive ---------------------------------------------


@pytest.mark.parametrize(("named", "held"), [(True, True), (False, False)])
async def test_the_relay_of_a_template_switch_named_sensitive_is_held(
    hass: HomeAssistant, scene: Scene, named: bool, held: bool
) -> None:
    """ "Garage opener", a template switch whose turn-on pulses the garage relay, is one the
    person added as a sensitive entity: switching the relay on directly is opening the garage.
    Not named, both are everyday."""
    garage_relay = await relay(hass, "Garage relay")
    opener = await template_helper(
        hass,
        {
            "template_type": "switch",
            "name": "Garage opener",
            "turn_on": [switches_on(garage_relay)],
            "turn_off": [],
        },
    )
    await hass.async_block_till_done()
    options = {CONF_SENSITIVE_ENTITIES: [opener] if named else []}
    policy = SafetyPolicy.from_data({**AGENT_DEFAULTS, **options})

    result = await scene.ask_ours_to_call(
        "switch", {"action": "turn_on", "entity_id": garage_relay}, **options
    )

    action = PlannedAction("switch", "switch", "turn_on", (garage_relay,))
    assert bool(sensitive_targets_of_action(hass, policy, action)) is held
    assert_held_only_when(
        hass,
        result,
        held,
        "Turn on Garage relay (this will turn on Garage opener)? Say yes to confirm.",
    )


# --- Running an exempt script again in mode restart --------------------------------------------

COURIER: Final = "script.courier"
COURIER_AUTOMATION: Final = "automation.courier"
HELLO: Final = "script.hello"
COURIER_EXPECTED: Final = "input_boolean.courier_expected"


def courier_steps() -> list[dict[str, Any]]:
    """Lock the front door ten minutes after starting while a courier is expected (as the run
    starts), else only light the kitchen."""
    return [
        {"variables": {"expected": f"{{{{ is_state('{COURIER_EXPECTED}', 'on') }}}}"}},
        {"if": "{{ not expected }}", "then": [KITCHEN_ON, {"stop": "No courier"}]},
        {"delay": {"minutes": 10}},
        LOCK,
    ]


@pytest.mark.parametrize(
    ("mode", "running", "held"),
    [
        ("restart", True, True),
        # Everyday: not running, nothing is stopped; in the other modes the run under way
        # goes on (a new one is ignored, queued or run beside it).
        ("restart", False, False),
        ("single", True, False),
        ("queued", True, False),
        ("parallel", True, False),
    ],
)
async def test_running_again_an_exempt_script_in_mode_restart_that_would_secure_is_held(
    hass: HomeAssistant, scene: Scene, mode: str, running: bool, held: bool
) -> None:
    """The exempt "Courier" (mode restart) locks the front door ten minutes after it starts
    while a courier is expected, and only lights the kitchen otherwise. Started while one was
    expected, it waits to lock; running it again now stops that run, and the new one only
    lights the kitchen: the door is never locked."""
    courier = {"alias": "Courier", "mode": mode, "sequence": courier_steps()}
    await reload_scripts(hass, {"courier": courier})
    hass.states.async_set(COURIER_EXPECTED, "on")
    if running:
        start_in_the_background(hass, COURIER)
        await hass.async_block_till_done()
    hass.states.async_set(COURIER_EXPECTED, "off")

    policy = SafetyPolicy.from_data({**AGENT_DEFAULTS, CONF_EXEMPT_ENTITIES: [COURIER]})
    action = PlannedAction("script", "script", "turn_on", (COURIER,))
    assert bool(sensitive_targets_of_action(hass, policy, action)) is held
    if held or not running:
        # (Home Assistant's own `script.turn_on` of a running script waits for a change of
        # state that a run it ignores or restarts may not make: asked only where no call runs
        # or the script is not running.)
        result = await ask_to_run_exempt(hass, scene, COURIER)
        assert_held_only_when(
            hass,
            result,
            held,
            "Run Courier (this will lock Front Door, then Courier will not lock Front Door)? "
            "Say yes to confirm.",
        )
    await hass.services.async_call("script", "turn_off", {"entity_id": COURIER}, blocking=True)


@pytest.mark.parametrize(("mode", "held"), [("restart", True), ("single", False)])
async def test_triggering_an_exempt_automation_in_mode_restart_that_would_secure_is_held(
    hass: HomeAssistant, scene: Scene, mode: str, held: bool
) -> None:
    """The exempt automation "Courier" (mode restart) runs the same steps, and waits to lock up;
    the exempt script "Hello" triggers it: the new run stops the one under way."""
    await set_up_automations(
        hass,
        {
            "id": "courier",
            "alias": "Courier",
            "mode": mode,
            "triggers": [],
            "actions": courier_steps(),
        },
    )
    hass.states.async_set(COURIER_EXPECTED, "on")
    entity = hass.data["automation"].get_entity(COURIER_AUTOMATION)
    hass.async_create_background_task(
        entity.action_script.async_run(context=Context()), COURIER_AUTOMATION
    )
    await hass.async_block_till_done()
    hass.states.async_set(COURIER_EXPECTED, "off")
    trigger = {"action": "automation.trigger", "target": {"entity_id": COURIER_AUTOMATION}}
    await reload_scripts(hass, {"hello": {"alias": "Hello", "sequence": [trigger]}})

    exempt = [HELLO, COURIER_AUTOMATION]
    policy = SafetyPolicy.from_data({**AGENT_DEFAULTS, CONF_EXEMPT_ENTITIES: exempt})
    action = PlannedAction("script", "script", "turn_on", (HELLO,))
    assert bool(sensitive_targets_of_action(hass, policy, action)) is held
    if held:
        result = await ask_to_run_exempt(hass, scene, HELLO, also_exempt=(COURIER_AUTOMATION,))
        assert_held_only_when(hass, result, held)
    await hass.services.async_call(
        "automation", "turn_off", {"entity_id": COURIER_AUTOMATION}, blocking=True
    )
