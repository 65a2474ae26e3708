"""A house with ordinary automations: a change that sets off a notification runs at once.

"When the bed light goes on, tell my phone" is one of the most common automations there are;
turning on the bed light must not become a question for it. A notification (told by its
handler) changes no entity itself: what hears it is judged, an automation that hears any
message (an actionable notification's tap fires an event), and what that one does. An event
fired for whatever listens, and another integration's service, stay a question; so does a
service aimed at an area only where the service's own entities there are sensitive.
Same house, scripted model and helpers as the red-team files.
"""

from __future__ import annotations

from functools import partial
from typing import Any
from typing import Final

import pytest

from homeassistant.core import HomeAssistant
from homeassistant.helpers import service as service_helper
from homeassistant.helpers.entity_component import DATA_INSTANCES
from homeassistant.setup import async_setup_component

from .conftest import speech
from .demo_house import phone_notifications
from .houses import another_integrations_service
from .scene import Scene
from .test_redteam import BED_LIGHT_ON
from .test_redteam import check_turning_on_the_bed_light
from .test_redteam import event_trigger
from .test_redteam import with_the_bed_light_off
from .test_redteam_seventh import UNLOCK
from .test_redteam_sixth import TURN_ON_KITCHEN

TELL_THE_PHONE: Final = {"action": "notify.phone", "data": {"message": "The bed light is on"}}
SHOW_IN_THE_UI: Final = {
    "action": "persistent_notification.create",
    "data": {"message": "The bed light is on"},
}
SIGNAL_BEDTIME: Final = {"event": "bedtime"}
OPEN_SESAME: Final = {"action": "hub.open_sesame"}


def when_the_bed_light_goes_on(*actions: dict[str, Any]) -> dict[str, Any]:
    """The bed light's own automation: when it goes on, run `actions`."""
    return {
        "id": "bed_light_on",
        "alias": "Bed light on",
        "triggers": [BED_LIGHT_ON],
        "actions": list(actions),
    }


def on(trigger: dict[str, Any], *actions: dict[str, Any]) -> dict[str, Any]:
    """Another automation of the house: on `trigger`, run `actions`."""
    name = "_".join(str(value) for value in trigger.values() if isinstance(value, str))
    return {
        "id": f"on_{name}",
        "alias": f"On {name}",
        "triggers": [trigger],
        "actions": list(actions),
    }


# (what the bed light's own automation does, the house's other automations, held: whether
# turning the bed light on asks)
Beside = tuple[list[dict[str, Any]], list[dict[str, Any]], bool]


async def check_the_bed_light_beside(hass: HomeAssistant, scene: Scene, beside: Beside) -> None:
    """The bed light's own automation does what it does beside the house's other automations:
    turning the bed light on asks, or runs at once."""
    actions, others, held = beside
    await with_the_bed_light_off(hass, when_the_bed_light_goes_on(*actions), *others)

    await check_turning_on_the_bed_light(hass, scene, held=held)


TAPPED: Final = event_trigger("mobile_app_notification_action")
HOUSES: Final[list[Beside]] = [
    ([TELL_THE_PHONE], [], False),
    ([SHOW_IN_THE_UI], [], False),
    ([TELL_THE_PHONE, *TURN_ON_KITCHEN], [on(event_trigger("doorbell"), *TURN_ON_KITCHEN)], False),
    # A tapped actionable notification fires an event: a message may be any signal.
    ([TELL_THE_PHONE], [on(TAPPED, UNLOCK)], True),
    ([SHOW_IN_THE_UI], [on({"trigger": "persistent_notification"}, UNLOCK)], True),
    (
        [TELL_THE_PHONE],
        [on(TAPPED, SHOW_IN_THE_UI), on({"trigger": "webhook", "webhook_id": "x"}, UNLOCK)],
        True,
    ),
    ([TELL_THE_PHONE], [on(TAPPED, TELL_THE_PHONE, *TURN_ON_KITCHEN)], False),
    # A message restarts nothing.
    ([TELL_THE_PHONE], [on({"trigger": "homeassistant", "event": "start"}, UNLOCK)], False),
    # An event is fired for whatever listens to it: an automation, or another integration's code.
    ([SIGNAL_BEDTIME], [], True),
    ([SIGNAL_BEDTIME], [on(event_trigger("bedtime"), UNLOCK)], True),
    # The hall holds the back door's lock: a light service on the hall changes its lights.
    ([{"action": "light.turn_on", "target": {"area_id": "hall"}}], [], False),
    ([{"action": "lock.unlock", "target": {"area_id": "hall"}}], [], True),
    ([{"action": "homeassistant.turn_off", "target": {"area_id": "hall"}}], [], True),
    ([OPEN_SESAME], [], True),
    ([TELL_THE_PHONE, OPEN_SESAME], [], True),
]


@pytest.mark.parametrize(
    "beside",
    HOUSES,
    ids=[
        "tells the phone",
        "shows a notification",
        "tells the phone; the doorbell lights the kitchen",
        "tells the phone; a tapped notification unlocks",
        "shows a notification; a notification unlocks",
        "tells the phone; a tap shows a notification; a webhook unlocks",
        "tells the phone; a tap tells it again",
        "tells the phone; the start of Home Assistant unlocks",
        "fires an event nobody else hears",
        "fires an event that unlocks",
        "lights the hall",
        "unlocks the hall",
        "turns off everything in the hall",
        "another integration's service",
        "tells the phone and another integration's service",
    ],
)
async def test_what_hears_a_notification_decides(
    hass: HomeAssistant, scene: Scene, beside: Beside
) -> None:
    await phone_notifications(hass)
    assert await async_setup_component(hass, "persistent_notification", {})
    another_integrations_service(hass, "hub", "open_sesame")

    await check_the_bed_light_beside(hass, scene, beside)


async def test_the_question_of_a_light_whose_notification_may_unlock_says_so(
    hass: HomeAssistant, scene: Scene
) -> None:
    await phone_notifications(hass)
    await with_the_bed_light_off(
        hass, when_the_bed_light_goes_on(TELL_THE_PHONE), on(TAPPED, UNLOCK)
    )

    result = await scene.ask_to_call(
        await scene.our_agent(), "light", {"action": "turn_on", "entity_id": "light.bed_light"}
    )

    assert speech(result) == "Turn on Bed Light (this may unlock Front Door)? Say yes to confirm."


async def test_a_service_in_the_light_domain_that_unlocks_the_hall_is_held(
    hass: HomeAssistant, scene: Scene
) -> None:
    """Trust no name: what a service may change is read from its handler, not its domain.

    Another integration registers `light.glow` as an entity service of its lock.
    """
    locks = hass.data[DATA_INSTANCES]["lock"]
    back_door = locks.get_entity("lock.back_door")
    assert back_door is not None
    hass.services.async_register(
        "light",
        "glow",
        partial(
            service_helper.entity_service_call,
            hass,
            {back_door.entity_id: back_door},
            "async_unlock",
        ),
    )
    glow = {"action": "light.glow", "target": {"area_id": "hall"}}
    await with_the_bed_light_off(hass, when_the_bed_light_goes_on(glow))

    await check_turning_on_the_bed_light(hass, scene, held=True)
