"""What a thirty-second walk in a real browser found wrong (a French and then an Italian
household when things go wrong: model files, a server that stops or is the wrong one, talking
while the model is not ready).

- A server entry pointed at a port where another web server answers (`python -m http.server`,
  a router's page, Home Assistant itself): the dialog said "Le serveur a répondu par une
  erreur : HTTP 404: <!DOCTYPE HTML> <html lang="en"> <head> <meta charset=…": the page's
  markup, cut at 300 characters. It now says that something answers there but it is no model
  server, and which port a model server listens on.
- A running server entry whose server was replaced by such a web server: Assist answered (and a
  voice satellite would have read aloud) "Désolé, le serveur de modèle … a échoué : HTTP 501:
  <!DOCTYPE HTML> <html …". It now names the status ("HTTP 501: Not Implemented").
- That entry reloaded (or Home Assistant restarted) with the web server still on the port: the
  entry card and Assist said "Il server del modello … non è raggiungibile. Controlla che sia in
  esecuzione.", though something answered there. They now say that something else answers at
  the address and it is no model server.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from aiohttp import web
import pytest

from homeassistant.components import conversation
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import Context
from homeassistant.core import HomeAssistant
from testing.fake_openai import FakeOpenAI
from testing.fake_openai import serve_fake_openai

from .conftest import entry_state
from .conftest import speech
from .flow_helpers import async_check_server_address
from .flow_helpers import translation
from .server.conftest import async_setup_server_agent

# What `python -m http.server` sends for a path it does not have or a method it does not take.
ERROR_PAGE: Final = (
    '<!DOCTYPE HTML>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
    "<title>Error response</title>\n</head>\n<body>\n<h1>Error response</h1>\n"
    "<p>Error code: {status}</p>\n</body>\n</html>\n"
)


def error_page(status: int) -> web.Response:
    return web.Response(
        status=status, text=ERROR_PAGE.format(status=status), content_type="text/html"
    )


@dataclass
class PortTakenServer(FakeOpenAI):
    """A model server until `taken`: then another web server answers on its port, with an HTML
    page for every request (for /v1/models: `page_status`, 200 where a router shows its login
    page for any path)."""

    taken: bool = False
    page_status: int = 404

    async def models_handler(self, request: web.Request) -> web.Response:
        if self.taken:
            return error_page(self.page_status)
        return await super().models_handler(request)

    async def generate_handler(self, request: web.Request) -> web.StreamResponse:
        return error_page(501) if self.taken else await super().generate_handler(request)


@pytest.mark.parametrize(
    ("language", "page_status", "told"),
    [
        ("fr", 404, "ce n'est pas un serveur de modèles\u00a0:"),
        ("it", 404, "ma non è un server di modelli:"),
        ("it", 200, "ma non è un server di modelli:"),
    ],
)
async def test_a_web_server_on_the_port_is_said_to_be_no_model_server(
    hass: HomeAssistant, socket_enabled: None, language: str, page_status: int, told: str
) -> None:
    web_page = PortTakenServer(taken=True, page_status=page_status)
    async with serve_fake_openai(web_page) as web_server:
        result = await async_check_server_address(hass, web_server.url)

    assert result["errors"] == {"base": "not_a_model_server"}
    placeholders = result["description_placeholders"]
    assert placeholders is not None
    assert "<" not in placeholders["error"]
    text = translation(language)["config"]["error"]["not_a_model_server"]
    assert told in text.format(**placeholders)


@pytest.mark.parametrize("language", ["fr", "it"])
async def test_a_web_page_in_place_of_the_server_is_not_read_aloud(
    hass: HomeAssistant, socket_enabled: None, language: str
) -> None:
    server = PortTakenServer()
    async with serve_fake_openai(server):
        agent = await async_setup_server_agent(hass, server.url, "fake-model")
        server.taken = True

        result = await agent.ask("allume la lumière", language=language)

    said = speech(result)
    assert "HTTP 501: Not Implemented" in said
    assert "<" not in said


async def test_an_entry_whose_port_another_server_took_says_so(
    hass: HomeAssistant, socket_enabled: None
) -> None:
    """The entry card and Assist said "The model server … is not reachable. Check that it is
    running." of a port where a web server answered: untrue, and it sent the user to restart a
    server that was not the problem."""
    server = PortTakenServer()
    async with serve_fake_openai(server):
        agent = await async_setup_server_agent(hass, server.url, "fake-model")
        server.taken = True
        await hass.config_entries.async_reload(agent.entry.entry_id)
        await hass.async_block_till_done()

        result = await conversation.async_converse(
            hass, "accendi la luce", None, Context(), "it", agent_id=agent.entity_id
        )

    assert entry_state(agent.entry) is ConfigEntryState.SETUP_RETRY
    assert agent.entry.error_reason_translation_key == "server_not_an_api"
    assert "non è un server di modelli" in speech(result)
