"""What the person hears for everyday requests, in each of the seven languages we speak.

The common house of test_everyday_common.py, its things named by a household of each language
(en, de, fr, es, nl, it, pt). For each language, in a conversation in it:

- every everyday action our fast answer says itself (lights, switches, fans, covers, climate,
  water heater, humidifier, media players, vacuums, scenes, an exempt script, helpers, a
  button, a counter, a timer, a to-do list) is said in the language, with the entity's name
  as the household gave it, numbers as the language writes them, and what was done (a blind
  that is opening was told to open: "open", never "is open"); a call that failed says so;
- Assist's intents say "done" in the language, and not "done" when the bulb stayed off;
- a request that does a harmless and a sensitive thing at once, through Assist's intents or
  our tools, says what ran and asks about the other, in that order, in the language (each
  intent as what it did, its value inside the sentence; a script's tool, with no words of
  its own, "done"); what did not work beside the question (a bulb that took the call and
  stayed off) is said as not done, never as done;
- a question is answered from the true state: what the model reads names the household's
  names and the states as they are; when it writes nothing, the agent says it has no answer,
  never "done"; an entity id the model writes in its answer is said as the entity's name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from typing import Final

import pytest

from homeassistant.core import HomeAssistant

from .conftest import Agent
from .conftest import Talk
from .conftest import speech
from .conftest import state
from .houses import ASSIST
from .houses import OURS
from .scene import Home
from .scene import tool_call
from .scene import tool_calls
from .scene import tool_results
from .scripted_model import Script
from .scripted_model import answer
from .scripted_model import call
from .test_everyday_common import agent as agent_of
from .test_everyday_common import exactly
from .test_everyday_common import home  # noqa: F401  (the fixture)
from .test_everyday_languages import DONE
from .test_everyday_languages import NOT_DONE
from .test_everyday_languages import set_up_the_house_named

LANGUAGES: Final = ("en", "de", "fr", "es", "nl", "it", "pt")

KITCHEN_LIGHT: Final = "light.kitchen_lights"
CHRISTMAS: Final = "switch.decorative_lights"
FAN: Final = "fan.living_room_fan"
BLIND: Final = "cover.living_room_window"
HEATING: Final = "climate.hvac"
BOILER: Final = "water_heater.demo_water_heater"
# Demo entities without a registry entry: they keep their own names.
TV: Final = "media_player.living_room"
RADIO: Final = "media_player.kitchen"
LOUNGE_TV: Final = "media_player.lounge_room"
DEHUMIDIFIER: Final = "humidifier.dehumidifier"
VACUUM: Final = "vacuum.demo_vacuum_0_ground_floor"
MOVIE: Final = "scene.movie"
BEDTIME: Final = "script.bedtime"
COMFORT: Final = "input_number.comfort_temperature"
CHIME: Final = "button.push"
CUPS: Final = "counter.coffee_cups"
LAUNDRY: Final = "timer.laundry"
SHOPPING: Final = "todo.shopping_list"
# The DIY lock each house gets (a template lock of a relay), by the name it is given.
FRONT_DOOR: Final = "lock.front_door_diy"

# What each household calls its things: (en, de, fr, es, nl, it, pt).
NAMES: Final[dict[str, tuple[str, ...]]] = {
    KITCHEN_LIGHT: (
        "Kitchen light", "Küchenlicht", "Lumière de la cuisine", "Luz de la cocina",
        "Keukenlamp", "Luce della cucina", "Luz da cozinha",
    ),
    CHRISTMAS: (
        "Christmas lights", "Weihnachtsbeleuchtung", "Guirlande", "Luces de Navidad",
        "Kerstverlichting", "Luci di Natale", "Luzes de Natal",
    ),
    FAN: (
        "Fan", "Ventilator", "Ventilateur", "Ventilador", "Ventilator", "Ventilatore",
        "Ventoinha",
    ),
    BLIND: (
        "Living room blind", "Rollladen Wohnzimmer", "Volet du salon", "Persiana",
        "Rolluik woonkamer", "Tapparella del soggiorno", "Estore da sala",
    ),
    HEATING: (
        "Heating", "Heizung", "Chauffage", "Calefacción", "Verwarming", "Riscaldamento",
        "Aquecimento",
    ),
    BOILER: (
        "Boiler", "Boiler", "Chauffe-eau", "Calentador", "Boiler", "Scaldabagno", "Esquentador",
    ),
    VACUUM: (
        "Robot vacuum", "Saugroboter", "Aspirateur robot", "Robot aspirador",
        "Robotstofzuiger", "Robot aspirapolvere", "Aspirador robô",
    ),
    MOVIE: (
        "Movie night", "Filmabend", "Soirée cinéma", "Noche de cine", "Filmavond",
        "Serata film", "Noite de cinema",
    ),
    BEDTIME: (
        "Bedtime", "Schlafenszeit", "Coucher", "Hora de dormir", "Bedtijd", "Buonanotte",
        "Deitar",
    ),
    COMFORT: (
        "Comfort temperature", "Wohlfühltemperatur", "Température de confort",
        "Temperatura de confort", "Comforttemperatuur", "Temperatura comfort",
        "Temperatura de conforto",
    ),
    CHIME: ("Chime", "Gong", "Carillon", "Timbre", "Gong", "Campanello", "Campainha"),
    CUPS: (
        "Coffee cups", "Kaffeetassen", "Tasses de café", "Tazas de café", "Koppen koffie",
        "Tazzine di caffè", "Chávenas de café",
    ),
    LAUNDRY: ("Laundry", "Wäsche", "Lessive", "Colada", "Was", "Bucato", "Roupa"),
    SHOPPING: (
        "Shopping list", "Einkaufsliste", "Liste de courses", "Lista de la compra",
        "Boodschappenlijst", "Lista della spesa", "Lista de compras",
    ),
    FRONT_DOOR: (
        "Entrance door", "Haustür", "Porte d'entrée", "Puerta principal", "Voordeur",
        "Porta d'ingresso", "Porta da frente",
    ),
}  # fmt: skip


def name(language: str, entity_id: str) -> str:
    """The entity's name in the household of the language."""
    return NAMES[entity_id][LANGUAGES.index(language)]


