"""Constants for the Local Agent integration."""

from __future__ import annotations

import logging
from typing import Final

DOMAIN: Final = "local_agent"
LOGGER = logging.getLogger(__package__)
# The assistant Home Assistant's exposure settings name for Assist (and so for our agents).
ASSISTANT: Final = "conversation"


# Model entry (data and options). CONF_BACKEND: where the model runs (backend.Backend).
CONF_BACKEND: Final = "backend"
CONF_MODEL_PATH: Final = "model_path"
CONF_CONTEXT_SIZE: Final = "context_size"
CONF_THREADS: Final = "threads"
CONF_FLASH_ATTENTION: Final = "flash_attention"
CONF_KEY_CACHE: Final = "key_cache"
# 0: automatic, sized from the home's prompt and free memory (engine/local/context_size.py).
DEFAULT_CONTEXT_SIZE: Final = 0
# The context that memory estimates assume (where an automatic one starts).
ESTIMATED_CONTEXT_SIZE: Final = 8192

# Model entry on a server (data; concurrency and timeouts are options). The API key is
# homeassistant.const.CONF_API_KEY.
CONF_SERVER_URL: Final = "server_url"
CONF_SERVER_MODEL: Final = "server_model"
CONF_SERVER_MODE: Final = "server_mode"
CONF_MAX_CONCURRENT: Final = "max_concurrent"
CONF_CONNECT_TIMEOUT: Final = "connect_timeout"
CONF_READ_TIMEOUT: Final = "read_timeout"
CONF_SERVER_GRAMMAR: Final = "server_grammar"

# Conversation agent subentry.
SUBENTRY_CONVERSATION: Final = "conversation"
CONF_HOME_TOOLS: Final = "home_tools"
CONF_THINKING: Final = "thinking"
CONF_THINKING_BUDGET: Final = "thinking_budget"
CONF_TEMPERATURE: Final = "temperature"
CONF_TOP_P: Final = "top_p"
CONF_TOP_K: Final = "top_k"
CONF_MIN_P: Final = "min_p"
CONF_PRESENCE_PENALTY: Final = "presence_penalty"
CONF_MAX_TOKENS: Final = "max_tokens"
CONF_MAX_ROUNDS: Final = "max_tool_rounds"
CONF_MODEL_PHRASES_ANSWERS: Final = "model_phrases_answers"
CONF_HISTORY_TOKENS: Final = "history_tokens"

DEFAULT_AGENT_NAME: Final = "Local Agent"
DEFAULT_THINKING: Final = True
DEFAULT_THINKING_BUDGET: Final = 256
DEFAULT_MAX_TOKENS: Final = 768
DEFAULT_MAX_ROUNDS: Final = 4
DEFAULT_HISTORY_TOKENS: Final = 2000

# Written for a 0.8B tool-calling model: short, imperative, one rule per line.
DEFAULT_INSTRUCTIONS: Final = "\n".join(
    [
        'You are the voice assistant of the smart home "{{ ha_name }}".',
        "Rules:",
        "- To control a device, call the tool named after its domain with the exact entity_id"
        " from the home overview.",
        "- To answer a question about the home, read the home overview; use get_state only"
        " when the overview is not enough.",
        "- If the request is unclear or several devices could be meant, ask one short question"
        " instead of acting.",
        "- If no tool can do what is asked, say so; never pretend.",
        "- After acting, answer in one short sentence in the user's language, saying what changed.",
    ]
)
# The same rules for an agent without our tools (Home Assistant's Assist tools find devices by
# name, area and floor; there is no tool per domain and no entity id): used while the
# instructions are the default ones.
DEFAULT_API_INSTRUCTIONS: Final = "\n".join(
    [
        'You are the voice assistant of the smart home "{{ ha_name }}".',
        "Rules:",
        "- To control a device, call the tool that does it with the device's name, area or floor"
        " as the overview below lists them.",
        "- If the request is unclear or several devices could be meant, ask one short question"
        " instead of acting.",
        "- If no tool can do what is asked, say so; never pretend.",
        "- After acting, answer in one short sentence in the user's language, saying what changed.",
    ]
)

# AI task subentry: the same model for automations (ai_task.generate_data), without tools.
SUBENTRY_AI_TASK: Final = "ai_task_data"
DEFAULT_AI_TASK_NAME: Final = "Local Agent AI Task"
# Tokens for the answer itself; the thinking budget comes on top.
DEFAULT_TASK_MAX_TOKENS: Final = 512
# The model card's 1.5 discourages repeating words, which data (field names, values) needs.
DEFAULT_TASK_PRESENCE_PENALTY: Final = 0.0
# Text attachments larger than this are refused (they would not fit a small model's context).
MAX_TEXT_ATTACHMENT_BYTES: Final = 64 * 1024

# Safety options of an agent subentry.
CONF_SENSITIVE_DOMAINS: Final = "sensitive_domains"
CONF_SENSITIVE_COVER_CLASSES: Final = "sensitive_cover_classes"
CONF_SENSITIVE_ENTITIES: Final = "sensitive_entities"
CONF_EXEMPT_ENTITIES: Final = "exempt_entities"
CONF_EXEMPT_TOOLS: Final = "exempt_tools"
CONF_CONFIRMATION_PIN: Final = "confirmation_pin"
CONF_ALLOW_UNATTENDED: Final = "allow_unattended"
CONF_CONFIRMATION_TIMEOUT: Final = "confirmation_timeout"
DEFAULT_SENSITIVE_DOMAINS: Final = ("alarm_control_panel", "lock", "valve")
DEFAULT_SENSITIVE_COVER_CLASSES: Final = ("door", "garage", "gate")
DEFAULT_CONFIRMATION_TIMEOUT: Final = 30

EVENT_ACTION: Final = "local_agent_action"
AUDIT_RECORDS_KEPT: Final = 50
