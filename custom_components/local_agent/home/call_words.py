"""How a call reads in each language the agent speaks: verbs and the few patterns around them.

The words live in call_words.json, as a translations file holds them; call_texts.py puts them
together. English is what the audit, the model and the logs read; a question or an answer to a
person is in the conversation's language when it is one of these (the languages engine/words.py
reads yes and no in), else in English. A verb is a pattern with "{names}" where the targets'
names go (German and Dutch put the verb last: "Haustür aufschließen"), keyed by service
("unlock", for every domain) or by domain and service ("script.turn_on"). A service missing
from a language reads as its name next to the targets' names. A call's fields may be said in
the words too: "with_fields" patterns name fields ("{item} zu {names} hinzufügen",
"die Lautstärke von {names} auf {volume_level} einstellen"; a list: the first whose fields the
call has) and are used when the call has them; "switched" services read by their yes/no field
("mute" / "unmute"); "restated" lists, by the same keys, how a person says a held action again
with a pronoun ("schließ sie auf", "déverrouille-la"), and the same without its pronoun
("sim, abre", "sì, apri") reads as the held action said again too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
import json
from pathlib import Path
from typing import Any
from typing import Final

from custom_components.local_agent.engine.words import words

type VerbKey = tuple[str | None, str]


@dataclass(frozen=True, slots=True)
class CallWords:
    """The words of one language for describing calls; every pattern is str.format'ed."""

    verbs: Mapping[VerbKey, str]  # {names}
    # {names} and fields of the call: the first whose fields the call has all of, in order.
    with_fields: Mapping[VerbKey, tuple[str, ...]]
    switched: Mapping[str, tuple[str, str]]  # {names}: when the service's field is yes, no
    # What a person says to do the held action again, with a pronoun for its targets ("schließ
    # sie auf"); English makes these from its verbs ("unlock it").
    restated: Mapping[VerbKey, tuple[str, ...]]
    other_service: str  # {service} {names}
    read_state: str  # {names}
    run: str  # {names}: a tool of an intent that is no service call
    run_intent: str  # {intent} {names}
    use: str  # {label}
    use_with: str  # {label} {arguments}
    set_to: str  # {names} {state}
    to_position: str  # {position}, after the verb and its targets
    # A percentage ("{}" is the number) as Home Assistant writes it in the language: "40 %" in
    # German and French, "40%" in English, Spanish, Italian, Dutch and Portuguese.
    percent: str
    # A number and another unit ("{number}", "{unit}"): "21,5 °C"; French joins them with a
    # no-break space, as it does "40 %", so that no line breaks between them.
    quantity: str
    this_will: str  # {effects}, after the call's own description
    # {effects}: what an automation the call enables will do when it runs (enabling runs none).
    when_it_runs: str
    # {effects}: what an automation that the call's change sets off may do (its triggers and
    # conditions decide).
    this_may: str
    kept_from: str  # {program} {effects}: what a program the call stops would have done
    kept_from_any: str  # {program}: a program the call stops, of no effect it can say
    and_: str
    more: str  # {count}: the names a long list leaves unsaid ("3 more", "altri 3")
    # A length of time: "{}" is the number, one form for one and one for more ("5 Minuten").
    durations: Mapping[str, tuple[str, str]]
    # A field said with its own words around its value ("{}"), where no pattern says it.
    fields: Mapping[str, str]
    # A date as the language says it: "{day}. {month} {year}", the months January first, the
    # first day of a month where it is no plain "1" ("1er"), and a date with its time.
    date: str
    months: tuple[str, ...]
    first_day: str
    date_at: str  # {date} {time}
    # What a count of targets calls them, by domain or domain.device_class ("cover.blind"):
    # "{}" is the number, one form for one and one for more ("12 Lichter").
    kinds: Mapping[str, tuple[str, str]]
    # {things} {place}: counted targets that all are in one area or on one floor. The place is
    # a name the user chose ("Ground Floor", "Erdgeschoss", "Garden"): no noun of ours before it.
    placed: str
    # {name} {place}: a look-alike name told apart aloud by its area, floor or device.
    in_area: str
    on_floor: str
    of_device: str
    # A state said inside a sentence ("schon {state}") where Home Assistant's word for it reads
    # only alone ("Ein"): "eingeschaltet".
    state_in_sentence: Mapping[str, str]
    # The articles a place's name may begin with ("The Hall", "La Cuisine"): a pattern's own
    # article before such a name is left out ("in The Hall", not "in the The Hall").
    articles: tuple[str, ...]
    # Places named as where a thing is said ("Upstairs"): said after the name alone, without
    # a preposition ("Lamp upstairs", not "Lamp on the Upstairs").
    place_adverbs: tuple[str, ...]
    # A one-word state said of several things ("déjà éteints", "già spenti"): its ending and
    # what replaces it, the first that fits ("" fits any); none where the word stays.
    plural_states: tuple[tuple[str, str], ...]
    # A pattern's word before a value that begins with a vowel, as written there ("de": "d'"),
    # and a preposition with the article a value begins with, as one word ("de le": "du"):
    # call_texts.fill.
    elisions: Mapping[str, str]
    contractions: Mapping[str, str]


