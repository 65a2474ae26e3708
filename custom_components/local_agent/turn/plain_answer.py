"""The answer to a plain action, written by the agent instead of a second model round.

When every call of a round was an action of our own tools that ran and succeeded, there is
nothing left for the model to decide: the agent says what was done ("Turned on Kitchen
Light."; in the other languages it speaks, the calls after the translation's "done":
"Erledigt: Kitchen Light einschalten.") from the calls and their results, and the turn ends a
round earlier. A query
(get_state), an error, a switch-on or -off whose target still shows the other state, a held
or refused call, a tool of a Home Assistant LLM API, or the
agent option *let the model phrase every answer* sends the results back to the model as
before, and so does a conversation in a language these sentences are not written in. The
sentence is the agent's answer in the chat log, so the history the next turn shows the model
is what was said.
"""

from __future__ import annotations

from collections.abc import Collection
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace
import re
from typing import Any
from typing import Final

from custom_components.local_agent.engine.words import base_language
from custom_components.local_agent.home.call_texts import DURATION
from custom_components.local_agent.home.call_texts import ENGLISH
from custom_components.local_agent.home.call_texts import SWITCH_FIELDS
from custom_components.local_agent.home.call_texts import Phrase
from custom_components.local_agent.home.call_texts import StateWord
from custom_components.local_agent.home.call_texts import async_value_word
from custom_components.local_agent.home.call_texts import call_words
from custom_components.local_agent.home.call_texts import clock_words
from custom_components.local_agent.home.call_texts import duration_words
from custom_components.local_agent.home.call_texts import field_words
from custom_components.local_agent.home.call_texts import in_unit
from custom_components.local_agent.home.call_texts import intent_call
from custom_components.local_agent.home.call_texts import is_yes
from custom_components.local_agent.home.call_texts import join_few_names
from custom_components.local_agent.home.call_texts import join_names
from custom_components.local_agent.home.call_texts import said_action
from custom_components.local_agent.home.call_texts import said_fields
from custom_components.local_agent.home.call_texts import said_name
from custom_components.local_agent.home.call_texts import speaks_only_english
from custom_components.local_agent.home.call_texts import value_unit
from custom_components.local_agent.home.call_texts import value_words
from custom_components.local_agent.home.call_texts import with_steps_down
from custom_components.local_agent.home.call_words import ENGLISH_WORDS
from custom_components.local_agent.home.counted_targets import TargetKind
from custom_components.local_agent.home.counted_targets import counted
from custom_components.local_agent.home.counted_targets import target_kinds
from custom_components.local_agent.home.failure_reasons import PartlyDone
from custom_components.local_agent.home.runner import ON_OFF_DOMAINS
from custom_components.local_agent.home.runner import TargetStates
from custom_components.local_agent.home.runner import already_so
from custom_components.local_agent.home.runner import changed_something
from custom_components.local_agent.home.runner import found_as_asked
from custom_components.local_agent.home.runner import partly_failed
from custom_components.local_agent.home.service_catalog import SECRET_FIELDS
from custom_components.local_agent.home.twin_names import told_apart
from homeassistant.components import conversation
from homeassistant.const import ATTR_ENTITY_ID
from homeassistant.const import STATE_UNAVAILABLE
from homeassistant.const import STATE_UNKNOWN
from homeassistant.core import HomeAssistant
from homeassistant.helpers import llm

