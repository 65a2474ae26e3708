"""Every service our tools offer, said as a native speaker says it: done, refused and asked.

One typical value for each field, in English and German; the three sentences of each call
pinned as they read now.

- A refusal said our tools' calls by their service's words alone, without the values asked:
  "I could not set value Fan speed." (the English service name glued in), "Das ging nicht:
  die Voreinstellung von Heizung wählen." It now says the call as the question does: "I could
  not set Fan speed to 3.", "… die Voreinstellung von Heizung auf eco einstellen."
- English said a number's, a text's, a date's or a time's set_value without its value as
  "set value Thing": now "set Thing".
- An English done answer glued a field's name before a word: "Turned on TV remote (activity
  Watch TV)", "(operation mode eco)": now the word alone, as the question says it.
"""

from __future__ import annotations

from typing import Any
from typing import Final

import pytest

from custom_components.local_agent.home.actions import PlannedAction
from custom_components.local_agent.home.call_texts import async_load_value_words
from custom_components.local_agent.home.call_texts import async_phrase
from custom_components.local_agent.home.call_texts import capitalized
from custom_components.local_agent.home.call_texts import describe_action
from custom_components.local_agent.home.service_catalog import CURATED_SERVICES
from custom_components.local_agent.turn.plain_answer import DoneAction
from custom_components.local_agent.turn.plain_answer import sentence
from custom_components.local_agent.turn.refusals import describe_calls
from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

# One typical value for each field a service of the catalog takes; None: left out.
VALUES: Final[dict[str, Any]] = {
    "activity": "Watch TV",
    "away_mode": True,
    "brightness_pct": 40,
    "cleaning_area_id": ["kitchen"],
    "date": "2020-12-24",
    "datetime": "2020-12-24 07:15:00",
    "direction": "reverse",
    "duration": "00:05:00",
    "fan_mode": "high",
    "fan_speed": "max",
    "humidity": 45,
    "hvac_mode": "heat",
    "is_volume_muted": True,
    "item": "milk",
    "message": "Dinner is ready",
    "mode": "sleep",
    "operation_mode": "eco",
    "option": "Party",
    "oscillating": True,
    "percentage": 50,
    "position": 30,
    "preset_mode": "eco",
    "repeat": "all",
    "shuffle": True,
    "sound_mode": "Music",
    "source": "TV",
    "swing_horizontal_mode": "on",
    "swing_mode": "vertical",
    "temperature": 21.5,
    "tilt_position": 40,
    "time": "07:30:00",
    "value": 3,
    "volume_level": 0.3,
}


def typical(domain: str, service: str) -> dict[str, Any]:
    """Return the call's fields with their typical values (a text's value is words)."""
    fields = {k: VALUES[k] for k in CURATED_SERVICES[domain][service] if k in VALUES}
    return {"value": "hello"} if domain == "input_text" else fields


async def three_sentences(
    hass: HomeAssistant, domain: str, service: str, fields: dict[str, Any], language: str
) -> tuple[str, str, str]:
    """Return what the agent says of the call on a "Thing": done, refused, and asked."""
    entity_id = f"{domain}.thing"
    hass.states.async_set(entity_id, "on", {"friendly_name": "Thing"})
    async_expose_entity(hass, "conversation", entity_id, True)
    await async_load_value_words(hass, language, [domain])  # as a turn loads them
    done_action = DoneAction(domain, service, ("Thing",), tuple(fields.items()), (entity_id,))
    done = await async_phrase(
        hass, language, "actions_done", actions=capitalized(sentence([done_action], language))
    )
    call = llm.ToolInput(
        tool_name=domain, tool_args={"action": service, "entity_id": entity_id, **fields}
    )
    refused = await async_phrase(
        hass, language, "calls_refused", calls=str(describe_calls(hass, [call], language, [domain]))
    )
    action = PlannedAction(domain, domain, service, (entity_id,), fields)
    asked = await async_phrase(
        hass, language, "confirm_question", actions=describe_action(hass, action, language=language)
    )
    return done, refused, capitalized(asked)


