"""How a call reads in each language the agent speaks: verbs and the few patterns around them.

The words live in call_words.json, as a translations file holds them; call_texts.py puts them
together. English is what the audit, the model and the logs read; a question or an answer to a
person is in the conversation's language when it is one of these (the languages engine/words.py
reads yes and no in), else in English. A verb is a pattern with "{names}" where the targets'
names go (German and Dutch put the verb last: "Haustür aufschließen"), keyed by service
("unlock", for every domain) or by domain and service ("script.turn_on"). A service missing
from a language reads as its name next to the targets' names. A call's fields may be said in
the words too: "with_fields" patterns name a field ("{item} zu {names} hinzufügen") and are
used when the call has it; "switched" services read by their yes/no field ("mute" / "unmute");
"restated" lists, by the same keys, how a person says a held action again with a pronoun
("schließ sie auf", "déverrouille-la").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
import json
from pathlib import Path
from typing import Any
from typing import Final

type VerbKey = tuple[str | None, str]


@dataclass(frozen=True, slots=True)
class CallWords:
    """The words of one language for describing calls; every pattern is str.format'ed."""

    verbs: Mapping[VerbKey, str]  # {names}
    with_fields: Mapping[VerbKey, str]  # {names} and fields of the call
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
    this_will: str  # {effects}, after the call's own description
    when_set_off: str  # {effects}: what an automation the call switches on does when set off
    kept_from: str  # {program} {effects}: what a program the call stops would have done
    kept_from_any: str  # {program}: a program the call stops, of no effect it can say
    and_: str


def _verb_key(key: str) -> VerbKey:
    domain, _, service = key.rpartition(".")
    return domain or None, service


def _call_words(entry: Mapping[str, Any]) -> CallWords:
    patterns = {("and_" if name == "and" else name): text for name, text in entry.items()}
    verbs = {_verb_key(key): text for key, text in patterns.pop("verbs").items()}
    with_fields = {_verb_key(key): text for key, text in patterns.pop("with_fields").items()}
    switched = {service: (yes, no) for service, (yes, no) in patterns.pop("switched").items()}
    restated = {_verb_key(key): tuple(said) for key, said in patterns.pop("restated").items()}
    return CallWords(
        verbs=verbs, with_fields=with_fields, switched=switched, restated=restated, **patterns
    )


# Read when the integration is imported (in Home Assistant's import executor).
_WORDS: Final[Mapping[str, CallWords]] = {
    language: _call_words(entry)
    for language, entry in json.loads(
        Path(__file__).with_name("call_words.json").read_text(encoding="utf-8")
    ).items()
}
ENGLISH_WORDS: Final = _WORDS["en"]
# By base language ("de" for "de-CH").
WORDS_BY_LANGUAGE: Final[Mapping[str, CallWords]] = {
    language: words for language, words in _WORDS.items() if language != "en"
}
