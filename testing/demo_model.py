"""A scripted stand-in for a model, to show the whole path in a browser (--demo-model).

No model that runs here (random-weight test models, Gemma 3 270M base) writes a sensible tool
call, so the conversation screenshots in the README could never show a held question and its
yes. This stand-in answers a few kinds of commands with the calls a good model would write,
through the real agent: parser, validation, safety gate, confirmation and execution are the
integration's own; only the text of the model is scripted. It is never used by the integration.

    python -m testing.demo_model --config CONFIG_DIR [hass arguments]   (scripts/develop)
    python -m testing.demo_model --write-model PATH   (the file to add in the dialog)
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
import json
import os
from pathlib import Path
import re
import sys
from typing import Any
from typing import Final

from custom_components.local_agent.engine.settings import EngineSettings
from custom_components.local_agent.engine.types import Message
from custom_components.local_agent.home.tools import GET_STATE
from homeassistant.util import dt as dt_util
from testing.develop_house import FIRST_FLOOR
from testing.develop_house import GROUND_FLOOR
from testing.develop_house import furnish_when_started
from testing.stand_in import SeenRequest
from testing.stand_in import StandInWorker
from testing.stand_in import answer
from testing.stand_in import call
from testing.stand_in import stand_in_engines

DEMO_NAME: Final = "Scripted demo model"
# Seconds the demo "thinks" before it writes (LOCAL_AGENT_DEMO_THINKING): more than 5 shows the
# agent's notice that a turn takes a while.
THINKING_SECONDS: Final = float(os.environ.get("LOCAL_AGENT_DEMO_THINKING", "1"))
# Seconds the demo takes to "load" (LOCAL_AGENT_DEMO_LOADING): what a person sees and hears when
# they talk while a real model still loads.
LOADING_SECONDS: Final = float(os.environ.get("LOCAL_AGENT_DEMO_LOADING", "0"))
_HOME_LINE: Final = re.compile(r"^(?:- )?(\w+)\.(\w+)(?: '([^']*)')?")
# An area's heading in the home list, with its floor when it has one:
# "Kitchen (floor: Ground floor):".
_AREA_HEADING: Final = re.compile(r"^([^-].*?)(?: \(floor: ([^)]*)\))?:$")
# The develop house's rooms (area ids) in the words of each language.
_ROOM_WORDS: Final = {
    "kitchen": r"kitchen|küche|cuisine|keuken|cocina|cucina",
    "living_room": r"living room|wohnzimmer|salon|salón|woonkamer|soggiorno",
}
# Words for the floors of the develop house (testing/develop_house.py) and what "everything"
# and "the blinds" on a floor are: (words, floor, domains).
_FLOOR_WORDS: Final = (
    (
        r"downstairs|abajo|planta baja|di sotto|piano terra|pianterreno|beneden|erdgeschoss|"
        r"unten|rés do chão|térreo|lá em baixo|rez-de-chaussée|en bas",
        GROUND_FLOOR,
    ),
    (
        r"upstairs|arriba|planta de arriba|di sopra|piano di sopra|primo piano|boven|oben|"
        r"obergeschoss|lá em cima|andar de cima|primeiro andar|à l'étage|en haut",
        FIRST_FLOOR,
    ),
)
_FLOOR_THINGS: Final = (
    (
        r"blinds|persianas|estores|tapparelle|persiane|jaloezie|rollos|rollläden|volets|stores",
        ("cover",),
    ),
    (r"everything|todo|tutto|alles|tudo|tout", ("light", "fan")),
    (r"lights|luces|luci|lampen|lichter|luzes|lumières", ("light",)),
)
# Words that dim a light by a step: before _COMMANDS reads them, a percent is a step, not a level.
_DIM: Final = r"dim|baja|atenúa|dimmen|abbassa|attenua|diminui|reduz"
# Words of a command (English, Spanish, Dutch, Italian, Portuguese, German) -> (domain, action,
# further arguments) the demo calls; the first that matches wins, so longer phrases come before
# the words they contain.
_COMMANDS: Final[tuple[tuple[str, str, str, dict[str, Any]], ...]] = (
    (
        r"unlock|desbloquea|abre la cerradura|ontgrendel|sblocca|destranca|destrave|entriegle|"
        r"schließ\S* .* auf|déverrouille",
        "lock",
        "unlock",
        {},
    ),
    (
        r"lock|bloquea|cierra la cerradura|vergrendel|blocca|tranca|verriegle|verrouille",
        "lock",
        "lock",
        {},
    ),
    (
        _DIM,
        "light",
        "turn_on",
        {"brightness_step_pct": -20},
    ),
    (r"faster|más rápido|sneller|più veloce|mais rápido", "fan", "increase_speed", {}),
    (r"pause|pausa|pauzeer", "media_player", "media_pause", {}),
    (
        r"shuffle|aleatori|willekeurig|casuale",
        "media_player",
        "shuffle_set",
        {"shuffle": True},
    ),
    (r"clean|limpia|pulisci|limpa|schoonmaken", "vacuum", "start", {}),
    (r"21", "climate", "set_temperature", {"temperature": 21}),
    (r"skip|omite|salta|overslaan|sla|ignora|pula|pular", "update", "skip", {}),
    (
        r"disable|desactiva|deshabilita|uitschakelen|schakel .* uit|disattiva|desativa",
        "automation",
        "turn_off",
        {},
    ),
    (r"swing|oscila|oscilación|zwaai", "climate", "set_swing_mode", {"swing_mode": "auto"}),
    (r"set|pon|zet|imposta|define|ajusta", "input_datetime", "set_datetime", {"time": "07:30:00"}),
    (
        r"turn on|switch on|enciende|prende|zet .* aan|aan|accendi|liga|acende|schalte .* ein|"
        r"mach .* an|allume",
        "light",
        "turn_on",
        {},
    ),
    (
        r"turn off|switch off|apaga|zet .* uit|uit|spegni|desliga|schalte .* aus|mach .* aus|"
        r"éteins",
        "light",
        "turn_off",
        {},
    ),
    (r"open|abre|apri|öffne|ouvre", "cover", "open_cover", {}),
    (r"close|cierra|sluit|chiudi|fecha|schließ|ferme", "cover", "close_cover", {}),
)
# Commands for the house's timer, date/time helpers, notifications, to-do list, vacuum rooms and
# light effects (English, German, French, Dutch), a thermostat's degrees: (words, domain,
# action, the arguments read from the words). They come before _COMMANDS: "pause" and "set"
# also name a player's or helper's action.
_HOUSE_COMMANDS: Final[tuple[tuple[str, str, str, Callable[[str], dict[str, Any]]], ...]] = (
    (
        r"add \d+|\d+ minuten dazu|ajoute \d+",
        "timer",
        "change",
        lambda s: {"duration": _minutes(s)},
    ),
    (r"start|starte|lance|démarre", "timer", "start", lambda s: {"duration": _minutes(s)}),
    (r"pause|pausiere|halte", "timer", "pause", lambda s: {}),
    (r"cancel|brich|abbrechen|annule|arrête", "timer", "cancel", lambda s: {}),
    (
        rf"^(?!.*\b(?:{_DIM})).*?\d+ ?%",
        "light",
        "turn_on",
        lambda s: {"brightness_pct": int(re.findall(r"(\d+) ?%", s)[0])},
    ),
    (r"\d+ ?%", "cover", "set_cover_position", lambda s: {"position": _percent(s)}),
    (r"\d+ ?%", "fan", "set_percentage", lambda s: {"percentage": _percent(s)}),
    (r"preset|voreinstellung", "climate", "set_preset_mode", lambda s: {"preset_mode": _value(s)}),
    (r"preset|voreinstellung", "fan", "set_preset_mode", lambda s: {"preset_mode": _value(s)}),
    (r"mode|modus", "climate", "set_hvac_mode", lambda s: {"hvac_mode": _value(s)}),
    (r"source|quelle", "media_player", "select_source", lambda s: {"source": _value(s)}),
    (r"option|auf|to", "select", "select_option", lambda s: {"option": _value(s)}),
    (r"activate|aktiviere", "scene", "turn_on", lambda s: {}),
    (r"run|führe|starte", "script", "turn_on", lambda s: {}),
    (
        r"\d+ ?(?:°|degrees|grad|degrés|grados|gradi|graden|graus)",
        "climate",
        "set_temperature",
        lambda s: {"temperature": _degrees(s)},
    ),
    (r"set|stelle|setze|règle|mets|zet", "input_datetime", "set_datetime", lambda s: _when(s)),  # noqa: PLW0108 (defined below)
    (r"send|sende|schicke|envoie", "notify", "send_message", lambda s: _message(s)),  # noqa: PLW0108
    (r"add|füge|setze|ajoute|mets|voeg", "todo", "add_item", lambda s: {"item": _item(s)}),
    (
        r"mark|hake|coche|marque",
        "todo",
        "update_item",
        lambda s: {"item": _item(s), "status": "completed"},
    ),
    (
        r"clean|sauge|putze|reinige|nettoie|aspire|schoon|stofzuig|limpia|aspira|pulisci",
        "vacuum",
        "clean_area",
        lambda s: _rooms(s),  # noqa: PLW0108 (defined below)
    ),
    (
        r"rainbow|regenbogen|arc-en-ciel",
        "light",
        "turn_on",
        lambda s: {"effect": "rainbow"},
    ),
)
# Words of a question about a state: the demo reads it with get_state.
_QUESTION: Final = r"^(?:is|are|está|están|¿|staat)|\?$"
_DONE: Final = {
    "Spanish": ("Hecho.", "No ha funcionado."),
    "Dutch": ("Klaar.", "Dat is mislukt."),
    "Italian": ("Fatto.", "Non ha funzionato."),
    "Portuguese": ("Feito.", "Não funcionou."),
    "German": ("Erledigt.", "Das hat nicht geklappt."),
    "French": ("C'est fait.", "Cela n'a pas marché."),
}
HELP: Final = (
    "I am the scripted demo model, not a language model: I only switch lights, open or close "
    "covers, and lock or unlock locks."
)


@dataclass(frozen=True, slots=True)
class HomeEntity:
    """An entity of the home list the agent showed the model."""

    domain: str
    entity_id: str
    words: str
    area: str | None = None
    floor: str | None = None


def home_entities(system: str) -> list[HomeEntity]:
    """Read the exposed entities from the home list in the system prompt."""
    entities = []
    area: str | None = None
    floor: str | None = None
    for line in system.splitlines():
        if heading := _AREA_HEADING.match(line):
            area, floor = heading.group(1).casefold().replace(" ", "_"), heading.group(2)
        if found := _HOME_LINE.match(line):
            domain, object_id, name = found.groups()
            words = (name or object_id.replace("_", " ")).casefold()
            entities.append(HomeEntity(domain, f"{domain}.{object_id}", words, area, floor))
    return entities


def user_words(message: Message) -> str:
    """The user's own words: what follows the context block the agent puts first."""
    return message.content.rsplit("\n\n", 1)[-1].strip()


