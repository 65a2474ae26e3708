"""The reference policy: a stand-in model that writes the ideal Qwen3.5 output for each test.

For a test it derives, from `expect_changes` and the states before the turn, the calls an
ideal model would make with the tools offered in the request (so it follows our tool set),
writes them as Qwen3.5 XML after a short reasoning block, and after the tool results writes a
short answer. Status questions read `answer_from` (else the entities the test sets up) with
get_state and answer from the results;
refusals and ambiguous requests are answered without a call. Its output goes through the real
parser, validation, safety gate and execution: any test it fails is a bug of the integration,
unless the plan says why the expectation cannot be reached (`Plan.gaps`: a read-only entity,
one that is not exposed, a state no service produces, a parameter the tools do not offer).
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
import json
import re
from typing import Any
from typing import Final

from custom_components.local_agent.engine.markup import RESPONSE_CLOSE
from custom_components.local_agent.engine.markup import RESPONSE_OPEN
from custom_components.local_agent.engine.markup import TURN_START
from custom_components.local_agent.engine.markup import format_tool_call
from custom_components.local_agent.engine.types import ToolCall
from custom_components.local_agent.engine.types import ToolSpec
from homeassistant.util import color as color_util
from testing.stand_in import SeenRequest
from testing.stand_in import answer

from .calendar_answer import calendar_answer
from .dataset import StateSpec
from .dataset import TestCase
from .home import Snapshot
from .scoring import attribute_matches
from .scoring import values_match

GET_STATE: Final = "get_state"
_TOOL_RESPONSE = re.compile(
    re.escape(RESPONSE_OPEN) + r"\s*(.*?)\s*" + re.escape(RESPONSE_CLOSE), re.DOTALL
)
# Preferred colour names first; then every CSS colour Home Assistant knows.
_COMMON_COLORS: Final = (
    "red", "blue", "green", "yellow", "orange", "purple", "pink", "white", "cyan", "magenta",
)  # fmt: skip

type Action = tuple[str, dict[str, Any]]
type Planner = Callable[[str, tuple[str, Mapping[str, Any]], StateSpec], list[Action]]


class Unreachable(Exception):
    """No call of the domain's tool can produce the expected state; the message says why."""


@dataclass(slots=True)
class Plan:
    """What the reference does for a test: calls, then an answer; or only an answer."""

    calls: list[ToolCall] = field(default_factory=list)
    answer: str = "Done."
    gaps: list[str] = field(default_factory=list)


def _light(entity_id: str, before: tuple[str, Mapping[str, Any]], want: StateSpec) -> list[Action]:
    attributes = want.attributes
    percent: int | None = None
    if attributes.get("brightness_pct") is not None:
        percent = round(float(attributes["brightness_pct"]))
    elif attributes.get("brightness") is not None:
        percent = round(float(attributes["brightness"]) * 100 / 255)
    if percent == 0:
        # Brightness 0 is off: Home Assistant turns a light off when asked for 0 %.
        if (want.state or before[0]) == "on":
            raise Unreachable("a light that is on has a brightness above 0")
        return [("turn_off", {})]
    if want.state == "off":
        if percent is not None:
            raise Unreachable("a light that is off has no brightness")
        return [("turn_off", {})]
    if want.state is None and before[0] == "off" and attributes:
        raise Unreachable("setting the light turns it on, but it should stay off")
    params: dict[str, Any] = {}
    if percent is not None:
        params["brightness_pct"] = percent
    if attributes.get("color_temp_kelvin") is not None:
        params["color_temp_kelvin"] = int(attributes["color_temp_kelvin"])
    if attributes.get("rgb_color") is not None:
        params["color_name"] = color_name(attributes["rgb_color"])
    elif attributes.get("hs_color") is not None:
        hue, saturation = attributes["hs_color"]
        params["color_name"] = color_name(color_util.color_hs_to_RGB(hue, saturation))
    return [("turn_on", params)]