# What was done, by (domain, service) or (None, service): "{names}" is where the targets' names
# go (after the words when it is missing), "{field}" a field the words say themselves; the
# other fields follow in brackets. Services missing here read "ran <service> on".
_DONE: Final[Mapping[tuple[str | None, str], str]] = {
    (None, "alarm_arm_away"): "armed (away)",
    (None, "alarm_arm_home"): "armed (home)",
    (None, "alarm_arm_night"): "armed (night)",
    (None, "alarm_arm_vacation"): "armed (vacation)",
    (None, "alarm_disarm"): "disarmed",
    (None, "cancel"): "cancelled",
    (None, "clean_area"): "sent {names} to clean",
    (None, "close_cover_tilt"): "closed the tilt of",
    (None, "decrement"): "decreased",
    (None, "dock"): "docked",
    (None, "finish"): "finished",
    (None, "increment"): "increased",
    (None, "install"): "installed",
    (None, "locate"): "located",
    (None, "open"): "opened",
    (None, "open_cover_tilt"): "opened the tilt of",
    (None, "pause"): "paused",
    (None, "reset"): "reset",
    (None, "select_next"): "selected the next option of",
    (None, "select_previous"): "selected the previous option of",
    (None, "set_cover_tilt_position"): "set the tilt of",
    (None, "set_mode"): "set the mode of",
    (None, "set_operation_mode"): "set the operation mode of",
    (None, "set_valve_position"): "set the position of",
    (None, "start_mowing"): "started",
    (None, "stop_valve"): "stopped",
    (None, "close_cover"): "closed",
    (None, "close_valve"): "closed",
    (None, "decrease_speed"): "slowed down",
    (None, "increase_speed"): "sped up",
    (None, "lock"): "locked",
    (None, "media_next_track"): "skipped to the next track on",
    (None, "media_pause"): "paused",
    (None, "media_play"): "started playing",
    (None, "media_previous_track"): "went back a track on",
    (None, "media_stop"): "stopped",
    (None, "open_cover"): "opened",
    (None, "open_valve"): "opened",
    (None, "press"): "pressed",
    (None, "return_to_base"): "sent {names} back to base",
    (None, "select_option"): "set",
    (None, "select_sound_mode"): "set the sound mode of",
    (None, "select_source"): "set the source of",
    (None, "set_cover_position"): "set the position of",
    (None, "set_direction"): "set the direction of",
    (None, "set_fan_mode"): "set the fan mode of",
    (None, "set_fan_speed"): "set the fan speed of",
    (None, "set_humidity"): "set the humidity of",
    (None, "set_hvac_mode"): "set the mode of",
    (None, "set_percentage"): "set the speed of",
    (None, "set_preset_mode"): "set the preset of",
    (None, "set_swing_horizontal_mode"): "set the horizontal swing mode of",
    (None, "set_swing_mode"): "set the swing mode of",
    (None, "set_temperature"): "set the temperature of",
    (None, "set_value"): "set {names} to {value}",
    (None, "start"): "started",
    (None, "stop"): "stopped",
    (None, "stop_cover"): "stopped",
    (None, "toggle"): "toggled",
    (None, "turn_off"): "turned off",
    (None, "turn_on"): "turned on",
    (None, "unlock"): "unlocked",
    (None, "volume_down"): "turned down the volume of",
    (None, "volume_set"): "set the volume of",
    (None, "volume_up"): "turned up the volume of",
    ("automation", "trigger"): "ran",
    ("automation", "turn_off"): "disabled",
    ("automation", "turn_on"): "enabled",
    ("input_datetime", "set_datetime"): "set",
    ("notify", "send_message"): "sent a message to",
    ("scene", "turn_on"): "activated",
    ("timer", "change"): "changed",
    ("script", "turn_on"): "ran",
    ("todo", "add_item"): "added {item} to {names}",
    ("todo", "remove_item"): "removed {item} from {names}",
    ("todo", "update_item"): "changed {item} on {names}",
    ("update", "clear_skipped"): "offered the update of {names} again",
    ("update", "skip"): "skipped the update of",
}
# What was done, with the value it was set to, when the call has that field ("set the
# temperature of Hvac to 21.5°"); without it, as _DONE says it.
_DONE_TO: Final[Mapping[str, str | tuple[str, ...]]] = {
    "set_cover_position": "set the position of {names} to {position}",
    "set_humidity": "set the humidity of {names} to {humidity}",
    "set_percentage": "set the speed of {names} to {percentage}",
    "set_temperature": (
        "set the temperature of {names} to {temperature}",
        "set the temperature of {names} to between {target_temp_low} and {target_temp_high}",
    ),
    "set_cover_tilt_position": "set the tilt of {names} to {tilt_position}",
    "set_valve_position": "set the position of {names} to {position}",
    "set_hvac_mode": "set the mode of {names} to {hvac_mode}",
    "set_preset_mode": "set the preset of {names} to {preset_mode}",
    "set_fan_mode": "set the fan mode of {names} to {fan_mode}",
    "set_swing_mode": "set the swing mode of {names} to {swing_mode}",
    "set_swing_horizontal_mode": (
        "set the horizontal swing mode of {names} to {swing_horizontal_mode}"
    ),
    "set_datetime": (
        "set {names} to {date} at {time}",
        "set {names} to {time}",
        "set {names} to {date}",
    ),
    "set_direction": "set the direction of {names} to {direction}",
    "set_mode": "set the mode of {names} to {mode}",
    "set_operation_mode": "set the operation mode of {names} to {operation_mode}",
    "set_fan_speed": "set the fan speed of {names} to {fan_speed}",
    "select_source": "set the source of {names} to {source}",
    "select_sound_mode": "set the sound mode of {names} to {sound_mode}",
    "select_option": "set {names} to {option}",
    # Our tool's volume_level (a fraction of one), Assist's HassSetVolume's volume_pct.
    "volume_set": (
        "set the volume of {names} to {volume_level}",
        "set the volume of {names} to {volume_pct}",
    ),
    "repeat_set": "set repeat of {names} to {repeat}",
    "start": "started {names} for {duration}",
    "clean_area": "sent {names} to clean {cleaning_area_id}",
    # A running timer's change: time added, or taken off ("-5 minutes").
    "change": "changed {names} by {duration}",
    "send_message": 'sent "{message}" to {names}',
    # A number's value, a time's, a date's or a date and time's.
    "set_value": (
        "set {names} to {value}",
        "set {names} to {time}",
        "set {names} to {date}",
        "set {names} to {datetime}",
    ),
    "update_item": "renamed {item} on {names} to {rename}",
    # A light's brightness and a fan's speed inside the sentence, as the question and the other
    # languages say them; a light's step may end at nothing (off): never said as turned on.
    "turn_on": (
        "turned on {names} at {brightness_pct}",
        "turned on {names} at {percentage}",
        "changed the brightness of {names} by {brightness_step_pct}",
        "lowered the brightness of {names} by {brightness_down_pct}",
        "turned on {names} with the effect {effect}",
    ),
}
# A service whose words depend on its yes/no field (call_texts.SWITCH_FIELDS): yes, no.
_SWITCHED: Final[Mapping[str, tuple[str, str]]] = {
    "oscillate": ("turned on oscillation of", "turned off oscillation of"),
    "volume_mute": ("muted", "unmuted"),
    "update_item": ("marked {item} as done on", "marked {item} as not done on"),
    "set_away_mode": ("turned on the away mode of", "turned off the away mode of"),
    "shuffle_set": ("turned on shuffle on", "turned off shuffle on"),
}
# Fields given as a fraction of one, said as a percentage.
_PERCENT_OF_ONE: Final = frozenset({"volume_level"})
# Fields said as their value and unit alone.
_WITH_UNIT: Final[Mapping[str, str]] = {
    "brightness_pct": "{}%",
    "brightness_step_pct": "{}%",
    "brightness_down_pct": "{}%",
    "humidity": "{}%",
    "percentage": "{}%",
    "position": "{}%",
    "target_temp_high": "{}°",
    "target_temp_low": "{}°",
    "temperature": "{}°",
    "tilt_position": "{}%",
    "volume_pct": "{}%",
}
_PLACEHOLDER: Final = re.compile(r"\{(\w+)\}")
# What an intent's response says of a call that ran, and of a target that is an entity.
_ACTION_DONE: Final = "action_done"
_ENTITY_TARGET: Final = "entity"
# A name no entity has, for what an action says apart from its targets' names.
_ANY_NAME: Final = "\x00"
# The field that turns an entity off when turn_on sets it to 0 (light.turn_on's and
# fan.turn_on's own rule).
_OFF_AT_ZERO: Final[Mapping[str, str]] = {"light": "brightness_pct", "fan": "percentage"}
# Never said: what names the call, and a PIN (said aloud on a speaker, read by the model).
_UNSAID_KEYS: Final = frozenset({"action", ATTR_ENTITY_ID, *SECRET_FIELDS})


