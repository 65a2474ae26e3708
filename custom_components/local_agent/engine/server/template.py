"""Which chat template renders prompts for a model on a server (completions mode)."""

from __future__ import annotations

import logging

from ..chat_format import ChatTemplate
from ..chat_format import ChatTemplateError
from ..chat_format import compile_template
from ..chat_format import load_template
from ..chat_format import render_split
from ..types import Message
from ..types import ToolSpec

_LOGGER = logging.getLogger(__name__)


# A tool the check below renders: a template that leaves it out cannot tell the model its tools.
_PROBE_TOOL = ToolSpec(
    name="probe_tool_name",
    description="Probe.",
    parameters={"type": "object", "properties": {}},
)


def server_template(text: str | None) -> ChatTemplate:
    """Return the server's chat template if it renders our prompt, else the bundled one.

    llama-server shows the model's template in /props (what the in-process engine reads from
    the GGUF file); vLLM and llama-cpp-python's server show none, so completions mode renders
    with the bundled Qwen3.5 template: the format every supported model speaks. A template that
    drops the tools is not used either: llama-server shows a generic ChatML template for a model
    file that carries none.
    """
    if text:
        try:
            template = compile_template(text, "server")
            parts = render_split(
                template,
                static_system="Instructions.",
                dynamic_system="State.",
                history=[Message("user", "Hello")],
                tools=[_PROBE_TOOL],
                enable_thinking=True,
            )
        except ChatTemplateError as err:
            _LOGGER.warning("Not using the server's chat template: %s", err)
        else:
            if _PROBE_TOOL.name in parts.static + parts.dynamic:
                return template
            _LOGGER.warning("Not using the server's chat template: it does not show the tools")
    return load_template(None)