def color_name(rgb: Sequence[int]) -> str:
    """The colour name whose hue and saturation are closest to rgb's (common names first)."""
    wanted = color_util.color_RGB_to_hs(*rgb)

    def distance(name: str) -> float:
        hue, saturation = color_util.color_RGB_to_hs(*color_util.color_name_to_rgb(name))
        hue_gap = min(abs(hue - wanted[0]), 360 - abs(hue - wanted[0]))
        return hue_gap + abs(saturation - wanted[1])

    names = [*_COMMON_COLORS, *(n for n in color_util.COLORS if n not in _COMMON_COLORS)]
    return min(names, key=distance)


def _on_off(entity_id: str, before: tuple[str, Mapping[str, Any]], want: StateSpec) -> list[Action]:
    if want.state in ("on", "off"):
        return [(f"turn_{want.state}", {})]
    return []


def _position_state(before: tuple[str, Mapping[str, Any]], want: StateSpec) -> None:
    """A cover or valve at a position above 0 is open, at 0 closed (Home Assistant's rule)."""
    position = want.attributes.get("current_position")
    state = want.state or before[0]
    if position is None or state not in ("open", "closed"):
        return
    if int(position) > 0 and state == "closed":
        raise Unreachable(f"at position {int(position)} it is open, but it should stay closed")
    if int(position) == 0 and state == "open":
        raise Unreachable("at position 0 it is closed, but it should be open")


def _cover(entity_id: str, before: tuple[str, Mapping[str, Any]], want: StateSpec) -> list[Action]:
    _position_state(before, want)
    actions: list[Action] = []
    position = want.attributes.get("current_position")
    if position is not None and int(position) not in (0, 100):
        actions.append(("set_cover_position", {"position": int(position)}))
    elif want.state == "open" or position == 100:
        actions.append(("open_cover", {}))
    elif want.state == "closed" or position == 0:
        actions.append(("close_cover", {}))
    if (tilt := want.attributes.get("current_tilt_position")) is not None:
        actions.append(("set_cover_tilt_position", {"tilt_position": int(tilt)}))
    return actions


_LOCK_ACTIONS: Final = {"locked": "lock", "unlocked": "unlock", "open": "open"}
_ALARM_ACTIONS: Final = {
    "armed_away": "alarm_arm_away",
    "armed_home": "alarm_arm_home",
    "armed_night": "alarm_arm_night",
    "armed_vacation": "alarm_arm_vacation",
    "disarmed": "alarm_disarm",
}
_VACUUM_ACTIONS: Final = {
    "cleaning": "start",
    "returning": "return_to_base",
    "docked": "return_to_base",
    "paused": "pause",
    "idle": "stop",
}
_MEDIA_ACTIONS: Final = {
    "playing": "media_play",
    "paused": "media_pause",
    "idle": "media_stop",
    "off": "turn_off",
    "on": "turn_on",
}
_TIMER_ACTIONS: Final = {"idle": "cancel", "paused": "pause"}
_VALVE_ACTIONS: Final = {"open": "open_valve", "closed": "close_valve"}


def _by_state(table: Mapping[str, str]) -> Planner:
    def plan(
        entity_id: str, before: tuple[str, Mapping[str, Any]], want: StateSpec
    ) -> list[Action]:
        action = table.get(want.state or "")
        return [(action, {})] if action and want.state != before[0] else []

    return plan


def _climate(
    entity_id: str, before: tuple[str, Mapping[str, Any]], want: StateSpec
) -> list[Action]:
    actions: list[Action] = []
    attributes = want.attributes
    mode_changes = want.state is not None and want.state != before[0]
    targets = {
        key: float(attributes[key])
        for key in ("temperature", "target_temp_low", "target_temp_high")
        if attributes.get(key) is not None
    }
    if targets:
        params: dict[str, Any] = {key: _number(value) for key, value in targets.items()}
        if mode_changes:
            params["hvac_mode"] = want.state
        actions.append(("set_temperature", params))
    elif mode_changes:
        actions.append(("set_hvac_mode", {"hvac_mode": want.state}))
    for key, action in (
        ("fan_mode", "set_fan_mode"),
        ("preset_mode", "set_preset_mode"),
        ("humidity", "set_humidity"),
    ):
        if (value := attributes.get(key)) is not None:
            actions.append((action, {key: _number(value) if key == "humidity" else value}))
    return actions