def demo_value(schema: dict[str, Any]) -> Any:
    """The plainest value of a JSON schema: what a "Generate data" structure asks for."""
    if schema.get("enum"):
        return schema["enum"][0]
    if options := schema.get("anyOf") or schema.get("oneOf"):
        return demo_value(options[0])
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: demo_value(field) for name, field in properties.items()}
    values: dict[str, Any] = {
        "array": [],
        "string": "demo",
        "integer": int(schema.get("minimum", 0)),
        "number": schema.get("minimum", 0),
        "boolean": False,
    }
    return values.get(str(kind))


def _minutes(said: str) -> str:
    found = re.search(r"(?i)(\d+)\s*min", said)
    return f"00:{int(found.group(1)) if found else 10:02d}:00"


def _percent(said: str) -> int:
    return int(re.findall(r"(\d+) ?%", said)[0])


# German words a person says for a mode or preset, as the option a model would write.
_OPTION_WORDS: Final = {"kühlen": "cool", "heizen": "heat", "abwesend": "away", "zuhause": "home"}


def _value(said: str) -> str:
    # "set the Ecobee preset to away", "stelle den Modus von Hvac auf Kühlen": the last words.
    found = re.search(r"(?i)\b(?:to|auf)\s+(.+?)[.!]?$", said)
    value = found.group(1).strip() if found else said
    value = re.sub(r"(?i)\s+(?:stellen|setzen|schalten)$", "", value)
    return _OPTION_WORDS.get(value.casefold(), value.casefold().replace(" ", "_"))


