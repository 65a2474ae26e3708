"""Everyday requests after the second round (redteam19's a8d88db..841902b), twenty-first round.

An exempt script whose action is a template choosing between known services ("{{
'light.turn_on' if … else 'light.turn_off' }}") sends what those services send, no more: in
a house whose NFC tag at the front door unlocks it, running it is no question. A whole yes
(or PIN) as speech-to-text writes it, with its commas, dashes and ellipses, confirms. Same house,
scripted model and helpers as the red-team files; each has its neighbour that is held.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.safety.confirmation import PinReply
from custom_components.local_agent.safety.confirmation import Reply
from custom_components.local_agent.safety.confirmation import classify_pin_reply
from custom_components.local_agent.safety.confirmation import classify_reply
from homeassistant.core import HomeAssistant

from .conftest import speech
from .conftest import state
from .probes import ask_to_run_exempt
from .scene import Scene
from .test_redteam import asked
from .test_redteam import set_up_automations
from .test_redteam_more import reload_scripts
from .test_redteam_nineteenth import TO_THE_TABLET
from .test_redteam_nineteenth import run_while_the_tablet_asks
from .test_redteam_seventh import LOCK
from .test_redteam_seventh import relock
from .test_redteam_third import running_timer

KITCHEN: Final = {"entity_id": "light.kitchen_lights"}
DARK: Final = "is_state('sun.sun', 'below_horizon')"
# Scan the tag by the front door with the phone: the door unlocks (the tag's own automation).
TAG_UNLOCKS: Final = {
    "id": "tag_unlocks",
    "alias": "Tag unlocks the front door",
    "triggers": [{"trigger": "tag", "tag_id": "front-door-tag"}],
    "actions": [{"action": "lock.unlock", "target": {"entity_id": "lock.front_door"}}],
}
KNOWN_OUTCOMES: Final[dict[str, str]] = {
    "if else": f"{{{{ 'light.turn_on' if {DARK} else 'light.turn_off' }}}}",
    "if block": f"{{% if {DARK} %}}light.turn_on{{% else %}}light.turn_off{{% endif %}}",
    "service part": f"light.{{{{ 'turn_on' if {DARK} else 'turn_off' }}}}",
    "elif": (
        f"{{%- if {DARK} -%}} light.turn_on {{%- elif is_state('sun.sun', 'above_horizon')"
        " -%} light.toggle {%- else -%} light.turn_off {%- endif -%}"
    ),
}
# What may yield any service (a helper's text, a variable, a joined string): held.
ANY_OUTCOME: Final[dict[str, str]] = {
    "a helper's text": "{{ states('input_text.kitchen_action') }}",
    "joined": "{{ 'light.' ~ states('input_text.kitchen_action') }}",
    "if without else": f"{{{{ 'light.turn_on' if {DARK} }}}}",
    "set": "{% set a = 'light.turn_on' %}{{ a }}",
}


async def run_kitchen_beside_the_tag(
    hass: HomeAssistant, scene: Scene, action: str
) -> tuple[Any, str]:
    """The exempt "Kitchen" whose one step's action is `action`, on the kitchen lights."""
    step = {"action": action, "target": KITCHEN}
    await reload_scripts(hass, {"kitchen": {"alias": "Kitchen", "sequence": [step]}})
    await set_up_automations(hass, TAG_UNLOCKS)
    before = state(hass, "light.kitchen_lights")
    result = await ask_to_run_exempt(hass, scene, "script.kitchen")
    await hass.async_block_till_done()
    return result, before


@pytest.mark.parametrize("written", list(KNOWN_OUTCOMES))
async def test_an_exempt_script_whose_action_template_picks_a_light_service_runs_at_once(
    hass: HomeAssistant, scene: Scene, written: str
) -> None:
    """ "Kitchen" turns the kitchen lights on after dark and off by day, its action written
    as a template choosing between the two. Each outcome is written out in its text: the
    step sends what light.turn_on or light.turn_off sends, nothing a tag trigger hears. It
    was read as a step that may send anything (a tag_scanned event) and asked 'this may
    unlock Front Door?' in every house with a tag that unlocks."""
    result, _ = await run_kitchen_beside_the_tag(hass, scene, KNOWN_OUTCOMES[written])

    assert not asked(result), speech(result)
    assert state(hass, "lock.front_door") == "locked"