def _fan(entity_id: str, before: tuple[str, Mapping[str, Any]], want: StateSpec) -> list[Action]:
    attributes = want.attributes
    percentage = attributes.get("percentage")
    speed = None if percentage is None else round(float(percentage))
    if want.state == "off" or speed == 0:
        if (want.state or before[0]) == "on":
            raise Unreachable("a fan that is on has a speed above 0")
        if speed not in (None, 0):
            raise Unreachable("a fan that is off has speed 0")
        return [("turn_off", {})]
    actions: list[Action] = []
    if speed is not None:
        # set_percentage sets the speed and turns the fan on.
        actions.append(("set_percentage", {"percentage": speed}))
    elif want.state == "on" and before[0] != "on":
        actions.append(("turn_on", {}))
    if (oscillating := attributes.get("oscillating")) is not None:
        actions.append(("oscillate", {"oscillating": bool(oscillating)}))
    if (direction := attributes.get("direction")) is not None:
        actions.append(("set_direction", {"direction": direction}))
    if (preset := attributes.get("preset_mode")) is not None:
        actions.append(("set_preset_mode", {"preset_mode": preset}))
    return actions


def _media(entity_id: str, before: tuple[str, Mapping[str, Any]], want: StateSpec) -> list[Action]:
    actions = _by_state(_MEDIA_ACTIONS)(entity_id, before, want)
    attributes = want.attributes
    if (volume := attributes.get("volume_level")) is not None:
        actions.append(("volume_set", {"volume_level": _number(volume)}))
    if (muted := attributes.get("is_volume_muted")) is not None:
        actions.append(("volume_mute", {"is_volume_muted": bool(muted)}))
    if (source := attributes.get("source")) is not None:
        actions.append(("select_source", {"source": source}))
    if (track := attributes.get("media_track")) is not None:
        step = int(track) - int(before[1].get("media_track") or 1)
        if step > 0:
            actions.extend([("media_next_track", {})] * step)
        elif step < 0:
            actions.extend([("media_previous_track", {})] * -step)
    return actions


def _vacuum(entity_id: str, before: tuple[str, Mapping[str, Any]], want: StateSpec) -> list[Action]:
    actions = _by_state(_VACUUM_ACTIONS)(entity_id, before, want)
    if (speed := want.attributes.get("fan_speed")) is not None:
        actions.append(("set_fan_speed", {"fan_speed": speed}))
    return actions


def _todo(
    entity_id: str, before: tuple[str, Mapping[str, Any]], want: StateSpec, sentence: str = ""
) -> list[Action]:
    """Add, remove, rename (an item replaced in place) and complete items.

    An expectation of only the count of open items (the state) adds items named in the
    sentence, or completes open items (those the sentence names first).
    """
    had_open = [str(i) for i in before[1].get("items") or []]
    if not {"items", "completed"} & want.attributes.keys() and want.state is not None:
        return _todo_count(before, want.state, sentence)
    had_done = {str(i).casefold() for i in before[1].get("completed") or []}
    done = [str(i) for i in want.attributes.get("completed") or []]
    actions: list[Action] = [
        ("update_item", {"item": item, "status": "completed"})
        for item in done
        if item.casefold() not in had_done
    ]
    if (wanted := want.attributes.get("items")) is None:
        return actions
    wanted_open = [str(i) for i in wanted]
    folded_had = {i.casefold() for i in had_open}
    folded_wanted = {i.casefold() for i in wanted_open}
    folded_done = {i.casefold() for i in done}
    added = [i for i in wanted_open if i.casefold() not in folded_had]
    removed = [i for i in had_open if i.casefold() not in folded_wanted | folded_done]
    for old, new in zip(removed, added, strict=False):
        if had_open.index(old) == wanted_open.index(new):
            actions.append(("update_item", {"item": old, "rename": new}))
            removed.remove(old)
            added.remove(new)
    actions.extend(("add_item", {"item": item}) for item in added)
    actions.extend(("remove_item", {"item": item}) for item in removed)
    return actions