SENTENCES: Final[dict[str, dict[str, tuple[str, str, str]]]] = {
    "alarm_control_panel.alarm_arm_away": {
        "en": (
            "Armed (away) Thing.",
            "I could not arm (away) Thing.",
            "Arm (away) Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing scharf schalten (abwesend).",
            "Das ging nicht: Thing scharf schalten (abwesend).",
            "Thing scharf schalten (abwesend)? Sag „ja“ zum Bestätigen.",
        ),
    },
    "alarm_control_panel.alarm_arm_home": {
        "en": (
            "Armed (home) Thing.",
            "I could not arm (home) Thing.",
            "Arm (home) Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing scharf schalten (zu Hause).",
            "Das ging nicht: Thing scharf schalten (zu Hause).",
            "Thing scharf schalten (zu Hause)? Sag „ja“ zum Bestätigen.",
        ),
    },
    "alarm_control_panel.alarm_arm_night": {
        "en": (
            "Armed (night) Thing.",
            "I could not arm (night) Thing.",
            "Arm (night) Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing scharf schalten (Nacht).",
            "Das ging nicht: Thing scharf schalten (Nacht).",
            "Thing scharf schalten (Nacht)? Sag „ja“ zum Bestätigen.",
        ),
    },
    "alarm_control_panel.alarm_arm_vacation": {
        "en": (
            "Armed (vacation) Thing.",
            "I could not arm (vacation) Thing.",
            "Arm (vacation) Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing scharf schalten (Urlaub).",
            "Das ging nicht: Thing scharf schalten (Urlaub).",
            "Thing scharf schalten (Urlaub)? Sag „ja“ zum Bestätigen.",
        ),
    },
    "alarm_control_panel.alarm_disarm": {
        "en": ("Disarmed Thing.", "I could not disarm Thing.", "Disarm Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing unscharf schalten.",
            "Das ging nicht: Thing unscharf schalten.",
            "Thing unscharf schalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "automation.trigger": {
        "en": ("Ran Thing.", "I could not run Thing.", "Run Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing ausführen.",
            "Das ging nicht: Thing ausführen.",
            "Thing ausführen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "automation.turn_off": {
        "en": (
            "Disabled Thing.",
            "I could not disable Thing.",
            "Disable Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing deaktivieren.",
            "Das ging nicht: Thing deaktivieren.",
            "Thing deaktivieren? Sag „ja“ zum Bestätigen.",
        ),
    },
    "automation.turn_on": {
        "en": ("Enabled Thing.", "I could not enable Thing.", "Enable Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing aktivieren.",
            "Das ging nicht: Thing aktivieren.",
            "Thing aktivieren? Sag „ja“ zum Bestätigen.",
        ),
    },
    "button.press": {
        "en": ("Pressed Thing.", "I could not press Thing.", "Press Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing drücken.",
            "Das ging nicht: Thing drücken.",
            "Thing drücken? Sag „ja“ zum Bestätigen.",
        ),
    },
    "climate.set_fan_mode": {
        "en": (
            "Set the fan mode of Thing to high.",
            "I could not set the fan mode of Thing to high.",
            "Set the fan mode of Thing to high? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Lüfterstufe von Thing auf high einstellen.",
            "Das ging nicht: die Lüfterstufe von Thing auf Hoch einstellen.",
            "Die Lüfterstufe von Thing auf Hoch einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "climate.set_humidity": {
        "en": (
            "Set the humidity of Thing to 45%.",
            "I could not set the humidity of Thing to 45%.",
            "Set the humidity of Thing to 45%? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Luftfeuchtigkeit von Thing auf 45 % einstellen.",
            "Das ging nicht: die Luftfeuchtigkeit von Thing auf 45 % einstellen.",
            "Die Luftfeuchtigkeit von Thing auf 45 % einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "climate.set_hvac_mode": {
        "en": (
            "Set the mode of Thing to heat.",
            "I could not set the mode of Thing to heat.",
            "Set the mode of Thing to heat? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Den Modus von Thing auf heat einstellen.",
            "Das ging nicht: den Modus von Thing auf Heizbetrieb einstellen.",
            "Den Modus von Thing auf Heizbetrieb einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "climate.set_preset_mode": {
        "en": (
            "Set the preset of Thing to eco.",
            "I could not set the preset of Thing to eco.",
            "Set the preset of Thing to eco? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Voreinstellung von Thing auf eco einstellen.",
            "Das ging nicht: die Voreinstellung von Thing auf Eco einstellen.",
            "Die Voreinstellung von Thing auf Eco einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "climate.set_swing_horizontal_mode": {
        "en": (
            "Set the horizontal swing mode of Thing to on.",
            "I could not set the horizontal swing mode of Thing to on.",
            "Set the horizontal swing mode of Thing to on? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Den horizontalen Schwenkmodus von Thing auf on einstellen.",
            "Das ging nicht: den horizontalen Schwenkmodus von Thing auf Ein einstellen.",
            "Den horizontalen Schwenkmodus von Thing auf Ein einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "climate.set_swing_mode": {
        "en": (
            "Set the swing mode of Thing to vertical.",
            "I could not set the swing mode of Thing to vertical.",
            "Set the swing mode of Thing to vertical? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Den Schwenkmodus von Thing auf vertical einstellen.",
            "Das ging nicht: den Schwenkmodus von Thing auf Vertikal einstellen.",
            "Den Schwenkmodus von Thing auf Vertikal einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "climate.set_temperature": {
        "en": (
            "Set the temperature of Thing to 21.5° (heat).",
            "I could not set Thing to heat at 21.5°.",
            "Set Thing to heat at 21.5°? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing auf heat mit 21,5° einstellen.",
            "Das ging nicht: Thing auf Heizbetrieb mit 21,5° einstellen.",
            "Thing auf Heizbetrieb mit 21,5° einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "climate.turn_off": {
        "en": (
            "Turned off Thing.",
            "I could not turn off Thing.",
            "Turn off Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing ausschalten.",
            "Das ging nicht: Thing ausschalten.",
            "Thing ausschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "climate.turn_on": {
        "en": (
            "Turned on Thing.",
            "I could not turn on Thing.",
            "Turn on Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing einschalten.",
            "Das ging nicht: Thing einschalten.",
            "Thing einschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "counter.decrement": {
        "en": (
            "Decreased Thing.",
            "I could not decrease Thing.",
            "Decrease Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing verringern.",
            "Das ging nicht: Thing verringern.",
            "Thing verringern? Sag „ja“ zum Bestätigen.",
        ),
    },
    "counter.increment": {
        "en": (
            "Increased Thing.",
            "I could not increase Thing.",
            "Increase Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing erhöhen.",
            "Das ging nicht: Thing erhöhen.",
            "Thing erhöhen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "counter.reset": {
        "en": ("Reset Thing.", "I could not reset Thing.", "Reset Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing zurücksetzen.",
            "Das ging nicht: Thing zurücksetzen.",
            "Thing zurücksetzen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "cover.close_cover": {
        "en": ("Closed Thing.", "I could not close Thing.", "Close Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing schließen.",
            "Das ging nicht: Thing schließen.",
            "Thing schließen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "cover.close_cover_tilt": {
        "en": (
            "Closed the tilt of Thing.",
            "I could not close the tilt of Thing.",
            "Close the tilt of Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Lamellen von Thing schließen.",
            "Das ging nicht: die Lamellen von Thing schließen.",
            "Die Lamellen von Thing schließen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "cover.open_cover": {
        "en": ("Opened Thing.", "I could not open Thing.", "Open Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing öffnen.",
            "Das ging nicht: Thing öffnen.",
            "Thing öffnen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "cover.open_cover_tilt": {
        "en": (
            "Opened the tilt of Thing.",
            "I could not open the tilt of Thing.",
            "Open the tilt of Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Lamellen von Thing öffnen.",
            "Das ging nicht: die Lamellen von Thing öffnen.",
            "Die Lamellen von Thing öffnen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "cover.set_cover_position": {
        "en": (
            "Set the position of Thing to 30%.",
            "I could not set the position of Thing to 30%.",
            "Set the position of Thing to 30%? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Position von Thing auf 30 % einstellen.",
            "Das ging nicht: die Position von Thing auf 30 % einstellen.",
            "Die Position von Thing auf 30 % einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "cover.set_cover_tilt_position": {
        "en": (
            "Set the tilt of Thing to 40%.",
            "I could not set the tilt of Thing to 40%.",
            "Set the tilt of Thing to 40%? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Lamellen von Thing auf 40 % einstellen.",
            "Das ging nicht: die Lamellen von Thing auf 40 % einstellen.",
            "Die Lamellen von Thing auf 40 % einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "cover.stop_cover": {
        "en": ("Stopped Thing.", "I could not stop Thing.", "Stop Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing anhalten.",
            "Das ging nicht: Thing anhalten.",
            "Thing anhalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "date.set_value": {
        "en": (
            "Set Thing to December 24, 2020.",
            "I could not set Thing to December 24, 2020.",
            "Set Thing to December 24, 2020? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing auf 24. Dezember 2020 einstellen.",
            "Das ging nicht: Thing auf 24. Dezember 2020 einstellen.",
            "Thing auf 24. Dezember 2020 einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "datetime.set_value": {
        "en": (
            "Set Thing to December 24, 2020 at 07:15.",
            "I could not set Thing to December 24, 2020 at 07:15.",
            "Set Thing to December 24, 2020 at 07:15? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing auf 24. Dezember 2020 um 07:15 einstellen.",
            "Das ging nicht: Thing auf 24. Dezember 2020 um 07:15 einstellen.",
            "Thing auf 24. Dezember 2020 um 07:15 einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "fan.decrease_speed": {
        "en": (
            "Slowed down Thing.",
            "I could not slow down Thing.",
            "Slow down Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Geschwindigkeit von Thing verringern.",
            "Das ging nicht: die Geschwindigkeit von Thing verringern.",
            "Die Geschwindigkeit von Thing verringern? Sag „ja“ zum Bestätigen.",
        ),
    },
    "fan.increase_speed": {
        "en": (
            "Sped up Thing.",
            "I could not speed up Thing.",
            "Speed up Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Geschwindigkeit von Thing erhöhen.",
            "Das ging nicht: die Geschwindigkeit von Thing erhöhen.",
            "Die Geschwindigkeit von Thing erhöhen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "fan.oscillate": {
        "en": (
            "Turned on oscillation of Thing.",
            "I could not turn on oscillation of Thing.",
            "Turn on oscillation of Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Oszillation von Thing einschalten.",
            "Das ging nicht: die Oszillation von Thing einschalten.",
            "Die Oszillation von Thing einschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "fan.set_direction": {
        "en": (
            "Set the direction of Thing to reverse.",
            "I could not set the direction of Thing to reverse.",
            "Set the direction of Thing to reverse? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Richtung von Thing auf reverse einstellen.",
            "Das ging nicht: die Richtung von Thing auf Rückwärts einstellen.",
            "Die Richtung von Thing auf Rückwärts einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "fan.set_percentage": {
        "en": (
            "Set the speed of Thing to 50%.",
            "I could not set the speed of Thing to 50%.",
            "Set the speed of Thing to 50%? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Geschwindigkeit von Thing auf 50 % einstellen.",
            "Das ging nicht: die Geschwindigkeit von Thing auf 50 % einstellen.",
            "Die Geschwindigkeit von Thing auf 50 % einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "fan.set_preset_mode": {
        "en": (
            "Set the preset of Thing to eco.",
            "I could not set the preset of Thing to eco.",
            "Set the preset of Thing to eco? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Voreinstellung von Thing auf eco einstellen.",
            "Das ging nicht: die Voreinstellung von Thing auf eco einstellen.",
            "Die Voreinstellung von Thing auf eco einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "fan.toggle": {
        "en": ("Toggled Thing.", "I could not toggle Thing.", "Toggle Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing umschalten.",
            "Das ging nicht: Thing umschalten.",
            "Thing umschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "fan.turn_off": {
        "en": (
            "Turned off Thing.",
            "I could not turn off Thing.",
            "Turn off Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing ausschalten.",
            "Das ging nicht: Thing ausschalten.",
            "Thing ausschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "fan.turn_on": {
        "en": (
            "Turned on Thing at 50% (eco).",
            "I could not turn on Thing at 50%.",
            "Turn on Thing at 50% (eco)? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing auf 50 % einschalten (eco).",
            "Das ging nicht: Thing auf 50 % einschalten.",
            "Thing auf 50 % einschalten (eco)? Sag „ja“ zum Bestätigen.",
        ),
    },
    "humidifier.set_humidity": {
        "en": (
            "Set the humidity of Thing to 45%.",
            "I could not set the humidity of Thing to 45%.",
            "Set the humidity of Thing to 45%? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Luftfeuchtigkeit von Thing auf 45 % einstellen.",
            "Das ging nicht: die Luftfeuchtigkeit von Thing auf 45 % einstellen.",
            "Die Luftfeuchtigkeit von Thing auf 45 % einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "humidifier.set_mode": {
        "en": (
            "Set the mode of Thing to sleep.",
            "I could not set the mode of Thing to sleep.",
            "Set the mode of Thing to sleep? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Den Modus von Thing auf sleep einstellen.",
            "Das ging nicht: den Modus von Thing auf Schlafen einstellen.",
            "Den Modus von Thing auf Schlafen einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "humidifier.toggle": {
        "en": ("Toggled Thing.", "I could not toggle Thing.", "Toggle Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing umschalten.",
            "Das ging nicht: Thing umschalten.",
            "Thing umschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "humidifier.turn_off": {
        "en": (
            "Turned off Thing.",
            "I could not turn off Thing.",
            "Turn off Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing ausschalten.",
            "Das ging nicht: Thing ausschalten.",
            "Thing ausschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "humidifier.turn_on": {
        "en": (
            "Turned on Thing.",
            "I could not turn on Thing.",
            "Turn on Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing einschalten.",
            "Das ging nicht: Thing einschalten.",
            "Thing einschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "input_boolean.toggle": {
        "en": ("Toggled Thing.", "I could not toggle Thing.", "Toggle Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing umschalten.",
            "Das ging nicht: Thing umschalten.",
            "Thing umschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "input_boolean.turn_off": {
        "en": (
            "Turned off Thing.",
            "I could not turn off Thing.",
            "Turn off Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing ausschalten.",
            "Das ging nicht: Thing ausschalten.",
            "Thing ausschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "input_boolean.turn_on": {
        "en": (
            "Turned on Thing.",
            "I could not turn on Thing.",
            "Turn on Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing einschalten.",
            "Das ging nicht: Thing einschalten.",
            "Thing einschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "input_button.press": {
        "en": ("Pressed Thing.", "I could not press Thing.", "Press Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing drücken.",
            "Das ging nicht: Thing drücken.",
            "Thing drücken? Sag „ja“ zum Bestätigen.",
        ),
    },
    "input_datetime.set_datetime": {
        "en": (
            "Set Thing to December 24, 2020 at 07:30.",
            "I could not set Thing to December 24, 2020 at 07:30.",
            "Set Thing to December 24, 2020 at 07:30? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing auf 24. Dezember 2020 um 07:30 einstellen.",
            "Das ging nicht: Thing auf 24. Dezember 2020 um 07:30 einstellen.",
            "Thing auf 24. Dezember 2020 um 07:30 einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "input_number.decrement": {
        "en": (
            "Decreased Thing.",
            "I could not decrease Thing.",
            "Decrease Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing verringern.",
            "Das ging nicht: Thing verringern.",
            "Thing verringern? Sag „ja“ zum Bestätigen.",
        ),
    },
    "input_number.increment": {
        "en": (
            "Increased Thing.",
            "I could not increase Thing.",
            "Increase Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing erhöhen.",
            "Das ging nicht: Thing erhöhen.",
            "Thing erhöhen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "input_number.set_value": {
        "en": (
            "Set Thing to 3.",
            "I could not set Thing to 3.",
            "Set Thing to 3? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing auf 3 einstellen.",
            "Das ging nicht: Thing auf 3 einstellen.",
            "Thing auf 3 einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "input_select.select_next": {
        "en": (
            "Selected the next option of Thing.",
            "I could not select the next option of Thing.",
            "Select the next option of Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Bei Thing die nächste Option wählen.",
            "Das ging nicht: bei Thing die nächste Option wählen.",
            "Bei Thing die nächste Option wählen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "input_select.select_option": {
        "en": (
            "Set Thing to Party.",
            "I could not set Thing to Party.",
            "Set Thing to Party? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing auf Party einstellen.",
            "Das ging nicht: Thing auf Party einstellen.",
            "Thing auf Party einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "input_select.select_previous": {
        "en": (
            "Selected the previous option of Thing.",
            "I could not select the previous option of Thing.",
            "Select the previous option of Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Bei Thing die vorherige Option wählen.",
            "Das ging nicht: bei Thing die vorherige Option wählen.",
            "Bei Thing die vorherige Option wählen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "input_text.set_value": {
        "en": (
            "Set Thing to hello.",
            "I could not set Thing to hello.",
            "Set Thing to hello? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing auf hello einstellen.",
            "Das ging nicht: Thing auf hello einstellen.",
            "Thing auf hello einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "lawn_mower.dock": {
        "en": ("Docked Thing.", "I could not dock Thing.", "Dock Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing zur Ladestation schicken.",
            "Das ging nicht: Thing zur Ladestation schicken.",
            "Thing zur Ladestation schicken? Sag „ja“ zum Bestätigen.",
        ),
    },
    "lawn_mower.pause": {
        "en": ("Paused Thing.", "I could not pause Thing.", "Pause Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing pausieren.",
            "Das ging nicht: Thing pausieren.",
            "Thing pausieren? Sag „ja“ zum Bestätigen.",
        ),
    },
    "lawn_mower.start_mowing": {
        "en": ("Started Thing.", "I could not start Thing.", "Start Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing starten.",
            "Das ging nicht: Thing starten.",
            "Thing starten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "light.toggle": {
        "en": ("Toggled Thing.", "I could not toggle Thing.", "Toggle Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing umschalten.",
            "Das ging nicht: Thing umschalten.",
            "Thing umschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "light.turn_off": {
        "en": (
            "Turned off Thing.",
            "I could not turn off Thing.",
            "Turn off Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing ausschalten.",
            "Das ging nicht: Thing ausschalten.",
            "Thing ausschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "light.turn_on": {
        "en": (
            "Turned on Thing at 40%.",
            "I could not turn on Thing at 40%.",
            "Turn on Thing at 40%? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing auf 40 % einschalten.",
            "Das ging nicht: Thing auf 40 % einschalten.",
            "Thing auf 40 % einschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "lock.lock": {
        "en": ("Locked Thing.", "I could not lock Thing.", "Lock Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing abschließen.",
            "Das ging nicht: Thing abschließen.",
            "Thing abschließen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "lock.open": {
        "en": ("Opened Thing.", "I could not open Thing.", "Open Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing öffnen.",
            "Das ging nicht: Thing öffnen.",
            "Thing öffnen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "lock.unlock": {
        "en": ("Unlocked Thing.", "I could not unlock Thing.", "Unlock Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing aufschließen.",
            "Das ging nicht: Thing aufschließen.",
            "Thing aufschließen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "media_player.media_next_track": {
        "en": (
            "Skipped to the next track on Thing.",
            "I could not skip to the next track on Thing.",
            "Skip to the next track on Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Auf Thing zum nächsten Titel springen.",
            "Das ging nicht: auf Thing zum nächsten Titel springen.",
            "Auf Thing zum nächsten Titel springen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "media_player.media_pause": {
        "en": ("Paused Thing.", "I could not pause Thing.", "Pause Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing pausieren.",
            "Das ging nicht: Thing pausieren.",
            "Thing pausieren? Sag „ja“ zum Bestätigen.",
        ),
    },
    "media_player.media_play": {
        "en": (
            "Started playing Thing.",
            "I could not play Thing.",
            "Play Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing abspielen.",
            "Das ging nicht: Thing abspielen.",
            "Thing abspielen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "media_player.media_previous_track": {
        "en": (
            "Went back a track on Thing.",
            "I could not go back a track on Thing.",
            "Go back a track on Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Auf Thing zum vorherigen Titel springen.",
            "Das ging nicht: auf Thing zum vorherigen Titel springen.",
            "Auf Thing zum vorherigen Titel springen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "media_player.media_stop": {
        "en": ("Stopped Thing.", "I could not stop Thing.", "Stop Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing stoppen.",
            "Das ging nicht: Thing stoppen.",
            "Thing stoppen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "media_player.repeat_set": {
        "en": (
            "Set repeat of Thing to all.",
            "I could not set repeat of Thing to all.",
            "Set repeat of Thing to all? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Wiederholung von Thing auf all einstellen.",
            "Das ging nicht: die Wiederholung von Thing auf Alle einstellen.",
            "Die Wiederholung von Thing auf Alle einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "media_player.select_sound_mode": {
        "en": (
            "Set the sound mode of Thing to Music.",
            "I could not set the sound mode of Thing to Music.",
            "Set the sound mode of Thing to Music? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Den Klangmodus von Thing auf Music einstellen.",
            "Das ging nicht: den Klangmodus von Thing auf Music einstellen.",
            "Den Klangmodus von Thing auf Music einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "media_player.select_source": {
        "en": (
            "Set the source of Thing to TV.",
            "I could not set the source of Thing to TV.",
            "Set the source of Thing to TV? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Quelle von Thing auf TV einstellen.",
            "Das ging nicht: die Quelle von Thing auf TV einstellen.",
            "Die Quelle von Thing auf TV einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "media_player.shuffle_set": {
        "en": (
            "Turned on shuffle on Thing.",
            "I could not turn on shuffle on Thing.",
            "Turn on shuffle on Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Zufallswiedergabe von Thing einschalten.",
            "Das ging nicht: die Zufallswiedergabe von Thing einschalten.",
            "Die Zufallswiedergabe von Thing einschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "media_player.turn_off": {
        "en": (
            "Turned off Thing.",
            "I could not turn off Thing.",
            "Turn off Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing ausschalten.",
            "Das ging nicht: Thing ausschalten.",
            "Thing ausschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "media_player.turn_on": {
        "en": (
            "Turned on Thing.",
            "I could not turn on Thing.",
            "Turn on Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing einschalten.",
            "Das ging nicht: Thing einschalten.",
            "Thing einschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "media_player.volume_down": {
        "en": (
            "Turned down the volume of Thing.",
            "I could not turn down the volume of Thing.",
            "Turn down the volume of Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing leiser stellen.",
            "Das ging nicht: Thing leiser stellen.",
            "Thing leiser stellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "media_player.volume_mute": {
        "en": ("Muted Thing.", "I could not mute Thing.", "Mute Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing stumm schalten.",
            "Das ging nicht: Thing stumm schalten.",
            "Thing stumm schalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "media_player.volume_set": {
        "en": (
            "Set the volume of Thing to 30%.",
            "I could not set the volume of Thing to 30%.",
            "Set the volume of Thing to 30%? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Lautstärke von Thing auf 30 % einstellen.",
            "Das ging nicht: die Lautstärke von Thing auf 30 % einstellen.",
            "Die Lautstärke von Thing auf 30 % einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "media_player.volume_up": {
        "en": (
            "Turned up the volume of Thing.",
            "I could not turn up the volume of Thing.",
            "Turn up the volume of Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing lauter stellen.",
            "Das ging nicht: Thing lauter stellen.",
            "Thing lauter stellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "notify.send_message": {
        "en": (
            'Sent "Dinner is ready" to Thing.',
            'I could not send "Dinner is ready" to Thing.',
            'Send "Dinner is ready" to Thing? Say yes to confirm.',
        ),
        "de": (
            "Erledigt: „Dinner is ready“ an Thing senden.",
            "Das ging nicht: „Dinner is ready“ an Thing senden.",
            "„Dinner is ready“ an Thing senden? Sag „ja“ zum Bestätigen.",
        ),
    },
    "number.set_value": {
        "en": (
            "Set Thing to 3.",
            "I could not set Thing to 3.",
            "Set Thing to 3? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing auf 3 einstellen.",
            "Das ging nicht: Thing auf 3 einstellen.",
            "Thing auf 3 einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "remote.turn_off": {
        "en": (
            "Turned off Thing.",
            "I could not turn off Thing.",
            "Turn off Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing ausschalten.",
            "Das ging nicht: Thing ausschalten.",
            "Thing ausschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "remote.turn_on": {
        "en": (
            "Turned on Thing (Watch TV).",
            "I could not turn on Thing.",
            "Turn on Thing (Watch TV)? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing einschalten (Watch TV).",
            "Das ging nicht: Thing einschalten.",
            "Thing einschalten (Watch TV)? Sag „ja“ zum Bestätigen.",
        ),
    },
    "scene.turn_on": {
        "en": (
            "Activated Thing.",
            "I could not activate Thing.",
            "Activate Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing aktivieren.",
            "Das ging nicht: Thing aktivieren.",
            "Thing aktivieren? Sag „ja“ zum Bestätigen.",
        ),
    },
    "script.turn_off": {
        "en": (
            "Turned off Thing.",
            "I could not turn off Thing.",
            "Turn off Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing ausschalten.",
            "Das ging nicht: Thing ausschalten.",
            "Thing ausschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "script.turn_on": {
        "en": ("Ran Thing.", "I could not run Thing.", "Run Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing ausführen.",
            "Das ging nicht: Thing ausführen.",
            "Thing ausführen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "select.select_next": {
        "en": (
            "Selected the next option of Thing.",
            "I could not select the next option of Thing.",
            "Select the next option of Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Bei Thing die nächste Option wählen.",
            "Das ging nicht: bei Thing die nächste Option wählen.",
            "Bei Thing die nächste Option wählen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "select.select_option": {
        "en": (
            "Set Thing to Party.",
            "I could not set Thing to Party.",
            "Set Thing to Party? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing auf Party einstellen.",
            "Das ging nicht: Thing auf Party einstellen.",
            "Thing auf Party einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "select.select_previous": {
        "en": (
            "Selected the previous option of Thing.",
            "I could not select the previous option of Thing.",
            "Select the previous option of Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Bei Thing die vorherige Option wählen.",
            "Das ging nicht: bei Thing die vorherige Option wählen.",
            "Bei Thing die vorherige Option wählen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "siren.toggle": {
        "en": ("Toggled Thing.", "I could not toggle Thing.", "Toggle Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing umschalten.",
            "Das ging nicht: Thing umschalten.",
            "Thing umschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "siren.turn_off": {
        "en": (
            "Turned off Thing.",
            "I could not turn off Thing.",
            "Turn off Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing ausschalten.",
            "Das ging nicht: Thing ausschalten.",
            "Thing ausschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "siren.turn_on": {
        "en": (
            "Turned on Thing (volume 30%, for 5 minutes).",
            "I could not turn on Thing.",
            "Turn on Thing (30%, for 5 minutes)? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing einschalten (30 %, für 5 Minuten).",
            "Das ging nicht: Thing einschalten.",
            "Thing einschalten (30 %, für 5 Minuten)? Sag „ja“ zum Bestätigen.",
        ),
    },
    "switch.toggle": {
        "en": ("Toggled Thing.", "I could not toggle Thing.", "Toggle Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing umschalten.",
            "Das ging nicht: Thing umschalten.",
            "Thing umschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "switch.turn_off": {
        "en": (
            "Turned off Thing.",
            "I could not turn off Thing.",
            "Turn off Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing ausschalten.",
            "Das ging nicht: Thing ausschalten.",
            "Thing ausschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "switch.turn_on": {
        "en": (
            "Turned on Thing.",
            "I could not turn on Thing.",
            "Turn on Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing einschalten.",
            "Das ging nicht: Thing einschalten.",
            "Thing einschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "text.set_value": {
        "en": (
            "Set Thing to 3.",
            "I could not set Thing to 3.",
            "Set Thing to 3? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing auf 3 einstellen.",
            "Das ging nicht: Thing auf 3 einstellen.",
            "Thing auf 3 einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "time.set_value": {
        "en": (
            "Set Thing to 07:30.",
            "I could not set Thing to 07:30.",
            "Set Thing to 07:30? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing auf 07:30 einstellen.",
            "Das ging nicht: Thing auf 07:30 einstellen.",
            "Thing auf 07:30 einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "timer.cancel": {
        "en": (
            "Cancelled Thing.",
            "I could not cancel Thing.",
            "Cancel Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing abbrechen.",
            "Das ging nicht: Thing abbrechen.",
            "Thing abbrechen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "timer.change": {
        "en": (
            "Changed Thing by 5 minutes.",
            "I could not change Thing by 5 minutes.",
            "Change Thing by 5 minutes? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing um 5 Minuten ändern.",
            "Das ging nicht: Thing um 5 Minuten ändern.",
            "Thing um 5 Minuten ändern? Sag „ja“ zum Bestätigen.",
        ),
    },
    "timer.finish": {
        "en": ("Finished Thing.", "I could not finish Thing.", "Finish Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing beenden.",
            "Das ging nicht: Thing beenden.",
            "Thing beenden? Sag „ja“ zum Bestätigen.",
        ),
    },
    "timer.pause": {
        "en": ("Paused Thing.", "I could not pause Thing.", "Pause Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing pausieren.",
            "Das ging nicht: Thing pausieren.",
            "Thing pausieren? Sag „ja“ zum Bestätigen.",
        ),
    },
    "timer.start": {
        "en": (
            "Started Thing for 5 minutes.",
            "I could not start Thing for 5 minutes.",
            "Start Thing for 5 minutes? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing für 5 Minuten starten.",
            "Das ging nicht: Thing für 5 Minuten starten.",
            "Thing für 5 Minuten starten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "todo.add_item": {
        "en": (
            "Added milk to Thing.",
            "I could not add milk to Thing.",
            "Add milk to Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Milk zu Thing hinzufügen.",
            "Das ging nicht: milk zu Thing hinzufügen.",
            "Milk zu Thing hinzufügen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "todo.remove_item": {
        "en": (
            "Removed milk from Thing.",
            "I could not remove milk from Thing.",
            "Remove milk from Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Milk von Thing entfernen.",
            "Das ging nicht: milk von Thing entfernen.",
            "Milk von Thing entfernen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "todo.update_item": {
        "en": (
            "Changed milk on Thing.",
            "I could not change milk on Thing.",
            "Change milk on Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Milk auf Thing ändern.",
            "Das ging nicht: milk auf Thing ändern.",
            "Milk auf Thing ändern? Sag „ja“ zum Bestätigen.",
        ),
    },
    "update.clear_skipped": {
        "en": (
            "Offered the update of Thing again.",
            "I could not offer the update of Thing again.",
            "Offer the update of Thing again? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Das Update von Thing wieder anbieten.",
            "Das ging nicht: das Update von Thing wieder anbieten.",
            "Das Update von Thing wieder anbieten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "update.install": {
        "en": (
            "Installed Thing.",
            "I could not install Thing.",
            "Install Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing installieren.",
            "Das ging nicht: Thing installieren.",
            "Thing installieren? Sag „ja“ zum Bestätigen.",
        ),
    },
    "update.skip": {
        "en": (
            "Skipped the update of Thing.",
            "I could not skip the update of Thing.",
            "Skip the update of Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Das Update von Thing überspringen.",
            "Das ging nicht: das Update von Thing überspringen.",
            "Das Update von Thing überspringen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "vacuum.clean_area": {
        "en": (
            "Sent Thing to clean kitchen.",
            "I could not send Thing to clean kitchen.",
            "Send Thing to clean kitchen? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Mit Thing kitchen reinigen.",
            "Das ging nicht: mit Thing kitchen reinigen.",
            "Mit Thing kitchen reinigen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "vacuum.locate": {
        "en": ("Located Thing.", "I could not locate Thing.", "Locate Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing orten.",
            "Das ging nicht: Thing orten.",
            "Thing orten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "vacuum.pause": {
        "en": ("Paused Thing.", "I could not pause Thing.", "Pause Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing pausieren.",
            "Das ging nicht: Thing pausieren.",
            "Thing pausieren? Sag „ja“ zum Bestätigen.",
        ),
    },
    "vacuum.return_to_base": {
        "en": (
            "Sent Thing back to base.",
            "I could not send Thing back to base.",
            "Send Thing back to base? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing zur Basis schicken.",
            "Das ging nicht: Thing zur Basis schicken.",
            "Thing zur Basis schicken? Sag „ja“ zum Bestätigen.",
        ),
    },
    "vacuum.set_fan_speed": {
        "en": (
            "Set the fan speed of Thing to max.",
            "I could not set the fan speed of Thing to max.",
            "Set the fan speed of Thing to max? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Saugstärke von Thing auf max einstellen.",
            "Das ging nicht: die Saugstärke von Thing auf max einstellen.",
            "Die Saugstärke von Thing auf max einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "vacuum.start": {
        "en": ("Started Thing.", "I could not start Thing.", "Start Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing starten.",
            "Das ging nicht: Thing starten.",
            "Thing starten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "vacuum.stop": {
        "en": ("Stopped Thing.", "I could not stop Thing.", "Stop Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing anhalten.",
            "Das ging nicht: Thing anhalten.",
            "Thing anhalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "valve.close_valve": {
        "en": ("Closed Thing.", "I could not close Thing.", "Close Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing schließen.",
            "Das ging nicht: Thing schließen.",
            "Thing schließen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "valve.open_valve": {
        "en": ("Opened Thing.", "I could not open Thing.", "Open Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing öffnen.",
            "Das ging nicht: Thing öffnen.",
            "Thing öffnen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "valve.set_valve_position": {
        "en": (
            "Set the position of Thing to 30%.",
            "I could not set the position of Thing to 30%.",
            "Set the position of Thing to 30%? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Position von Thing auf 30 % einstellen.",
            "Das ging nicht: die Position von Thing auf 30 % einstellen.",
            "Die Position von Thing auf 30 % einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "valve.stop_valve": {
        "en": ("Stopped Thing.", "I could not stop Thing.", "Stop Thing? Say yes to confirm."),
        "de": (
            "Erledigt: Thing anhalten.",
            "Das ging nicht: Thing anhalten.",
            "Thing anhalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "water_heater.set_away_mode": {
        "en": (
            "Turned on the away mode of Thing.",
            "I could not turn on the away mode of Thing.",
            "Turn on the away mode of Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Den Abwesenheitsmodus von Thing einschalten.",
            "Das ging nicht: den Abwesenheitsmodus von Thing einschalten.",
            "Den Abwesenheitsmodus von Thing einschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "water_heater.set_operation_mode": {
        "en": (
            "Set the operation mode of Thing to eco.",
            "I could not set the operation mode of Thing to eco.",
            "Set the operation mode of Thing to eco? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Den Betriebsmodus von Thing auf eco einstellen.",
            "Das ging nicht: den Betriebsmodus von Thing auf Eco einstellen.",
            "Den Betriebsmodus von Thing auf Eco einstellen? Sag „ja“ zum Bestätigen.",
        ),
    },
    "water_heater.set_temperature": {
        "en": (
            "Set the temperature of Thing to 21.5° (eco).",
            "I could not set the temperature of Thing to 21.5°.",
            "Set the temperature of Thing to 21.5° (eco)? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Die Temperatur von Thing auf 21,5° einstellen (eco).",
            "Das ging nicht: die Temperatur von Thing auf 21,5° einstellen.",
            "Die Temperatur von Thing auf 21,5° einstellen (Eco)? Sag „ja“ zum Bestätigen.",
        ),
    },
    "water_heater.turn_off": {
        "en": (
            "Turned off Thing.",
            "I could not turn off Thing.",
            "Turn off Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing ausschalten.",
            "Das ging nicht: Thing ausschalten.",
            "Thing ausschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "water_heater.turn_on": {
        "en": (
            "Turned on Thing.",
            "I could not turn on Thing.",
            "Turn on Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing einschalten.",
            "Das ging nicht: Thing einschalten.",
            "Thing einschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
}


def test_every_service_of_the_catalog_is_pinned() -> None:
    offered = {
        f"{domain}.{service}"
        for domain, services in CURATED_SERVICES.items()
        for service in services
    }
    assert offered == SENTENCES.keys()


@pytest.mark.parametrize(
    ("service", "language"),
    [(service, language) for service in SENTENCES for language in ("en", "de")],
)
async def test_a_call_reads_as_the_language_says_it(
    hass: HomeAssistant, service: str, language: str
) -> None:
    domain, _, name = service.partition(".")
    said = await three_sentences(hass, domain, name, typical(domain, name), language)

    assert said == SENTENCES[service][language]


@pytest.mark.parametrize(
    ("language", "refused"),
    [("en", "I could not set Thing."), ("de", "Das ging nicht: Thing einstellen.")],
)
async def test_a_value_left_out_is_not_said_as_the_service_name(
    hass: HomeAssistant, language: str, refused: str
) -> None:
    """Before: "I could not set value Thing." A call without its value says the rest."""
    said = await three_sentences(hass, "number", "set_value", {}, language)

    assert said[1] == refused


async def test_a_refusal_says_no_pin_and_no_markup(hass: HomeAssistant) -> None:
    """What the model wrote is said only as plain words that fit the field; a PIN never."""
    unlock = await three_sentences(hass, "lock", "unlock", {"code": "1234"}, "en")
    text = await three_sentences(hass, "input_text", "set_value", {"value": "<b>{x}</b>"}, "en")

    bright = await three_sentences(hass, "light", "turn_on", {"brightness_pct": "bright"}, "en")

    assert unlock[1] == "I could not unlock Thing."
    assert bright[1] == "I could not turn on Thing."  # not "at bright%"
    assert text[1] == "I could not set Thing."
