"""A pattern's word before a value joined to it as the language writes it.

French elides before a vowel ("de Entrée": "d'Entrée"); French, Italian, Spanish and
Portuguese contract a preposition with the article a value begins with ("de Le Salon": "du
Salon", "di Il Salotto": "del Salotto", "de O Quarto": "do Quarto"). The words live in
call_words.json ("elisions", "contractions").
"""

from __future__ import annotations

import re
from typing import Any
from typing import Final

from .call_words import CallWords

# A placeholder and the word right before it in a pattern ("de {names}").
_WORD_BEFORE: Final = re.compile(r"(?<![\w'])(\w+) \{(\w+)\}")
# The article a value begins with: a word and a space, or a word and an apostrophe ("L'Entrée").
_ARTICLE: Final = re.compile(r"(\w+)( |'|\u2019)(?=\w)")
# Letters a word is elided before. Never "h" or "y": whether a name's "h" is mute is not known.
_VOWELS: Final = frozenset("aeiouàâäáéèêëíîïóôöúùûüœæ")


def fill(pattern: str, words: CallWords, **values: Any) -> str:
    """Return the pattern formatted with the values, each joined to the word before it."""
    said = dict(values)

    def joined(match: re.Match[str]) -> str:
        word, key = match[1], match[2]
        value = said.get(key)
        if not isinstance(value, str):
            return match[0]
        if (article := _ARTICLE.match(value)) and (
            contracted := words.contractions.get(_together(word, article))
        ):
            said[key] = value[article.end() :]
            space = "" if contracted.endswith("'") else " "
            return f"{contracted}{space}{{{key}}}"
        if value[:1].casefold() in _VOWELS and (elided := words.elisions.get(word.casefold())):
            return f"{_as_written(elided, word)}{{{key}}}"
        return match[0]

    return _WORD_BEFORE.sub(joined, pattern).format(**said)


def _together(word: str, article: re.Match[str]) -> str:
    """Return a word and the article after it as contractions holds them ("di l'")."""
    elided = "" if article[2] == " " else "'"
    return f"{word} {article[1]}{elided}".casefold()


def _as_written(elided: str, word: str) -> str:
    """Keep a capital the pattern's word began with ("De {names}": "D'…")."""
    return elided[:1].upper() + elided[1:] if word[:1].isupper() else elided