@pytest.mark.parametrize("written", list(ANY_OUTCOME))
async def test_an_exempt_script_whose_action_template_may_be_anything_is_held(
    hass: HomeAssistant, scene: Scene, written: str
) -> None:
    """The neighbour: a template whose outcome is not written out in it may be a service that
    fires the tag's event (a Python script's): fail closed, held."""
    result, before = await run_kitchen_beside_the_tag(hass, scene, ANY_OUTCOME[written])

    assert asked(result), speech(result)
    assert state(hass, "light.kitchen_lights") == before


async def test_an_action_template_that_may_be_conversation_process_still_cannot_answer(
    hass: HomeAssistant, scene: Scene
) -> None:
    """The other neighbour: one outcome of the template is conversation.process, saying
    "yes" in the kitchen tablet's conversation, where the unlock waits. It keeps no
    exemption: held, and the door stays locked."""
    action = f"{{{{ 'conversation.process' if {DARK} else 'light.turn_on' }}}}"
    step = {"action": action, "data": TO_THE_TABLET}
    await reload_scripts(hass, {"say_yes": {"alias": "Say yes", "sequence": [step]}})
    await run_while_the_tablet_asks(hass, scene, "script.say_yes")


# --- A whole yes as speech-to-text writes it ------------------------------------------------

SPOKEN_YES: Final = [
    ("Yes.", "en"),
    ("Yes, please.", "en"),
    ("Yeah, sure.", "en"),
    ("Yes... do it.", "en"),
    ("Uh, yes.", "en"),
    ("Uh… yes.", "en"),
    ("Yes — go ahead.", "en"),
    ("Yes - go ahead.", "en"),
    ("Yes, um.", "en"),
    ("Ja, bitte.", "de"),
    ("Ja \u2013 bitte.", "de"),
    ("Oui, vas-y !", "fr"),
    ("Oui… vas-y.", "fr"),
    ("¡Sí, claro!", "es"),
    ("Sí... claro.", "es"),
    ("Sì, certo.", "it"),
    ("Ja, graag.", "nl"),
    ("Sim, por favor.", "pt"),
]


@pytest.mark.parametrize(("text", "language"), SPOKEN_YES)
def test_a_whole_yes_with_its_punctuation_still_confirms(text: str, language: str) -> None:
    """Whisper, Home Assistant Cloud and Vosk write a person's yes with their own commas,
    dashes and ellipses: a mark inside the reply cuts nothing off; only one it ends on
    does (a8d88db)."""
    assert classify_reply(text, language) is Reply.YES


@pytest.mark.parametrize("text", ["4711.", "4-7-1-1", "4 - 7 - 1 - 1", "4, 7, 1, 1.", "47 11."])
def test_a_pin_with_its_punctuation_is_a_pin_answer(text: str) -> None:
    """The PIN as speech-to-text writes it ("4711.", "4-7-1-1") is a PIN answer."""
    assert classify_pin_reply(text, "en") is PinReply.PIN


async def test_an_exempt_script_whose_action_template_picks_a_light_runs_beside_a_relock_timer(
    hass: HomeAssistant, scene: Scene
) -> None:
    """While the re-lock timer runs ("lock the front door again when it is up"), the same
    "Kitchen" runs at once: neither light service restarts Home Assistant, which would stop
    the timer. It was read as a step that may (a `homeassistant.restart`) and asked."""
    step = {"action": KNOWN_OUTCOMES["if else"], "target": KITCHEN}
    await reload_scripts(hass, {"kitchen": {"alias": "Kitchen", "sequence": [step]}})
    timer = await running_timer(hass, "relock")
    await set_up_automations(hass, relock(LOCK))

    result = await ask_to_run_exempt(hass, scene, "script.kitchen")
    await hass.async_block_till_done()

    assert not asked(result), speech(result)
    await hass.services.async_call("timer", "cancel", {"entity_id": timer}, blocking=True)
