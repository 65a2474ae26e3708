"""Shared pieces for the tests that run real inference through the engine."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Mapping
from collections.abc import Sequence
from contextlib import AbstractContextManager
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
import threading
import time
from typing import Any

import numpy as np
import numpy.typing as npt

from custom_components.local_agent.engine.chat_format import PromptParts
from custom_components.local_agent.engine.chat_format import load_template
from custom_components.local_agent.engine.chat_format import render_split
from custom_components.local_agent.engine.generation import GenerationOutput
from custom_components.local_agent.engine.generation import GenerationRequest
from custom_components.local_agent.engine.generation import GenerationStats
from custom_components.local_agent.engine.local.llama import LoadedModel
from custom_components.local_agent.engine.local.sampling import TokenSampler
from custom_components.local_agent.engine.settings import EngineSettings
from custom_components.local_agent.engine.settings import SamplingSettings
from custom_components.local_agent.engine.tool_calls import ParseEvent
from custom_components.local_agent.engine.types import Message
from custom_components.local_agent.engine.types import ToolCall
from custom_components.local_agent.engine.types import ToolSpec
from testing.model_files import llama_threads
from tests.engine.tool_specs import object_tool

# One thread: the tiny model gains nothing from more, and tests then stay steady on a busy
# machine (llama.cpp's threads spin while they wait for each other).
TEST_SETTINGS = EngineSettings(n_ctx=2048, n_threads=llama_threads(1), n_batch=256)
GREEDY = SamplingSettings(temperature=0.0)

STATIC_SYSTEM = "You are a voice assistant for Home Assistant. Answer briefly."
DYNAMIC_SYSTEM = "The current time is 18:30 on Monday.\nKitchen Light: off\nFront Door: locked"

TOOLS: tuple[ToolSpec, ...] = (
    object_tool(
        "HassTurnOn",
        "Turns on a device",
        {
            "name": {"type": "string", "enum": ["Kitchen Light", "Front Door", "Bedroom Lamp"]},
            "brightness": {"type": "integer"},
            "flash": {"type": "boolean"},
        },
        required=["name"],
    ),
    object_tool(
        "HassClimateSetMode",
        "Sets the mode of a thermostat",
        {
            "mode": {"type": "string", "enum": ["heat", "cool", "off"]},
            "temperature": {"type": "integer"},
            "eco": {"type": "boolean"},
        },
        required=["mode"],
    ),
    object_tool("GetLiveContext", "Reports the state of every exposed entity", {}),
)

# The bundled Qwen3.5 template: the test model carries the same text in its metadata.
TEMPLATE = load_template(None)


def prompt_parts(
    user: str,
    *,
    static_system: str = STATIC_SYSTEM,
    dynamic_system: str = DYNAMIC_SYSTEM,
    history: Sequence[Message] = (),
    tools: Sequence[ToolSpec] = TOOLS,
) -> PromptParts:
    """Render a one-question conversation the way the agent does, split for caching."""
    return render_split(
        TEMPLATE,
        static_system=static_system,
        dynamic_system=dynamic_system,
        history=[*history, Message("user", user)],
        tools=tools,
        enable_thinking=True,
    )


def make_request(parts: PromptParts, **overrides: Any) -> GenerationRequest:
    """A greedy request for the prompt with the test tools; keyword arguments override."""
    fields: dict[str, Any] = {"tools": TOOLS, "sampling": GREEDY, "max_tokens": 64}
    # The checkpoint point and reasoning start are the prompt's; None unless asked for.
    prompt = replace(
        parts,
        stable_end=overrides.pop("checkpoint_at", None),
        opens_reasoning=overrides.pop("starts_in_reasoning", None),
        stop=overrides.pop("stop", ()),
    )
    fields.update(overrides)
    return GenerationRequest(prompt, **fields)


def tokens_of(model: LoadedModel, *, endless: bool, never: Sequence[str]) -> list[int]:
    """The tokens of the texts `never` names, and every end-of-turn token if `endless`."""
    tokens = [token for text in never for token in model.tokenize(text, add_bos=False)]
    if endless:
        tokens += [t for t in range(model.info.n_vocab) if model.is_end_of_generation(t)]
    return tokens


def next_logits(model: LoadedModel) -> npt.NDArray[np.float32]:
    """The logits the next token is sampled from (writable: the sampler reads them after)."""
    pointer = model._llama_cpp.llama_get_logits_ith(model._ctx.ctx, -1)
    logits: npt.NDArray[np.float32] = np.ctypeslib.as_array(pointer, shape=(model.info.n_vocab,))
    return logits


class RecordingModel(LoadedModel):
    """A LoadedModel that records what it samples and evaluates, and can be slowed down.

    A random model's tokens differ from one CPU to the next; where a test needs an answer of
    a certain shape, it forces it: `endless` keeps the model from ending its turn, `never`
    from writing the given (special) tokens, and `script` writes given tokens in its stead,
    outside a grammar (whatever it would pick).
    """

    def __init__(
        self,
        path: Path,
        settings: EngineSettings,
        *,
        token_delay: float = 0.0,
        endless: bool = False,
        never: Sequence[str] = (),
    ) -> None:
        """Load the model; token_delay seconds are slept before each sampled token is added."""
        super().__init__(path, settings)
        self.token_delay = token_delay
        self.sampled: list[int] = []
        self.sampled_after_cancel = 0
        self.prompt_evaluations = 0
        self.closed = False
        self.after_token: Callable[[int], None] | None = None
        # Tokens written instead of sampled ones, outside a grammar, first to last.
        self.script: list[int] = []
        # The logits the first token of the last generation was sampled from.
        self.first_logits: npt.NDArray[np.float32] | None = None
        # The logits each sampled token was drawn from, when record_logits is set.
        self.record_logits = False
        self.logits: list[bytes] = []
        self._watched: threading.Event | None = None
        self._banned = tokens_of(self, endless=endless, never=never)

    def generate(
        self,
        request: GenerationRequest,
        cancel: threading.Event | None = None,
        on_event: Callable[[ParseEvent], None] | None = None,
    ) -> GenerationOutput:
        """Generate, recording the sampled tokens of this request only."""
        self.sampled = []
        self.sampled_after_cancel = 0
        self.logits = []
        self._watched = cancel
        with self.around_generation(request):
            return super().generate(request, cancel, on_event)

    def around_generation(self, request: GenerationRequest) -> AbstractContextManager[None]:
        """What a subclass does around each generation: nothing here."""
        return nullcontext()

    def evaluate_prompt(
        self,
        static_prompt: str,
        dynamic_prompt: str,
        checkpoint_at: int | None = None,
        **options: Any,
    ) -> GenerationStats:
        """Count prompt evaluations."""
        self.prompt_evaluations += 1
        return super().evaluate_prompt(static_prompt, dynamic_prompt, checkpoint_at, **options)

    def sample_next(self, sampler: TokenSampler, *, grammar: bool) -> int:
        """Sample and record the token, noting whether the caller had already cancelled."""
        logits = next_logits(self)
        if self.record_logits:
            self.logits.append(logits.tobytes())
        if not self.sampled:
            self.first_logits = logits.copy()
        if not grammar:
            logits[self._banned] = -np.inf
        if self.script and not grammar:
            token = self.script.pop(0)
        else:
            token = super().sample_next(sampler, grammar=grammar)
        self.sampled.append(token)
        if self._watched is not None and self._watched.is_set():
            self.sampled_after_cancel += 1
        if self.after_token is not None:
            self.after_token(len(self.sampled))
        return token

    def append(self, tokens: Sequence[int]) -> None:
        """Evaluate tokens after an optional delay."""
        if self.token_delay:
            time.sleep(self.token_delay)
        super().append(tokens)

    def close(self) -> None:
        """Free the model and remember it was freed."""
        self.closed = True
        super().close()


def check_call(call: ToolCall, tools: Sequence[ToolSpec] = TOOLS) -> None:
    """Assert that a parsed call names a known tool and fits its schema exactly."""
    by_name: Mapping[str, ToolSpec] = {tool.name: tool for tool in tools}
    assert call.name in by_name, call
    schema = by_name[call.name].parameters
    properties: Mapping[str, Any] = schema.get("properties", {})
    assert set(call.arguments) <= set(properties), call
    assert set(schema.get("required", ())) <= set(call.arguments), call
    for key, value in call.arguments.items():
        expected = properties[key]
        if "enum" in expected:
            assert value in expected["enum"], (key, value)
        elif expected["type"] == "boolean":
            assert isinstance(value, bool), (key, value)
        elif expected["type"] == "integer":
            assert isinstance(value, int), (key, value)
            assert not isinstance(value, bool), (key, value)
