"""The reference policy's answer to a calendar question, from the events get_state read.

It answers as a careful person reading the calendar does: the period the question names
(today, tomorrow, a weekday; else the week read), each event once with how many times it
comes, and "yes" or "no" first when the question asks whether one is away from home. The
words are those of the seven languages of the public sets; the answer is English, as the
rest of the policy's.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
import datetime as dt
import re
from typing import Any
from typing import Final

from homeassistant.util import dt as dt_util

_TODAY: Final = re.compile(r"\b(today|heute|hoy|aujourd'hui|vandaag|oggi|hoje)\b", re.I)
_TOMORROW: Final = re.compile(r"\b(tomorrow|morgen|mañana|demain|domani|amanhã)\b", re.I)
# Monday first (datetime's weekday()), in en de es fr nl it pt.
_WEEKDAYS: Final = tuple(
    re.compile(rf"\b({names})\b", re.I)
    for names in (
        "monday|montag|lunes|lundi|maandag|lunedì|segunda",
        "tuesday|dienstag|martes|mardi|dinsdag|martedì|terça",
        "wednesday|mittwoch|miércoles|mercredi|woensdag|mercoledì|quarta",
        "thursday|donnerstag|jueves|jeudi|donderdag|giovedì|quinta",
        "friday|freitag|viernes|vendredi|vrijdag|venerdì|sexta",
        "saturday|samstag|sábado|samedi|zaterdag|sabato",
        "sunday|sonntag|domingo|dimanche|zondag|domenica",
    )
)
# Asking whether one goes out: "leave the house", "away from home", "außer Haus", "salir de
# casa", "fuera de casa", "quitter la maison", "en dehors de la maison", "het huis uit",
# "buitenshuis", "uscire di casa", "fuori casa", "sair de casa", "fora de casa".
_AWAY: Final = re.compile(
    r"\b(leav\w*[^?.]* the house|away from home|verlass\w*[^?.]* das haus|außer haus|"
    r"sal\w*[^?.]* de casa|fuera de casa|quitt\w*[^?.]* la maison|en dehors de la maison|"
    r"het huis uit|buitenshuis|usci\w*[^?.]* di casa|fuori casa|sair de casa|fora de casa)",
    re.I,
)
_HOME_PLACES: Final = frozenset(
    {"home", "at home", "zu hause", "zuhause", "casa", "en casa", "maison", "à la maison",
     "thuis", "a casa", "em casa"}
)  # fmt: skip


def _moment(text: str) -> dt.datetime:
    """An event's start or end in the home's time zone (a date: its midnight)."""
    moment = dt_util.parse_datetime(text)
    if moment is None:
        return dt_util.start_of_local_day(dt.date.fromisoformat(text))
    return dt_util.as_local(moment)


def _period(sentence: str, now: dt.datetime) -> tuple[str, dt.datetime, dt.datetime] | None:
    """The day the question names: (its name, start, end); None: the whole week read."""
    today = dt_util.start_of_local_day(now)
    if _TODAY.search(sentence):
        return "today", today, today + dt.timedelta(days=1)
    if _TOMORROW.search(sentence):
        return "tomorrow", today + dt.timedelta(days=1), today + dt.timedelta(days=2)
    for weekday, names in enumerate(_WEEKDAYS):
        if names.search(sentence):
            start = today + dt.timedelta(days=(weekday - today.weekday()) % 7)
            return start.strftime("%A"), start, start + dt.timedelta(days=1)
    return None


def _when(event: Mapping[str, Any]) -> str:
    start = _moment(str(event["start"]))
    if dt_util.parse_datetime(str(event["start"])) is None:  # a date alone: all day
        return start.strftime("%A (all day)")
    return f"{start:%A %H:%M} to {_moment(str(event['end'])):%H:%M}"


def _at_home(event: Mapping[str, Any]) -> bool:
    return str(event.get("location") or "").strip().casefold() in _HOME_PLACES


def calendar_answer(name: str, events: Sequence[Mapping[str, Any]], sentence: str) -> str:
    """Answer a question about a calendar from the events read (start, end, summary, …)."""
    period = _period(sentence, dt_util.now())
    when = "this week"
    if period is not None:
        when, start, end = period
        events = [
            e
            for e in events
            if _moment(str(e["start"])) < end and _moment(str(e.get("end") or e["start"])) > start
        ]
    if not events:
        return f"No, there is nothing on {name} {when}."
    by_summary: dict[str, list[Mapping[str, Any]]] = {}
    for event in events:
        by_summary.setdefault(str(event.get("summary")), []).append(event)
    listed = []
    for summary, same in by_summary.items():
        times = "; ".join(
            _when(e) + (f" at {e['location']}" if e.get("location") else "") for e in same
        )
        count = f", {len(same)} times" if len(same) > 1 else ""
        listed.append(f"{summary} ({times}{count})")
    answer = f"On {name} {when}: {', '.join(listed)}."
    if _AWAY.search(sentence):
        away = [str(e.get("summary")) for e in events if not _at_home(e)]
        lead = f"Yes: {', '.join(away)}." if away else f"No, everything {when} is at home."
        answer = f"{lead} {answer}"
    return answer
