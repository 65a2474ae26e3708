"""What an eighteenth walk in a real browser found wrong (a new household's first evening, in
Spanish and then in Dutch: the integration added, the Assist dialog, the integration's pages)."""

from __future__ import annotations

from collections.abc import Iterator
from collections.abc import Mapping
from pathlib import Path
import re
from unittest.mock import patch

import pytest
from pytest_homeassistant_custom_component.test_util.aiohttp import AiohttpClientMocker

from custom_components.local_agent.const import DOMAIN
from custom_components.local_agent.models import runtime_package
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from homeassistant.helpers.translation import async_get_translations

from .conftest import Agent
from .conftest import async_setup_model_entry
from .conftest import speech
from .flow_helpers import translation
from .scene import ask_to_unlock
from .scripted_model import ScriptedWorker
from .scripted_model import call
from .test_everyday_twenty_second import WAKE_UP
from .test_everyday_twenty_second import a_wake_up_time
from .test_flow_strings import render
from .test_runtime_install import MUSL_X86
from .test_runtime_install import PUBLISHED
from .test_safety import FRONT_DOOR
from .test_safety import Scene
from .test_safety import locks_exposed
from .test_safety import make_scene
from .test_safety import scene

__all__ = ["locks_exposed", "make_scene", "scene"]


async def _spanish(
    hass: HomeAssistant, category: str, key: str, placeholders: Mapping[str, str] | None
) -> str:
    """What the Spanish frontend shows for one of our strings."""
    strings = await async_get_translations(hass, "es", category, {DOMAIN})
    return render(strings[f"component.{DOMAIN}.{category}.{key}"], dict(placeholders or {}), key)


async def test_the_runtime_offer_without_a_known_size_shows_no_question_mark(
    hass: HomeAssistant, aioclient_mock: AiohttpClientMocker
) -> None:
    """The walk added Local Agent on a machine that cannot reach the release server (as most
    first evenings offline, or before the wheel is published): the first dialog read "Local
    Agent necesita su entorno de ejecución, ?, para esta máquina (manylinux_2_28_x86_64)", a
    bare "?" where the size goes. A size nobody could tell is now left out of the sentence."""
    aioclient_mock.head(PUBLISHED, exc=TimeoutError())
    with (
        patch.object(runtime_package, "supported_platforms", return_value=MUSL_X86),
        patch.object(runtime_package, "llama_cpp_version", return_value=None),
    ):
        result = await hass.config_entries.flow.async_init(DOMAIN, context={"source": "user"})

    assert result["step_id"] == "runtime"
    shown = await _spanish(
        hass, "config", "step.runtime.description", result["description_placeholders"]
    )
    assert "entorno de ejecución para esta máquina (musllinux_1_2_x86_64):" in shown
    assert "?," not in shown


async def test_an_entry_without_the_runtime_says_why_in_spanish_only(
    hass: HomeAssistant, qwen35_model_path: Path
) -> None:
    """The walk chose "Más tarde" in that dialog and added the model file: the entry's card
    read "no está instalado (llama_cpp is not installed). Abre Configuración > Reparaciones",
    the one English sentence of the page. The entry's error now says it in the user's
    language only."""
    with patch.object(runtime_package, "llama_cpp_version", return_value=None):
        entry = await async_setup_model_entry(hass, qwen35_model_path)

    assert entry.state is ConfigEntryState.SETUP_ERROR
    assert entry.error_reason_translation_key is not None
    shown = await _spanish(
        hass,
        "exceptions",
        f"{entry.error_reason_translation_key}.message",
        entry.error_reason_translation_placeholders,
    )
    assert shown == (
        "llama-cpp-python, el entorno de ejecución que ejecuta el modelo, no está instalado. "
        "Abre Configuración > Reparaciones para instalarlo."
    )