# The item a sentence names, in the languages of the public sets: "add apples to the list",
# "Füge Äpfel zu meiner Liste hinzu" / "Setze Äpfel auf die Liste" / "Äpfel auf die Liste
# setzen", "añade manzanas a mi lista", "ajoute des pommes à ma liste", "voeg appels toe aan
# mijn lijst" / "zet appels op de lijst".
_ADD_ITEM = tuple(
    re.compile(pattern, re.I)
    for pattern in (
        r"\b(?:add|put)\s+(.+?)\s+(?:to|on|onto|in)\s+(?:the|my|our)\b",
        r"\bfüge\s+(.+?)\s+(?:zu|zur|zum)\s+(?:meine[rnm]?|unsere[rnm]?|der|den|dem)\b",
        r"\bsetze\s+(.+?)\s+auf\s+(?:die|meine|unsere)\b",
        r"^(.+?)\s+auf\s+(?:die|meine|unsere)\b.*\bsetzen\b",
        r"\b(?:añade|agrega|pon)\s+(.+?)\s+(?:a|en)\s+(?:mi|mis|la|el|nuestra)\b",
        r"\b(?:ajoute|mets)\s+(?:des\s+|du\s+|les\s+)?(.+?)\s+(?:à|sur|dans)\s+(?:ma|la|mes|notre)\b",
        r"\bvoeg\s+(.+?)\s+toe\s+aan\b",
        r"\bzet\s+(.+?)\s+op\s+(?:de|mijn|onze)\b",
    )
)


def _todo_count(before: tuple[str, Mapping[str, Any]], state: str, sentence: str) -> list[Action]:
    try:
        wanted = int(float(state))
        had = int(float(before[0]))
    except ValueError:
        raise Unreachable(f"{state!r} is not a number of open items") from None
    if wanted < 0:
        raise Unreachable("a to-do list cannot have fewer than 0 open items")
    if wanted > had:
        match = next((m for pattern in _ADD_ITEM if (m := pattern.search(sentence))), None)
        names = [match[1]] if match else []
        if len(names) < wanted - had:
            names += [f"item {n}" for n in range(1, wanted - had - len(names) + 1)]
        return [("add_item", {"item": name}) for name in names[: wanted - had]]
    open_items = [str(i) for i in before[1].get("items") or []]
    folded = sentence.casefold()
    named = sorted(open_items, key=lambda item: item.casefold() not in folded)
    return [
        ("update_item", {"item": item, "status": "completed"}) for item in named[: had - wanted]
    ]


def _timer(entity_id: str, before: tuple[str, Mapping[str, Any]], want: StateSpec) -> list[Action]:
    if want.state == "active":
        duration = want.attributes.get("duration") or want.attributes.get("remaining")
        return [("start", {"duration": _hms(duration)} if duration else {})]
    return _by_state(_TIMER_ACTIONS)(entity_id, before, want)


def _read_only(
    entity_id: str, before: tuple[str, Mapping[str, Any]], want: StateSpec
) -> list[Action]:
    raise Unreachable(f"{entity_id.split('.', 1)[0]} entities are read-only")


def _valve(entity_id: str, before: tuple[str, Mapping[str, Any]], want: StateSpec) -> list[Action]:
    _position_state(before, want)
    position = want.attributes.get("current_position")
    if position is not None and int(position) not in (0, 100):
        return [("set_valve_position", {"position": int(position)})]
    return _by_state(_VALVE_ACTIONS)(entity_id, before, want)