@dataclass(frozen=True, slots=True)
class DoneAction:
    """One action of our tools that ran: domain, service, the entities' names, its fields."""

    domain: str
    service: str
    names: tuple[str, ...]
    fields: tuple[tuple[str, Any], ...]
    # The targets' entities, by the names' order, and what each is and where (async_in_words).
    entity_ids: tuple[str, ...] = ()
    kinds: tuple[TargetKind, ...] = ()

    def text(self, language: str = ENGLISH) -> str:
        """Say it: "turned on Kitchen Light at 40%", "added milk to Shopping list".

        In another language the agent speaks, as the call it was: "Kitchen Light einschalten
        (40 %)", after the translation's "done" ("Erledigt: ...").
        """
        if not speaks_only_english(language):
            return self._text_in(language)
        fields = with_steps_down(dict(self.fields))
        switch = SWITCH_FIELDS.get(self.service)
        if (switched := _SWITCHED.get(self.service)) and switch in fields:
            yes, no = switched
            words = yes if is_yes(fields.pop(switch)) else no
        elif to := next(
            (
                pattern
                for pattern in _patterns(_DONE_TO.get(self.service, ()))
                if _has_fields_of(pattern, fields)
            ),
            None,
        ):
            words = to
        else:
            words = _DONE.get((self.domain, self.service)) or _DONE.get(
                (None, self.service), f"ran {self.service.replace('_', ' ')} on"
            )
        if "{names}" not in words:
            words += " {names}"
        values = {"names": self._names(ENGLISH)}
        for key in _PLACEHOLDER.findall(words):
            if key in fields:
                values[key] = _value_text(key, fields.pop(key))
        # One pass: a value that reads like a placeholder stays as it is.
        text = _PLACEHOLDER.sub(lambda match: values.get(match[1], match[0]), words)
        shown = ", ".join(field_words(key, value) for key, value in fields.items())
        return text + (f" ({shown})" if shown else "")

    def _text_in(self, language: str) -> str:
        names = self._names(language)
        words = call_words(language)
        text, rest = said_action(self.domain, self.service, names, dict(self.fields), words)
        shown = ", ".join(value_words(key, value, words) for key, value in rest.items())
        return text + (f" ({shown})" if shown else "")

    def _names(self, language: str) -> str:
        """Say the targets: their names, or how many of each kind when they are many."""
        if len(self.kinds) == len(self.names) and (said := counted(self.kinds, language)):
            return said
        return join_few_names(self._told_apart(), language)

    def _told_apart(self) -> tuple[str, ...]:
        """Return the names, each that several targets share followed by a place of its own.

        "Lamp (Kitchen) and Lamp (Bedroom)", not "Lamp and Lamp" (twin_names.told_apart).
        """
        if len(self.kinds) != len(self.names):
            return self.names
        entity_ids = self.entity_ids if _by_entity(self) else (None,) * len(self.names)
        places = [(kind.area, kind.floor, kind.device) for kind in self.kinds]
        return told_apart(self.names, entity_ids, places)


