"""What a sixteenth walk in a real browser found wrong (automations, the lifecycle, Dutch)."""

from __future__ import annotations

import pytest

from homeassistant.core import HomeAssistant

from .conftest import speech
from .scripted_model import answer
from .scripted_model import call
from .test_browser_walk_fifteenth import describer
from .test_browser_walk_fifteenth import fired
from .test_safety import FRONT_DOOR
from .test_safety import Scene
from .test_safety import locks_exposed
from .test_safety import make_scene
from .test_safety import scene

__all__ = ["locks_exposed", "make_scene", "scene"]


@pytest.mark.parametrize("language", ["NL", "nl_NL", "Nl-be"])
async def test_a_language_tag_written_otherwise_is_spoken_whole(
    hass: HomeAssistant, scene: Scene, language: str
) -> None:
    """`language: NL` in an automation's Conversation: Process gave half Dutch, half English.

    The walk wrote the language as the action's field allows it: "Front Door ontgrendelen?
    Say yes to confirm.", then "Done: Front Door ontgrendelen." ("nl_NL": all English, and
    "nee" was not heard as a no). A language tag's case does not matter (BCP 47) and a POSIX
    underscore names the same language: each is now Dutch throughout, and so is the logbook.
    """
    describe = describer(hass)
    events = fired(hass)
    scene.worker.will_write(answer(call("lock", action="unlock", entity_id=FRONT_DOOR)))

    question = await scene.agent.ask("open", context=scene.person, language=language)
    done = await scene.agent.ask(
        "ja", conversation_id=question.conversation_id, context=scene.person, language=language
    )
    await hass.async_block_till_done()

    assert speech(question) == "Front Door ontgrendelen? Zeg „ja” om te bevestigen."
    assert speech(done) == "Klaar: Front Door ontgrendelen."
    assert [describe(event)["message"] for event in events] == [
        "voorgesteld: Front Door ontgrendelen",
        "bevestigd: Front Door ontgrendelen",
        "uitgevoerd: Front Door ontgrendelen",
    ]
    assert hass.states.get(FRONT_DOOR).state == "unlocked"  # type: ignore[union-attr]