PLANNERS: Final[Mapping[str, Planner]] = {
    "alarm_control_panel": _by_state(_ALARM_ACTIONS),
    "binary_sensor": _read_only,
    "climate": _climate,
    "cover": _cover,
    "fan": _fan,
    "light": _light,
    "lock": _by_state(_LOCK_ACTIONS),
    "media_player": _media,
    "sensor": _read_only,
    "switch": _on_off,
    "timer": _timer,
    "todo": _todo,
    "vacuum": _vacuum,
    "valve": _valve,
    "weather": _read_only,
}


def _number(value: Any) -> Any:
    number = float(value)
    return int(number) if number.is_integer() else number


def _hms(value: Any) -> str:
    """A duration as HH:MM:SS (what the timer tool's duration field asks for)."""
    text = str(value)
    parts = [int(float(p)) for p in text.split(":")]
    while len(parts) < 3:
        parts.insert(0, 0)
    hours, minutes, seconds = parts[-3:]
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}"


def already_met(entity_id: str, before: tuple[str, Mapping[str, Any]], want: StateSpec) -> bool:
    """Whether the expectation holds before anything is done."""
    state, attributes = before
    if want.state is not None and not values_match(want.state, state):
        return False
    return all(
        attribute_matches(value, entity_id, state, attributes, name)
        for name, value in want.attributes.items()
    )


def plan_test(
    test: TestCase,
    before: Snapshot,
    tools: Sequence[ToolSpec],
    *,
    exposed: Collection[str] | None = None,
    sentence: str = "",
) -> Plan:
    """The ideal calls for a test, checked against the offered tools.

    exposed: the entities the agent may see (None: all). Every expectation the plan cannot
    reach is a gap with its reason; one that already holds needs no call.
    """
    if not test.expect_changes:
        # A question names what answers it (answer_from), or sets it up (upstream).
        asked = test.expect_answer or test.expect_response
        readable = test.answer_from or (tuple(test.setup) if asked else ())
        if readable:
            calls = [ToolCall(GET_STATE, {"entity_id": e}) for e in readable]
            return _checked(Plan(calls=calls, answer=""), tools)
        if test.expect_question:
            return Plan(answer="Which one do you mean?")
        unnamed = ["the test names no entity that answers it (answer_from or setup)"]
        return Plan(answer="Sorry, I can't do that.", gaps=unnamed if asked else [])
    grouped: dict[tuple[str, str, str], list[str]] = {}
    params_of: dict[tuple[str, str, str], dict[str, Any]] = {}
    gaps: list[str] = []
    for entity_id, want in test.expect_changes.items():
        domain = entity_id.split(".", 1)[0]
        planner = PLANNERS.get(domain)
        state = before.get(entity_id, ("unknown", {}))
        if already_met(entity_id, state, want):
            continue
        if exposed is not None and entity_id not in exposed:
            gaps.append(f"{entity_id} is not exposed to Assist: the agent cannot change it")
            continue
        try:
            if planner is _todo:
                actions = _todo(entity_id, state, want, sentence)
            else:
                actions = planner(entity_id, state, want) if planner else []
        except Unreachable as err:
            gaps.append(f"{entity_id}: {err}")
            continue
        if not actions:
            gaps.append(f"{entity_id}: no {domain} action produces the expected state")
        for action, params in actions:
            key = (domain, action, json.dumps(params, sort_keys=True))
            grouped.setdefault(key, []).append(entity_id)
            params_of[key] = params
    calls = [
        ToolCall(
            domain,
            {"action": action, "entity_id": ids[0] if len(ids) == 1 else ids, **params_of[key]},
        )
        for key, ids in grouped.items()
        for domain, action, _ in [key]
    ]
    return _checked(Plan(calls=calls, gaps=gaps), tools)


def _checked(plan: Plan, tools: Sequence[ToolSpec]) -> Plan:
    """Note every call the offered tools cannot express (the integration lacks something)."""
    offered = {spec.name: spec for spec in tools}
    for call in plan.calls:
        spec = offered.get(call.name)
        if spec is None:
            plan.gaps.append(f"no tool {call.name!r} is offered (no exposed entity can do this)")
            continue
        properties = spec.parameters.get("properties", {})
        for name, value in call.arguments.items():
            if name not in properties:
                plan.gaps.append(f"{call.name} has no parameter {name!r}")
            elif not _allowed(properties[name], value):
                plan.gaps.append(f"{call.name}.{name} does not offer {value!r}")
    return plan


