"""A failed call said once, counts in the person's words, a device's request no dearer.

- "Accendi la luce al 150 %": the model's call failed and it wrote "Non ha funzionato."; the
  Assist dialog streamed that, then showed the error's speech, our sentence and the model's
  again. What was streamed is not said again at the end.
"""

from __future__ import annotations

from typing import Final

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import HomeAssistant

from .conftest import Assist
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_slow_turns import assistant_contents
from .test_slow_turns import final_speech
from .test_slow_turns import intent_output
from .test_slow_turns import streamed_text

BED_LIGHT: Final = "light.bed_light"


async def test_a_failed_calls_streamed_answer_is_not_said_again_by_the_error(
    hass: HomeAssistant, assist: Assist, scripted_worker: ScriptedWorker
) -> None:
    async_expose_entity(hass, "conversation", BED_LIGHT, True)
    scripted_worker.will_write(
        answer(call("light", action="turn_on", entity_id=BED_LIGHT, brightness_pct=150)),
        answer("That did not work."),
    )

    events = await assist("bed light to 150 percent")

    # The dialog shows the stream in one bubble, an error's speech in another.
    assert streamed_text(events) == "That did not work."
    assert intent_output(events)["response"]["response_type"] == "error"
    assert final_speech(events) == (
        "I could not turn on Bed Light. The range is 0 to 100 %, not 150 %."
    )
    # The model reads its own words and ours in the next turn: both stay in the chat log.
    said = [c.content for c in assistant_contents(hass, events) if c.content]
    assert said[-2:] == [
        "That did not work.",
        "I could not turn on Bed Light. The range is 0 to 100 %, not 150 %.",
    ]
