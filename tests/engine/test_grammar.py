"""The tool-call GBNF grammar: its text, what it accepts, and the syntax check.

What a grammar accepts is checked by translating it into a Python regular expression (the
generated grammars are not recursive); llama.cpp's own parser and a grammar-constrained
generation with the tiny random-weight model run when llama-cpp-python is installed.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from custom_components.local_agent.engine import grammar as grammar_module
from custom_components.local_agent.engine.errors import GrammarError
from custom_components.local_agent.engine.grammar import MAX_STRING_CHARS
from custom_components.local_agent.engine.grammar import build_tool_call_grammar
from custom_components.local_agent.engine.grammar import gbnf_literal
from custom_components.local_agent.engine.types import ToolSpec
from testing.any_tokens import longest_call_tokens
from testing.any_tokens import longest_text_bytes
from testing.gbnf_syntax import validate_grammar_syntax
from tests.engine.tool_specs import object_tool

LIGHT = object_tool(
    "light.turn_on",
    "Turn on a light",
    {
        "entity_id": {"type": "string", "enum": ["light.küche", "light.desk", 'say "hi"']},
        "brightness": {"type": "integer"},
        "transition": {"type": "number"},
        "flash": {"type": "boolean"},
        "color": {
            "type": "object",
            "properties": {"rgb": {"type": "array", "items": {"type": "integer"}}},
        },
        "areas": {"type": "array", "items": {"type": "string"}},
        "note": {"type": ["string", "null"]},
        "level": {"anyOf": [{"type": "integer"}, {"enum": ["low", "high"]}]},
        "extra": True,
    },
    required=["entity_id", "flash"],
)
TURN_ON = object_tool(
    "HassTurnOn",
    "Turn on",
    {"name": {"type": "string"}, "area": {"type": "string"}},
    required=["name"],
)
LIVE_CONTEXT = ToolSpec(name="GetLiveContext", description="State", parameters={"type": "object"})
CLASHING = [
    ToolSpec(name, "clash", {"type": "object", "properties": {"a_b": {}, "a.b": {}}})
    for name in ("set.temp", "set_temp", "set-temp", "set-temp-2", "温度", "°")
]
TOOL_LISTS = {
    "light": [LIGHT],
    "assist": [TURN_ON, LIVE_CONTEXT],
    "clashing": CLASHING,
    "all": [LIGHT, TURN_ON, LIVE_CONTEXT, *CLASHING],
}

_TOKEN = re.compile(
    r'(?P<literal>"(?:[^"\\]|\\.)*")|(?P<charclass>\[(?:[^\]\\]|\\.)*\])|(?P<name>[a-zA-Z0-9-]+)'
    r"|(?P<syntax>[()|*+?]|\{\d+(?:,\d*)?\})|(?P<space>\s+)"
)


def to_regex(grammar: str) -> re.Pattern[str]:
    """Translate a non-recursive GBNF grammar into an equivalent regular expression."""
    rules = dict(line.split(" ::= ", 1) for line in grammar.splitlines())

    def expand(rule: str) -> str:
        parts = []
        for match in _TOKEN.finditer(rules[rule]):
            kind, text = match.lastgroup, match.group()
            if kind == "literal":
                parts.append(re.escape(text[1:-1].encode().decode("unicode_escape")))
            elif kind == "name":
                parts.append(f"(?:{expand(text)})")
            elif kind != "space":
                parts.append("(?:" if text == "(" else text)
        return "".join(parts)

    return re.compile(expand("root"))


def call(function: str, *params: tuple[str, str]) -> str:
    body = "".join(f"<parameter={key}>\n{value}\n</parameter>\n" for key, value in params)
    return f"\n<function={function}>\n{body}</function>\n</tool_call>"


def test_grammar_text_for_a_simple_tool() -> None:
    assert build_tool_call_grammar([TURN_ON, LIVE_CONTEXT]) == (
        "root ::= call\n"
        'call ::= "\\n" (fn-HassTurnOn | fn-GetLiveContext)\n'
        'fn-HassTurnOn ::= "<function=HassTurnOn>\\n" fn-HassTurnOn-name fn-HassTurnOn-area? '
        '"</function>\\n</tool_call>"\n'
        'fn-HassTurnOn-name ::= "<parameter=name>\\n" value-string "\\n</parameter>\\n"\n'
        'fn-HassTurnOn-area ::= "<parameter=area>\\n" value-string "\\n</parameter>\\n"\n'
        'fn-GetLiveContext ::= "<function=GetLiveContext>\\n" "</function>\\n</tool_call>"\n'
        f"value-string ::= [^<\\n] [^<]{{0,{MAX_STRING_CHARS - 1}}}\n"
    )


def test_typed_values_and_unicode_enum() -> None:
    grammar = build_tool_call_grammar([LIGHT])
    assert '("light.k\\u00fcche" | "light.desk" | "say \\"hi\\"")' in grammar
    assert 'fn-light-turn-on-flash ::= "<parameter=flash>\\n" value-boolean' in grammar
    assert 'fn-light-turn-on-note ::= "<parameter=note>\\n" (value-string | value-null)' in grammar
    assert grammar.isascii()


@pytest.mark.parametrize(
    "text",
    [
        call("light.turn_on", ("entity_id", "light.küche"), ("flash", "true")),
        call(
            "light.turn_on",
            ("entity_id", 'say "hi"'),
            ("brightness", "-42"),
            ("transition", "2.5e-3"),
            ("flash", "false"),
            ("color", '{"rgb": [255, 0, {"nested": true}]}'),
            ("areas", '["Küche", "Büro"]'),
            ("note", "null"),
            ("level", "high"),
            ("extra", "anything"),
        ),
        call("light.turn_on", ("entity_id", "light.desk"), ("flash", "true"), ("level", "7")),
        call("light.turn_on", ("entity_id", "light.desk"), ("flash", "true"), ("note", "a\nb")),
        call("HassTurnOn", ("name", "Kitchen light"), ("area", "Küche 🍳")),
        call("HassTurnOn", ("name", "x" * MAX_STRING_CHARS)),
        call("GetLiveContext"),
    ],
)
def test_accepts_well_formed_calls(text: str) -> None:
    assert to_regex(build_tool_call_grammar(TOOL_LISTS["all"])).fullmatch(text)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (call("light.turn_off", ("entity_id", "light.desk")), "unknown function"),
        (call("HassTurnOn", ("name", "a"), ("brightness", "1")), "another function's parameter"),
        (call("HassTurnOn", ("area", "Kitchen"), ("name", "lamp")), "parameters out of order"),
        (call("HassTurnOn", ("area", "Kitchen")), "required parameter missing"),
        (call("HassTurnOn", ("name", "a"), ("name", "b")), "parameter repeated"),
        (call("light.turn_on", ("entity_id", "light.hall"), ("flash", "true")), "not in enum"),
        (call("light.turn_on", ("entity_id", "light.desk"), ("flash", "True")), "Python bool"),
        (
            call("light.turn_on", ("entity_id", "light.desk"), ("brightness", "4.5")),
            "float for integer",
        ),
        (
            call("light.turn_on", ("entity_id", "light.desk"), ("brightness", "1" * 16)),
            "integer too long",
        ),
        (
            call("light.turn_on", ("entity_id", "light.desk"), ("color", "[1]")),
            "array for object",
        ),
        (
            call(
                "light.turn_on",
                ("entity_id", "light.desk"),
                ("transition", "-4E513"),
                ("flash", "true"),
            ),
            "number beyond a float (found by llama-server: the parser refuses it)",
        ),
        (
            call("light.turn_on", ("entity_id", "light.desk"), ("flash", "true"), ("level", "mid")),
            "neither anyOf alternative",
        ),
        (call("HassTurnOn", ("name", "<b>lamp</b>")), "markup in a string"),
        (call("HassTurnOn", ("name", "x" * (MAX_STRING_CHARS + 1))), "string too long"),
        (call("HassTurnOn", ("name", "\nlamp")), "string starting with a newline"),
        (call("HassTurnOn", ("name", "")), "empty string"),
        (call("GetLiveContext") + "\nmore", "text after the call"),
        (call("GetLiveContext") + "\n<tool_call>" + call("GetLiveContext"), "second call"),
        (call("GetLiveContext")[1:], "missing leading newline"),
    ],
)
def test_rejects_malformed_calls(text: str, why: str) -> None:
    assert not to_regex(build_tool_call_grammar(TOOL_LISTS["all"])).fullmatch(text), why


def test_max_calls_allows_following_calls() -> None:
    pattern = to_regex(build_tool_call_grammar([LIVE_CONTEXT, TURN_ON], max_calls=2))
    one, two = call("GetLiveContext"), call("HassTurnOn", ("name", "lamp"))
    assert pattern.fullmatch(one)
    assert pattern.fullmatch(one + "\n<tool_call>" + two)
    assert not pattern.fullmatch(one + "\n<tool_call>" + two + "\n<tool_call>" + one)


def test_names_become_distinct_valid_rule_names() -> None:
    grammar = build_tool_call_grammar(CLASHING)
    names = [line.split(" ::= ")[0] for line in grammar.splitlines()]
    assert all(re.fullmatch(r"[a-zA-Z0-9-]+", name) for name in names)
    assert len(names) == len(set(names))
    pattern = to_regex(grammar)
    for tool in CLASHING:
        assert pattern.fullmatch(call(tool.name, ("a_b", "1"), ("a.b", "2")))


@pytest.mark.parametrize(
    ("text", "literal"),
    [
        ("plain", '"plain"'),
        ('a "quoted" \\ path', '"a \\"quoted\\" \\\\ path"'),
        ("line\nbreak\ttab\r", '"line\\nbreak\\ttab\\r"'),
        ("\x00\x7f", '"\\x00\\x7f"'),
        ("Küche 温度 🍳", '"K\\u00fcche \\u6e29\\u5ea6 \\U0001f373"'),
    ],
)
def test_gbnf_literal(text: str, literal: str) -> None:
    assert gbnf_literal(text) == literal


def test_build_needs_tools_and_positive_max_calls() -> None:
    with pytest.raises(ValueError, match="at least one tool"):
        build_tool_call_grammar([])
    with pytest.raises(ValueError, match="max_calls"):
        build_tool_call_grammar([TURN_ON], max_calls=0)


# --- syntax check ----------------------------------------------------------------------------

VALID_GRAMMARS = {
    **{name: build_tool_call_grammar(tools, max_calls=3) for name, tools in TOOL_LISTS.items()},
    "hand-written": (
        "# arithmetic, as in llama.cpp's examples\n"
        'root  ::= (expr "=" ws term "\\n")+\n'
        "expr  ::= term ([-+*/] term)*\n"
        'term  ::= ident | num | "(" ws expr ")" ws\n'
        "ident ::= [a-z] [a-z0-9_]* ws\n"
        "num   ::= [0-9]{1,10} ws\n"
        "ws    ::= [ \\t\\n]* .?\n"
        "multi ::=\n    ( ident ) |\n    ( num )\n"
    ),
}
BROKEN_GRAMMARS = {
    'root ::= "a': "unterminated string literal",
    "root ::= [a-z": "unterminated character class",
    'root ::= "\\q"': "bad escape",
    'root ::= ("a"': "unclosed '('",
    'root ::= ("a"\nnext ::= "b")': "unclosed '(' before rule 'next'",
    'root ::= "a")': "unmatched ')'",
    "root ::= foo": "rule 'foo' is used on line 1 but never defined",
    'start ::= "a"': "no 'root' rule",
    ' ::= "a"': "'::=' without a rule name",
    'root ::= "a" ;': "unexpected ';'",
    'root ::= "a"\nroot ::= "b"': "rule 'root' is defined twice",
}


@pytest.mark.parametrize("name", sorted(VALID_GRAMMARS))
def test_validator_accepts_valid_grammars(name: str) -> None:
    validate_grammar_syntax(VALID_GRAMMARS[name])


@pytest.mark.parametrize(("grammar", "reason"), BROKEN_GRAMMARS.items())
def test_validator_catches_broken_grammars(grammar: str, reason: str) -> None:
    with pytest.raises(GrammarError, match=re.escape(reason)):
        validate_grammar_syntax(grammar)


# --- llama.cpp ---------------------------------------------------------------------------------


def _llama_cpp_accepts(llama_cpp: Any, grammar: str) -> bool:
    # The parser needs no vocabulary (llama.cpp's own grammar tests pass NULL too).
    sampler = llama_cpp.llama_sampler_init_grammar(None, grammar.encode(), b"root")
    if not sampler:  # a NULL pointer: the grammar did not parse
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True


def test_llama_cpp_parser_agrees() -> None:
    llama_cpp = pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    for name, grammar in VALID_GRAMMARS.items():
        assert _llama_cpp_accepts(llama_cpp, grammar), name
    for grammar, reason in BROKEN_GRAMMARS.items():
        if "defined twice" not in reason:  # llama.cpp lets a later rule replace an earlier one
            assert not _llama_cpp_accepts(llama_cpp, grammar), reason


def test_constrained_generation_with_tiny_model() -> None:
    llama_cpp = pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    from testing.model_files import ensure_qwen35_test_model
    from testing.model_files import llama_threads

    grammar = build_tool_call_grammar(TOOL_LISTS["all"], max_calls=2)
    pattern = to_regex(grammar)
    # Room for the longest text the grammar allows: the calls always end by themselves.
    room = int(longest_text_bytes(grammar))
    llm = llama_cpp.Llama(
        model_path=str(ensure_qwen35_test_model()),
        n_ctx=room + 64,
        n_threads=llama_threads(1),
        verbose=False,
    )
    prompt = "<|im_start|>user\nTurn on the light<|im_end|>\n<|im_start|>assistant\n<tool_call>"
    for seed in range(8):
        output = llm.create_completion(
            prompt,
            max_tokens=room,
            temperature=1.0,
            seed=seed,
            grammar=llama_cpp.LlamaGrammar.from_string(grammar, verbose=False),
        )
        choice = output["choices"][0]
        assert choice["finish_reason"] == "stop", choice
        assert pattern.fullmatch(choice["text"]), choice["text"]


def test_longest_text_of_a_grammar_is_reached_by_four_byte_characters() -> None:
    """The bound on a forced call's tokens: every value as long as the grammar lets it be, each
    character four bytes (every token is at least one byte)."""
    longest_value = "\U0001f600" * MAX_STRING_CHARS
    longest = call("HassTurnOn", ("name", longest_value), ("area", longest_value))
    grammar = build_tool_call_grammar(TOOL_LISTS["assist"])
    assert to_regex(grammar).fullmatch(longest)
    assert longest_text_bytes(grammar) == len(longest.encode()) == 1069
    assert longest_call_tokens(TOOL_LISTS["assist"]) == 1069
    two = build_tool_call_grammar(TOOL_LISTS["assist"], max_calls=2)
    assert longest_text_bytes(two) == 2 * 1069 + len("\n<tool_call>")
    assert longest_text_bytes('root ::= "a" [b]*') == float("inf")


def _lights(*ids: str) -> list[ToolSpec]:
    return [object_tool("light", "Lights", {"entity_id": {"type": "string", "enum": list(ids)}})]


def test_the_same_tools_build_their_grammar_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command of a home asks for the same grammar: built once, not per command."""
    built: list[int] = []
    build = grammar_module._call_grammar

    def counted(tools: Any, max_calls: int) -> str:
        built.append(max_calls)
        return build(tools, max_calls)

    monkeypatch.setattr(grammar_module, "_recent_grammars", ())
    monkeypatch.setattr(grammar_module, "_call_grammar", counted)
    first = build_tool_call_grammar(_lights("light.desk", "light.hall"), max_calls=3)
    again = build_tool_call_grammar(_lights("light.desk", "light.hall"), max_calls=3)
    assert again == first
    assert built == [3]
    build_tool_call_grammar(_lights("light.desk", "light.hall"), max_calls=2)
    assert built == [3, 2]


def test_a_remembered_grammar_follows_the_exposed_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """An id no longer exposed leaves the grammar, even when its schema changed in place."""
    monkeypatch.setattr(grammar_module, "_recent_grammars", ())
    tools = _lights("light.desk", "light.vault")
    assert "light.vault" in build_tool_call_grammar(tools)
    tools[0].parameters["properties"]["entity_id"]["enum"].remove("light.vault")
    assert "light.vault" not in build_tool_call_grammar(tools)
    assert "light.desk" in build_tool_call_grammar(tools)