@pytest.mark.parametrize(
    ("language", "done"),
    [
        ("es", "Hecho: bajar el brillo de Kitchen Lights un 20%."),
        ("nl", "Klaar: de helderheid van Kitchen Lights met 20% verlagen."),
        ("en", "Lowered the brightness of Kitchen Lights by 20%."),
    ],
)
async def test_a_light_dimmed_by_a_fifth_is_said_lowered_not_changed_by_minus(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    language: str,
    done: str,
) -> None:
    """The walk said "baja un 20 % Kitchen Lights": the light went from 180 to 130 and the
    answer read "Hecho: cambiar el brillo de Kitchen Lights en -20 %." (Dutch "met -20 %
    wijzigen", English "by -20 %"), a minus sign where a person says "lower". A step down is
    now said as one, by its size."""
    scripted_worker.will_write(
        call("light", action="turn_on", entity_id="light.kitchen_lights", brightness_step_pct=-20)
    )

    result = await scripted_agent.ask("…", context=person, language=language)

    assert speech(result) == done
    light = hass.states.get("light.kitchen_lights")
    assert light is not None
    assert light.attributes["brightness"] < 180


@pytest.mark.parametrize(
    ("fields", "done"),
    [
        ({"time": "07:30:00"}, "Hecho: ajustar Wake up a las 07:30."),
        ({"date": "2026-12-24"}, "Hecho: ajustar Wake up al 24 de diciembre de 2026."),
        (
            {"date": "2026-12-24", "time": "07:30:00"},
            "Hecho: ajustar Wake up al 24 de diciembre de 2026 a las 07:30.",
        ),
    ],
)
async def test_a_date_and_time_helper_set_in_spanish_reads_a_las(
    hass: HomeAssistant,
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    fields: dict[str, str],
    done: str,
) -> None:
    """The walk said "pon Despertador a las 7:30": the answer read "Hecho: ajustar
    Despertador en 07:30:00", a preposition no Spanish speaker puts before a time (the
    other Spanish settings read "ajustar … a/al …")."""
    await a_wake_up_time(hass)
    scripted_worker.will_write(
        call("input_datetime", action="set_datetime", entity_id=WAKE_UP, **fields)
    )

    result = await scripted_agent.ask("…", context=person, language="es")

    assert speech(result) == done


# A word in quotes, however the language quotes it: «sí», „ja”, "yes".
QUOTED = re.compile(r"«\xa0?\w+\xa0?»|„\w+[“”]|\"\w+\"")


def _pin_labels(strings: object, key: str = "") -> Iterator[str]:
    if isinstance(strings, dict):
        for name, value in strings.items():
            yield from _pin_labels(value, f"{key}.{name}")
    elif isinstance(strings, str) and key.endswith(".data.confirmation_pin"):
        yield strings


@pytest.mark.parametrize("language", ["de", "fr", "es", "it", "nl", "pt"])
def test_the_pin_label_quotes_yes_as_the_question_does(language: str) -> None:
    """The Spanish security section read 'PIN en lugar de "sí"' where the question the
    person hears reads 'Di «sí» para confirmar' (Dutch „ja”, Portuguese «sim» likewise; the
    English question quotes nothing)."""
    strings = translation(language)
    asked = QUOTED.findall(strings["exceptions"]["confirm_question"]["message"])
    labels = set(_pin_labels(strings))

    assert len(asked) == 1
    assert labels
    assert all(QUOTED.findall(label) == asked for label in labels)


@pytest.mark.parametrize(
    ("said", "answer", "state", "outcomes"),
    [
        ("nee hoor", "Oké, dat doe ik niet.", "locked", ["proposed", "cancelled"]),
        (
            "doe maar hoor",
            "Klaar: Front Door ontgrendelen.",
            "unlocked",
            ["proposed", "confirmed", "executed"],
        ),
    ],
)
async def test_a_dutch_no_with_hoor_is_a_no(
    scene: Scene, said: str, answer: str, state: str, outcomes: list[str]
) -> None:
    """The Dutch walk said "nee hoor" (a plain Dutch "no") to "Garage Door sluiten?": the
    answer was "niet gedaan, want je antwoord was geen gewoon ja" and the words went on to
    the model as a new request, while "ja hoor" was read as a yes. "hoor" now goes with a
    yes or a no as "graag" and "dank je" do."""
    question = await ask_to_unlock(scene.agent, scene.worker, scene.person, "nl")
    asked = len(scene.worker.requests)

    result = await scene.reply(question, said, language="nl")

    assert speech(result) == answer
    assert len(scene.worker.requests) == asked
    assert scene.state(FRONT_DOOR) == state
    assert scene.outcomes() == outcomes