def _fields_said(
    hass: HomeAssistant, action: DoneAction, language: str
) -> tuple[tuple[str, Any], ...]:
    """Return the fields as said: areas to clean by name, a number set with its unit."""
    unit = value_unit(hass, action.domain, action.service, action.entity_ids)
    return tuple(
        (key, in_unit(value, unit, language) if key == "value" else value)
        for key, value in said_fields(hass, action.fields, action.entity_ids).items()
    )


async def async_in_words(
    hass: HomeAssistant, language: str, actions: Sequence[DoneAction]
) -> list[DoneAction]:
    """Return the actions with the values Home Assistant names in the language said so.

    A mode or a direction is a value of the service ("heat", "reverse"); in another language
    the agent speaks it reads as Home Assistant's own frontend shows it ("Heizen",
    "Rückwärts"), a light's colour as its own sentences name it ("rot"). English, and values
    Home Assistant has no words for, stay as written.
    """
    actions = [
        replace(
            action,
            fields=_fields_said(hass, action, language),
            kinds=target_kinds(hass, action.entity_ids),
        )
        for action in actions
    ]
    said: list[DoneAction] = []
    for action in actions:
        fields = [
            (
                key,
                await async_value_word(
                    hass, language, key, v, domain=action.domain, entity_ids=action.entity_ids
                ),
            )
            for key, v in action.fields
        ]
        said.append(replace(action, fields=tuple(fields)))
    return said


def speaks(language: str) -> bool:
    """Whether the agent's own sentences are in this conversation language ("de-CH": yes)."""
    return base_language(language) == ENGLISH or not speaks_only_english(language)


