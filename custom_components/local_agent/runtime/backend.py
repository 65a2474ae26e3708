"""Where a model entry's model runs: in this process (llama.cpp) or on a model server.

The entry's data names it (CONF_BACKEND); entries made before that field existed (minor
version 1) get it from the migration in __init__.py, by the rule entry_backend applies.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from custom_components.local_agent.const import CONF_BACKEND
from custom_components.local_agent.const import CONF_SERVER_URL
from homeassistant.config_entries import ConfigEntry


class Backend(StrEnum):
    """The kinds of model entry."""

    LLAMA_CPP = "llama_cpp"
    SERVER = "server"


def entry_backend(entry: ConfigEntry | Mapping[str, Any]) -> Backend:
    """Return the backend an entry (or its data) names.

    Data from before the field (not yet migrated) names a server by its address.
    """
    data = entry.data if isinstance(entry, ConfigEntry) else entry
    value = data.get(CONF_BACKEND)
    if value is None:
        return Backend.SERVER if CONF_SERVER_URL in data else Backend.LLAMA_CPP
    return Backend(value)