def _allowed(schema: Mapping[str, Any], value: Any) -> bool:
    """Whether a value is among a parameter's enum (every item, for a list of entity ids)."""
    allowed = schema.get("enum")
    if allowed is None and isinstance(schema.get("items"), Mapping):
        allowed = schema["items"].get("enum")
    if allowed is None:
        return True
    values = value if isinstance(value, list) else [value]
    return all(item in allowed for item in values)


def write_calls(calls: Sequence[ToolCall]) -> str:
    """Qwen3.5 XML for the calls, written by the engine's own formatter."""
    return "\n".join(format_tool_call(call) for call in calls)


def answer_from_results(results: Sequence[Any], sentence: str = "") -> str:
    """Read get_state results aloud: "Front Door is locked." per entity.

    As a careful person answers an English question: "yes" or "no" first when it asks whether
    what was read is in a state ("Is the bedroom light on?"), the number when it asks how many
    are, and a percentage written as people write it ("55%", not Home Assistant's "55 %").
    """
    sentences: list[str] = []
    states: list[str] = []
    for result in results:
        if not isinstance(result, dict):
            continue
        if "error" in result:
            sentences.append(f"Sorry, that did not work: {result['error']}")
        for entity in result.get("entities", ()):
            if isinstance(events := entity.get("events"), list):
                sentences.append(calendar_answer(str(entity.get("name")), events, sentence))
                continue
            details = [
                f"{key} {value}"
                for key, value in entity.items()
                if key not in ("entity_id", "name", "area", "state")
            ]
            extra = f" ({', '.join(details)})" if details else ""
            state = _PERCENT.sub(r"\1%", str(entity.get("state")))
            states.append(str(entity.get("state")).casefold())
            sentences.append(f"{entity.get('name')} is {state}{extra}.")
    if states and (count := _HOW_MANY.search(sentence)):
        asked = count[1].casefold()
        sentences.append(f"{sum(_in_state(s, asked) for s in states)} of them are {asked}.")
    elif states and (whether := _WHETHER.search(sentence)):
        yes = all(_in_state(s, whether[1].casefold()) for s in states)
        sentences.insert(0, "Yes." if yes else "No.")
    return " ".join(sentences) or "I could not read that."


_STATE_WORDS: Final = r"(on|off|open|closed|locked|unlocked|playing|paused|running)"
_WHETHER: Final = re.compile(rf"^(?:.*,\s*)?(?:is|are)\b[^?]*?\b{_STATE_WORDS}\s*(?:\?|$)", re.I)
_HOW_MANY: Final = re.compile(
    rf"\bhow many\b[^?]*?\b(?:is|are)\s+(?:currently\s+|now\s+|still\s+)?{_STATE_WORDS}"
    r"\s*(?:right now|now)?\s*(?:\?|$)",
    re.I,
)
_PERCENT: Final = re.compile(r"(\d) %")
# States that answer "off" to a person asking whether a thing is on (a closed valve, an idle
# player); "on" is every other state a thing can be in.
_OFF_LIKE: Final = frozenset(
    {"off", "closed", "idle", "standby", "docked", "unavailable", "unknown"}
)


def _in_state(state: str, asked: str) -> bool:
    """Whether a read state is the asked one, as a person means it ("on": open, playing…)."""
    if asked == "on":
        return state not in _OFF_LIKE
    if asked == "off":
        return state in _OFF_LIKE
    return state == asked