def _degrees(said: str) -> float:
    found = re.search(r"(?i)(\d+(?:[.,]\d+)?) ?(?:°|[dg]r?[ae])", said)
    return float(found.group(1).replace(",", ".")) if found else 21.0


def _when(said: str) -> dict[str, Any]:
    if found := re.search(r"(\d{1,2})[:h.](\d{2})", said):
        return {"time": f"{int(found.group(1)):02d}:{found.group(2)}:00"}
    day = re.search(r"(\d{1,2})(?:\.|th|e|er)?", said)
    today = dt_util.now().date()
    return {"date": today.replace(day=int(day.group(1)) if day else today.day).isoformat()}


def _message(said: str) -> dict[str, Any]:
    # 'Send "Dinner is ready" titled "Kitchen"': the first quoted text, then the second.
    quoted = re.findall(r"[\"“„«]\s*([^\"“”„«»]+?)\s*[\"”“»]", said)
    message = {"message": quoted[0] if quoted else said}
    return message | ({"title": quoted[1]} if len(quoted) > 1 else {})


def _item(said: str) -> str:
    # "add milk to ...", "füge Milch zur ... hinzu", "ajoute du lait à ...", "mark bread done",
    # "voeg melk toe aan ...".
    found = re.search(
        r"(?i)(?:add|füge|setze|ajoute|mets|mark|hake|coche|marque|voeg)\s+"
        r"(?:du |de la |le |la |les |des )?"
        r"(.+?)\s+(?:to|zur|zu|auf|à|a|au|sur|on|as|als|ab|dans|comme|toe)\b",
        said,
    )
    return found.group(1) if found else said