def done_actions(
    content: Sequence[conversation.Content], home_tools: Collection[str]
) -> list[DoneAction] | None:
    """Return the last round's actions if each was a successful action of our tools."""
    calls = next(
        (
            item.tool_calls
            for item in reversed(content)
            if isinstance(item, conversation.AssistantContent) and item.tool_calls
        ),
        None,
    )
    if not calls:
        return None
    results = _results(content)
    changed = changed_something(results.get(call.id) for call in calls)
    done: list[DoneAction] = []
    for call in calls:
        action = _done_action(call, results.get(call.id), home_tools, said_already=not changed)
        if action is None:
            return None
        done.append(action)
    return [action for action in done if action.names]


def actions_done_in(
    content: Sequence[conversation.Content],
    home_tools: Collection[str],
    *,
    intents: bool = False,
) -> list[DoneAction]:
    """Return every successful action of our tools in `content` (a turn's), in order.

    With `intents`, also what each of Assist's intents that ran did to the entities Home
    Assistant reports it changed ("HassTurnOn" on the kitchen light: turned on Kitchen Light).
    """
    done: list[DoneAction] = []
    changed = changed_something(result for _call, result in calls_with_results(content))
    for call, result in calls_with_results(content):
        taken = _what_took_it(result)
        if (action := _done_action(call, taken, home_tools, said_already=not changed)) is not None:
            if action.names:
                done.append(action)
        elif intents and call.tool_name not in home_tools:
            done.extend(_intent_done(call, result))
    return done


def _what_took_it(result: llm.ToolResult | None) -> llm.ToolResult | None:
    """Return a call's result; of one some targets took, as if it had been made on them alone."""
    if isinstance(result, PartlyDone):
        return TargetStates(
            data={"entities": list(result.took)}, entities=result.took, ran=result.ran
        )
    return result


# Slots that name an intent's targets, not what it does to them.
_TARGET_SLOTS: Final = frozenset(
    {"name", "area", "floor", "domain", "device_class", "preferred_area_id", "preferred_floor_id"}
)


def _intent_done(call: llm.ToolInput, result: llm.ToolResult | None) -> list[DoneAction]:
    """Say what an intent of Assist did: its call on each entity Home Assistant says it changed.

    Only an intent of the table (safety/intents.py) whose response says "action done", on
    the targets it lists as done, by the names Home Assistant gives them (the runner checked
    they took it); an intent that calls no known service on a target says nothing of it, nor
    does one that failed on some devices: which ones Home Assistant 2026.10 cannot tell
    (runner.partly_failed), so that is said instead.
    """
    if (
        result is None
        or result.error
        or not isinstance(result.data, Mapping)
        or partly_failed(result)
    ):
        return []
    data = result.data.get("data")
    if result.data.get("response_type") != _ACTION_DONE or not isinstance(data, Mapping):
        return []
    intent_type = call.tool_name.rpartition("__")[2]
    by_domain: dict[str, dict[str, str]] = {}
    success = data.get("success")
    for target in success if isinstance(success, list) else ():
        if not isinstance(target, Mapping) or str(target.get("type")) != _ENTITY_TARGET:
            continue
        if not isinstance(entity_id := target.get("id"), str):
            continue
        names = by_domain.setdefault(entity_id.partition(".")[0], {})
        names[entity_id] = _target_name(target)
    arguments = {key: value for key, value in call.tool_args.items() if key not in _TARGET_SLOTS}
    done: list[DoneAction] = []
    for domain, names in by_domain.items():
        if (called := intent_call(intent_type, domain, arguments)) is None:
            continue
        service_domain, service, fields = called
        action = _as_done(
            service_domain, service, tuple(names.values()), tuple(sorted(fields.items()))
        )
        done.append(replace(action, entity_ids=tuple(names)))
    return done


def _results(content: Sequence[conversation.Content]) -> dict[str, llm.ToolResult]:
    return {
        item.tool_call_id: item.result
        for item in content
        if isinstance(item, conversation.ToolResultContent)
    }


def calls_with_results(
    content: Sequence[conversation.Content],
) -> Iterator[tuple[llm.ToolInput, llm.ToolResult | None]]:
    """Each tool call in `content`, in order, with its result (None where it has none)."""
    results = _results(content)
    for item in content:
        if isinstance(item, conversation.AssistantContent):
            for call in item.tool_calls or ():
                yield call, results.get(call.id)


