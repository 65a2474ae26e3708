"""Engine errors become the sentences of translations/en.json, with every placeholder filled."""

from __future__ import annotations

import json
from pathlib import Path
import string

import pytest

from custom_components.local_agent.engine.errors import ContextTooSmallError
from custom_components.local_agent.engine.errors import EngineError
from custom_components.local_agent.engine.server.errors import ServerAuthError
from custom_components.local_agent.engine.server.errors import ServerConnectionLostError
from custom_components.local_agent.engine.server.errors import ServerContextOverflowError
from custom_components.local_agent.engine.server.errors import ServerError
from custom_components.local_agent.engine.server.errors import ServerFailure
from custom_components.local_agent.engine.server.errors import ServerModelMissingError
from custom_components.local_agent.engine.server.errors import ServerResponseError
from custom_components.local_agent.engine.server.errors import ServerTimeoutError
from custom_components.local_agent.engine.server.errors import ServerToolsNotSupportedError
from custom_components.local_agent.engine.server.errors import ServerUnreachableError
from custom_components.local_agent.turn.error_text import SERVER_FAILURE_KEYS
from custom_components.local_agent.turn.error_text import engine_error_text

EXCEPTIONS = json.loads(
    (Path(__file__).parents[1] / "custom_components/local_agent/translations/en.json").read_text(
        encoding="utf-8"
    )
)["exceptions"]
URL = "http://127.0.0.1:8080"

ERRORS: list[EngineError] = [
    ServerUnreachableError(URL, "connection refused"),
    ServerAuthError(URL, "401"),
    ServerModelMissingError(URL, "botpsy", ["other"]),
    ServerToolsNotSupportedError(URL, "no tools"),
    ServerTimeoutError(URL, "nothing for 60 s"),
    ServerConnectionLostError(URL, "reset"),
    ServerContextOverflowError(URL, "too long", prompt_tokens=9000, n_ctx=4096),
    ServerResponseError(URL, "HTTP 500", status=500),
    ContextTooSmallError(9000, 4096, 64),
    EngineError("llama.cpp failed"),
]


def placeholders_of(message: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(message) if name}


def test_every_server_failure_has_a_sentence() -> None:
    assert set(SERVER_FAILURE_KEYS) == set(ServerFailure)
    assert all(key in EXCEPTIONS for key in SERVER_FAILURE_KEYS.values())
    kinds = {type(err).kind for err in ERRORS if isinstance(err, ServerError)}
    assert kinds == set(ServerFailure)  # one error class of each kind above


@pytest.mark.parametrize("error", ERRORS, ids=lambda error: type(error).__name__)
def test_the_sentence_gets_every_placeholder_it_names(error: EngineError) -> None:
    key, values = engine_error_text(error)
    message = EXCEPTIONS[key]["message"]
    assert placeholders_of(message) <= set(values), (key, values)
    sentence = message.format(**values)
    assert "{" not in sentence


def test_a_task_says_a_prompt_too_long_its_own_way() -> None:
    key, values = engine_error_text(
        ContextTooSmallError(9000, 4096, 64), context_key="task_too_long"
    )
    assert key == "task_too_long"
    assert EXCEPTIONS[key]["message"].format(**values).startswith("This task is too long")
