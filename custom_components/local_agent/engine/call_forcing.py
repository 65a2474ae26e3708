"""Jump-forward decoding: the text the tool-call grammar leaves the model no choice about.

Inside a call most of the text is fixed by grammar.py: the markup around names and values,
the rest of a function name, parameter key or enum value (an entity id, an action) once its
beginning fits only one, the end of a value once it is over. The engine appends such text
in one batch instead of sampling it token by token (as SGLang does for constrained output).

`CallForcing.forced(text)` reads the text written since `<tool_call>` and returns what must
follow it, up to the next point where the model has a choice. Where several continuations
remain it forces up to the end of a tag ("=", ">" or a newline), or further: the tokens that
begin every remaining continuation when each is tokenized whole ("itchen" after "light.k"
when every id left is a kitchen's), so the model still writes each name or value in the
tokens it would have had, never a token cut where another continuation would merge it.
Text it cannot place gives "": the model goes on sampling. The engine checks every forced
token against llama.cpp's grammar before it accepts it, so what is written stays exactly what
the grammar allows.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Sequence
from dataclasses import dataclass
import os
from typing import Any
from typing import Final

from .grammar import CALL_END
from .grammar import NEXT_CALL
from .grammar import PARAMETER_END
from .grammar import RECENT_GRAMMARS
from .grammar import ValueShape
from .grammar import function_header
from .grammar import parameter_header
from .grammar import tools_key
from .grammar import value_shape
from .types import ToolSpec

# Where a partly forced choice may stop: the end of a tag, never inside a word.
_BOUNDARIES: Final = ("=", ">", "\n")
# Steps per call to forced(): more than any call has segments.
_MAX_STEPS: Final = 64

# The model's tokenization of a text, as the bytes of each token.
Split = Callable[[str], Sequence[bytes]]
# What every continuation left shares after the text written: (written, continuations).
Choose = Callable[[str, list[str]], str]


@dataclass(frozen=True, slots=True)
class _Parameter:
    header: str
    required: bool
    shape: ValueShape


@dataclass(frozen=True, slots=True)
class _Function:
    header: str
    parameters: tuple[_Parameter, ...]


# The tools' functions remembered, by what they are built from (grammar.tools_key).
_recent_functions: tuple[tuple[str, tuple[_Function, ...]], ...] = ()


class _NotPlaced(Exception):
    """The text does not follow the grammar as this module reads it."""


class CallForcing:
    """Computes forced continuations for the grammar build_tool_call_grammar makes of tools."""

    def __init__(
        self, tools: Sequence[ToolSpec], *, max_calls: int, split: Split | None = None
    ) -> None:
        """Read the tools as the grammar does: parameters in schema order, values by schema.

        split: the model's tokenizer; without it shared text is forced only to a tag's end.
        """
        self._functions = _functions_of(tools)
        self._max_calls = max_calls
        self._split = split

    def forced(self, text: str) -> str:
        """Return the text that must follow `text` (written after `<tool_call>`), or ""."""
        total = ""
        for _ in range(_MAX_STEPS):
            try:
                step = self._step(text + total)
            except _NotPlaced:
                return total
            if not step:
                break
            total += step
        return total

    def _step(self, text: str) -> str:
        position = 0
        for call in range(self._max_calls):
            if call:
                if len(text) == position:
                    return ""  # the end of the answer or another call: the model's choice
                position, forced = _literal(text, position, NEXT_CALL)
                if forced is not None:
                    return forced
            function, position, forced = self._header(text, position)
            if function is None:
                return forced
            position, forced = _body(function, text, position, self._choice)
            if forced is not None:
                return forced
        return ""

    def _header(self, text: str, position: int) -> tuple[_Function | None, int, str]:
        rest = text[position:]
        for function in self._functions:
            if rest.startswith(function.header):
                return function, position + len(function.header), ""
        alive = [f.header for f in self._functions if f.header.startswith(rest)]
        if not alive:
            raise _NotPlaced
        return None, position, self._choice(rest, alive)

    def _choice(self, rest: str, texts: list[str]) -> str:
        """Return what all continuations share after rest, as far as it may be forced.

        All of it when one is left; else the longer of the stretch to a tag's end and the
        tokens every continuation starts with.
        """
        shared = os.path.commonprefix(texts)[len(rest) :]  # noqa: RUF071 - text, not paths
        if len(texts) == 1:
            return shared
        cut = max(shared.rfind(boundary) for boundary in _BOUNDARIES)
        tagged = shared[: cut + 1]
        if self._split is None or len(tagged) == len(shared):
            return tagged
        settled = _settled_tokens(self._split, rest, texts, shared)
        return settled if len(settled) > len(tagged) else tagged


def _settled_tokens(split: Split, rest: str, texts: list[str], shared: str) -> str:
    """Return the start of shared that every continuation's own tokens begin with.

    One continuation stands for all that go on with the same character after shared: where
    they part, the pre-tokenizer's pieces part too (the bounded cost of a forced step, however
    many ids are left).
    """
    branch = len(rest) + len(shared)
    standing: dict[str, str] = {}
    for text in texts:
        standing.setdefault(text[branch : branch + 1], text[len(rest) :])
    limit = len(shared.encode("utf-8"))
    common: list[bytes] | None = None
    for continuation in standing.values():
        tokens = list(split(continuation))
        if common is None:
            common = tokens
            continue
        same = 0
        while same < min(len(common), len(tokens)) and common[same] == tokens[same]:
            same += 1
        common = common[:same]
    settled = b""
    for token in common or ():
        if len(settled) + len(token) > limit:
            break
        settled += token
    try:
        return settled.decode("utf-8")
    except UnicodeDecodeError:
        return ""


def _functions_of(tools: Sequence[ToolSpec]) -> tuple[_Function, ...]:
    """Return the tools read as the grammar reads them, remembered as the grammar is.

    Every command of a home asks for the same ones; reading them took 3.8 ms a turn at 1000
    entities. The key is the grammar's (a schema changed in place is another key).
    """
    global _recent_functions  # noqa: PLW0603 - a memo shared by every loaded model
    key = tools_key(tools)
    for built_from, functions in _recent_functions:
        if built_from == key:
            return functions
    functions = tuple(_function(tool) for tool in tools)
    _recent_functions = (*_recent_functions, (key, functions))[-RECENT_GRAMMARS:]
    return functions


def _function(tool: ToolSpec) -> _Function:
    schema = tool.enforced_parameters
    properties: Any = schema.get("properties") or {}
    required = set(schema.get("required") or ())
    return _Function(
        header=function_header(tool.name),
        parameters=tuple(
            _Parameter(parameter_header(key), key in required, value_shape(schema))
            for key, schema in properties.items()
        ),
    )


def _body(function: _Function, text: str, position: int, choose: Choose) -> tuple[int, str | None]:
    """Read the parameters and the end of one call; return where it ends, or what is forced."""
    parameters = function.parameters
    index = 0
    while True:
        rest = text[position:]
        options: list[tuple[str, int | None]] = []
        for later in range(index, len(parameters)):
            options.append((parameters[later].header, later))
            if parameters[later].required:
                break
        else:
            options.append((CALL_END, None))
        chosen = next(((h, i) for h, i in options if rest.startswith(h)), None)
        if chosen is None:
            alive = [header for header, _ in options if header.startswith(rest)]
            if not alive:
                raise _NotPlaced
            return position, choose(rest, alive)
        header, parameter = chosen
        position += len(header)
        if parameter is None:
            return position, None
        position, forced = _value(parameters[parameter].shape, text, position, choose)
        if forced is not None:
            return position, forced
        index = parameter + 1


def _value(shape: ValueShape, text: str, position: int, choose: Choose) -> tuple[int, str | None]:
    """Read one value and the end of its parameter; return where it ends, or what is forced."""
    rest = text[position:]
    endings = [literal + PARAMETER_END for literal in shape.literals]
    for ending in endings:
        if rest.startswith(ending):
            return position + len(ending), None
    free = [start for start in shape.free_starts if rest.startswith(start)]
    if free:
        # A free value holds no "<": the first one starts the end of the parameter.
        cut = rest.find("<")
        if cut < 0:
            return position, ""  # still being written: the model's choice
        if cut == 0:
            raise _NotPlaced
        return _literal(text, position + cut - 1, PARAMETER_END)
    alive = [ending for ending in endings if ending.startswith(rest)]
    if any(start.startswith(rest) for start in shape.free_starts):
        return position, ""  # a free form can still begin here
    if not alive:
        raise _NotPlaced
    return position, choose(rest, alive)


def _literal(text: str, position: int, literal: str) -> tuple[int, str | None]:
    """Read a fixed text at position: where it ends, or the part still to write."""
    rest = text[position:]
    if rest.startswith(literal):
        return position + len(literal), None
    if literal.startswith(rest):
        return position, literal[len(rest) :]
    raise _NotPlaced
