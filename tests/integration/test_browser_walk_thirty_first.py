"""What a thirty-first walk in a real browser found wrong (a Spanish and then a Portuguese
household's first evening: set-up, Assist, options, diagnostics, logbook).

- "Pon el termostato a 21,5 grados" to a thermostat that holds a range (heat_cool: a low and a
  high target, no single one): the model called set_temperature with temperature 21.5 and was
  told only "Termostato (climate.ecobee) does not support temperature.", nothing it could
  retry with, and the person heard "Eso no es posible con Termostato." The model is now told
  which of the action's fields the thermostat takes (target_temp_low, target_temp_high), and a
  second round that uses them sets the range. Where the model gives up, the person now
  hears why ("Ecobee solo acepta un rango: di una temperatura mínima y una máxima.").
"""

from __future__ import annotations

from typing import Final

import pytest

from homeassistant.components.homeassistant.exposed_entities import async_expose_entity
from homeassistant.core import Context

from .conftest import Agent
from .conftest import speech
from .scripted_model import ScriptedWorker
from .scripted_model import answer
from .scripted_model import call

RANGE_THERMOSTAT: Final = "climate.ecobee"


def one_temperature_then(
    scripted_agent: Agent, scripted_worker: ScriptedWorker, *then: str
) -> None:
    """Expose the range thermostat; the model sets it to one temperature, then writes `then`."""
    async_expose_entity(scripted_agent.hass, "conversation", RANGE_THERMOSTAT, True)
    scripted_worker.will_write(
        answer(
            call("climate", action="set_temperature", entity_id=RANGE_THERMOSTAT, temperature=21.5)
        ),
        *then,
    )


async def test_a_range_thermostat_tells_the_model_the_fields_it_takes(
    scripted_agent: Agent, scripted_worker: ScriptedWorker, person: Context
) -> None:
    hass = scripted_agent.hass
    one_temperature_then(
        scripted_agent,
        scripted_worker,
        answer(
            call(
                "climate",
                action="set_temperature",
                entity_id=RANGE_THERMOSTAT,
                target_temp_low=21.5,
                target_temp_high=24,
            )
        ),
        answer("Listo."),
    )

    result = await scripted_agent.ask(
        "pon el termostato a 21,5 grados", context=person, language="es"
    )
    await hass.async_block_till_done()

    told = scripted_worker.requests[1].dynamic_prompt
    assert "does not support temperature. set_temperature takes: target_temp_low," in told
    assert "target_temp_high" in told
    thermostat = hass.states.get(RANGE_THERMOSTAT)
    assert thermostat is not None
    assert thermostat.attributes["target_temp_low"] == 21.5
    assert "21,5" in speech(result)


@pytest.mark.parametrize(
    ("language", "asked", "told"),
    [
        (
            "es",
            "pon el termostato a 21,5 grados",
            "Ecobee solo acepta un rango: di una temperatura mínima y una máxima.",
        ),
        (
            "pt",
            "põe o termóstato a 21,5 graus",
            "Ecobee só aceita um intervalo: diga uma temperatura mínima e uma máxima.",
        ),
    ],
)
async def test_a_range_thermostat_given_one_temperature_says_it_takes_a_range(
    scripted_agent: Agent,
    scripted_worker: ScriptedWorker,
    person: Context,
    language: str,
    asked: str,
    told: str,
) -> None:
    one_temperature_then(scripted_agent, scripted_worker, answer("No."))

    result = await scripted_agent.ask(asked, context=person, language=language)

    assert told in speech(result)