def left_as_they_were(
    content: Sequence[conversation.Content], home_tools: Collection[str]
) -> list[Phrase]:
    """Say each target a switch-on or -off of our tools left in the other state.

    `content` is a turn's; "Küchenlicht ist noch aus".
    """
    left: list[Phrase] = []
    for call, result in calls_with_results(content):
        _done_action(call, result, home_tools, left)
    return left


def already_as_asked(
    content: Sequence[conversation.Content], home_tools: Collection[str]
) -> list[Phrase]:
    """Say each target a successful call of our tools found as it asked: "… was already on".

    `content` is a turn's (or its last round's); those targets are left out of what was done.
    """
    said: list[Phrase] = []
    if changed_something(result for _call, result in calls_with_results(content)):
        return said  # each target is now as asked: all are said done
    for call, result in calls_with_results(content):
        if result is not None and _done_action(call, result, home_tools) is not None:
            said.extend(found_as_asked(call.tool_name, result))
    return said


def states_read(content: Sequence[conversation.Content]) -> list[Phrase]:
    """Say each entity our runner read in `content` (a turn's), once, as it last read it.

    "Front Door: locked"; one that is unavailable says so as a failed action does. Told by the
    result's class (TargetStates of a read): another tool's answer is not ours to say.
    """
    read: dict[str, Phrase] = {}
    for _call, result in calls_with_results(content):
        if not isinstance(result, TargetStates) or not result.read or result.error:
            continue
        for entity in result.entities:
            entity_id, shown = str(entity.get(ATTR_ENTITY_ID)), str(entity.get("state"))
            name = _target_name(entity)
            read.pop(entity_id, None)  # said where it was last read
            if shown == STATE_UNAVAILABLE:
                read[entity_id] = Phrase("reason_unavailable", {"name": name})
            else:
                state = StateWord(entity_id.partition(".")[0], shown, alone=True)
                read[entity_id] = Phrase("read_state", {"name": name, "state": state})
    return list(read.values())


def _done_action(
    call: llm.ToolInput,
    result: llm.ToolResult | None,
    home_tools: Collection[str],
    left: list[Phrase] | None = None,
    *,
    said_already: bool = True,
) -> DoneAction | None:
    """Return the call as a done action, if it was an action of our tools that ran and succeeded.

    Its targets are those it changed: one already as it asked is not named (already_as_asked),
    and an action that changed none has no names.
    """
    ran = result.ran if isinstance(result, TargetStates) else None
    if ran is None or call.tool_name not in home_tools:
        return None
    assert isinstance(result, TargetStates)
    if result.error:
        return None
    entities = result.data.get("entities")  # a held call has a status instead
    if not isinstance(entities, list) or not entities:
        return None
    already = already_so(result) if said_already else frozenset()
    targets = [
        entity
        for entity in entities
        if isinstance(entity, dict) and entity.get("entity_id") not in already
    ]
    names = tuple(_target_name(entity) for entity in targets)
    entity_ids = tuple(str(entity.get("entity_id")) for entity in targets)
    # Said as it ran (the planned data: a colour "RED" ran as "red"), not as the model wrote it.
    fields = tuple((key, value) for key, value in ran.fields if key not in _UNSAID_KEYS)
    action = replace(_as_done(ran.domain, ran.service, names, fields), entity_ids=entity_ids)
    # One found as asked is said so (already_as_asked), not as left as it was.
    unfound = [
        e for e in entities if isinstance(e, dict) and e.get("entity_id") not in already_so(result)
    ]
    if still := _left_as_it_was(ran.domain, action.service, unfound):
        if left is not None:
            left.extend(still)
        return None
    return action


def _as_done(
    domain: str, service: str, names: tuple[str, ...], fields: tuple[tuple[str, Any], ...]
) -> DoneAction:
    """Return the action as it ran.

    Home Assistant turns a light off at brightness 0 (a fan at speed 0), so that is said.
    """
    off_at_zero = _OFF_AT_ZERO.get(domain)
    if service == "turn_on" and any(
        key == off_at_zero and _is_zero(value) for key, value in fields
    ):
        service = "turn_off"
        fields = tuple(field for field in fields if field[0] != off_at_zero)
    return DoneAction(domain, service, names, fields)


