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
"""

from __future__ import annotations

from typing import Final

from aiohttp import web
import pytest

from custom_components.local_agent.const import CONF_SERVER_MODE
from custom_components.local_agent.const import CONF_SERVER_URL
from custom_components.local_agent.const import DOMAIN
from homeassistant import config_entries
from homeassistant.core import HomeAssistant
from testing.fake_openai import FakeOpenAI
from testing.fake_openai import serve_fake_openai

from .conftest import speech
from .flow_helpers import async_through_progress
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


class WebPageServer(FakeOpenAI):
    """A web server that is no model server: an HTML error page for every request."""

    async def models_handler(self, request: web.Request) -> web.Response:
        return error_page(404)

    async def generate_handler(self, request: web.Request) -> web.StreamResponse:
        return error_page(501)


class ReplacedServer(FakeOpenAI):
    """A model server whose port another web server took once the entry was set up."""

    async def generate_handler(self, request: web.Request) -> web.StreamResponse:
        return error_page(501)


@pytest.mark.parametrize(
    ("language", "told"),
    [
        ("fr", "ce n'est pas un serveur de modèles\u00a0:"),
        ("it", "ma non è un server di modelli:"),
    ],
)
async def test_a_web_server_on_the_port_is_said_to_be_no_model_server(
    hass: HomeAssistant, socket_enabled: None, language: str, told: str
) -> None:
    async with serve_fake_openai(WebPageServer()) as web_server:
        result = await hass.config_entries.flow.async_init(
            DOMAIN, context={"source": config_entries.SOURCE_USER}
        )
        result = await hass.config_entries.flow.async_configure(
            result["flow_id"], {"next_step_id": "server"}
        )
        result = await hass.config_entries.flow.async_configure(
            result["flow_id"],
            {CONF_SERVER_URL: web_server.url, CONF_SERVER_MODE: "completions"},
        )
        result = await async_through_progress(hass, result)

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
    async with serve_fake_openai(ReplacedServer()) as replaced:
        agent = await async_setup_server_agent(hass, replaced.url, "fake-model")

        result = await agent.ask("allume la lumière", language=language)

    said = speech(result)
    assert "HTTP 501: Not Implemented" in said
    assert "<" not in said