def _verb_key(key: str) -> VerbKey:
    domain, _, service = key.rpartition(".")
    return domain or None, service


# The object pronouns that follow the verb in a restated phrase, a word of their own after it
# ("abre-a", "ouvre-la", "ontgrendel hem", "doe hem open") or, in Italian and Spanish, glued to
# it ("aprila", "ábrela"): without it the verb alone is left, said as a person answers "yes,
# open" in their language. German's "schließ sie auf" is left whole: "schließ auf" is no one's.
_PRONOUNS_AFTER_VERB: Final[Mapping[str, tuple[str, ...]]] = {
    "fr": ("la", "le", "les"),
    "nl": ("hem", "het", "ze"),
    "pt": ("a", "o", "as", "os"),
}
_PRONOUNS_GLUED: Final[Mapping[str, tuple[str, ...]]] = {
    "es": ("las", "los", "la", "lo"),
    "it": ("la", "lo", "le", "li"),
}


def _without_pronoun(phrase: str, language: str) -> str | None:
    """Return the restated phrase with its verb alone ("abre-a": "abre", "ábrela": "abre")."""
    verb, *rest = words(phrase)
    if rest and rest[0] in _PRONOUNS_AFTER_VERB.get(language, ()):
        return " ".join([verb, *rest[1:]])
    for pronoun in _PRONOUNS_GLUED.get(language, ()):
        if verb.endswith(pronoun) and len(verb) > len(pronoun) + 2:
            return " ".join([verb.removesuffix(pronoun), *rest])
    return None


def _restated(said: list[str], language: str) -> tuple[str, ...]:
    alone = (_without_pronoun(phrase, language) for phrase in said)
    return tuple(dict.fromkeys([*said, *(phrase for phrase in alone if phrase)]))


def _call_words(language: str, entry: Mapping[str, Any]) -> CallWords:
    patterns = {("and_" if name == "and" else name): text for name, text in entry.items()}
    verbs = {_verb_key(key): text for key, text in patterns.pop("verbs").items()}
    with_fields = {
        _verb_key(key): (text,) if isinstance(text, str) else tuple(text)
        for key, text in patterns.pop("with_fields").items()
    }
    switched = {service: (yes, no) for service, (yes, no) in patterns.pop("switched").items()}
    restated = {
        _verb_key(key): _restated(said, language) for key, said in patterns.pop("restated").items()
    }
    durations = {unit: (one, more) for unit, (one, more) in patterns.pop("durations").items()}
    months = tuple(patterns.pop("months"))
    kinds = {kind: (one, more) for kind, (one, more) in patterns.pop("kinds").items()}
    articles = tuple(patterns.pop("articles"))
    place_adverbs = tuple(patterns.pop("place_adverbs"))
    plural_states = tuple((end, plural) for end, plural in patterns.pop("plural_states"))
    return CallWords(
        verbs=verbs,
        articles=articles,
        place_adverbs=place_adverbs,
        plural_states=plural_states,
        months=months,
        with_fields=with_fields,
        switched=switched,
        restated=restated,
        durations=durations,
        kinds=kinds,
        **patterns,
    )


# Read when the integration is imported (in Home Assistant's import executor).
_WORDS: Final[Mapping[str, CallWords]] = {
    language: _call_words(language, entry)
    for language, entry in json.loads(
        Path(__file__).with_name("call_words.json").read_text(encoding="utf-8")
    ).items()
}
ENGLISH_WORDS: Final = _WORDS["en"]
# By base language ("de" for "de-CH").
WORDS_BY_LANGUAGE: Final[Mapping[str, CallWords]] = {
    language: words for language, words in _WORDS.items() if language != "en"
}


def date_words(text: str, words: CallWords) -> str | None:
    """Say an ISO date as the language says it ("24. Dezember 2026"); None when it is none."""
    try:
        day = date.fromisoformat(text.strip())
    except ValueError:
        return None
    return words.date.format(
        day=words.first_day if day.day == 1 else day.day,
        month=words.months[day.month - 1],
        year=day.year,
    )