def _left_as_it_was(domain: str, service: str, entities: list[Any]) -> list[Phrase]:
    """Say the targets a switch-on or -off that "succeeded" left showing another state.

    A bulb that does not answer is never said as done: the model reads its state instead.
    One that has reported no state yet cannot tell, and is said done as Home Assistant says it.
    """
    if domain not in ON_OFF_DOMAINS or service not in {"turn_on", "turn_off"}:
        return []
    wanted = service.removeprefix("turn_")
    return [
        Phrase(
            "reason_still",
            {
                "name": _target_name(entity),
                "state": StateWord(domain, str(entity.get("state"))),
            },
        )
        for entity in entities
        if isinstance(entity, dict) and entity.get("state") not in (wanted, STATE_UNKNOWN)
    ]


def _target_name(target: Mapping[str, Any]) -> str:
    """Return a tool result's target ("name", "entity_id" or "id") as our answers name it."""
    entity_id = str(target.get("entity_id") or target.get("id"))
    return said_name(str(target.get("name") or entity_id), entity_id)


def _has_fields_of(words: str, fields: Mapping[str, Any]) -> bool:
    """Whether the call has every field the words name besides its targets' names."""
    return set(_PLACEHOLDER.findall(words)) - {"names"} <= fields.keys()


def _patterns(said: str | tuple[str, ...]) -> tuple[str, ...]:
    return (said,) if isinstance(said, str) else said


def _value_text(key: str, value: Any) -> str:
    """Return a field's value inside the English words, with its unit ("30%", "21.5°")."""
    value = clock_words(key, value)
    if isinstance(value, float):
        value = f"{value:g}"  # 21.0 is "21"
    if key in _PERCENT_OF_ONE:
        try:
            return f"{float(value) * 100:g}%"
        except TypeError, ValueError:
            pass
    if key in _WITH_UNIT:
        return _WITH_UNIT[key].format(value)
    if key == DURATION:
        return duration_words(value, ENGLISH_WORDS) or str(value)
    if isinstance(value, list | tuple):
        return join_names([str(item) for item in value])
    return str(value)


def _is_zero(value: Any) -> bool:
    """Whether a field as the model wrote it (0, 0.0, "0") is zero."""
    try:
        return float(value) == 0
    except TypeError, ValueError:
        return False


def _with_targets_of(before: DoneAction, action: DoneAction) -> DoneAction:
    """Return `before` with the targets `action` adds, each once, and what each is.

    A target is told by its entity: two lamps named alike are two lamps, counted as two.
    """
    by_entity = _by_entity(before) and _by_entity(action)
    seen, added = (
        (before.entity_ids, action.entity_ids) if by_entity else (before.names, action.names)
    )
    new = [index for index, target in enumerate(added) if target not in seen]
    names = before.names + tuple(action.names[index] for index in new)
    entity_ids: tuple[str, ...] = ()
    if by_entity:
        entity_ids = before.entity_ids + tuple(action.entity_ids[index] for index in new)
    kinds: tuple[TargetKind, ...] = ()
    if len(before.kinds) == len(before.names) and len(action.kinds) == len(action.names):
        kinds = before.kinds + tuple(action.kinds[index] for index in new)
    return replace(before, names=names, entity_ids=entity_ids, kinds=kinds)


def _by_entity(action: DoneAction) -> bool:
    """Whether each of the action's targets is known by its entity."""
    return len(action.entity_ids) == len(action.names)


def sentence(actions: Sequence[DoneAction], language: str = ENGLISH) -> str:
    """Join the actions into what the agent says, as the phrase "actions_done" takes them.

    Actions that read the same but for their targets are said once: "turned off A and B",
    a light and a switch too.
    """
    merged: dict[str, DoneAction] = {}
    for action in actions:
        # What it says with a name no entity has: the same words, the same fields.
        key = replace(action, names=(_ANY_NAME,), kinds=()).text(language)
        if (before := merged.get(key)) is None:
            merged[key] = action
        else:
            merged[key] = _with_targets_of(before, action)
    return join_names([action.text(language) for action in merged.values()], language)
