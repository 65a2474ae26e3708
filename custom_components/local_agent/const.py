"""Constants for the Local Agent integration."""

from __future__ import annotations

import logging
from typing import Final

DOMAIN: Final = "local_agent"
LOGGER = logging.getLogger(__package__)

CONF_MODEL_PATH: Final = "model_path"

GGUF_MAGIC: Final = b"GGUF"