@pytest.fixture(params=LANGUAGES)
async def language(
    hass: HomeAssistant,
    home: Home,  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> str:
    """The common house with a shopping list, its things named in a language: that language."""
    spoken: str = request.param
    names = {entity_id: name(spoken, entity_id) for entity_id in NAMES}
    await set_up_the_house_named(
        hass, tmp_path, monkeypatch, names, BOILER, LOUNGE_TV, SHOPPING, FRONT_DOOR
    )
    await hass.async_block_till_done()
    return spoken


async def say(
    home: Home,  # noqa: F811
    agent: Agent,
    language: str,
    *writes: Script,
    text: str = "…",
    conversation_id: str | None = None,
) -> Any:
    """The person says `text` in the language; the model writes `writes`."""
    home.worker.queued.clear()
    talk = Talk(agent, home.worker, home.person)
    return await talk.say(text, language, *writes, conversation_id=conversation_id)


# --- Every everyday action our fast answer says ------------------------------------------------

# (tool, arguments): an everyday call of our tools, said by the agent itself.
Ours = tuple[str, dict[str, Any]]


def ours(action: str, entity_id: str, **data: Any) -> Ours:
    return entity_id.split(".", 1)[0], {"action": action, "entity_id": entity_id, **data}


EVERYDAY: Final[list[Ours]] = [
    ours("turn_on", KITCHEN_LIGHT, color_name="red"),
    ours("turn_on", KITCHEN_LIGHT, brightness_pct=30),
    ours("turn_off", KITCHEN_LIGHT),
    ours("turn_on", CHRISTMAS),
    ours("oscillate", FAN, oscillating=True),
    ours("set_direction", FAN, direction="reverse"),
    ours("set_percentage", FAN, percentage=66),
    ours("open_cover", BLIND),
    ours("set_cover_position", BLIND, position=30),
    ours("set_cover_tilt_position", BLIND, tilt_position=40),
    ours("stop_cover", BLIND),
    ours("set_temperature", HEATING, temperature=21.5),
    ours("set_hvac_mode", HEATING, hvac_mode="heat"),
    ours("set_temperature", BOILER, temperature=55),
    ours("set_operation_mode", BOILER, operation_mode="eco"),
    ours("set_humidity", DEHUMIDIFIER, humidity=45),
    ours("media_pause", TV),
    ours("volume_set", TV, volume_level=0.3),
    ours("media_next_track", RADIO),
    ours("select_source", LOUNGE_TV, source="dvd"),
    ours("start", VACUUM),
    ours("return_to_base", VACUUM),
    ours("turn_on", MOVIE),
    ours("turn_on", BEDTIME),
    ours("set_value", COMFORT, value=21.5),
    ours("press", CHIME),
    ours("increment", CUPS),
    ours("start", LAUNDRY, duration="00:05:00"),
    ours("add_item", SHOPPING, item="Milk"),
]


# What the agent says after each of EVERYDAY's calls, in each language: the model writes
# nothing more, the agent speaks itself.
SAID: Final[dict[str, tuple[str, ...]]] = {
    "en": (
        "Turned on Kitchen light (red).",
        "Turned on Kitchen light at 30%.",
        "Turned off Kitchen light.",
        "Turned on Christmas lights.",
        "Turned on oscillation of Fan.",
        "Set the direction of Fan to reverse.",
        "Set the speed of Fan to 66%.",
        "Opened Living room blind.",
        "Set the position of Living room blind to 30%.",
        "Set the tilt of Living room blind to 40%.",
        "Stopped Living room blind.",
        "Set the temperature of Heating to 21.5°.",
        "Set the mode of Heating to heat.",
        "Set the temperature of Boiler to 55°.",
        "Set the operation mode of Boiler to eco.",
        "Set the humidity of Dehumidifier to 45%.",
        "Paused Living Room.",
        "Set the volume of Living Room to 30%.",
        "Skipped to the next track on Kitchen.",
        "Set the source of Lounge room to dvd.",
        "Started Robot vacuum.",
        "Sent Robot vacuum back to base.",
        "Activated Movie night.",
        "Ran Bedtime.",
        "Set Comfort temperature to 21.5.",
        "Pressed Chime.",
        "Increased Coffee cups.",
        "Started Laundry for 5 minutes.",
        "Added Milk to Shopping list.",
    ),
    "de": (
        "Erledigt: Küchenlicht einschalten (rot).",
        "Erledigt: Küchenlicht auf 30 % einschalten.",
        "Erledigt: Küchenlicht ausschalten.",
        "Erledigt: Weihnachtsbeleuchtung einschalten.",
        "Erledigt: die Oszillation von Ventilator einschalten.",
        "Erledigt: die Richtung von Ventilator auf Rückwärts einstellen.",
        "Erledigt: die Geschwindigkeit von Ventilator auf 66 % einstellen.",
        "Erledigt: Rollladen Wohnzimmer öffnen.",
        "Erledigt: die Position von Rollladen Wohnzimmer auf 30 % einstellen.",
        "Erledigt: die Lamellen von Rollladen Wohnzimmer auf 40 % einstellen.",
        "Erledigt: Rollladen Wohnzimmer anhalten.",
        "Erledigt: die Temperatur von Heizung auf 21,5° einstellen.",
        "Erledigt: den Modus von Heizung auf Heizbetrieb einstellen.",
        "Erledigt: die Temperatur von Boiler auf 55° einstellen.",
        "Erledigt: den Betriebsmodus von Boiler auf Eco einstellen.",
        "Erledigt: die Luftfeuchtigkeit von Dehumidifier auf 45 % einstellen.",
        "Erledigt: Living Room pausieren.",
        "Erledigt: die Lautstärke von Living Room auf 30 % einstellen.",
        "Erledigt: auf Kitchen zum nächsten Titel springen.",
        "Erledigt: die Quelle von Lounge room auf dvd einstellen.",
        "Erledigt: Saugroboter starten.",
        "Erledigt: Saugroboter zur Basis schicken.",
        "Erledigt: Filmabend aktivieren.",
        "Erledigt: Schlafenszeit ausführen.",
        "Erledigt: Wohlfühltemperatur auf 21,5 einstellen.",
        "Erledigt: Gong drücken.",
        "Erledigt: Kaffeetassen erhöhen.",
        "Erledigt: Wäsche für 5 Minuten starten.",
        "Erledigt: Milk zu Einkaufsliste hinzufügen.",
    ),
    "fr": (
        "C'est fait\xa0: allumer Lumière de la cuisine (rouge).",
        "C'est fait\xa0: allumer Lumière de la cuisine à 30\u00a0%.",
        "C'est fait\xa0: éteindre Lumière de la cuisine.",
        "C'est fait\xa0: allumer Guirlande.",
        "C'est fait\xa0: activer l'oscillation de Ventilateur.",
        "C'est fait\xa0: régler la direction de Ventilateur sur sens inverse.",
        "C'est fait\xa0: régler la vitesse de Ventilateur à 66\u00a0%.",
        "C'est fait\xa0: ouvrir Volet du salon.",
        "C'est fait\xa0: régler la position de Volet du salon à 30\u00a0%.",
        "C'est fait\xa0: régler l'inclinaison de Volet du salon à 40\u00a0%.",
        "C'est fait\xa0: arrêter Volet du salon.",
        "C'est fait\xa0: régler la température de Chauffage à 21,5°.",
        "C'est fait\xa0: mettre Chauffage en mode chauffage.",
        "C'est fait\xa0: régler la température de Chauffe-eau à 55°.",
        "C'est fait\xa0: mettre Chauffe-eau en mode éco.",
        "C'est fait\xa0: régler l'humidité de Dehumidifier à 45\u00a0%.",
        "C'est fait\xa0: mettre en pause Living Room.",
        "C'est fait\xa0: régler le volume de Living Room à 30\u00a0%.",
        "C'est fait\xa0: passer au titre suivant sur Kitchen.",
        "C'est fait\xa0: choisir la source dvd pour Lounge room.",
        "C'est fait\xa0: démarrer Aspirateur robot.",
        "C'est fait\xa0: renvoyer Aspirateur robot à la base.",
        "C'est fait\xa0: activer Soirée cinéma.",
        "C'est fait\xa0: exécuter Coucher.",
        "C'est fait\xa0: régler Température de confort sur 21,5.",
        "C'est fait\xa0: appuyer sur Carillon.",
        "C'est fait\xa0: augmenter Tasses de café.",
        "C'est fait\xa0: démarrer Lessive pour 5 minutes.",
        "C'est fait\xa0: ajouter Milk à Liste de courses.",
    ),
    "es": (
        "Hecho: encender Luz de la cocina (rojo).",
        "Hecho: encender Luz de la cocina al 30%.",
        "Hecho: apagar Luz de la cocina.",
        "Hecho: encender Luces de Navidad.",
        "Hecho: activar la oscilación de Ventilador.",
        "Hecho: ajustar la dirección de Ventilador a marcha atrás.",
        "Hecho: ajustar la velocidad de Ventilador al 66%.",
        "Hecho: abrir Persiana.",
        "Hecho: ajustar la posición de Persiana al 30%.",
        "Hecho: ajustar la inclinación de Persiana al 40%.",
        "Hecho: detener Persiana.",
        "Hecho: ajustar la temperatura de Calefacción a 21,5°.",
        "Hecho: poner Calefacción en modo calor.",
        "Hecho: ajustar la temperatura de Calentador a 55°.",
        "Hecho: poner Calentador en modo eco.",
        "Hecho: ajustar la humedad de Dehumidifier al 45%.",
        "Hecho: pausar Living Room.",
        "Hecho: ajustar el volumen de Living Room al 30%.",
        "Hecho: pasar a la siguiente pista en Kitchen.",
        "Hecho: elegir la fuente dvd para Lounge room.",
        "Hecho: poner en marcha Robot aspirador.",
        "Hecho: enviar Robot aspirador a la base.",
        "Hecho: activar Noche de cine.",
        "Hecho: ejecutar Hora de dormir.",
        "Hecho: ajustar Temperatura de confort a 21,5.",
        "Hecho: pulsar Timbre.",
        "Hecho: aumentar Tazas de café.",
        "Hecho: poner en marcha Colada durante 5 minutos.",
        "Hecho: añadir Milk a Lista de la compra.",
    ),
    "nl": (
        "Klaar: Keukenlamp inschakelen (rood).",
        "Klaar: Keukenlamp op 30% inschakelen.",
        "Klaar: Keukenlamp uitschakelen.",
        "Klaar: Kerstverlichting inschakelen.",
        "Klaar: het zwenken van Ventilator inschakelen.",
        "Klaar: de richting van Ventilator op achteruit instellen.",
        "Klaar: de snelheid van Ventilator op 66% instellen.",
        "Klaar: Rolluik woonkamer openen.",
        "Klaar: de positie van Rolluik woonkamer op 30% instellen.",
        "Klaar: de kanteling van Rolluik woonkamer op 40% instellen.",
        "Klaar: Rolluik woonkamer stoppen.",
        "Klaar: de temperatuur van Verwarming op 21,5° instellen.",
        "Klaar: de modus van Verwarming op verwarmen instellen.",
        "Klaar: de temperatuur van Boiler op 55° instellen.",
        "Klaar: de bedrijfsmodus van Boiler op eco instellen.",
        "Klaar: de luchtvochtigheid van Dehumidifier op 45% instellen.",
        "Klaar: Living Room pauzeren.",
        "Klaar: het volume van Living Room op 30% instellen.",
        "Klaar: op Kitchen naar het volgende nummer gaan.",
        "Klaar: de bron van Lounge room op dvd instellen.",
        "Klaar: Robotstofzuiger starten.",
        "Klaar: Robotstofzuiger terug naar het basisstation sturen.",
        "Klaar: Filmavond activeren.",
        "Klaar: Bedtijd uitvoeren.",
        "Klaar: Comforttemperatuur op 21,5 instellen.",
        "Klaar: op Gong drukken.",
        "Klaar: Koppen koffie verhogen.",
        "Klaar: Was voor 5 minuten starten.",
        "Klaar: Milk aan Boodschappenlijst toevoegen.",
    ),
    "it": (
        "Fatto: accendere Luce della cucina (rosso).",
        "Fatto: accendere Luce della cucina al 30%.",
        "Fatto: spegnere Luce della cucina.",
        "Fatto: accendere Luci di Natale.",
        "Fatto: attivare l'oscillazione di Ventilatore.",
        "Fatto: impostare la direzione di Ventilatore su verso dietro.",
        "Fatto: impostare la velocità di Ventilatore al 66%.",
        "Fatto: aprire Tapparella del soggiorno.",
        "Fatto: impostare la posizione di Tapparella del soggiorno al 30%.",
        "Fatto: impostare l'inclinazione di Tapparella del soggiorno al 40%.",
        "Fatto: fermare Tapparella del soggiorno.",
        "Fatto: impostare la temperatura di Riscaldamento a 21,5°.",
        "Fatto: impostare Riscaldamento in modalità riscaldamento.",
        "Fatto: impostare la temperatura di Scaldabagno a 55°.",
        "Fatto: impostare Scaldabagno in modalità eco.",
        "Fatto: impostare l'umidità di Dehumidifier al 45%.",
        "Fatto: mettere in pausa Living Room.",
        "Fatto: impostare il volume di Living Room al 30%.",
        "Fatto: passare alla traccia successiva su Kitchen.",
        "Fatto: scegliere la sorgente dvd per Lounge room.",
        "Fatto: avviare Robot aspirapolvere.",
        "Fatto: rimandare Robot aspirapolvere alla base.",
        "Fatto: attivare Serata film.",
        "Fatto: eseguire Buonanotte.",
        "Fatto: impostare Temperatura comfort a 21,5.",
        "Fatto: premere Campanello.",
        "Fatto: aumentare Tazzine di caffè.",
        "Fatto: avviare Bucato per 5 minuti.",
        "Fatto: aggiungere Milk a Lista della spesa.",
    ),
    "pt": (
        "Feito: ligar Luz da cozinha (vermelho).",
        "Feito: ligar Luz da cozinha a 30%.",
        "Feito: desligar Luz da cozinha.",
        "Feito: ligar Luzes de Natal.",
        "Feito: ligar a oscilação de Ventoinha.",
        "Feito: definir a direção de Ventoinha para invertida.",
        "Feito: definir a velocidade de Ventoinha para 66%.",
        "Feito: abrir Estore da sala.",
        "Feito: definir a posição de Estore da sala para 30%.",
        "Feito: definir a inclinação de Estore da sala para 40%.",
        "Feito: parar Estore da sala.",
        "Feito: definir a temperatura de Aquecimento para 21,5°.",
        "Feito: pôr Aquecimento em modo aquecer.",
        "Feito: definir a temperatura de Esquentador para 55°.",
        "Feito: pôr Esquentador em modo económico.",
        "Feito: definir a humidade de Dehumidifier para 45%.",
        "Feito: pausar Living Room.",
        "Feito: definir o volume de Living Room para 30%.",
        "Feito: passar à faixa seguinte em Kitchen.",
        "Feito: escolher a fonte dvd para Lounge room.",
        "Feito: iniciar Aspirador robô.",
        "Feito: enviar Aspirador robô de volta à base.",
        "Feito: ativar Noite de cinema.",
        "Feito: executar Deitar.",
        "Feito: definir Temperatura de conforto para 21,5.",
        "Feito: premir Campainha.",
        "Feito: aumentar Chávenas de café.",
        "Feito: iniciar Roupa por 5 minutos.",
        "Feito: adicionar Milk a Lista de compras.",
    ),
}


async def test_every_everyday_action_is_said_truly_in_the_language(
    home: Home,  # noqa: F811
    language: str,
) -> None:
    """One after another in one house: in the language, with the household's names, values as
    the language writes them; the model is asked nothing more (its default answer would be
    heard otherwise)."""
    agent = await agent_of(home, OURS)
    # The demo's decorative lights start on: switched on, they would be said as already on.
    await home.hass.services.async_call(
        "switch", "turn_off", {"entity_id": CHRISTMAS}, blocking=True
    )
    said = []
    for tool, arguments in EVERYDAY:
        result = await say(home, agent, language, exactly(tool, arguments))
        assert result.continue_conversation is False, speech(result)
        said.append(speech(result))

    assert said == list(SAID[language])


# --- A harmless and a sensitive thing at once ---------------------------------------------------


def light_and_door(language: str, tools: str, *light: tuple[str, dict[str, Any]]) -> Script:
    """The model's one answer: the kitchen light's calls (turned on unless told), then the
    front door's unlocking, through Assist's intents or our tools."""
    if tools == ASSIST:
        made = light or (("HassTurnOn", {"name": name(language, KITCHEN_LIGHT)}),)
        return tool_calls(*made, ("HassTurnOff", {"name": name(language, FRONT_DOOR)}))
    calls = [
        call(tool, **arguments) for tool, arguments in light or (ours("turn_on", KITCHEN_LIGHT),)
    ]
    return answer("\n".join([*calls, call("lock", action="unlock", entity_id=FRONT_DOOR)]))


YES: Final = {"en": "yes", "de": "ja", "fr": "oui", "es": "sí", "nl": "ja", "it": "sì", "pt": "sim"}
# The question for the front door's unlocking, in each language.
QUESTION: Final = {
    "en": "Unlock Entrance door? Say yes to confirm.",
    "de": "Haustür aufschließen? Sag „ja“ zum Bestätigen.",
    "fr": "Déverrouiller Porte d'entrée\u00a0? Dites «\u00a0oui\u00a0» pour confirmer.",
    "es": "¿Desbloquear Puerta principal? Di «sí» para confirmar.",
    "nl": "Voordeur ontgrendelen? Zeg „ja” om te bevestigen.",
    "it": "Sbloccare Porta d'ingresso? Di' \"sì\" per confermare.",
    "pt": "Destrancar Porta da frente? Diga «sim» para confirmar.",
}
# What ran beside it: the kitchen light turned on.
LIGHT_ON: Final = {
    "en": "Turned on Kitchen light.",
    "de": "Erledigt: Küchenlicht einschalten.",
    "fr": "C'est fait\u00a0: allumer Lumière de la cuisine.",
    "es": "Hecho: encender Luz de la cocina.",
    "nl": "Klaar: Keukenlamp inschakelen.",
    "it": "Fatto: accendere Luce della cucina.",
    "pt": "Feito: ligar Luz da cozinha.",
}
# After the yes.
UNLOCKED: Final = {
    "en": "Done: unlock Entrance door.",
    "de": "Erledigt: Haustür aufschließen.",
    "fr": "C'est fait\u00a0: déverrouiller Porte d'entrée.",
    "es": "Hecho: desbloquear Puerta principal.",
    "nl": "Klaar: Voordeur ontgrendelen.",
    "it": "Fatto: sbloccare Porta d'ingresso.",
    "pt": "Feito: destrancar Porta da frente.",
}


def said_then_asked(hass: HomeAssistant, question: Any, language: str, said: str) -> None:
    """What ran beside the unlocking is said, then the front door is asked about: it is still
    locked."""
    assert speech(question) == f"{said} {QUESTION[language]}"
    assert state(hass, FRONT_DOOR) == "locked"


async def kitchen_light_off(hass: HomeAssistant) -> None:
    await hass.services.async_call("light", "turn_off", {"entity_id": KITCHEN_LIGHT}, blocking=True)


@pytest.mark.parametrize("tools", [ASSIST, OURS])
async def test_a_harmless_and_a_sensitive_thing_at_once_say_both_in_order(
    home: Home,  # noqa: F811
    language: str,
    tools: str,
) -> None:
    """ "Turn on the kitchen light and unlock the front door": the light goes on at once and
    is said done, then the door is asked about; the same words through Assist's intents as
    through our tools. The yes unlocks it and says so."""
    hass = home.hass
    await kitchen_light_off(hass)
    agent = await agent_of(home, tools)

    question = await say(home, agent, language, light_and_door(language, tools))

    said_then_asked(hass, question, language, LIGHT_ON[language])
    assert question.continue_conversation is True
    assert state(hass, KITCHEN_LIGHT) == "on"
    reply = await say(
        home, agent, language, text=YES[language], conversation_id=question.conversation_id
    )
    assert speech(reply) == UNLOCKED[language]
    assert state(hass, FRONT_DOOR) == "unlocked"


# What ran beside the question: the light at 30 % and the blind's position, by their values.
SET_BESIDE: Final = {
    "en": "Turned on Kitchen light at 30% and set the position of Living room blind to 30%.",
    "de": "Erledigt: Küchenlicht auf 30 % einschalten und die Position von Rollladen Wohnzimmer"
    " auf 30 % einstellen.",
    "fr": "C'est fait\u00a0: allumer Lumière de la cuisine à 30\u00a0% et régler la position de"
    " Volet du salon à 30\u00a0%.",
    "es": "Hecho: encender Luz de la cocina al 30% y ajustar la posición de Persiana al 30%.",
    "nl": "Klaar: Keukenlamp op 30% inschakelen en de positie van Rolluik woonkamer op 30%"
    " instellen.",
    "it": "Fatto: accendere Luce della cucina al 30% e impostare la posizione di Tapparella"
    " del soggiorno al 30%.",
    "pt": "Feito: ligar Luz da cozinha a 30% e definir a posição de Estore da sala para 30%.",
}


async def test_intents_beside_a_question_are_said_with_their_values(
    home: Home,  # noqa: F811
    language: str,
) -> None:
    """HassLightSet at 30 % and HassSetPosition at 30 % beside the unlocking: each said as
    what it did, with its value as the language writes it."""
    hass = home.hass
    agent = await agent_of(home, ASSIST)
    light = ("HassLightSet", {"name": name(language, KITCHEN_LIGHT), "brightness": 30})
    blind = ("HassSetPosition", {"name": name(language, BLIND), "position": 30})

    question = await say(home, agent, language, light_and_door(language, ASSIST, light, blind))

    said_then_asked(hass, question, language, SET_BESIDE[language])
    assert state(hass, KITCHEN_LIGHT) == "on"


@pytest.mark.parametrize("tools", [ASSIST, OURS])
async def test_a_light_left_off_beside_a_question_is_said_not_done(
    home: Home,  # noqa: F811
    language: str,
    tools: str,
    dead_bulb: None,
) -> None:
    """The bulb takes the call and stays off: beside the question, the light is said not
    done (never done, as Assist's "success" would have it), and not left unsaid."""
    hass = home.hass
    await kitchen_light_off(hass)
    agent = await agent_of(home, tools)

    question = await say(home, agent, language, light_and_door(language, tools))

    said_then_asked(hass, question, language, NOT_DONE[language])
    assert state(hass, KITCHEN_LIGHT) == "off"


async def turn_on_the_kitchen_light(home: Home, language: str) -> Any:  # noqa: F811
    """HassTurnOn on the kitchen light, off before, and nothing the model writes after it."""
    await kitchen_light_off(home.hass)
    agent = await agent_of(home, ASSIST)
    turn_on = tool_call("HassTurnOn", name=name(language, KITCHEN_LIGHT))
    return await say(home, agent, language, turn_on, answer(""))


async def test_an_intent_the_bulb_did_not_take_is_not_said_done(
    home: Home,  # noqa: F811
    language: str,
    dead_bulb: None,
) -> None:
    """HassTurnOn on the kitchen light, which stays off: the model writes nothing after it;
    the agent says it did not work, in the language, not "done"."""
    result = await turn_on_the_kitchen_light(home, language)

    assert speech(result) == NOT_DONE[language]
    assert state(home.hass, KITCHEN_LIGHT) == "off"


async def test_an_intent_that_ran_is_said_done_in_the_language(
    home: Home,  # noqa: F811
    language: str,
) -> None:
    result = await turn_on_the_kitchen_light(home, language)

    assert speech(result) == DONE[language]
    assert state(home.hass, KITCHEN_LIGHT) == "on"


# --- Questions: answered from the true state ---------------------------------------------------

# What the agent says when the model read Assist's live context and wrote no answer: never "done".
NO_ANSWER: Final = {
    "en": "Sorry, I have no answer to that.",
    "de": "Entschuldigung, darauf habe ich keine Antwort.",
    "fr": "Désolé, je n'ai pas de réponse à cela.",
    "es": "Lo siento, no tengo respuesta para eso.",
    "nl": "Sorry, daar heb ik geen antwoord op.",
    "it": "Mi dispiace, non ho una risposta.",
    "pt": "Desculpe, não tenho resposta para isso.",
}


# What the agent says when the model read the unlocked door, or the heating, and wrote no answer:
# what it read, in Home Assistant's state words; never "done".
READ_DOOR: Final = {
    "en": "Entrance door: unlocked.",
    "de": "Haustür: Entriegelt.",
    "fr": "Porte d'entrée\u00a0: déverrouillé.",
    "es": "Puerta principal: desbloqueado.",
    "nl": "Voordeur: ontgrendeld.",
    "it": "Porta d'ingresso: sbloccato/a.",
    "pt": "Porta da frente: destrancada.",
}
READ_HEATING: Final = {
    "en": "Heating: cool.",
    "de": "Heizung: Kühlbetrieb.",
    "fr": "Chauffage\u00a0: climatisation.",
    "es": "Calefacción: frío.",
    "nl": "Verwarming: koelen.",
    "it": "Riscaldamento: freddo.",
    "pt": "Aquecimento: arrefecer.",
}


def read_entities(result: Any, hass: HomeAssistant) -> dict[str, dict[str, Any]]:
    """What our get_state told the model, by entity id."""
    return {
        entity["entity_id"]: entity
        for found in tool_results(hass, result)
        for entity in found.get("entities", ())
    }


async def test_is_the_front_door_locked_reads_the_true_state_by_its_name(
    home: Home,  # noqa: F811
    language: str,
) -> None:
    """The model reads the door by its household name and its state as it is, locked and then
    unlocked; its answer is what is said; with none, the agent says what it read, never "done"."""
    hass = home.hass
    agent = await agent_of(home, OURS)
    read = answer(call("get_state", entity_id=FRONT_DOOR))
    answered = f"{name(language, FRONT_DOOR)}: 🔒"

    result = await say(home, agent, language, read, answer(answered))

    assert speech(result) == answered
    door = read_entities(result, hass)[FRONT_DOOR]
    assert (door["name"], door["state"]) == (name(language, FRONT_DOOR), "locked")
    await hass.services.async_call("lock", "unlock", {"entity_id": FRONT_DOOR}, blocking=True)
    await hass.async_block_till_done()
    result = await say(home, agent, language, read, answer(""))
    assert speech(result) == READ_DOOR[language]
    assert read_entities(result, hass)[FRONT_DOOR]["state"] == "unlocked"


async def test_the_temperature_is_read_as_the_thermostat_reports_it(
    home: Home,  # noqa: F811
    language: str,
) -> None:
    """ "What is the temperature in the living room?": the heating's current and target
    temperature, as it reports them, under its household name."""
    hass = home.hass
    agent = await agent_of(home, OURS)
    heating = hass.states.get(HEATING)
    assert heating is not None

    result = await say(
        home, agent, language, answer(call("get_state", entity_id=HEATING)), answer("")
    )

    read = read_entities(result, hass)[HEATING]
    assert read["name"] == name(language, HEATING)
    assert read["state"] == heating.state
    said = str(read)
    for attribute in ("current_temperature", "temperature"):
        assert str(heating.attributes[attribute]) in said, (attribute, read)
    assert speech(result) == READ_HEATING[language]


def live_entry(result: Any, hass: HomeAssistant, named: str) -> str:
    """The lines Assist's live context gives the entity of that name."""
    (context,) = (found["result"] for found in tool_results(hass, result) if "result" in found)
    entries = str(context).split("\n- ")
    (entry,) = (e for e in entries if e.startswith(f"names: {named}\n"))
    return entry


async def test_which_lights_are_on_is_read_from_assists_live_context(
    home: Home,  # noqa: F811
    language: str,
) -> None:
    """Through Assist: the kitchen light (on) and the Christmas lights (off) by their household
    names and true states; the door locked; no answer written: none said, never "done"."""
    hass = home.hass
    await hass.services.async_call("light", "turn_on", {"entity_id": KITCHEN_LIGHT}, blocking=True)
    await hass.services.async_call("switch", "turn_off", {"entity_id": CHRISTMAS}, blocking=True)
    agent = await agent_of(home, ASSIST)

    result = await say(home, agent, language, tool_call("GetLiveContext"), answer(""))

    assert "state: 'on'" in live_entry(result, hass, name(language, KITCHEN_LIGHT))
    assert "state: 'off'" in live_entry(result, hass, name(language, CHRISTMAS))
    assert "state: locked" in live_entry(result, hass, name(language, FRONT_DOOR))
    assert speech(result) == NO_ANSWER[language]


async def test_an_entity_id_in_the_models_answer_is_said_by_its_name(
    home: Home,  # noqa: F811
    language: str,
) -> None:
    """The model reads our tools' entity ids and may write one in its answer: the person hears
    the entity as the household named it. Only an exposed entity's id, as a whole word: an
    entity the person did not expose keeps what the model wrote, and so do a number and an id
    quoted as code (JSON, `...`)."""
    hass = home.hass
    hidden = "switch.door_relay"  # the front door's relay, not exposed
    assert hass.states.get(hidden) is not None
    agent = await agent_of(home, OURS)
    written = (
        f"{KITCHEN_LIGHT}: on; {FRONT_DOOR}: locked; {hidden}: off; light.nowhere: ?; 21.5; "
        f'lock.front_door_diyx; {{"entity_id": "{KITCHEN_LIGHT}"}}; `{KITCHEN_LIGHT}`.'
    )

    result = await say(
        home,
        agent,
        language,
        answer(call("get_state", entity_id=KITCHEN_LIGHT)),
        answer(written),
    )

    assert speech(result) == (
        f"{name(language, KITCHEN_LIGHT)}: on; {name(language, FRONT_DOOR)}: locked; "
        f"{hidden}: off; light.nowhere: ?; 21.5; lock.front_door_diyx; "
        f'{{"entity_id": "{KITCHEN_LIGHT}"}}; `{KITCHEN_LIGHT}`.'
    )


async def test_an_exempt_script_run_through_assist_beside_a_question_is_said_done(
    home: Home,  # noqa: F811
    language: str,
) -> None:
    """Assist's tool of the exempt Bedtime script runs beside the unlocking: its result has no
    words of its own (not an intent's), so "done" is said before the question, not nothing."""
    hass = home.hass
    agent = await agent_of(home, ASSIST)
    door = ("HassTurnOff", {"name": name(language, FRONT_DOOR)})

    question = await say(home, agent, language, tool_calls(("script__bedtime", {}), door))

    said_then_asked(hass, question, language, DONE[language])
    assert state(hass, KITCHEN_LIGHT) == "off"  # Bedtime turned it off


# Assist's everyday intents beside the unlocking, and what each is said to have done: in
# English, and in German (the other languages read the same table as our tools' calls).
BESIDE: Final[list[tuple[str, dict[str, Any], str, str]]] = [
    ("HassTurnOff", {"name": CHRISTMAS}, "Turned off Christmas lights.",
     "Erledigt: Weihnachtsbeleuchtung ausschalten."),
    ("HassLightSet", {"name": KITCHEN_LIGHT, "color": "red"}, "Turned on Kitchen light (red).",
     "Erledigt: Küchenlicht einschalten (rot)."),
    ("HassTurnOn", {"name": BLIND}, "Opened Living room blind.",
     "Erledigt: Rollladen Wohnzimmer öffnen."),
    ("HassClimateSetTemperature", {"name": HEATING, "temperature": 21.5},
     "Set the temperature of Heating to 21.5°.",
     "Erledigt: die Temperatur von Heizung auf 21,5° einstellen."),
    ("HassFanSetSpeed", {"name": FAN, "percentage": 40}, "Turned on Fan at 40%.",
     "Erledigt: Ventilator auf 40 % einschalten."),
    ("HassSetVolume", {"name": "Living Room", "volume_level": 30},
     "Set the volume of Living Room to 30%.",
     "Erledigt: die Lautstärke von Living Room auf 30 % einstellen."),
    ("HassMediaNext", {"name": "Kitchen"}, "Skipped to the next track on Kitchen.",
     "Erledigt: auf Kitchen zum nächsten Titel springen."),
    ("HassVacuumStart", {"name": VACUUM}, "Started Robot vacuum.",
     "Erledigt: Saugroboter starten."),
    ("HassVacuumReturnToBase", {"name": VACUUM}, "Sent Robot vacuum back to base.",
     "Erledigt: Saugroboter zur Basis schicken."),
    ("HassTurnOn", {"name": MOVIE}, "Activated Movie night.", "Erledigt: Filmabend aktivieren."),
    ("HassListAddItem", {"name": SHOPPING, "item": "Milk"}, "Added Milk to Shopping list.",
     "Erledigt: Milk zu Einkaufsliste hinzufügen."),
    ("HassTurnOff", {"area": "Kitchen", "domain": ["light"]}, "Turned off Kitchen light.",
     "Erledigt: Küchenlicht ausschalten."),
]  # fmt: skip


@pytest.mark.parametrize(
    "number",
    range(len(BESIDE)),
    ids=[f"{b[0]}-{'-'.join(map(str, b[1].values()))}" for b in BESIDE],
)
@pytest.mark.parametrize("language", ["en", "de"], indirect=True)
async def test_each_intent_beside_a_question_is_said_as_what_it_did(
    home: Home,  # noqa: F811
    language: str,
    number: int,
) -> None:
    """Alone, the intent is said "done" (Home Assistant's own way); beside the unlocking, as
    what it did, with its value in the sentence, never a placeholder or a field's name."""
    hass = home.hass
    tool, slots, english, german = BESIDE[number]
    arguments = {
        key: name(language, value) if isinstance(value, str) and value in NAMES else value
        for key, value in slots.items()
    }
    agent = await agent_of(home, ASSIST)

    alone = await say(home, agent, language, tool_call(tool, **arguments), answer(""))
    assert speech(alone) == DONE[language]
    door = ("HassTurnOff", {"name": name(language, FRONT_DOOR)})
    question = await say(home, agent, language, tool_calls((tool, arguments), door))

    said_then_asked(hass, question, language, english if language == "en" else german)


# What is said of a call that could not run: the living room's player cannot skip a track,
# and why (everyday28: our tools' refusals say it).
NOT_SKIPPED: Final = {
    "en": "I could not skip to the next track on Living Room. That is not possible with "
    "Living Room.",
    "de": "Das ging nicht: auf Living Room zum nächsten Titel springen. Das geht mit Living "
    "Room nicht.",
    "fr": "Je n'ai pas pu passer au titre suivant sur Living Room. Ce n'est pas possible avec "
    "Living Room.",
    "es": "No he podido pasar a la siguiente pista en Living Room. Eso no es posible con "
    "Living Room.",
    "nl": "Dat lukte niet: op Living Room naar het volgende nummer gaan. Dat kan niet met "
    "Living Room.",
    "it": "Non è stato possibile passare alla traccia successiva su Living Room. Non è "
    "possibile con Living Room.",
    "pt": "Não consegui passar à faixa seguinte em Living Room. Isso não é possível com "
    "Living Room.",
}


async def test_a_call_that_could_not_run_is_said_not_done_in_the_language(
    home: Home,  # noqa: F811
    language: str,
) -> None:
    """The model writes nothing after a call that did not go through: never "done"."""
    agent = await agent_of(home, OURS)

    result = await say(home, agent, language, exactly(*ours("media_next_track", TV)), answer(""))

    assert speech(result) == NOT_SKIPPED[language]
    assert tool_results(home.hass, result)[0].get("error")
