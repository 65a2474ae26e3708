"""Colour names in the conversation's language, from Home Assistant's own sentences.

`light.turn_on` takes a colour by its CSS name ("red"); a person says "rot", "rouge", "rojo".
Home Assistant's sentences (the home-assistant-intents package its conversation component
installs) list each language's colour words with the name they stand for: the same words
its own agent understands in "mach das Licht rot". A colour a language does not list stays
its CSS name, both ways. So do its names of whites ("warm white", "Tageslicht": 2700 K,
6500 K), which no CSS name is: written as a colour, they are the colour temperature.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import field
from dataclasses import replace
from typing import Any
from typing import Final

from hassil.parse_expression import parse_sentence
from hassil.sample import sample_expression
from home_assistant_intents import get_intents

from custom_components.local_agent.engine.words import fold
from homeassistant.core import HomeAssistant
from homeassistant.core import State
from homeassistant.util import color as color_util
from homeassistant.util.hass_dict import HassKey

# The field of light.turn_on that names a colour.
COLOUR_FIELD: Final = "color_name"
# The fields that give a light a colour (a white-only bulb has none of them).
COLOUR_FIELDS: Final = frozenset(
    {COLOUR_FIELD, "hs_color", "rgb_color", "rgbw_color", "rgbww_color", "xy_color"}
)
# The field of light.turn_on that sets a white by its colour temperature, and the range a light
# takes it in.
KELVIN_FIELD: Final = "color_temp_kelvin"
_KELVIN_RANGE: Final = ("min_color_temp_kelvin", "max_color_temp_kelvin")


@dataclass(frozen=True, slots=True)
class ColourWords:
    """One language's colour words: said for a CSS name, and the CSS name a word means."""

    said: Mapping[str, str] = field(default_factory=dict)  # "white": "weiß"
    named: Mapping[str, str] = field(default_factory=dict)  # folded "weiss": "white"
    # The language's names of whites and English's, folded without spaces: "warmweiss": 2700.
    whites: Mapping[str, int] = field(default_factory=dict)

    def css_name(self, text: str) -> str:
        """Return the CSS name a colour word means ("Rot": "red"), else the text as it is.

        A CSS name may be written in words, in any case ("Light Blue": "lightblue").
        """
        if (css := self.named.get(fold(text))) is not None:
            return css
        written = "".join(text.split()).lower()
        return written if written in color_util.COLORS else text

    def kelvin(self, text: str) -> int | None:
        """Return the colour temperature a white's name means ("Warm White": 2700), if one."""
        return self.whites.get(_spaceless(text))

    def word(self, css_name: str) -> str:
        """Return how the language says a CSS colour name ("red": "rot"), else the name."""
        return self.said.get(css_name.lower(), css_name)


NO_WORDS: Final = ColourWords()
ENGLISH: Final = "en"
# How far (degrees of hue, percent of saturation) a light's colour may be from a named one.
_CLOSE: Final = 5.0
# Home Assistant's sentences' list of whites by name, each with its colour temperature.
_WHITES: Final = "color_temperature_names"
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


def read_colour(arguments: dict[str, Any], colours: ColourWords, lights: Sequence[State]) -> None:
    """Make a colour the model wrote one light.turn_on takes, in place.

    A colour word is its CSS name ("rot": "red"); a white's name ("warm white", "lumière du
    jour") is its colour temperature (a number given too says it more exactly): the nearest
    every target light takes ("daylight" on a bulb that goes to 4000 K is 4000 K; 6500 K is
    refused there).
    """
    colour = arguments.get(COLOUR_FIELD)
    if not isinstance(colour, str):
        return
    if (kelvin := colours.kelvin(colour)) is None:
        arguments[COLOUR_FIELD] = colours.css_name(colour)
        return
    del arguments[COLOUR_FIELD]
    if KELVIN_FIELD in arguments:
        return
    ranges = [[light.attributes.get(bound) for bound in _KELVIN_RANGE] for light in lights]
    lowest = max((low for low, _ in ranges if isinstance(low, int | float)), default=kelvin)
    highest = min((high for _, high in ranges if isinstance(high, int | float)), default=kelvin)
    within = lowest <= highest
    arguments[KELVIN_FIELD] = round(min(max(kelvin, lowest), highest)) if within else kelvin


def read_slot_colours(
    arguments: Mapping[str, Any], slots: Mapping[str, str], colours: ColourWords
) -> dict[str, Any]:
    """Return an intent's arguments with its colour slot read as read_colour reads a colour.

    slots: the service field each slot sets (HassLightSet's "color": color_name). A white's
    name goes to the slot that sets the colour temperature, where the intent has one (a number
    the model wrote there says it more exactly); Home Assistant's handler sets the light.
    """
    read = dict(arguments)
    kelvin_slots = [slot for slot, name in slots.items() if name == KELVIN_FIELD]
    for slot, value in arguments.items():
        if slots.get(slot) != COLOUR_FIELD or not isinstance(value, str):
            continue
        kelvin = colours.kelvin(value)
        if kelvin is None or not kelvin_slots:
            read[slot] = colours.css_name(value)
            continue
        del read[slot]
        read.setdefault(kelvin_slots[0], kelvin)
    return read


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
    """Read the language's colour list ("pt-BR", else "pt"); none for a language without.

    Its names of whites, and English's (a model writes "warm white" in any conversation).
    """
    words = NO_WORDS
    for name in dict.fromkeys((language, language.split("-", maxsplit=1)[0])):
        sentences = get_intents(name)
        if sentences is not None and (values := _values(sentences, "color")):
            words = _words(values)
            words = replace(words, whites=_whites(_values(sentences, _WHITES)))
            break
    english = get_intents(ENGLISH) or {}
    return replace(words, whites=_whites(_values(english, _WHITES)) | dict(words.whites))


def _values(sentences: Mapping[str, Any], name: str) -> list[Mapping[str, Any]]:
    listed = (sentences.get("lists") or {}).get(name) or {}
    values = listed.get("values") if isinstance(listed, Mapping) else None
    return [value for value in values or () if isinstance(value, Mapping)]


def _spaceless(text: str) -> str:
    return "".join(fold(text.replace("_", " ")).split())


def _whites(values: list[Mapping[str, Any]]) -> dict[str, int]:
    whites: dict[str, int] = {}
    for value in values:
        kelvin, template = value.get("out"), value.get("in")
        if isinstance(kelvin, int) and isinstance(template, str):
            for form in sample_expression(parse_sentence(template).expression):
                whites.setdefault(_spaceless(form), kelvin)
    return whites


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
