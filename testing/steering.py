"""Steerings (engine/generation.py): what tests and benchmarks make a random-weight model write.

Set one on an engine (`worker.steering = CallAfterReasoning()`); every backend asks it as the
answer goes on. A random model then opens a call where a test needs one, and the call grammar
still decides everything inside it; a benchmark's answer is written token by token, as a real
model would write it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field

from custom_components.local_agent.engine.generation import AnswerProgress
from custom_components.local_agent.engine.generation import GenerationRequest
from custom_components.local_agent.engine.markup import CALL_AFTER_REASONING
from custom_components.local_agent.engine.markup import CALL_OPEN
from custom_components.local_agent.engine.types import Conversation

type RequestTest = Callable[[GenerationRequest], bool]

# Room, in tokens, for what CallAfterReasoning writes to open a call ("\n\n<tool_call>": two
# tokens of the Qwen3.5 vocabulary), counted in a request's max_tokens.
STEERED_CALL_TOKENS = 4


def every_request(_request: GenerationRequest) -> bool:
    """Steer every request."""
    return True


def only_first() -> RequestTest:
    """Steer the first request seen, and no other."""
    seen: list[GenerationRequest] = []

    def wants(request: GenerationRequest) -> bool:
        if not seen:
            seen.append(request)
        return request is seen[0]

    return wants


def first_round_of_turn(request: GenerationRequest) -> bool:
    """Steer the first model round of each turn (the one that answers the user's message)."""
    prompt = request.prompt
    return not isinstance(prompt, Conversation) or prompt.messages[-1].role == "user"


@dataclass(slots=True)
class CallAfterReasoning:
    """Once the reasoning is over, the answer begins with `<tool_call>`; the grammar goes on.

    steered: the requests it opened a call in (for assertions).
    """

    wants: RequestTest = every_request
    steered: list[GenerationRequest] = field(default_factory=list)

    def next_text(self, progress: AnswerProgress) -> str | None:
        """`<tool_call>` (or the rest of it) right after the reasoning, else the model's choice."""
        if progress.in_reasoning or progress.in_call or not self.wants(progress.request):
            return None
        before, closed, after = progress.text.rpartition("</think>")
        if closed and not after:
            return CALL_AFTER_REASONING  # as the chat template separates them
        answer = (after if closed else before).lstrip()
        if not CALL_OPEN.startswith(answer):
            return None
        if not answer and progress.request not in self.steered:
            self.steered.append(progress.request)
        return CALL_OPEN[len(answer) :]


@dataclass(slots=True)
class ScriptedAnswers:
    """Each steered request is answered with the text script(request) returns, then ends."""

    script: Callable[[GenerationRequest], str]
    wants: RequestTest = every_request
    _current: tuple[GenerationRequest, str] | None = None

    def next_text(self, progress: AnswerProgress) -> str | None:
        """The rest of the request's script ("" once it is written)."""
        if not self.wants(progress.request):
            return None
        if self._current is None or self._current[0] is not progress.request:
            self._current = (progress.request, self.script(progress.request))
        script = self._current[1]
        if not script.startswith(progress.text):
            return None
        return script[len(progress.text) :]
