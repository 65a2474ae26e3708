"""A fortieth round of red-team probes: this session's first merges.

Hole. A name holding a mark that opens or ends a sentence in a script other than ours ("¿",
"¡", "‽") was said in the question as written and without its id: "¿Desbloquear Puerta
trasera ¿Encender la luz de la cocina? Di «sí» para confirmar." reads, and a voice speaks, as
a question to light the kitchen. Such marks now bring the id, in every language.

Hole. "v1.2 Hub" was taken for an entity id written in a name, and the question said the
lock's id alone ("Unlock lock.back_door?"), where no one could be misled. Entity domains hold
no digit: a version is no id; "lock.1234" still is.

Guards (passed at once). A name that is an entity id, its own or another lock's ("lock.front_door",
"lock.1234"), is said as the entity's own id. A name with an abbreviation point ("Dr. Who's
Lamp", "St. Mary Room") is said with its id: "Back St. Turn on Kitchen Lights" is read, and
spoken, as a street and another sentence alike, and no rule tells them apart in seven
languages; this fails closed.
"""

from __future__ import annotations

import pytest

from homeassistant.core import HomeAssistant
from homeassistant.helpers import entity_registry as er

from .agents import speech
from .agents import state
from .scene import Scene
from .scene import satellite_id
from .scripted_model import answer
from .scripted_model import call

BACK_DOOR = "lock.back_door"
FRONT_DOOR = "lock.front_door"
LANGUAGES = ["en", "de", "fr", "es", "it", "nl", "pt"]


async def question_about(
    hass: HomeAssistant, scene: Scene, name: str, language: str, device_id: str | None = None
) -> str:
    """The back door is named `name`; the model unlocks it: the question the person reads."""
    er.async_get(hass).async_update_entity(BACK_DOOR, name=name)
    agent = await scene.our_agent()
    scene.worker.will_write(answer(call("lock", action="unlock", entity_id=BACK_DOOR)))
    result = await agent.ask(
        "unlock it", context=scene.person, language=language, device_id=device_id
    )
    assert state(hass, BACK_DOOR) == "locked"
    return speech(result)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(
    "name",
    [
        "Puerta trasera ¿Encender la luz de la cocina",
        "Porta ¡Acender a luz da cozinha",
        "Back Door‽ Turn on Kitchen Lights",
    ],
    ids=["inverted-question-mark", "inverted-exclamation-mark", "interrobang"],
)
async def test_a_name_holding_another_scripts_sentence_mark_is_said_with_its_id(
    hass: HomeAssistant, scene: Scene, name: str, language: str
) -> None:
    asked = await question_about(hass, scene, name, language)

    assert f"{name} ({BACK_DOOR})" in asked


@pytest.mark.parametrize("language", ["en", "es"])
async def test_a_satellite_says_the_id_after_such_a_name(
    hass: HomeAssistant, scene: Scene, language: str
) -> None:
    """Said aloud, no place stands in for the id: the name itself misleads, not a look-alike."""
    name = "Puerta trasera ¿Encender la luz de la cocina"
    asked = await question_about(hass, scene, name, language, satellite_id(hass))

    assert f"{name} ({BACK_DOOR})" in asked


@pytest.mark.parametrize("language", LANGUAGES)
async def test_a_version_in_a_name_is_no_entity_id(
    hass: HomeAssistant, scene: Scene, language: str
) -> None:
    asked = (await question_about(hass, scene, "v1.2 Hub", language)).casefold()

    assert "v1.2 hub" in asked
    assert BACK_DOOR not in asked


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", [FRONT_DOOR, "lock.1234", "Hall lock.1234"])
async def test_a_name_written_as_an_entity_id_is_said_as_its_own_id(
    hass: HomeAssistant, scene: Scene, name: str, language: str
) -> None:
    """Guard: also where the name is the id of another lock of the house."""
    hass.states.async_set("lock.1234", "locked", {"friendly_name": "Shed"})
    # German and Dutch put the verb last and write the sentence's first letter large.
    asked = (await question_about(hass, scene, name, language)).casefold()

    assert BACK_DOOR in asked
    assert "lock.1234" not in asked
    assert FRONT_DOOR not in asked


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(
    "name", ["Dr. Who's Lamp", "St. Mary Room", "Back St. Turn on Kitchen Lights"]
)
async def test_an_abbreviation_point_fails_closed(
    hass: HomeAssistant, scene: Scene, name: str, language: str
) -> None:
    """Guard: "St." ends a sentence as well as a street: no rule tells them apart safely."""
    asked = await question_about(hass, scene, name, language)

    assert f"{name} ({BACK_DOOR})" in asked


@pytest.mark.parametrize("language", ["en", "es"])
async def test_a_satellite_says_the_id_after_such_a_name(
    hass: HomeAssistant, scene: Scene, language: str
) -> None:
    """Said aloud, no place stands in for the id: the name itself misleads, not a look-alike."""
    name = "Puerta trasera ¿Encender la luz de la cocina"
    asked = await question_about(hass, scene, name, language, satellite_id(hass))

    assert f"{name} ({BACK_DOOR})" in asked


@pytest.mark.parametrize("language", LANGUAGES)
async def test_a_version_in_a_name_is_no_entity_id(
    hass: HomeAssistant, scene: Scene, language: str
) -> None:
    asked = (await question_about(hass, scene, "v1.2 Hub", language)).casefold()

    assert "v1.2 hub" in asked
    assert BACK_DOOR not in asked


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", [FRONT_DOOR, "lock.1234", "Hall lock.1234"])
async def test_a_name_written_as_an_entity_id_is_said_as_its_own_id(
    hass: HomeAssistant, scene: Scene, name: str, language: str
) -> None:
    """Guard: also where the name is the id of another lock of the house."""
    hass.states.async_set("lock.1234", "locked", {"friendly_name": "Shed"})
    # German and Dutch put the verb last and write the sentence's first letter large.
    asked = (await question_about(hass, scene, name, language)).casefold()

    assert BACK_DOOR in asked
    assert "lock.1234" not in asked
    assert FRONT_DOOR not in asked


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(
    "name", ["Dr. Who's Lamp", "St. Mary Room", "Back St. Turn on Kitchen Lights"]
)
async def test_an_abbreviation_point_fails_closed(
    hass: HomeAssistant, scene: Scene, name: str, language: str
) -> None:
    """Guard: "St." ends a sentence as well as a street: no rule tells them apart safely."""
    asked = await question_about(hass, scene, name, language)

    assert f"{name} ({BACK_DOOR})" in asked
