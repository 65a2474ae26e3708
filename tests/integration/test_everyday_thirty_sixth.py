"""What core's own intents say through the agent, and everyday answers in the published homes.

- A timer intent that found no timer to cancel or to ask about: core refuses it with a
  sentence of its own ("Sorry, I couldn't find that timer"), and its own agent says that
  sentence in the person's language. The agent said "the model's call did not go through",
  which tells the person nothing. Now it says core's sentence, once.
"""

from __future__ import annotations

import pytest

from homeassistant.core import Context
from homeassistant.core import HomeAssistant

from .conftest import speech
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call
from .test_assist_everyday import timer_device
from .test_voice_twenty_eighth import assist_agent

NO_TIMER = {
    "en": "Sorry, I couldn't find that timer.",
    "de": "Diesen Timer konnte ich nicht finden.",
    "fr": "Désolé, je n'ai pas trouvé ce minuteur.",
    "es": "Lo siento, no se pudo encontrar ese temporizador.",
}


@pytest.mark.parametrize("tool", ["HassCancelTimer", "HassIncreaseTimer", "HassPauseTimer"])
@pytest.mark.parametrize("language", list(NO_TIMER))
async def test_a_timer_intent_that_found_no_timer_says_why_in_the_persons_language(
    hass: HomeAssistant,
    demo_home: None,
    scripted_worker: ScriptedWorker,
    person: Context,
    language: str,
    tool: str,
) -> None:
    agent = await assist_agent(hass, scripted_worker)
    arguments = {"minutes": 5} if tool == "HassIncreaseTimer" else {}
    scripted_worker.will_write(answer(call(f"intent__{tool}", **arguments)), answer(""))

    result = await agent.ask(
        "cancel the timer", device_id=timer_device(hass), context=person, language=language
    )

    assert speech(result) == NO_TIMER[language]
    # The model reads core's error as core wrote it.
    assert "Timer not found" in scripted_worker.requests[-1].dynamic_prompt