def unanswerable(
    expected: Sequence[str], results: Sequence[Any], said: str, given: str = ""
) -> str | None:
    """Why no agent can give an expected answer from what it read.

    A number no tool result holds (a temperature in other units). A text that is neither in
    a tool result nor in what the test put in the home (given: its setup, as text), nor a
    word this policy answers with itself (yes, no): a translation of what the home holds
    ("salade" for a to-do item "Buy salad"), which reading states aloud cannot give.
    """
    folded = said.casefold()
    if not expected or any(text.casefold() in folded for text in expected):
        return None
    read = json.dumps(list(results), ensure_ascii=False)
    if not all(_NUMBER.fullmatch(text.strip()) for text in expected):
        known = f"{read}\n{given}".casefold()
        if any(text.casefold() in known or text.casefold() in _OWN_WORDS for text in expected):
            return None
        return (
            f"the expected answer {' or '.join(expected)} is in no value the tools return "
            "nor in the test's setup: it asks to translate what the home holds"
        )
    held = {float(n) for n in _NUMBER.findall(read)} | {float(n) for n in _NUMBER.findall(said)}
    if any(float(text) in held for text in expected):
        return None
    return f"the expected answer {' or '.join(expected)} is in no value the tools return"


# What this policy answers with besides what it read: a yes or no first.
_OWN_WORDS: Final = frozenset({"yes", "no"})


_NUMBER: Final = re.compile(r"-?\d+(?:\.\d+)?")


class ReferencePolicy:
    """The script of a StandInWorker: the plan's calls first, then an answer.

    The runner calls `begin` before each sentence with the test and the states before it.
    """

    def __init__(self, exposed: Collection[str] | None = None) -> None:
        """Start with no test; exposed: the entities exposed to Assist (None: all)."""
        self.exposed = exposed
        self.sentence = ""
        self.test: TestCase | None = None
        self.before: Snapshot = {}
        self.plan: Plan | None = None
        self.rounds = 0
        self.gaps: list[str] = []

    def begin(self, test: TestCase, before: Snapshot, sentence: str = "") -> None:
        """Prepare for a new sentence of test."""
        self.test = test
        self.sentence = sentence
        self.before = before
        self.plan = None
        self.rounds = 0
        self.gaps = []

    def __call__(self, request: SeenRequest) -> str:
        """Write this round's output."""
        self.rounds += 1
        if self.test is None:
            return answer("Hello.", reasoning="Nothing to do.")
        if self.plan is None:
            self.plan = plan_test(
                self.test,
                self.before,
                request.tools,
                exposed=self.exposed,
                sentence=self.sentence,
            )
            self.gaps = list(self.plan.gaps)
        if self.rounds == 1 and self.plan.calls:
            return answer(
                write_calls(self.plan.calls), reasoning="The request maps to these calls."
            )
        if self.rounds == 1:
            return answer(self.plan.answer, reasoning="No call fits; answer directly.")
        results = _latest_results(request)
        if self.plan.answer:
            failures = [r["error"] for r in results if isinstance(r, dict) and "error" in r]
            reply = f"Sorry, that did not work: {failures[0]}" if failures else self.plan.answer
            return answer(reply, reasoning="The calls are done.")
        said = answer_from_results(results, self.sentence)
        if self.test.expect_response and (
            why := unanswerable(self.test.expect_response, results, said, _given(self.test))
        ):
            self.gaps.append(why)
        return answer(said, reasoning="The results are in.")


def _given(test: TestCase) -> str:
    """What the test put in the home before the sentence, as text."""
    return json.dumps(
        {entity: [spec.state, spec.attributes] for entity, spec in test.setup.items()},
        ensure_ascii=False,
        default=str,
    )


def _latest_results(request: SeenRequest) -> list[Any]:
    """The tool results of this turn (after the last user message that is not only results)."""
    prompt = request.dynamic_prompt
    turns = prompt.split(f"{TURN_START}user")
    tail: list[str] = []
    for turn in reversed(turns[1:]):
        tail.insert(0, turn)
        if RESPONSE_OPEN not in turn:
            break
    results: list[Any] = []
    for block in _TOOL_RESPONSE.findall("".join(tail)):
        try:
            results.append(json.loads(block))
        except ValueError:
            results.append({"error": block})
    return results
