"""Numbers whose shape says what they are: a quantity with its unit, a date's year.

A PIN agent hides from the model what could be a PIN in a message that answers no PIN
question (confirmation.mask_possible_pins). These shapes are kept: "2700 kelvin", "a timer
for 1500 seconds", "December 24, 2026", "2026-12-24". Only the words of the message decide,
never the PIN, so what the model sees tells nothing of it; a number framed as a code ("pin
4711 seconds") is hidden all the same.
"""

from __future__ import annotations

import re
from typing import Final

from custom_components.local_agent.engine.words import fold

# Units said or written after a quantity, folded, in every language we speak.
UNIT_WORDS: Final = frozenset(
    {
        # Time.
        *("s", "sec", "secs", "second", "seconds", "sekunde", "sekunden", "seconde", "secondes"),
        *("segundo", "segundos", "secondo", "secondi", "seconden"),
        *("min", "mins", "minute", "minutes", "minuten", "minuto", "minutos", "minuti"),
        *("h", "hour", "hours", "stunde", "stunden", "heure", "heures", "hora", "horas"),
        *("ora", "ore", "uur", "day", "days", "tag", "tage", "jour", "jours", "dia", "dias"),
        *("giorno", "giorni", "dag", "dagen"),
        # Light, heat, power, energy, flow, distance, volume, weight.
        *("k", "kelvin", "lm", "lumen", "lux", "lx", "degree", "degrees", "grad", "degre"),
        *("degres", "grado", "grados", "gradi", "graad", "graden", "grau", "graus"),
        *("w", "watt", "watts", "kw", "kwh", "wh", "va", "volt", "volts", "amp", "amps"),
        *("rpm", "ppm", "hz", "db", "mm", "cm", "m", "km", "meter", "meters", "metre", "metres"),
        *("metro", "metri", "metros", "ml", "l", "liter", "liters", "litre", "litres", "litro"),
        *("litri", "litros", "g", "kg", "gram", "grams", "gramm", "gramme", "grammes"),
        *("steps", "schritte", "pas", "pasos", "passi", "stappen", "passos"),
        # Not "por ciento", "per cento", "pour cent": "por favor" would keep a number too.
        *("percent", "prozent", "procent", "pourcent", "porcentaje", "percento"),
    }
)
# Marks written right after a quantity.
UNIT_MARKS: Final = frozenset({"%", "°", "\u2103", "\u2109"})

MONTH_WORDS: Final = frozenset(
    fold(
        " ".join(
            (
                "january february march april may june july august september october november",
                "december jan feb mar apr jun jul aug sep sept oct nov dec",
                "januar februar marz april mai juni juli august september oktober november",
                "dezember janvier fevrier mars avril mai juin juillet aout septembre octobre",
                "novembre decembre enero febrero marzo abril mayo junio julio agosto",
                "septiembre octubre noviembre diciembre gennaio febbraio marzo aprile maggio",
                "giugno luglio agosto settembre ottobre novembre dicembre januari februari",
                "maart april mei juni juli augustus september oktober november december",
                "janeiro fevereiro marco abril maio junho julho agosto setembro outubro",
                "novembro dezembro",
            )
        )
    ).split()
)

# A date written in digits: 2026-12-24, 24.12.2026, 24/12/2026, 12/24/2026.
_NUMERIC_DATE: Final = re.compile(
    r"(?:(?:19|20)\d\d-[01]?\d-[0-3]?\d|[0-3]?\d[./-][0-3]?\d[./-](?:19|20)\d\d)\.?"
)
# What a month name stands beside: a year, a day and a year ("24, 2026"), a day.
_BESIDE_MONTH: Final = re.compile(r"(?:[0-3]?\d\.?,?\s*)?(?:19|20)\d\d\.?|[0-3]?\d\.?,?")


def is_unit(word: str) -> bool:
    """Whether a word or mark written right after a number gives it a unit."""
    return word in UNIT_MARKS or fold(word) in UNIT_WORDS


# Words that name a code, in every language: a message with one keeps no number.
CODE_WORDS: Final = frozenset(
    {"pin", "code", "pincode", "passcode", "password", "geheimzahl", "codice", "codigo"}
    | {"clave", "contrasena", "senha", "wachtwoord", "mot", "passe", "combination"}
)


def names_a_code(word: str) -> bool:
    """Whether a word names a code (pin, code, clave, senha)."""
    return fold(word) in CODE_WORDS


def is_month(word: str) -> bool:
    """Whether a word is a month's name or its short form, in any language we speak."""
    return fold(word).strip(".") in MONTH_WORDS


def is_date(written: str, month_beside: bool) -> bool:
    """Whether a stretch of digits is a date in digits, or beside a month name its year."""
    written = written.strip()
    if _NUMERIC_DATE.fullmatch(written):
        return True
    return month_beside and bool(_BESIDE_MONTH.fullmatch(written))
