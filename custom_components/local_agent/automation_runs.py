"""Which branches an automation's run may take, read from its configuration alone.

A change sets off runs of an automation (its triggers) and steers runs that its other
triggers set off later (what its conditions read). For each run the conditions of the
automation, of a `choose` option, an `if` or a condition step are judged where what they read
is known: the trigger's id ("triggered by") and the state a call leaves the changed entity in
(a state condition on it, a template of `trigger.to_state`, `is_state` or `states` of it).
Templates are parsed, never rendered; anything else they read keeps the branch.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Collection
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING
from typing import Any
from typing import Final

import jinja2
import jinja2.nodes

from homeassistant.const import CONF_CONDITIONS
from homeassistant.const import CONF_VARIABLES
from homeassistant.core import valid_entity_id
from homeassistant.helpers.config_validation import INPUT_ENTITY_ID
from homeassistant.helpers.template import Template
from homeassistant.util import slugify

if TYPE_CHECKING:
    from custom_components.local_agent.compat import AutomationTrigger


@dataclass(frozen=True, slots=True)
class OneTrigger:
    """One trigger of an automation, for the branches it runs (AutomationTrigger.actions_for).

    Its id (what `condition: trigger` names: its number when it has none), its own watch
    (None: no change sets it off), and the entities a state trigger of it reports as
    `trigger.to_state` when their change sets it off.
    """

    trigger_id: str
    watch: AutomationTrigger | None
    reports: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class _Run:
    """One way a run may go: set off by one trigger, the changed entity in one known state.

    state: the state the call leaves the entity in (None: not known); reported: whether the
    trigger is a state trigger on the entity (its `trigger` is that of Home Assistant's state
    trigger, its `to_state` the entity's new state); templates: whether its templates may be
    read (no variable of the program hides `trigger`, `states` or `is_state`); current:
    whether the entity is still in that state (no step that waits has run since).
    """

    entity_id: str
    state: str | None
    trigger_id: str
    reported: bool
    templates: bool
    current: bool = True


class _Unknown(Exception):
    """What a template does here cannot be told from the known state alone."""


class _Fails(Exception):
    """The template fails to render for this run (a value of an undefined one is read)."""


# What a state trigger's `trigger` variable holds (Home Assistant's state trigger, with its
# id, idx and alias): a key not among them, nor a dict's own attribute, is undefined.
_STATE_TRIGGER_KEYS: Final = frozenset(
    {"platform", "entity_id", "from_state", "to_state", "for", "attribute", "description"}
    | {"id", "idx", "alias"}
)
# Steps that wait, and calls that run a script or an automation to its end (a script called
# by its own name waits too), or return at once (they start it, or stop it).
_WAITING_STEPS: Final = frozenset({"delay", "wait_template", "wait_for_trigger"})
_RUNS_TO_END: Final = frozenset({"automation.trigger"})
# Home Assistant's calls that return only when a device is done: a voice satellite has said
# the announcement, listened after its opening words, heard the answer to its question; a
# remote has learnt the button pressed, sent a command its repeats and delays apart.
_DEVICE_WAITS: Final = frozenset(
    {
        "assist_satellite.announce",
        "assist_satellite.start_conversation",
        "assist_satellite.ask_question",
        "remote.learn_command",
        "remote.send_command",
    }
)
_RETURNS_AT_ONCE: Final = frozenset({"script.turn_on", "script.turn_off", "script.toggle"})
# The names a template reads that a program's variable would hide.
_RUN_NAMES: Final = frozenset({"trigger", "states", "is_state"})
# Filters of one string, applied as Jinja applies them.
_STRING_FILTERS: Final[Mapping[str, Callable[[str], str]]] = {
    "lower": str.lower,
    "upper": str.upper,
    "trim": str.strip,
    "slugify": slugify,
}
_PLAIN: Final = (str, int, float, bool, type(None), list, tuple)
_UNDEFINED: Final = object()
_TRIGGER: Final = object()
_TO_STATE: Final = object()
_IS_STATE: Final = object()
_STATES: Final = object()
_NAMED: Final = {"trigger": _TRIGGER, "states": _STATES, "is_state": _IS_STATE}
# Only parses (a template is never rendered here).
_ENVIRONMENT: Final = jinja2.Environment(autoescape=True)


def hides_run_names(*values: Any) -> bool:
    """Whether a program's variables may hide what its templates read of the run.

    Its own, its triggers' and its steps' variables (and a step's response variable) named
    `trigger`, `states` or `is_state`, or variables that cannot be read.
    """
    for value in values:
        if isinstance(value, Mapping):
            for key, item in value.items():
                if key == CONF_VARIABLES:
                    declared = getattr(item, CONF_VARIABLES, item)
                    if not isinstance(declared, Mapping) or _RUN_NAMES & set(declared):
                        return True
                elif key == "response_variable" and item in _RUN_NAMES:
                    return True
                if hides_run_names(item):
                    return True
        elif isinstance(value, list | tuple) and hides_run_names(*value):
            return True
    return False


def runs_of(
    triggers: Iterable[OneTrigger],
    entity_id: str,
    becomes: Collection[str] | None,
    *,
    templates: bool,
    reported: bool = True,
) -> list[_Run]:
    """Return each way a run of these triggers may go when the entity is left in `becomes`.

    reported: whether the run is set off by this change (a state trigger on the entity then
    reports its new state as `trigger.to_state`).
    """
    return [
        _Run(entity_id, state, one.trigger_id, reported and entity_id in one.reports, templates)
        for one in triggers
        for state in (sorted(becomes) if becomes is not None else [None])
    ]


def set_off_only_by(one: OneTrigger, entity_id: str) -> bool:
    """Whether a trigger is set off by changes of this entity alone."""
    watch = one.watch
    return (
        watch is not None
        and watch.entity_ids <= {entity_id}
        and all(
            watched == entity_id for watched, _ in (*watch.entity_states, *watch.entity_leaving)
        )
        and not (
            watch.device_ids
            or watch.domains
            or watch.any_entity
            or watch.entity_events
            or watch.heard
        )
    )


def steps_taken(steps: list[Any], runs: list[_Run]) -> list[Any]:
    """Return the steps that may run in one of these runs (none: no step runs).

    A `choose` option, `if` branch or condition step whose conditions fail in every run is
    left out (a condition step ends the steps), and so is what follows an option or `if`
    that holds in every run (the later options, the default, the else).
    """
    kept: list[Any] = []
    for step in steps:
        if not runs:
            break
        if not isinstance(step, Mapping):
            kept.append(step)
        elif "condition" in step:
            runs = [run for run in runs if all_hold([step], run) is not False]
            if runs:
                kept.append(step)
        elif isinstance(options := step.get("choose"), list):
            kept.append(_chosen(step, options, runs))
        elif "if" in step:
            held = [(run, all_hold(step.get("if"), run)) for run in runs]
            then = [run for run, holds in held if holds is not False]
            other = [run for run, holds in held if holds is not True]
            branch = {**step, "then": steps_taken(_steps(step.get("then")), then)}
            if "else" in step:
                branch["else"] = steps_taken(_steps(step.get("else")), other)
            kept.append(branch)
        else:
            kept.append(_aimed(step, runs))
        if _may_wait(step):
            runs = [replace(run, current=False) for run in runs]
    return kept


def _may_wait(step: Any) -> bool:
    """Whether a step may wait, so that the entity may be in another state after it.

    A delay, a wait, a call that runs a script or an automation to its end (they may
    wait) or one that returns when a device is done (a voice satellite speaking or
    listening, a remote learning or repeating), anywhere in the step; an action written as
    a template may be one of them.
    """
    if isinstance(step, list | tuple):
        return any(_may_wait(item) for item in step)
    if not isinstance(step, Mapping):
        return False
    if _WAITING_STEPS & set(step):
        return True
    action = step.get("action", step.get("service"))
    if isinstance(action, Template) or (
        isinstance(action, str)
        and (action.startswith("script.") or action in _RUNS_TO_END | _DEVICE_WAITS)
    ):
        return action not in _RETURNS_AT_ONCE
    return any(_may_wait(value) for value in step.values())


def _chosen(step: Mapping[str, Any], options: list[Any], runs: list[_Run]) -> dict[str, Any]:
    """Return a `choose` step with only the options (and default) one of the runs may take."""
    taking: list[list[_Run]] = [[] for _ in options]
    default: list[_Run] = []
    for run in runs:
        for index, option in enumerate(options):
            holds = (
                all_hold(option.get(CONF_CONDITIONS), run) if isinstance(option, Mapping) else None
            )
            if holds is not False:
                taking[index].append(run)
            if holds is True:
                break
        else:
            default.append(run)
    chosen = {
        **step,
        "choose": [
            {**option, "sequence": steps_taken(_steps(option.get("sequence")), taken)}
            if isinstance(option, Mapping)
            else option
            for option, taken in zip(options, taking, strict=True)
            if taken
        ],
    }
    if "default" in step:
        chosen["default"] = steps_taken(_steps(step.get("default")), default)
    return chosen


def _steps(value: Any) -> list[Any]:
    """Return a sequence of steps (or conditions) as a list: none for None, one for one."""
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def all_hold(conditions: Any, run: _Run) -> bool | None:
    """Whether a list of conditions (all must hold) holds in this run; None: not known.

    One that fails to render fails: Home Assistant takes an error for not holding.
    """
    found: bool | None = True
    for condition in conditions if isinstance(conditions, list) else [conditions]:
        holds = _switched_holds(condition, run, top=True)
        if holds is False:
            return False
        if holds is None:
            found = None
    return found


def _enabled(condition: Any) -> Any:
    """Return a condition's `enabled`: True, False, or a template (rendered at set-up)."""
    return condition.get("enabled", True) if isinstance(condition, Mapping) else True


def _switched_holds(condition: Any, run: _Run, *, top: bool = False) -> bool | None:
    """Whether a condition holds as its `enabled` switches it (see condition_holds).

    Switched off (`enabled: false`, in the editor) Home Assistant passes it; `enabled` may
    also be a template, rendered when the automation is set up: it may switch the condition
    off, so the condition may pass whatever it reads.
    """
    enabled = _enabled(condition)
    if enabled is False:
        return True
    holds = condition_holds(condition, run, top=top)
    return holds if enabled is True or holds is True else None


def condition_holds(condition: Any, run: _Run, *, top: bool = False) -> bool | None:
    """Whether one condition holds in this run; None: not known from the known state alone.

    top: a failure to render is a fail (inside `and`, `or` and `not`: not known).
    """
    if isinstance(condition, Template | str):
        return _template_holds(condition, run, top=top)
    if not isinstance(condition, Mapping):
        return None
    kind = condition.get("condition")
    if kind == "trigger":
        named = condition.get("id")
        wanted = named if isinstance(named, list) else [named]
        if not all(isinstance(i, str | int) for i in wanted):
            return None
        return run.trigger_id in {str(i) for i in wanted}
    if kind == "state":
        return _state_holds(condition, run)
    if kind == "template":
        return _template_holds(condition.get("value_template"), run, top=top)
    if kind not in ("and", "or", "not"):
        return None  # the rest (time, sun, numeric state ...): not judged here
    conditions = _steps(condition.get(CONF_CONDITIONS))
    if kind == "and":
        parts = [_switched_holds(c, run) for c in conditions]
        return False if False in parts else (True if all(parts) else None)
    # `or` holds when one of its conditions does, `not` when none does (as Home Assistant
    # reads them): known only when one holds or each fails. A condition switched off is left
    # out of them; one whose `enabled` is a template may be, so it is not known.
    parts = [
        condition_holds(c, run) if _enabled(c) is True else None
        for c in conditions
        if _enabled(c) is not False
    ]
    either: bool = kind == "or"
    if True in parts:
        return either
    return (not either) if all(part is False for part in parts) else None


def _state_holds(condition: Mapping[str, Any], run: _Run) -> bool | None:
    """Whether a state condition holds, when it is decided by the changed entity's state."""
    named = condition.get("entity_id")
    entities = named if isinstance(named, list) else [named]
    wanted = condition.get("state")
    states = wanted if isinstance(wanted, list) else [wanted]
    if (
        run.state is None
        or not run.current
        or run.entity_id not in entities
        or "attribute" in condition
        or not all(isinstance(s, str) and not INPUT_ENTITY_ID.match(s) for s in states)
    ):
        return None
    matches = run.state in states
    alone = entities == [run.entity_id] and "for" not in condition
    if condition.get("match", "all") == "any":
        return True if matches and alone else (False if not matches and alone else None)
    return False if not matches else (True if alone else None)


def _template_holds(template: Any, run: _Run, *, top: bool) -> bool | None:
    """Whether a template condition holds; None when it reads more than the run's known state.

    Read as Home Assistant renders it: the result as text, stripped, is "true".
    """
    try:
        return _rendered(template, run).lower() == "true"
    except _Fails:
        return False if top else None
    except _Unknown:
        return None


def _rendered(template: Any, run: _Run) -> str:
    """Return a template's text rendered in this run, stripped (as Home Assistant does).

    Only text and expressions (`{{ ... }}`) of what _value knows; raises _Unknown for
    anything else (a statement, another entity), _Fails when it fails to render.
    """
    text = template.template if isinstance(template, Template) else template
    parts = _parts(text) if run.templates and isinstance(text, str) else None
    if parts is None:
        raise _Unknown
    return "".join(
        part.data if isinstance(part, jinja2.nodes.TemplateData) else str(_plain(_value(part, run)))
        for part in parts
    ).strip()


@lru_cache(maxsize=256)
def _parts(text: str) -> tuple[jinja2.nodes.Node, ...] | None:
    """Return a template's text and expressions in order; None when it has more (a `{% %}`)."""
    try:
        parsed = _ENVIRONMENT.parse(text)
    except jinja2.TemplateError:
        return None
    if not parsed.body:
        return ()
    if len(parsed.body) != 1 or not isinstance(output := parsed.body[0], jinja2.nodes.Output):
        return None
    return tuple(output.nodes)


def _aimed(step: Mapping[str, Any], runs: list[_Run]) -> Mapping[str, Any]:
    """Return a step whose action or target, written as a template, is rendered for the runs.

    "scene.{{ states('input_select.house_mode') | lower }}" is the scene of the mode the
    change leaves (each run's); one that any run cannot render is left as it is (unknown).
    Checked as Home Assistant checks the rendered text: entity ids apart by commas, each
    in lower case; a service in lower case.
    """
    aimed: dict[str, Any] = {}
    if isinstance(action := step.get("action"), Template):
        services = _rendered_ids(action, runs)
        if services is not None and len(services) == 1:
            aimed["action"] = services[0]
    target = step.get("target")
    if isinstance(target, Mapping) and isinstance(named := target.get("entity_id"), Template):
        entity_ids = _rendered_ids(named, runs)
        if entity_ids is not None:
            aimed["target"] = {**target, "entity_id": entity_ids}
    return {**step, **aimed} if aimed else step


def _rendered_ids(template: Template, runs: list[_Run]) -> list[str] | None:
    """Return the ids a template renders to in these runs; None when one cannot be told."""
    found: list[str] = []
    for run in runs:
        try:
            text = _rendered(template, run)
        except _Unknown, _Fails:
            return None
        for part in text.split(","):
            if not valid_entity_id(name := part.strip().lower()):
                return None
            if name not in found:
                found.append(name)
    return found


def _value(node: jinja2.nodes.Node, run: _Run) -> Any:
    """Return what an expression renders to in this run (see _template_holds)."""
    nodes = jinja2.nodes
    if isinstance(node, nodes.Const):
        return node.value
    if isinstance(node, nodes.List):
        return [_plain(_value(item, run)) for item in node.items]
    if isinstance(node, nodes.Tuple):
        # A tuple is no list: ('Home',) != ['Home'], as in Python.
        return tuple(_plain(_value(item, run)) for item in node.items)
    if isinstance(node, nodes.Name):
        if node.name not in _NAMED:
            raise _Unknown  # a variable of the run, a function: not known here
        return _NAMED[node.name]
    if isinstance(node, nodes.Getattr):
        return _attribute(_value(node.node, run), node.attr, run)
    if isinstance(node, nodes.Getitem):
        key = _value(node.arg, run)
        if not isinstance(key, str):
            raise _Unknown
        return _attribute(_value(node.node, run), key, run)
    if isinstance(node, nodes.Call):
        return _called(node, run)
    if isinstance(node, nodes.Compare):
        return _compared(node, run)
    if isinstance(node, nodes.And):
        left = _plain(_value(node.left, run))
        return _plain(_value(node.right, run)) if left else left
    if isinstance(node, nodes.Or):
        left = _plain(_value(node.left, run))
        return left if left else _plain(_value(node.right, run))
    if isinstance(node, nodes.Not):
        return not _plain(_value(node.node, run))
    if isinstance(node, nodes.Concat):
        return "".join(str(_plain(_value(part, run))) for part in node.nodes)
    if isinstance(node, nodes.Filter) and node.node is not None:
        return _filtered(node, run)
    raise _Unknown


def _filtered(node: jinja2.nodes.Filter, run: _Run) -> str:
    """Return a string filter's result (`lower`, `upper`, `trim`, `slugify`, `replace`)."""
    value = _value(node.node, run) if node.node is not None else None
    arguments = [_plain(_value(argument, run)) for argument in node.args]
    if (
        not isinstance(value, str)
        or node.kwargs
        or node.dyn_args
        or node.dyn_kwargs
        or not all(isinstance(argument, str) for argument in arguments)
    ):
        raise _Unknown
    if node.name in _STRING_FILTERS and not arguments:
        return _STRING_FILTERS[node.name](value)
    if node.name == "replace" and len(arguments) == 2:
        return value.replace(arguments[0], arguments[1])
    raise _Unknown


@dataclass(frozen=True, slots=True)
class _StatesOf:
    """`states.<domain>` (an entity id without its object id), or `states.<entity id>`."""

    name: str


def _plain(value: Any) -> Any:
    """Return a value a template compares as Python does; an object of ours is not known."""
    if value is _UNDEFINED:
        raise _Unknown  # an undefined value is false, but says something we do not model
    if not isinstance(value, _PLAIN):
        raise _Unknown
    return value


def _attribute(value: Any, name: str, run: _Run) -> Any:
    """Return `value.name` (or `value[name]`) in this run."""
    if value is _UNDEFINED:
        raise _Fails  # reading a value of an undefined one is an error
    if value is _TRIGGER:
        if name == "id":
            return run.trigger_id
        if not run.reported or name.startswith("_") or hasattr(dict, name):
            raise _Unknown
        if name == "to_state":
            return _TO_STATE
        if name == "entity_id":
            return run.entity_id
        if name == "platform":
            return "state"
        if name in _STATE_TRIGGER_KEYS:
            raise _Unknown
        return _UNDEFINED  # not in a state trigger's data (an event's `trigger.event`)
    if value is _TO_STATE or (isinstance(value, _StatesOf) and value.name == run.entity_id):
        if name != "state" or run.state is None or (value is not _TO_STATE and not run.current):
            raise _Unknown
        return run.state
    if value is _STATES:
        return _StatesOf(name)
    if isinstance(value, _StatesOf) and "." not in value.name:
        return _StatesOf(f"{value.name}.{name}")
    raise _Unknown


def _called(node: jinja2.nodes.Call, run: _Run) -> Any:
    """Return `is_state(entity, state)` or `states(entity)` of the changed entity."""
    function = _value(node.node, run)
    if node.kwargs or node.dyn_args or node.dyn_kwargs or run.state is None or not run.current:
        raise _Unknown
    arguments = [_plain(_value(argument, run)) for argument in node.args]
    if not arguments or arguments[0] != run.entity_id:
        raise _Unknown
    if function is _STATES and len(arguments) == 1:
        return run.state
    if function is _IS_STATE and len(arguments) == 2:
        wanted = arguments[1]
        if isinstance(wanted, str):
            return run.state == wanted
        if isinstance(wanted, list):
            return run.state in wanted
    raise _Unknown


def _compared(node: jinja2.nodes.Compare, run: _Run) -> bool:
    """Return a comparison (`==`, `!=`, `in`, `not in`, chained) of known values."""
    left = _value(node.expr, run)
    for operand in node.ops:
        right = _value(operand.expr, run)
        if operand.op in ("eq", "ne") and _UNDEFINED in (left, right):
            # An undefined value equals only an undefined one.
            same = left is right
        elif operand.op in ("eq", "ne"):
            same = _plain(left) == _plain(right)
        elif operand.op in ("in", "notin"):
            container = _plain(right)
            item = _plain(left)
            if not isinstance(container, list | tuple | str) or (
                isinstance(container, str) and not isinstance(item, str)
            ):
                raise _Unknown
            same = item in container
        else:
            raise _Unknown
        if same != (operand.op in ("eq", "in")):
            return False
        left = right
    return True
