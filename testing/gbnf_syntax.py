"""A GBNF grammar's shape checked in Python: tokens, brackets, rule definitions and references.

The tests check the grammars the engine writes with it before llama.cpp reads them, so a
mistake names its line instead of failing inside the native parser.
"""

from __future__ import annotations

import re

from custom_components.local_agent.engine.errors import GrammarError

_ESCAPE = r'\\(?:x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[nrt\\"\[\]])'
_TOKEN = re.compile(
    rf"""
    (?P<space>[ \t\r\n]+)
    | (?P<comment>\#[^\n]*)
    | (?P<define>::=)
    | (?P<name>[a-zA-Z0-9-]+)
    | (?P<literal>"(?:[^"\\\n]|{_ESCAPE})*")
    | (?P<charclass>\[(?:[^\]\\\n]|{_ESCAPE})*\])
    | (?P<open>\()
    | (?P<close>\))
    | (?P<operator>[|*+?.])
    | (?P<repeat>\{{[ ]*\d+[ ]*(?:,[ ]*\d*[ ]*)?\}})
    """,
    re.VERBOSE,
)


def _tokens(grammar: str) -> list[tuple[str, str, int]]:
    tokens = []
    position = 0
    while position < len(grammar):
        match = _TOKEN.match(grammar, position)
        line = grammar.count("\n", 0, position) + 1
        if match is None:
            what = {'"': "string literal", "[": "character class"}.get(grammar[position])
            if what:
                raise GrammarError(f"unterminated {what} or bad escape on line {line}")
            raise GrammarError(f"unexpected {grammar[position]!r} on line {line}")
        kind = match.lastgroup or ""
        if kind not in {"space", "comment"}:
            tokens.append((kind, match.group(), line))
        position = match.end()
    return tokens


def validate_grammar_syntax(grammar: str) -> None:
    """Check a GBNF grammar's shape: tokens, brackets, rule definitions and references."""
    tokens = _tokens(grammar)
    defined: set[str] = set()
    referenced: dict[str, int] = {}
    depth = 0
    for index, (kind, text, line) in enumerate(tokens):
        next_kind = tokens[index + 1][0] if index + 1 < len(tokens) else ""
        if kind == "name" and next_kind == "define":
            if depth:
                raise GrammarError(f"unclosed '(' before rule {text!r} on line {line}")
            if text in defined:
                raise GrammarError(f"rule {text!r} is defined twice (line {line})")
            defined.add(text)
        elif kind == "name":
            referenced.setdefault(text, line)
        elif kind == "define" and (index == 0 or tokens[index - 1][0] != "name"):
            raise GrammarError(f"'::=' without a rule name on line {line}")
        elif kind == "open":
            depth += 1
        elif kind == "close":
            depth -= 1
            if depth < 0:
                raise GrammarError(f"unmatched ')' on line {line}")
    if depth:
        raise GrammarError("unclosed '(' at the end of the grammar")
    if "root" not in defined:
        raise GrammarError("no 'root' rule")
    for name, line in referenced.items():
        if name not in defined:
            raise GrammarError(f"rule {name!r} is used on line {line} but never defined")
