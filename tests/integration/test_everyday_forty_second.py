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


def said(
    done: str,
    call: str,
    german_call: str,
    *,
    note: str = "",
    german_note: str | None = None,
    german_asked: str | None = None,
    german_refused: str | None = None,
) -> dict[str, tuple[str, str, str]]:
    """Return the English and German sentences: done, refused and asked (no end marks given).

    A refusal says the call alone; the question and the German done answer say it with the
    note (the German note is the English one unless given); a German question reads as the
    German done answer unless given; a German refusal says the call unless given (a mode in
    Home Assistant's word, as the question says it).
    """
    asked = " ".join(filter(None, (upper_first(call), note)))
    german_note = note if german_note is None else german_note
    german_done = " ".join(filter(None, (upper_first(german_call), german_note)))
    english = (f"{done}.", f"I could not {call}.", f"{asked}? Say yes to confirm.")
    german = (
        f"Erledigt: {german_done}.",
        f"Das ging nicht: {german_refused or german_call}.",
        f"{german_asked or german_done}? Sag „ja“ zum Bestätigen.",
    )
    return {"en": english, "de": german}


def upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


SENTENCES: Final[dict[str, dict[str, tuple[str, str, str]]]] = {
    "alarm_control_panel.alarm_arm_away": said(
        "Armed (away) Thing", "arm (away) Thing", "Thing scharf schalten (abwesend)"
    ),
    "alarm_control_panel.alarm_arm_home": said(
        "Armed (home) Thing", "arm (home) Thing", "Thing scharf schalten (zu Hause)"
    ),
    "alarm_control_panel.alarm_arm_night": said(
        "Armed (night) Thing", "arm (night) Thing", "Thing scharf schalten (Nacht)"
    ),
    "alarm_control_panel.alarm_arm_vacation": said(
        "Armed (vacation) Thing", "arm (vacation) Thing", "Thing scharf schalten (Urlaub)"
    ),
    "alarm_control_panel.alarm_disarm": said(
        "Disarmed Thing", "disarm Thing", "Thing unscharf schalten"
    ),
    "automation.trigger": said("Ran Thing", "run Thing", "Thing ausführen"),
    "automation.turn_off": said("Disabled Thing", "disable Thing", "Thing deaktivieren"),
    "automation.turn_on": said("Enabled Thing", "enable Thing", "Thing aktivieren"),
    "button.press": said("Pressed Thing", "press Thing", "Thing drücken"),
    "climate.set_fan_mode": said(
        "Set the fan mode of Thing to high",
        "set the fan mode of Thing to high",
        "die Lüfterstufe von Thing auf high einstellen",
        german_asked="Die Lüfterstufe von Thing auf Hoch einstellen",
        german_refused="die Lüfterstufe von Thing auf Hoch einstellen",
    ),
    "climate.set_humidity": said(
        "Set the humidity of Thing to 45%",
        "set the humidity of Thing to 45%",
        "die Luftfeuchtigkeit von Thing auf 45 % einstellen",
    ),
    "climate.set_hvac_mode": said(
        "Set the mode of Thing to heat",
        "set the mode of Thing to heat",
        "den Modus von Thing auf heat einstellen",
        german_asked="Den Modus von Thing auf Heizbetrieb einstellen",
        german_refused="den Modus von Thing auf Heizbetrieb einstellen",
    ),
    "climate.set_preset_mode": said(
        "Set the preset of Thing to eco",
        "set the preset of Thing to eco",
        "die Voreinstellung von Thing auf eco einstellen",
        german_asked="Die Voreinstellung von Thing auf Eco einstellen",
        german_refused="die Voreinstellung von Thing auf Eco einstellen",
    ),
    "climate.set_swing_horizontal_mode": said(
        "Set the horizontal swing mode of Thing to on",
        "set the horizontal swing mode of Thing to on",
        "den horizontalen Schwenkmodus von Thing auf on einstellen",
        german_asked="Den horizontalen Schwenkmodus von Thing auf Ein einstellen",
        german_refused="den horizontalen Schwenkmodus von Thing auf Ein einstellen",
    ),
    "climate.set_swing_mode": said(
        "Set the swing mode of Thing to vertical",
        "set the swing mode of Thing to vertical",
        "den Schwenkmodus von Thing auf vertical einstellen",
        german_asked="Den Schwenkmodus von Thing auf Vertikal einstellen",
        german_refused="den Schwenkmodus von Thing auf Vertikal einstellen",
    ),
    "climate.set_temperature": said(
        "Set the temperature of Thing to 21.5° (heat)",
        "set Thing to heat at 21.5°",
        "Thing auf heat mit 21,5° einstellen",
        german_asked="Thing auf Heizbetrieb mit 21,5° einstellen",
        german_refused="Thing auf Heizbetrieb mit 21,5° einstellen",
    ),
    "climate.turn_off": said("Turned off Thing", "turn off Thing", "Thing ausschalten"),
    "climate.turn_on": said("Turned on Thing", "turn on Thing", "Thing einschalten"),
    "counter.decrement": said("Decreased Thing", "decrease Thing", "Thing verringern"),
    "counter.increment": said("Increased Thing", "increase Thing", "Thing erhöhen"),
    "counter.reset": said("Reset Thing", "reset Thing", "Thing zurücksetzen"),
    "cover.close_cover": said("Closed Thing", "close Thing", "Thing schließen"),
    "cover.close_cover_tilt": said(
        "Closed the tilt of Thing", "close the tilt of Thing", "die Lamellen von Thing schließen"
    ),
    "cover.open_cover": said("Opened Thing", "open Thing", "Thing öffnen"),
    "cover.open_cover_tilt": said(
        "Opened the tilt of Thing", "open the tilt of Thing", "die Lamellen von Thing öffnen"
    ),
    "cover.set_cover_position": said(
        "Set the position of Thing to 30%",
        "set the position of Thing to 30%",
        "die Position von Thing auf 30 % einstellen",
    ),
    "cover.set_cover_tilt_position": said(
        "Set the tilt of Thing to 40%",
        "set the tilt of Thing to 40%",
        "die Lamellen von Thing auf 40 % einstellen",
    ),
    "cover.stop_cover": said("Stopped Thing", "stop Thing", "Thing anhalten"),
    "date.set_value": said(
        "Set Thing to December 24, 2020",
        "set Thing to December 24, 2020",
        "Thing auf 24. Dezember 2020 einstellen",
    ),
    "datetime.set_value": said(
        "Set Thing to December 24, 2020 at 07:15",
        "set Thing to December 24, 2020 at 07:15",
        "Thing auf 24. Dezember 2020 um 07:15 einstellen",
    ),
    "fan.decrease_speed": said(
        "Slowed down Thing", "slow down Thing", "die Geschwindigkeit von Thing verringern"
    ),
    "fan.increase_speed": said(
        "Sped up Thing", "speed up Thing", "die Geschwindigkeit von Thing erhöhen"
    ),
    "fan.oscillate": said(
        "Turned on oscillation of Thing",
        "turn on oscillation of Thing",
        "die Oszillation von Thing einschalten",
    ),
    "fan.set_direction": said(
        "Set the direction of Thing to reverse",
        "set the direction of Thing to reverse",
        "die Richtung von Thing auf reverse einstellen",
        german_asked="Die Richtung von Thing auf Rückwärts einstellen",
        german_refused="die Richtung von Thing auf Rückwärts einstellen",
    ),
    "fan.set_percentage": said(
        "Set the speed of Thing to 50%",
        "set the speed of Thing to 50%",
        "die Geschwindigkeit von Thing auf 50 % einstellen",
    ),
    "fan.set_preset_mode": said(
        "Set the preset of Thing to eco",
        "set the preset of Thing to eco",
        "die Voreinstellung von Thing auf eco einstellen",
    ),
    "fan.toggle": said("Toggled Thing", "toggle Thing", "Thing umschalten"),
    "fan.turn_off": said("Turned off Thing", "turn off Thing", "Thing ausschalten"),
    "fan.turn_on": said(
        "Turned on Thing at 50% (eco)",
        "turn on Thing at 50%",
        "Thing auf 50 % einschalten",
        note="(eco)",
    ),
    "humidifier.set_humidity": said(
        "Set the humidity of Thing to 45%",
        "set the humidity of Thing to 45%",
        "die Luftfeuchtigkeit von Thing auf 45 % einstellen",
    ),
    "humidifier.set_mode": said(
        "Set the mode of Thing to sleep",
        "set the mode of Thing to sleep",
        "den Modus von Thing auf sleep einstellen",
        german_asked="Den Modus von Thing auf Schlafen einstellen",
        german_refused="den Modus von Thing auf Schlafen einstellen",
    ),
    "humidifier.toggle": said("Toggled Thing", "toggle Thing", "Thing umschalten"),
    "humidifier.turn_off": said("Turned off Thing", "turn off Thing", "Thing ausschalten"),
    "humidifier.turn_on": said("Turned on Thing", "turn on Thing", "Thing einschalten"),
    "input_boolean.toggle": said("Toggled Thing", "toggle Thing", "Thing umschalten"),
    "input_boolean.turn_off": said("Turned off Thing", "turn off Thing", "Thing ausschalten"),
    "input_boolean.turn_on": said("Turned on Thing", "turn on Thing", "Thing einschalten"),
    "input_button.press": said("Pressed Thing", "press Thing", "Thing drücken"),
    "input_datetime.set_datetime": said(
        "Set Thing to December 24, 2020 at 07:30",
        "set Thing to December 24, 2020 at 07:30",
        "Thing auf 24. Dezember 2020 um 07:30 einstellen",
    ),
    "input_number.decrement": said("Decreased Thing", "decrease Thing", "Thing verringern"),
    "input_number.increment": said("Increased Thing", "increase Thing", "Thing erhöhen"),
    "input_number.set_value": said("Set Thing to 3", "set Thing to 3", "Thing auf 3 einstellen"),
    "input_select.select_next": said(
        "Selected the next option of Thing",
        "select the next option of Thing",
        "bei Thing die nächste Option wählen",
    ),
    "input_select.select_option": said(
        "Set Thing to Party", "set Thing to Party", "Thing auf Party einstellen"
    ),
    "input_select.select_previous": said(
        "Selected the previous option of Thing",
        "select the previous option of Thing",
        "bei Thing die vorherige Option wählen",
    ),
    "input_text.set_value": said(
        "Set Thing to hello", "set Thing to hello", "Thing auf hello einstellen"
    ),
    "lawn_mower.dock": said("Docked Thing", "dock Thing", "Thing zur Ladestation schicken"),
    "lawn_mower.pause": said("Paused Thing", "pause Thing", "Thing pausieren"),
    "lawn_mower.start_mowing": said("Started Thing", "start Thing", "Thing starten"),
    "light.toggle": said("Toggled Thing", "toggle Thing", "Thing umschalten"),
    "light.turn_off": said("Turned off Thing", "turn off Thing", "Thing ausschalten"),
    "light.turn_on": said(
        "Turned on Thing at 40%", "turn on Thing at 40%", "Thing auf 40 % einschalten"
    ),
    "lock.lock": said("Locked Thing", "lock Thing", "Thing abschließen"),
    "lock.open": said("Opened Thing", "open Thing", "Thing öffnen"),
    "lock.unlock": said("Unlocked Thing", "unlock Thing", "Thing aufschließen"),
    "media_player.media_next_track": said(
        "Skipped to the next track on Thing",
        "skip to the next track on Thing",
        "auf Thing zum nächsten Titel springen",
    ),
    "media_player.media_pause": said("Paused Thing", "pause Thing", "Thing pausieren"),
    "media_player.media_play": said("Started playing Thing", "play Thing", "Thing abspielen"),
    "media_player.media_previous_track": said(
        "Went back a track on Thing",
        "go back a track on Thing",
        "auf Thing zum vorherigen Titel springen",
    ),
    "media_player.media_stop": said("Stopped Thing", "stop Thing", "Thing stoppen"),
    "media_player.repeat_set": said(
        "Set repeat of Thing to all",
        "set repeat of Thing to all",
        "die Wiederholung von Thing auf all einstellen",
        german_asked="Die Wiederholung von Thing auf Alle einstellen",
        german_refused="die Wiederholung von Thing auf Alle einstellen",
    ),
    "media_player.select_sound_mode": said(
        "Set the sound mode of Thing to Music",
        "set the sound mode of Thing to Music",
        "den Klangmodus von Thing auf Music einstellen",
    ),
    "media_player.select_source": said(
        "Set the source of Thing to TV",
        "set the source of Thing to TV",
        "die Quelle von Thing auf TV einstellen",
    ),
    "media_player.shuffle_set": said(
        "Turned on shuffle on Thing",
        "turn on shuffle on Thing",
        "die Zufallswiedergabe von Thing einschalten",
    ),
    "media_player.turn_off": said("Turned off Thing", "turn off Thing", "Thing ausschalten"),
    "media_player.turn_on": said("Turned on Thing", "turn on Thing", "Thing einschalten"),
    "media_player.volume_down": said(
        "Turned down the volume of Thing", "turn down the volume of Thing", "Thing leiser stellen"
    ),
    "media_player.volume_mute": said("Muted Thing", "mute Thing", "Thing stumm schalten"),
    "media_player.volume_set": said(
        "Set the volume of Thing to 30%",
        "set the volume of Thing to 30%",
        "die Lautstärke von Thing auf 30 % einstellen",
    ),
    "media_player.volume_up": said(
        "Turned up the volume of Thing", "turn up the volume of Thing", "Thing lauter stellen"
    ),
    "notify.send_message": said(
        'Sent "Dinner is ready" to Thing',
        'send "Dinner is ready" to Thing',
        "„Dinner is ready“ an Thing senden",
    ),
    "number.set_value": said("Set Thing to 3", "set Thing to 3", "Thing auf 3 einstellen"),
    "remote.turn_off": said("Turned off Thing", "turn off Thing", "Thing ausschalten"),
    # Words Thing does not offer as an activity: left out of the question as of the refusal.
    "remote.turn_on": {
        "en": (
            "Turned on Thing (Watch TV).",
            "I could not turn on Thing.",
            "Turn on Thing? Say yes to confirm.",
        ),
        "de": (
            "Erledigt: Thing einschalten (Watch TV).",
            "Das ging nicht: Thing einschalten.",
            "Thing einschalten? Sag „ja“ zum Bestätigen.",
        ),
    },
    "scene.turn_on": said("Activated Thing", "activate Thing", "Thing aktivieren"),
    "script.turn_off": said("Turned off Thing", "turn off Thing", "Thing ausschalten"),
    "script.turn_on": said("Ran Thing", "run Thing", "Thing ausführen"),
    "select.select_next": said(
        "Selected the next option of Thing",
        "select the next option of Thing",
        "bei Thing die nächste Option wählen",
    ),
    "select.select_option": said(
        "Set Thing to Party", "set Thing to Party", "Thing auf Party einstellen"
    ),
    "select.select_previous": said(
        "Selected the previous option of Thing",
        "select the previous option of Thing",
        "bei Thing die vorherige Option wählen",
    ),
    "siren.toggle": said("Toggled Thing", "toggle Thing", "Thing umschalten"),
    "siren.turn_off": said("Turned off Thing", "turn off Thing", "Thing ausschalten"),
    "siren.turn_on": said(
        "Turned on Thing (volume 30%, for 5 minutes)",
        "turn on Thing",
        "Thing einschalten",
        note="(30%, for 5 minutes)",
        german_note="(30 %, für 5 Minuten)",
    ),
    "switch.toggle": said("Toggled Thing", "toggle Thing", "Thing umschalten"),
    "switch.turn_off": said("Turned off Thing", "turn off Thing", "Thing ausschalten"),
    "switch.turn_on": said("Turned on Thing", "turn on Thing", "Thing einschalten"),
    "text.set_value": said("Set Thing to 3", "set Thing to 3", "Thing auf 3 einstellen"),
    "time.set_value": said(
        "Set Thing to 07:30", "set Thing to 07:30", "Thing auf 07:30 einstellen"
    ),
    "timer.cancel": said("Cancelled Thing", "cancel Thing", "Thing abbrechen"),
    "timer.change": said(
        "Changed Thing by 5 minutes", "change Thing by 5 minutes", "Thing um 5 Minuten ändern"
    ),
    "timer.finish": said("Finished Thing", "finish Thing", "Thing beenden"),
    "timer.pause": said("Paused Thing", "pause Thing", "Thing pausieren"),
    "timer.start": said(
        "Started Thing for 5 minutes", "start Thing for 5 minutes", "Thing für 5 Minuten starten"
    ),
    "todo.add_item": said("Added milk to Thing", "add milk to Thing", "milk zu Thing hinzufügen"),
    "todo.remove_item": said(
        "Removed milk from Thing", "remove milk from Thing", "milk von Thing entfernen"
    ),
    "todo.update_item": said(
        "Changed milk on Thing", "change milk on Thing", "milk auf Thing ändern"
    ),
    "update.clear_skipped": said(
        "Offered the update of Thing again",
        "offer the update of Thing again",
        "das Update von Thing wieder anbieten",
    ),
    "update.install": said("Installed Thing", "install Thing", "Thing installieren"),
    "update.skip": said(
        "Skipped the update of Thing",
        "skip the update of Thing",
        "das Update von Thing überspringen",
    ),
    "vacuum.clean_area": said(
        "Sent Thing to clean kitchen", "send Thing to clean kitchen", "mit Thing kitchen reinigen"
    ),
    "vacuum.locate": said("Located Thing", "locate Thing", "Thing orten"),
    "vacuum.pause": said("Paused Thing", "pause Thing", "Thing pausieren"),
    "vacuum.return_to_base": said(
        "Sent Thing back to base", "send Thing back to base", "Thing zur Basis schicken"
    ),
    "vacuum.set_fan_speed": said(
        "Set the fan speed of Thing to max",
        "set the fan speed of Thing to max",
        "die Saugstärke von Thing auf max einstellen",
    ),
    "vacuum.start": said("Started Thing", "start Thing", "Thing starten"),
    "vacuum.stop": said("Stopped Thing", "stop Thing", "Thing anhalten"),
    "valve.close_valve": said("Closed Thing", "close Thing", "Thing schließen"),
    "valve.open_valve": said("Opened Thing", "open Thing", "Thing öffnen"),
    "valve.set_valve_position": said(
        "Set the position of Thing to 30%",
        "set the position of Thing to 30%",
        "die Position von Thing auf 30 % einstellen",
    ),
    "valve.stop_valve": said("Stopped Thing", "stop Thing", "Thing anhalten"),
    "water_heater.set_away_mode": said(
        "Turned on the away mode of Thing",
        "turn on the away mode of Thing",
        "den Abwesenheitsmodus von Thing einschalten",
    ),
    "water_heater.set_operation_mode": said(
        "Set the operation mode of Thing to eco",
        "set the operation mode of Thing to eco",
        "den Betriebsmodus von Thing auf eco einstellen",
        german_asked="Den Betriebsmodus von Thing auf Eco einstellen",
        german_refused="den Betriebsmodus von Thing auf Eco einstellen",
    ),
    "water_heater.set_temperature": said(
        "Set the temperature of Thing to 21.5° (eco)",
        "set the temperature of Thing to 21.5°",
        "die Temperatur von Thing auf 21,5° einstellen",
        note="(eco)",
        german_asked="Die Temperatur von Thing auf 21,5° einstellen (Eco)",
    ),
    "water_heater.turn_off": said("Turned off Thing", "turn off Thing", "Thing ausschalten"),
    "water_heater.turn_on": said("Turned on Thing", "turn on Thing", "Thing einschalten"),
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
