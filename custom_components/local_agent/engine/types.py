"""Plain data exchanged between the engine and its callers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field
from typing import Any
from typing import Literal

type JsonSchema = dict[str, Any]
type Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A function the model may call; parameters is a JSON schema of type object.

    grammar_parameters: where the call grammar allows less than the prompt says, the schema
    it enforces (the ids of the home's entities as an enum, which the prompt lists once, in
    the home list); None: parameters.
    checked_by_tool: parameters whose values the tool's own layer types and checks; a value
    written without the grammar that the schema cannot type is passed on as written, for that
    layer to normalise ("light.turn_on", "50%") or refuse with its own reason.
    """

    name: str
    description: str
    parameters: JsonSchema
    grammar_parameters: JsonSchema | None = None
    checked_by_tool: frozenset[str] = frozenset()

    @property
    def enforced_parameters(self) -> JsonSchema:
        """The schema the call grammar holds the model to."""
        return self.grammar_parameters if self.grammar_parameters is not None else self.parameters


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A call the model wrote, with values typed by the tool's schema."""

    name: str
    arguments: dict[str, Any]
    raw: str = ""


@dataclass(frozen=True, slots=True)
class ToolCallError:
    """Output that looked like a tool call but could not be turned into one.

    `arguments` are the values as written (untyped), for a caller that must know what the
    model tried even though the call was refused.
    """

    message: str
    raw: str
    name: str | None = None
    arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Message:
    """One chat message in the engine's own format."""

    role: Role
    content: str = ""
    reasoning: str | None = None
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_name: str | None = None
    # A result of our own runner: the states it read, which the context block counts as seen.
    shows_states: bool = False


@dataclass(frozen=True, slots=True)
class Conversation:
    """A prompt as messages: each backend renders it with its chat template, or a server does.

    system is the system text every turn of the conversation shares (the reusable prefix);
    system_context, if any, follows it in the same system message and may change every turn.
    next_message_start is what the next user message will surely begin with (the states that
    changed, the time line): prepared ahead with the rest, never rendered as a message of its
    own. Its first next_message_lasting characters stay the same in later minutes (the time
    line that follows them does not): a checkpoint there keeps them when the minute goes by.
    """

    system: str
    messages: tuple[Message, ...] = ()
    enable_thinking: bool = True
    system_context: str = ""
    next_message_start: str = ""
    next_message_lasting: int = 0
