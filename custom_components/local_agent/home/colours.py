"""Colour names in the conversation's language, from Home Assistant's own sentences.

`light.turn_on` takes a colour by its CSS name ("red"); a person says "rot", "rouge", "rojo".
Home Assistant's sentences (the home-assistant-intents package its conversation component
installs) list each language's colour words with the name they stand for: the same words
its own agent understands in "mach das Licht rot". A colour a language does not list stays
its CSS name, both ways.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import Final

from hassil.parse_expression import parse_sentence
from hassil.sample import sample_expression
from home_assistant_intents import get_intents

from custom_components.local_agent.engine.words import fold
from homeassistant.core import HomeAssistant
from homeassistant.util import color as color_util
from homeassistant.util.hass_dict import HassKey

# The field of light.turn_on that names a colour.
COLOUR_FIELD: Final = "color_name"
# The fields that give a light a colour (a white-only bulb has none of them).
COLOUR_FIELDS: Final = frozenset(
    {COLOUR_FIELD, "hs_color", "rgb_color", "rgbw_color", "rgbww_color", "xy_color"}
)


@dataclass(frozen=True, slots=True)
class ColourWords:
    """One language's colour words: said for a CSS name, and the CSS name a word means."""

    said: Mapping[str, str] = field(default_factory=dict)  # "white": "weiß"
    named: Mapping[str, str] = field(default_factory=dict)  # folded "weiss": "white"

    def css_name(self, text: str) -> str:
        """Return the CSS name a colour word means ("Rot": "red"), else the text as it is.

        A CSS name may be written in words, in any case ("Light Blue": "lightblue").
        """
        if (css := self.named.get(fold(text))) is not None:
            return css
        written = "".join(text.split()).lower()
        return written if written in color_util.COLORS else text

    def word(self, css_name: str) -> str:
        """Return how the language says a CSS colour name ("red": "rot"), else the name."""
        return self.said.get(css_name.lower(), css_name)


NO_WORDS: Final = ColourWords()
ENGLISH: Final = "en"
# How far (degrees of hue, percent of saturation) a light's colour may be from a named one.
_CLOSE: Final = 5.0
_CACHE: HassKey[dict[str, ColourWords]] = HassKey("local_agent_colour_words")


async def async_colour_words(hass: HomeAssistant, language: str) -> ColourWords:
    """Return (and keep) the colour words of a conversation language ("de-CH": its own)."""
    cache = hass.data.setdefault(_CACHE, {})
    if (words := cache.get(language)) is None:
        words = cache[language] = await hass.async_add_executor_job(_load, language)
    return words


def colour_words(hass: HomeAssistant, language: str) -> ColourWords:
    """Return the colour words this turn loaded already (async_colour_words), else none."""
    return hass.data.get(_CACHE, {}).get(language, NO_WORDS)


def named_colour(hass: HomeAssistant, hs_color: Any) -> str | None:
    """Return the colour a light's hue and saturation show, by its CSS name ("red"), if one.

    The candidates are the colours Home Assistant's English sentences name (loaded by the
    integration's set-up): a light set to one shows it again, whatever the language.
    """
    if not isinstance(hs_color, list | tuple) or len(hs_color) != 2:
        return None
    hue, saturation = (float(part) for part in hs_color)
    for css in colour_words(hass, ENGLISH).said:
        try:
            rgb = color_util.color_name_to_rgb(css)
        except ValueError:
            continue
        css_hue, css_saturation = color_util.color_RGB_to_hs(*rgb)
        turn = abs(hue - css_hue) % 360
        if abs(saturation - css_saturation) <= _CLOSE and (
            min(turn, 360 - turn) <= _CLOSE or max(saturation, css_saturation) <= _CLOSE
        ):
            return css
    return None


def _load(language: str) -> ColourWords:
    """Read the language's colour list ("pt-BR", else "pt"); none for a language without."""
    for name in dict.fromkeys((language, language.split("-", maxsplit=1)[0])):
        sentences = get_intents(name)
        if sentences is not None and (values := _values(sentences)):
            return _words(values)
    return NO_WORDS


def _values(sentences: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    colours = (sentences.get("lists") or {}).get("color") or {}
    values = colours.get("values") if isinstance(colours, Mapping) else None
    return [value for value in values or () if isinstance(value, Mapping)]


def _words(values: list[Mapping[str, Any]]) -> ColourWords:
    said: dict[str, str] = {}
    named: dict[str, str] = {}
    for value in values:
        css, template = value.get("out"), value.get("in")
        if not isinstance(css, str) or not isinstance(template, str):
            continue
        # "wei(ß|ss)", "(blanc|blanche)": every way to write it; the first is how it is said.
        forms = [
            " ".join(text.split())
            for text in sample_expression(parse_sentence(template).expression)
        ]
        for form in forms:
            named.setdefault(fold(form), css)
        if forms:
            said.setdefault(css, forms[0])
    return ColourWords(said=said, named=named)
