"""What a held call's question says it will do, in the seven languages: truthfully.

A relay that a DIY lock's unlock switches on unlocks that lock: the question says so, as it
says what a script's steps do. Enabling an automation runs none of its actions: the question
says what the automation will do when it runs, not that enabling does it. What an automation
that the call's change sets off does is said as what the call may do.
"""

from __future__ import annotations

import pytest

from custom_components.local_agent.const import CONF_EXEMPT_ENTITIES
from custom_components.local_agent.home.actions import PlannedAction
from custom_components.local_agent.home.call_texts import capitalized
from custom_components.local_agent.home.call_texts import describe_action
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from .conftest import speech
from .conftest import state
from .scene import Scene
from .scene import tool_call
from .test_redteam import BED_LIGHT_ON
from .test_redteam import UNLOCK_FRONT_DOOR
from .test_redteam import let_in
from .test_redteam import relay
from .test_redteam import relay_lock
from .test_redteam import set_up_automations
from .test_redteam import set_up_helper
from .test_redteam import template_helper

FRONT_DOOR = "lock.front_door"
BED = "light.bed_light"


@pytest.mark.parametrize(
    ("language", "question"),
    [
        ("en", "Turn on Door relay (this will unlock Side Door)? Say yes to confirm."),
        (
            "de",
            "Door relay einschalten (das wird Side Door aufschließen)? Sag „ja“ zum Bestätigen.",
        ),
        ("es", "¿Encender Door relay (esto va a desbloquear Side Door)? Di «sí» para confirmar."),
    ],
)
async def test_a_relay_a_diy_lock_switches_is_asked_about_as_the_unlock_it_is(
    hass: HomeAssistant, scene: Scene, language: str, question: str
) -> None:
    door_relay = await relay(hass)
    side_door = await relay_lock(
        hass, "Side Door", unlocked=f"is_state('{door_relay}', 'on')", relay_target=door_relay
    )
    agent = await scene.our_agent()
    scene.worker.will_write(tool_call("switch", action="turn_on", entity_id=door_relay))

    result = await agent.ask("…", context=scene.person, language=language)

    assert speech(result) == question
    assert state(hass, side_door) == "locked"


@pytest.mark.parametrize(
    ("language", "question"),
    [
        ("en", "Enable Let in (when it runs, it will unlock Front Door)"),
        ("de", "Let in aktivieren (sobald sie läuft, wird sie Front Door aufschließen)"),
        ("fr", "Activer Let in (quand elle s'exécutera, elle va déverrouiller Front Door)"),
        ("es", "Activar Let in (cuando se ejecute, va a desbloquear Front Door)"),
        ("it", "Attivare Let in (quando verrà eseguita, andrà a sbloccare Front Door)"),
        ("nl", "Let in activeren (wanneer die draait, zal die Front Door ontgrendelen)"),
        ("pt", "Ativar Let in (quando for executada, vai destrancar Front Door)"),
    ],
)
async def test_enabling_an_automation_says_what_it_will_do_when_it_runs(
    hass: HomeAssistant, house: None, language: str, question: str
) -> None:
    """Whether enabling is held is the policy's; what it says, when it is, is this."""
    await set_up_automations(hass, let_in(*UNLOCK_FRONT_DOOR))
    enable = PlannedAction("automation", "automation", "turn_on", ("automation.let_in",))

    said = describe_action(
        hass, enable, lambda entity_id: entity_id == FRONT_DOOR, language, {FRONT_DOOR}
    )

    assert capitalized(said) == question


