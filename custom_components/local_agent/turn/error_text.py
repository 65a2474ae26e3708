"""The one place engine errors become sentences: translation keys and their placeholders.

The engine says what failed (an error class, a server failure's kind, its facts); the keys are
under "exceptions" in translations/*.json.
"""

from __future__ import annotations

from typing import Final

from custom_components.local_agent.engine.errors import ContextTooSmallError
from custom_components.local_agent.engine.errors import EngineError
from custom_components.local_agent.engine.errors import EngineOutOfMemoryError
from custom_components.local_agent.engine.errors import ModelUnloadedError
from custom_components.local_agent.engine.server.errors import ServerError
from custom_components.local_agent.engine.server.errors import ServerFailure

SERVER_FAILURE_KEYS: Final[dict[ServerFailure, str]] = {
    ServerFailure.FAILED: "server_failed",
    ServerFailure.UNREACHABLE: "server_unreachable",
    ServerFailure.AUTH: "server_auth_failed",
    ServerFailure.MODEL_MISSING: "server_model_missing",
    ServerFailure.TOOLS_UNSUPPORTED: "server_tools_unsupported",
    ServerFailure.TIMEOUT: "server_timeout",
    ServerFailure.CONNECTION_LOST: "server_connection_lost",
    ServerFailure.CONTEXT_OVERFLOW: "server_context_overflow",
}


def engine_error_text(
    err: EngineError, *, context_key: str = "context_too_small"
) -> tuple[str, dict[str, str]]:
    """Return the translation key and placeholders that say what went wrong.

    context_key: the sentence for a prompt too long for the context (a conversation and an
    AI task say it differently).
    """
    if isinstance(err, ServerError):
        return SERVER_FAILURE_KEYS[err.kind], err.facts
    if isinstance(err, ContextTooSmallError):
        return context_key, {
            "prompt_tokens": str(err.prompt_tokens),
            "context_size": str(err.n_ctx),
        }
    if isinstance(err, ModelUnloadedError):
        return "model_unloaded", {}
    if isinstance(err, EngineOutOfMemoryError):
        # Said whole in the conversation's language: the engine's detail is English.
        return "generation_out_of_memory", {}
    return "generation_failed", {"error": str(err)}


def server_failure_key(kind: ServerFailure) -> str:
    """Return the translation key of a server failure."""
    return SERVER_FAILURE_KEYS[kind]
