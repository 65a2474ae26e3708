"""How a call reads in each language the agent speaks: verbs and the few patterns around them.

Words only, as a translations file holds them; call_texts.py puts them together. English is
what the audit, the model and the logs read; a question or an answer to a person is in the
conversation's language when it is one of these (the languages engine/words.py reads yes and
no in), else in English. A verb is a pattern with "{names}" where the targets' names go
(German and Dutch put the verb last: "Haustür aufschließen"). A service missing from a
language's table reads as its name next to the targets' names.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

type VerbKey = tuple[str | None, str]


@dataclass(frozen=True, slots=True)
class CallWords:
    """The words of one language for describing calls; every pattern is str.format'ed."""

    verbs: Mapping[VerbKey, str]  # {names}
    other_service: str  # {service} {names}
    read_state: str  # {names}
    run: str  # {names}: a tool of an intent that is no service call
    run_intent: str  # {intent} {names}
    use: str  # {label}
    use_with: str  # {label} {arguments}
    set_to: str  # {names} {state}
    to_position: str  # {position}, after the verb and its targets
    this_will: str  # {effects}, after the call's own description
    and_: str


# English: a service reads as its verb in front of the targets' names ("unlock Front Door").
_EN_VERBS: Final[Mapping[VerbKey, str]] = {
    (None, "alarm_arm_away"): "arm (away)",
    (None, "alarm_arm_home"): "arm (home)",
    (None, "alarm_arm_night"): "arm (night)",
    (None, "alarm_arm_vacation"): "arm (vacation)",
    (None, "alarm_disarm"): "disarm",
    (None, "close_cover"): "close",
    (None, "close_cover_tilt"): "close the tilt of",
    (None, "close_valve"): "close",
    (None, "media_next_track"): "skip to the next track on",
    (None, "media_pause"): "pause",
    (None, "media_play"): "play",
    (None, "media_previous_track"): "go back a track on",
    (None, "media_stop"): "stop",
    (None, "open_cover"): "open",
    (None, "open_cover_tilt"): "open the tilt of",
    (None, "open_valve"): "open",
    (None, "return_to_base"): "send back to base",
    (None, "set_cover_position"): "set the position of",
    (None, "set_cover_tilt_position"): "set the tilt of",
    (None, "set_position"): "set the position of",
    (None, "set_valve_position"): "set the position of",
    (None, "start_mowing"): "start",
    (None, "stop_cover"): "stop",
    (None, "stop_valve"): "stop",
    (None, "volume_set"): "set the volume of",
    ("script", "turn_on"): "run",
    ("script", "toggle"): "run",
    ("automation", "trigger"): "run",
}

# The services every other language names, in this order: turn on, turn off, toggle, lock,
# unlock, open (a lock's latch), press, arm away / home / night / vacation, disarm, trigger an
# alarm, open / close / stop a cover, its position, open / close / set its tilt, open / close /
# stop / position of a valve, the generic stop and position, play, pause, stop, next and
# previous track, volume, back to base, start mowing, start, pause, select an option, set a
# value, a temperature, an HVAC mode, and running a script or an automation.
_SERVICES: Final[tuple[VerbKey, ...]] = (
    (None, "turn_on"), (None, "turn_off"), (None, "toggle"), (None, "lock"), (None, "unlock"),
    (None, "open"), (None, "press"), (None, "alarm_arm_away"), (None, "alarm_arm_home"),
    (None, "alarm_arm_night"), (None, "alarm_arm_vacation"), (None, "alarm_disarm"),
    (None, "alarm_trigger"), (None, "open_cover"), (None, "close_cover"), (None, "stop_cover"),
    (None, "set_cover_position"), (None, "open_cover_tilt"), (None, "close_cover_tilt"),
    (None, "set_cover_tilt_position"), (None, "open_valve"), (None, "close_valve"),
    (None, "stop_valve"), (None, "set_valve_position"), (None, "stop"), (None, "set_position"),
    (None, "media_play"), (None, "media_pause"), (None, "media_stop"),
    (None, "media_next_track"), (None, "media_previous_track"), (None, "volume_set"),
    (None, "return_to_base"), (None, "start_mowing"), (None, "start"), (None, "pause"),
    (None, "select_option"), (None, "set_value"), (None, "set_temperature"),
    (None, "set_hvac_mode"), ("script", "turn_on"), ("script", "toggle"),
    ("automation", "trigger"),
)  # fmt: skip