@pytest.mark.parametrize(
    ("language", "question"),
    [
        ("en", "Turn on Bed Light (this may unlock Front Door)?"),
        ("de", "Bed Light einschalten (das kann Front Door aufschließen)?"),
        ("fr", "Allumer Bed Light (cela peut déverrouiller Front Door)"),
        ("nl", "Bed Light inschakelen (dit kan Front Door ontgrendelen)?"),
    ],
)
async def test_what_a_change_sets_off_is_said_as_what_the_call_may_do(
    hass: HomeAssistant, scene: Scene, language: str, question: str
) -> None:
    """ "When the bed light goes on, unlock": the question names the unlock, as a "may" (the
    automation's triggers and conditions decide), not the light alone."""
    await set_up_automations(
        hass,
        {
            "id": "let_in",
            "alias": "Let in",
            "triggers": [BED_LIGHT_ON],
            "actions": UNLOCK_FRONT_DOOR,
        },
    )
    await hass.services.async_call("light", "turn_off", {"entity_id": BED}, blocking=True)
    agent = await scene.our_agent()
    scene.worker.will_write(tool_call("light", action="turn_on", entity_id=BED))

    result = await agent.ask("…", context=scene.person, language=language)

    assert speech(result).startswith(question), speech(result)
    assert state(hass, FRONT_DOOR) == "locked"
    assert state(hass, BED) == "off"


async def test_a_program_that_turns_the_light_back_is_said_by_what_that_sets_off(
    hass: HomeAssistant, scene: Scene
) -> None:
    """ "When the bed light goes on, switch on Porch" (a template switch the person exempted,
    whose turn-on turns the bed light off) beside "when the bed light goes off, unlock": the
    question names the unlock that the light's going off may set off, not Porch, whose own
    change is exempt."""
    porch = await template_helper(
        hass,
        {
            "template_type": "switch",
            "name": "Porch",
            "turn_on": [{"action": "light.turn_off", "target": {"entity_id": BED}}],
            "turn_off": [],
        },
    )
    on = {"trigger": "state", "entity_id": BED, "to": "on"}
    off = {"trigger": "state", "entity_id": BED, "to": "off"}
    await set_up_automations(
        hass,
        {
            "id": "evening",
            "triggers": [on],
            "actions": [{"action": "switch.turn_on", "target": {"entity_id": porch}}],
        },
        {"id": "let_in", "triggers": [off], "actions": UNLOCK_FRONT_DOOR},
    )
    await hass.services.async_call("light", "turn_off", {"entity_id": BED}, blocking=True)
    agent = await scene.our_agent(**{CONF_EXEMPT_ENTITIES: [porch]})
    scene.worker.will_write(tool_call("light", action="turn_on", entity_id=BED))

    result = await agent.ask("…", context=scene.person)

    assert speech(result) == "Turn on Bed Light (this may unlock Front Door)? Say yes to confirm."
    assert state(hass, FRONT_DOOR) == "locked"


@pytest.mark.parametrize(
    ("target_domain", "invert", "service", "question"),
    [
        ("lock", False, "turn_on", "Turn on Door relay (this will unlock Side Door)?"),
        ("lock", False, "turn_off", "Turn off Door relay (this will lock Side Door)?"),
        ("lock", True, "turn_off", "Turn off Door relay (this will unlock Side Door)?"),
        ("cover", False, "turn_on", "Turn on Door relay (this will open Side Door)?"),
    ],
)
async def test_a_relay_switch_as_x_shows_as_a_lock_is_asked_about_as_what_it_does_to_it(
    hass: HomeAssistant,
    scene: Scene,
    target_domain: str,
    invert: bool,
    service: str,
    question: str,
) -> None:
    """Switch as X shows the relay as a lock (a garage door): switching the relay is that
    lock's unlock or lock (opening), the wrapper's own setting says which; the question says
    so, as it does for the relay a DIY lock's unlock switches."""
    door_relay = await relay(hass)
    options = {"entity_id": door_relay, "invert": invert, "target_domain": target_domain}
    wrapper = await set_up_helper(hass, "switch_as_x", "Side Door", options)
    if target_domain == "cover":
        er.async_get(hass).async_update_entity(wrapper.entity_id, device_class="garage")
    er.async_get(hass).async_update_entity(wrapper.entity_id, name="Side Door")
    # The person shows the relay to Assist again (Switch as X had hidden it).
    async_expose_entity(hass, "conversation", door_relay, True)
    agent = await scene.our_agent()
    scene.worker.will_write(tool_call("switch", action=service, entity_id=door_relay))

    result = await agent.ask("…", context=scene.person)

    assert speech(result) == f"{question} Say yes to confirm."
