"""Numbers and their units written in words, as speech-to-text and a small model write them.

"twenty one", "einundzwanzig", "vingt et un", "veintiuno", "ventuno", "eenentwintig", "vinte e
um"; "twenty one point five", "minus ten". In any of the seven languages, whichever the turn's
is: a number field's value does not carry its language. Anything that is not wholly a number
is None: a word the table does not know is never guessed at, nor is a number not said so
("zero hundred", "twenty zero", "ten five", "ten seven" but in French's "dix-sept", a bare "a").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from .words import DIGIT_WORDS
from .words import HUNDREDS
from .words import fold


def _values(*groups: tuple[int, str]) -> dict[str, int]:
    return {fold(word): value for value, spellings in groups for word in spellings.split()}


# Teens, tens, hundred and thousand; the digits are words.py's (a PIN's), but "oh".
_WORDS: Final[Mapping[str, int]] = {
    **{word: int(digit) for word, digit in DIGIT_WORDS.items() if word != "oh"},
    **_values(
        (1, "a ein eine"),
        (10, "ten zehn dix diez dieci tien dez"),
        (11, "eleven elf onze once undici"),
        (12, "twelve zwölf douze doce dodici twaalf doze"),
        (13, "thirteen dreizehn treize trece tredici dertien treze"),
        (14, "fourteen vierzehn quatorze catorce quattordici veertien catorze"),
        (15, "fifteen fünfzehn quinze quince quindici vijftien"),
        (16, "sixteen sechzehn seize dieciséis sedici zestien dezesseis dezasseis"),
        (17, "seventeen siebzehn diecisiete diciassette zeventien dezessete dezassete"),
        (18, "eighteen achtzehn dieciocho diciotto achttien dezoito"),
        (19, "nineteen neunzehn diecinueve diciannove negentien dezenove dezanove"),
        # Teens said apart (_TEENS_APART), once joined.
        (16, "diezyseis"),
        (17, "dixsept diezysiete"),
        (18, "dixhuit diezyocho"),
        (19, "dixneuf diezynueve"),
        (20, "twenty zwanzig vingt vingts veinte veinti venti vent twintig vinte"),
        (30, "thirty dreißig dreissig trente treinta trenta trent dertig trinta"),
        (40, "forty fourty vierzig quarante cuarenta quaranta quarant veertig quarenta"),
        (50, "fifty fünfzig cinquante cincuenta cinquanta cinquant vijftig cinquenta"),
        (60, "sixty sechzig soixante sesenta sessanta sessant zestig sessenta"),
        (70, "seventy siebzig septante setenta settanta settant zeventig"),
        (80, "eighty achtzig huitante octante ochenta ottanta ottant tachtig oitenta"),
        (90, "ninety neunzig nonante noventa novanta novant negentig"),
        (100, "hundred hundert cent cents cien ciento cento honderd cem"),
        (1000, "thousand tausend mille mila mil duizend"),
    ),
    **HUNDREDS,
}
# What joins the parts of a number ("cuarenta y siete", "einundzwanzig").
_JOINERS: Final = ("and", "und", "et", "y", "e", "en")
_MINUS: Final = frozenset({"minus", "moins", "menos", "meno"})
_POINT: Final = frozenset({"point", "komma", "virgule", "coma", "punto", "virgola", "virgula"})
_JOINED: Final = -1
# Teens said apart as ten, a digit and maybe a joiner: French "dix-sept" and the old Spanish
# "diez y siete" only; never "ten seven", "tien zeven".
_TEENS_APART: Final[Mapping[tuple[str, ...], str]] = {
    **{("dix", digit): f"dix{digit}" for digit in ("sept", "huit", "neuf")},
    **{("diez", "y", digit): f"diezy{digit}" for digit in ("seis", "siete", "ocho", "nueve")},
}
_ONE_BEFORE_A_HUNDRED: Final = "a"
_LONGEST_WORD: Final = max(map(len, _WORDS))
# Longer than any number said in words, with a fraction's digits ("neunhundertneunund…").
_LONGEST_NUMBER: Final = 200


def spoken_number(text: str) -> float | None:
    """Return the number `text` says in words, or None where it is not only a number."""
    if len(text) > _LONGEST_NUMBER:
        return None  # a model repeating itself ("einseinseins…"): no number, no deep recursion
    tokens = fold(text).split()
    sign = 1
    if tokens and tokens[0] in _MINUS:
        sign, tokens = -1, tokens[1:]
    point = next((i for i, token in enumerate(tokens) if token in _POINT), len(tokens))
    whole = _whole(tokens[:point])
    if whole is None:
        return None
    if point == len(tokens):
        return sign * whole
    fraction = _fraction(tokens[point + 1 :])
    return None if fraction is None else sign * float(f"{whole}.{fraction}")


def _fraction(tokens: list[str]) -> str | None:
    """Return the digits after the point: one digit a word ("zero five"), or one number."""
    if tokens and all(_is_digit(word) for word in tokens):
        return "".join(str(_WORDS[token]) for token in tokens)
    number = _whole(tokens)
    return None if number is None else str(number)


def _is_digit(word: str) -> bool:
    """Whether a word says one digit ("a" is one only before a hundred or a thousand)."""
    return _WORDS.get(word, 10) < 10 and word != _ONE_BEFORE_A_HUNDRED


def _whole(said: list[str]) -> int | None:
    parts: list[int] = []
    tokens = _teens_joined(said)
    for index, word in enumerate(tokens):
        if word == _ONE_BEFORE_A_HUNDRED and not _multiplies(tokens[index + 1 : index + 2]):
            return None  # "a hundred", "a thousand"; never "a" alone
        split = _split(word, first=not parts)
        if split is None:
            return None
        parts += split
    return _combined(parts)


def _teens_joined(tokens: list[str]) -> list[str]:
    """Return the words with a teen said apart as one ("dix sept": "dixsept", _TEENS_APART)."""
    joined: list[str] = []
    index = 0
    while index < len(tokens):
        teen = next(
            (
                (word, len(apart))
                for apart, word in _TEENS_APART.items()
                if tuple(tokens[index : index + len(apart)]) == apart
            ),
            None,
        )
        word, length = teen or (tokens[index], 1)
        joined.append(word)
        index += length
    return joined


def _multiplies(next_word: list[str]) -> bool:
    """Whether the word after is "hundred" or "thousand" (in any of the languages)."""
    return bool(next_word) and _WORDS.get(next_word[0]) in (100, 1000)


def _split(token: str, *, first: bool) -> list[int] | None:
    """Return the values a word is made of ("einundzwanzig": 1, joined, 20); None if none."""
    if not token:
        return []
    if not first:
        if token in _JOINERS:
            return [_JOINED]
        for joiner in _JOINERS:
            if token.startswith(joiner) and (rest := _split(token[len(joiner) :], first=True)):
                return [_JOINED, *rest]
    for end in range(min(len(token), _LONGEST_WORD), 0, -1):
        value = _WORDS.get(token[:end])
        if token[:end] == _ONE_BEFORE_A_HUNDRED and token != _ONE_BEFORE_A_HUNDRED:
            continue  # "a" is a word of its own, never a part of one ("duemila" is no 2001)
        if value is not None and (rest := _split(token[end:], first=False)) is not None:
            return [value, *rest]
    return None


def _combined(parts: list[int]) -> int | None:
    """Return the number the values make, in the order a number is said; None otherwise."""
    total, current, joined = 0, 0, False
    if not parts or parts[0] == _JOINED or parts[-1] == _JOINED:
        return None
    if 0 in parts and len(parts) > 1:
        return None  # zero is said alone: "zero hundred" is no hundred, "twenty zero" no twenty
    for value in parts:
        if value == _JOINED:
            if joined:
                return None
            joined = True
            continue
        if value == 1000:
            if current >= 1000 or total:
                return None
            total, current = (current or 1) * 1000, 0
        elif value == 100:
            if current >= 10:
                return None
            current = (current or 1) * 100
        elif (added := _added(current, value, joined)) is None:
            return None
        else:
            current = added
        joined = False
    return total + current


def _added(current: int, value: int, joined: bool) -> int | None:
    """Return `current` with `value` said after it, or None where a number is not said so."""
    rest = current % 100
    if rest == 0 and (current == 0 or value < 100):
        return current + value
    if rest % 10 == 0 and rest >= 20 and value < 10:
        return current + value  # twenty one
    if rest in (60, 80) and 10 <= value < 20:
        return current + value  # soixante-dix, quatre-vingt-dix
    if rest == 4 and value == 20 and not joined:
        return current - 4 + 80  # quatre-vingts
    if 0 < rest < 10 and joined and value % 10 == 0 and 20 <= value <= 90:
        return current + value  # einundzwanzig, eenentwintig
    return None


_DEGREES: Final = ("°", "degree", "degrees", "grad", "degré", "degrés", "grado", "grados", "gradi",
                   "graden", "grau", "graus")  # fmt: skip
# The words a unit is said by after a number, in the seven languages ("fifty percent").
_UNIT_WORDS: Final[Mapping[str, tuple[str, ...]]] = {
    "%": ("percent", "per cent", "prozent", "pour cent", "por ciento", "per cento", "procent",
          "por cento"),
    "°C": _DEGREES,
    "°F": _DEGREES,
    "K": ("kelvin",),
}  # fmt: skip


def without_unit(text: str, unit: str) -> str:
    """Return `text` without the `unit` it ends in, as a symbol or a word ("fifty percent")."""
    lowered = text.casefold()
    for suffix in sorted((unit.casefold(), *_UNIT_WORDS.get(unit, ())), key=len, reverse=True):
        if suffix and lowered.endswith(suffix):
            return text[: -len(suffix)].rstrip()
    return text