_VERBS: Final[Mapping[str, tuple[str, ...]]] = {
    "de": (
        "{names} einschalten", "{names} ausschalten", "{names} umschalten",
        "{names} abschließen", "{names} aufschließen", "{names} öffnen", "{names} drücken",
        "{names} scharf schalten (abwesend)", "{names} scharf schalten (zu Hause)",
        "{names} scharf schalten (Nacht)", "{names} scharf schalten (Urlaub)",
        "{names} unscharf schalten", "{names} auslösen", "{names} öffnen",
        "{names} schließen", "{names} anhalten", "die Position von {names} einstellen",
        "die Lamellen von {names} öffnen", "die Lamellen von {names} schließen",
        "die Lamellen von {names} einstellen", "{names} öffnen", "{names} schließen",
        "{names} anhalten", "die Position von {names} einstellen", "{names} anhalten",
        "die Position von {names} einstellen", "{names} abspielen", "{names} pausieren",
        "{names} stoppen", "auf {names} zum nächsten Titel springen",
        "auf {names} zum vorherigen Titel springen", "die Lautstärke von {names} einstellen",
        "{names} zur Basis schicken", "{names} starten", "{names} starten",
        "{names} pausieren", "{names} einstellen", "{names} einstellen",
        "die Temperatur von {names} einstellen", "den Modus von {names} einstellen",
        "{names} ausführen", "{names} ausführen", "{names} ausführen",
    ),
    "fr": (
        "allumer {names}", "éteindre {names}", "basculer {names}", "verrouiller {names}",
        "déverrouiller {names}", "ouvrir {names}", "appuyer sur {names}",
        "armer {names} (absence)", "armer {names} (présence)", "armer {names} (nuit)",
        "armer {names} (vacances)", "désarmer {names}", "déclencher {names}",
        "ouvrir {names}", "fermer {names}", "arrêter {names}",
        "régler la position de {names}", "ouvrir l'inclinaison de {names}",
        "fermer l'inclinaison de {names}", "régler l'inclinaison de {names}",
        "ouvrir {names}", "fermer {names}", "arrêter {names}",
        "régler la position de {names}", "arrêter {names}", "régler la position de {names}",
        "lancer la lecture sur {names}", "mettre en pause {names}", "arrêter {names}",
        "passer au titre suivant sur {names}", "revenir au titre précédent sur {names}",
        "régler le volume de {names}", "renvoyer {names} à la base", "démarrer {names}",
        "démarrer {names}", "mettre en pause {names}", "régler {names}", "régler {names}",
        "régler la température de {names}", "régler le mode de {names}",
        "exécuter {names}", "exécuter {names}", "exécuter {names}",
    ),
    "es": (
        "encender {names}", "apagar {names}", "alternar {names}", "bloquear {names}",
        "desbloquear {names}", "abrir {names}", "pulsar {names}",
        "armar {names} (ausente)", "armar {names} (en casa)", "armar {names} (noche)",
        "armar {names} (vacaciones)", "desarmar {names}", "disparar {names}",
        "abrir {names}", "cerrar {names}", "detener {names}",
        "ajustar la posición de {names}", "abrir la inclinación de {names}",
        "cerrar la inclinación de {names}", "ajustar la inclinación de {names}",
        "abrir {names}", "cerrar {names}", "detener {names}",
        "ajustar la posición de {names}", "detener {names}", "ajustar la posición de {names}",
        "reproducir {names}", "pausar {names}", "detener {names}",
        "pasar a la siguiente pista en {names}", "volver a la pista anterior en {names}",
        "ajustar el volumen de {names}", "enviar {names} a la base",
        "poner en marcha {names}", "poner en marcha {names}", "pausar {names}",
        "ajustar {names}", "ajustar {names}", "ajustar la temperatura de {names}",
        "ajustar el modo de {names}", "ejecutar {names}", "ejecutar {names}",
        "ejecutar {names}",
    ),
    "it": (
        "accendere {names}", "spegnere {names}", "commutare {names}", "bloccare {names}",
        "sbloccare {names}", "aprire {names}", "premere {names}",
        "attivare {names} (fuori casa)", "attivare {names} (in casa)",
        "attivare {names} (notte)", "attivare {names} (vacanza)", "disattivare {names}",
        "far scattare {names}", "aprire {names}", "chiudere {names}", "fermare {names}",
        "impostare la posizione di {names}", "aprire l'inclinazione di {names}",
        "chiudere l'inclinazione di {names}", "impostare l'inclinazione di {names}",
        "aprire {names}", "chiudere {names}", "fermare {names}",
        "impostare la posizione di {names}", "fermare {names}",
        "impostare la posizione di {names}", "riprodurre {names}",
        "mettere in pausa {names}", "fermare {names}",
        "passare alla traccia successiva su {names}",
        "tornare alla traccia precedente su {names}", "impostare il volume di {names}",
        "rimandare {names} alla base", "avviare {names}", "avviare {names}",
        "mettere in pausa {names}", "impostare {names}", "impostare {names}",
        "impostare la temperatura di {names}", "impostare la modalità di {names}",
        "eseguire {names}", "eseguire {names}", "eseguire {names}",
    ),
    "nl": (
        "{names} inschakelen", "{names} uitschakelen", "{names} omschakelen",
        "{names} vergrendelen", "{names} ontgrendelen", "{names} openen",
        "op {names} drukken", "{names} activeren (afwezig)", "{names} activeren (thuis)",
        "{names} activeren (nacht)", "{names} activeren (vakantie)", "{names} deactiveren",
        "{names} laten afgaan", "{names} openen", "{names} sluiten", "{names} stoppen",
        "de positie van {names} instellen", "de kanteling van {names} openen",
        "de kanteling van {names} sluiten", "de kanteling van {names} instellen",
        "{names} openen", "{names} sluiten", "{names} stoppen",
        "de positie van {names} instellen", "{names} stoppen",
        "de positie van {names} instellen", "{names} afspelen", "{names} pauzeren",
        "{names} stoppen", "op {names} naar het volgende nummer gaan",
        "op {names} naar het vorige nummer gaan", "het volume van {names} instellen",
        "{names} terug naar het basisstation sturen", "{names} starten", "{names} starten",
        "{names} pauzeren", "{names} instellen", "{names} instellen",
        "de temperatuur van {names} instellen", "de modus van {names} instellen",
        "{names} uitvoeren", "{names} uitvoeren", "{names} uitvoeren",
    ),
    "pt": (
        "ligar {names}", "desligar {names}", "alternar {names}", "trancar {names}",
        "destrancar {names}", "abrir {names}", "premir {names}",
        "armar {names} (ausente)", "armar {names} (em casa)", "armar {names} (noite)",
        "armar {names} (férias)", "desarmar {names}", "disparar {names}",
        "abrir {names}", "fechar {names}", "parar {names}",
        "definir a posição de {names}", "abrir a inclinação de {names}",
        "fechar a inclinação de {names}", "definir a inclinação de {names}",
        "abrir {names}", "fechar {names}", "parar {names}",
        "definir a posição de {names}", "parar {names}", "definir a posição de {names}",
        "reproduzir {names}", "pausar {names}", "parar {names}",
        "passar à faixa seguinte em {names}", "voltar à faixa anterior em {names}",
        "definir o volume de {names}", "enviar {names} de volta à base", "iniciar {names}",
        "iniciar {names}", "pausar {names}", "definir {names}", "definir {names}",
        "definir a temperatura de {names}", "definir o modo de {names}",
        "executar {names}", "executar {names}", "executar {names}",
    ),
}  # fmt: skip