def _rooms(said: str) -> dict[str, Any]:
    return {"cleaning_area_id": _rooms_said(said)}


def _rooms_said(said: str) -> list[str]:
    return [area for area, words in _ROOM_WORDS.items() if re.search(words, said, re.IGNORECASE)]


def _house_call(words: str, named: Sequence[HomeEntity], home: Sequence[HomeEntity]) -> str | None:
    """The call for a command of _HOUSE_COMMANDS; a vacuum needs no name (the first cleans).

    The arguments come from the words as said: an item or a message keeps its capitals.
    """
    said = words.casefold()
    for command, domain, action, arguments in _HOUSE_COMMANDS:
        if not re.search(rf"\b(?:{command})", said):
            continue
        found = arguments(words)
        if domain == "vacuum" and not found["cleaning_area_id"]:
            return None  # no room said: the vacuum just starts (_COMMANDS)
        for entity in home if domain == "vacuum" else named:
            if entity.domain == domain:
                return call(domain, action=action, entity_id=entity.entity_id, **found)
    return None


def _floor_calls(said: str, home: Sequence[HomeEntity]) -> str | None:
    """The calls for "turn off everything downstairs", "close the blinds upstairs": one per
    domain, with every entity of that domain on the floor."""
    floor = next((f for words, f in _FLOOR_WORDS if re.search(rf"\b(?:{words})", said)), None)
    domains = next((d for words, d in _FLOOR_THINGS if re.search(rf"\b(?:{words})", said)), None)
    if floor is None or domains is None:
        return None
    switch_on = re.search(
        r"\b(?:turn on|switch on|enciende|accendi|open|abre|apri|liga|acende|öffne|mach .* an|"
        r"allume|ouvre)",
        said,
    )
    calls = []
    for domain in domains:
        targets = [e.entity_id for e in home if e.domain == domain and e.floor == floor]
        if targets:
            action = _FLOOR_ACTIONS[domain][0 if switch_on else 1]
            calls.append(call(domain, action=action, entity_id=targets))
    return "".join(calls) or None


_FLOOR_ACTIONS: Final = {
    "light": ("turn_on", "turn_off"),
    "fan": ("turn_on", "turn_off"),
    "cover": ("open_cover", "close_cover"),
}