ENGLISH_WORDS: Final = CallWords(
    verbs={key: f"{verb} {{names}}" for key, verb in _EN_VERBS.items()},
    other_service="{service} {names}",
    read_state="read the state of {names}",
    run="run {names}",
    run_intent="run {intent} on {names}",
    use="use {label}",
    use_with="use {label} with {arguments}",
    set_to="set {names} to {state}",
    to_position=" to {position} %",
    this_will=" (this will {effects})",
    and_="and",
)

# By base language ("de" for "de-CH").
WORDS_BY_LANGUAGE: Final[Mapping[str, CallWords]] = {
    "de": CallWords(
        verbs=dict(zip(_SERVICES, _VERBS["de"], strict=True)),
        other_service="{names}: {service}",
        read_state="den Zustand von {names} lesen",
        run="{names} ausführen",
        run_intent="{intent} auf {names} ausführen",
        use="{label} verwenden",
        use_with="{label} mit {arguments} verwenden",
        set_to="{names} auf {state} setzen",
        to_position=" ({position} %)",
        this_will=" (das wird {effects})",
        and_="und",
    ),
    "fr": CallWords(
        verbs=dict(zip(_SERVICES, _VERBS["fr"], strict=True)),
        other_service="{names} : {service}",
        read_state="lire l'état de {names}",
        run="exécuter {names}",
        run_intent="exécuter {intent} sur {names}",
        use="utiliser {label}",
        use_with="utiliser {label} avec {arguments}",
        set_to="mettre {names} sur {state}",
        to_position=" à {position} %",
        this_will=" (cela va {effects})",
        and_="et",
    ),
    "es": CallWords(
        verbs=dict(zip(_SERVICES, _VERBS["es"], strict=True)),
        other_service="{names}: {service}",
        read_state="leer el estado de {names}",
        run="ejecutar {names}",
        run_intent="ejecutar {intent} en {names}",
        use="usar {label}",
        use_with="usar {label} con {arguments}",
        set_to="poner {names} en {state}",
        to_position=" al {position} %",
        this_will=" (esto va a {effects})",
        and_="y",
    ),
    "it": CallWords(
        verbs=dict(zip(_SERVICES, _VERBS["it"], strict=True)),
        other_service="{names}: {service}",
        read_state="leggere lo stato di {names}",
        run="eseguire {names}",
        run_intent="eseguire {intent} su {names}",
        use="usare {label}",
        use_with="usare {label} con {arguments}",
        set_to="impostare {names} su {state}",
        to_position=" al {position} %",
        this_will=" (questo andrà a {effects})",
        and_="e",
    ),
    "nl": CallWords(
        verbs=dict(zip(_SERVICES, _VERBS["nl"], strict=True)),
        other_service="{names}: {service}",
        read_state="de status van {names} lezen",
        run="{names} uitvoeren",
        run_intent="{intent} op {names} uitvoeren",
        use="{label} gebruiken",
        use_with="{label} met {arguments} gebruiken",
        set_to="{names} op {state} zetten",
        to_position=" ({position} %)",
        this_will=" (dit zal {effects})",
        and_="en",
    ),
    "pt": CallWords(
        verbs=dict(zip(_SERVICES, _VERBS["pt"], strict=True)),
        other_service="{names}: {service}",
        read_state="ler o estado de {names}",
        run="executar {names}",
        run_intent="executar {intent} em {names}",
        use="usar {label}",
        use_with="usar {label} com {arguments}",
        set_to="pôr {names} em {state}",
        to_position=" para {position} %",
        this_will=" (isto vai {effects})",
        and_="e",
    ),
}