def demo_reply(seen: SeenRequest) -> str:
    """Write what a good model would: one call for a command it knows, then a short answer."""
    if seen.request.answer_schema is not None:
        # An AI task with a structure: a model writes it under the structure's grammar.
        data = json.dumps(demo_value(dict(seen.request.answer_schema)))
        if seen.conversation is not None and not seen.conversation.enable_thinking:
            return data
        return answer(data, reasoning="The task asks for data of this structure.")
    conversation = seen.conversation
    if conversation is None or not conversation.messages:
        return answer(HELP)
    last = conversation.messages[-1]
    language = _answer_language(conversation.messages)
    done, failed = _DONE.get(language, ("Done.", "That did not work."))
    if last.role == "tool":
        if '"error"' in last.content:
            return answer(failed, reasoning="The call failed.")
        if last.tool_name == GET_STATE:
            states = json.loads(last.content).get("entities", [])
            said = ", ".join(map(_read_out, states))
            return answer(said, reasoning="The user asked for this state.")
        return answer(done, reasoning="The call worked.")
    words = user_words(last)
    said = words.casefold()
    # Whole words: "accendi" does not name the AC.
    home = home_entities(conversation.system)
    # The longest name first: "Kitchen Timer" is not the player "Kitchen".
    entities = sorted(
        (e for e in home if re.search(rf"(?<!\w){re.escape(e.words)}(?!\w)", said)),
        key=lambda e: -len(e.words),
    )
    if re.search(_QUESTION, said) and entities:
        return answer(call(GET_STATE, entity_id=entities[0].entity_id), reasoning="A question.")
    if house_call := _house_call(words, entities, home) or _floor_calls(said, home):
        return answer(house_call, reasoning="The user wants this done.")
    for words, domain, action, arguments in _COMMANDS:
        if not re.search(rf"\b(?:{words})", said):
            continue
        # Every entity of the domain named, or in a room said: "the lights in the kitchen and
        # the living room".
        rooms = _rooms_said(said)
        in_rooms = [e for e in home if e.area in rooms and e not in entities]
        targets = [e.entity_id for e in (*entities, *in_rooms) if e.domain == domain]
        if targets:
            return answer(
                call(
                    domain,
                    action=action,
                    entity_id=targets[0] if len(targets) == 1 else targets,
                    **arguments,
                ),
                reasoning=f"The user wants to {action.replace('_', ' ')} {', '.join(targets)}.",
            )
    return answer(HELP, reasoning="I do not know this command.")


def _read_out(entity: dict[str, Any]) -> str:
    """An entity's state, or what its list holds: a calendar's events, a to-do list's items; a
    timer's time left."""
    if "events" in entity:
        held = [f"{event['start']} {event['summary']}" for event in entity["events"]]
    elif "items" in entity:
        held = [str(item) for item in entity["items"]]
    elif "remaining" in entity:  # a timer: how long it has left, as the read says it
        return f"{entity['name']}: {entity['state']} ({entity['remaining']})"
    else:
        return f"{entity['name']}: {entity['state']}"
    return f"{entity['name']}: {'; '.join(held) or '-'}"


def _answer_language(messages: Sequence[Message]) -> str:
    # The agent names the language in the context block of each user message.
    for message in reversed(messages):
        if message.role == "user" and (found := re.search(r"Answer in (\w+)\.", message.content)):
            return found.group(1)
    return "English"


def demo_engine(model_path: Path) -> StandInWorker:
    """The stand-in that answers with demo_reply, slowed down like a model on a small machine."""
    worker = StandInWorker(
        model_path, EngineSettings(), script=demo_reply, name=DEMO_NAME, approximate_tokens=True
    )
    worker.thinking_seconds = THINKING_SECONDS
    return worker


def write_demo_model(path: Path) -> None:
    """Write a GGUF file with no weights that names the demo: the file to add in the dialog."""
    import gguf

    path.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(str(path), "qwen35")
    writer.add_name(DEMO_NAME)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def run_home_assistant(arguments: list[str]) -> int:
    """Run Home Assistant (hass's own command line) with every local model file as the demo."""
    from custom_components.local_agent.runtime.local import LOCAL_ENGINES
    from homeassistant import __main__ as hass_main
    from homeassistant.core import HomeAssistant

    start = HomeAssistant.__init__

    def start_with_demo(hass: HomeAssistant, *args: object, **kwargs: object) -> None:
        # The one seam the integration has for its engines (runtime/local.py), set before any
        # entry loads: every model file then "loads" as the demo.
        start(hass, *args, **kwargs)  # type: ignore[arg-type]
        engine = demo_engine(Path(DEMO_NAME))
        hass.data[LOCAL_ENGINES] = stand_in_engines(engine, loading_seconds=LOADING_SECONDS)
        furnish_when_started(hass)

    HomeAssistant.__init__ = start_with_demo  # type: ignore[method-assign,assignment]
    sys.argv = ["hass", *arguments]
    return hass_main.main()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--write-model"]:
        write_demo_model(Path(sys.argv[2]))
        sys.exit(0)
    sys.exit(run_home_assistant(sys.argv[1:]))
