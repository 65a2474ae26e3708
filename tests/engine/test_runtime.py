"""Real llama.cpp inference through LoadedModel on the tiny random-weight qwen35 model.

Random weights write gibberish, which is what these tests need: greedy output that depends on
every token of the context (so a wrong cache shows up as different tokens), and tool calls that
only the grammar keeps well-formed. Each test loads its own runtime (about 40 ms), so no cache
state leaks from one test into another. The Gemma test at the end runs real weights.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
from collections.abc import Sequence
from dataclasses import replace
import logging
from pathlib import Path
import random
import sys
import threading
from types import SimpleNamespace
from typing import Any

import gguf
import llama_cpp
import numpy as np
import numpy.typing as npt
import psutil
import pytest

from custom_components.local_agent.engine.chat_format import PromptParts
from custom_components.local_agent.engine.chat_format import next_turn_start
from custom_components.local_agent.engine.errors import ContextTooSmallError
from custom_components.local_agent.engine.errors import EngineError
from custom_components.local_agent.engine.errors import EngineOutOfMemoryError
from custom_components.local_agent.engine.errors import GenerationCancelledError
from custom_components.local_agent.engine.errors import GrammarError
from custom_components.local_agent.engine.errors import ModelFileMissingError
from custom_components.local_agent.engine.errors import NotAGgufError
from custom_components.local_agent.engine.errors import UnsupportedArchitectureError
from custom_components.local_agent.engine.generation import GenerationOutput
from custom_components.local_agent.engine.generation import GenerationRequest
from custom_components.local_agent.engine.generation import reasoning_ended
from custom_components.local_agent.engine.local import sampling
from custom_components.local_agent.engine.local.context_size import key_length
from custom_components.local_agent.engine.local.context_size import kv_bytes_per_token
from custom_components.local_agent.engine.local.llama import STEERING_LOOKAHEAD
from custom_components.local_agent.engine.local.llama import LoadedModel
from custom_components.local_agent.engine.local.llama import flash_attention_type
from custom_components.local_agent.engine.local.llama import shared_prefix_length
from custom_components.local_agent.engine.local.probe import key_cache_type
from custom_components.local_agent.engine.markup import REASONING_CLOSE as THINK_CLOSE
from custom_components.local_agent.engine.settings import EngineSettings
from custom_components.local_agent.engine.settings import SamplingSettings
from custom_components.local_agent.engine.tool_calls import ParseEvent
from custom_components.local_agent.engine.tool_calls import ReasoningDelta
from custom_components.local_agent.engine.tool_calls import TextDelta
from custom_components.local_agent.engine.tool_calls import ToolCallFailed
from custom_components.local_agent.engine.tool_calls import ToolCallParsed
from custom_components.local_agent.engine.tool_calls import ToolCallStreamParser
from custom_components.local_agent.engine.types import Conversation
from custom_components.local_agent.engine.types import Message
from custom_components.local_agent.engine.types import ToolCall
from testing.any_tokens import longest_answer_tokens
from testing.any_tokens import longest_call_tokens
from testing.model_files import llama_threads
from testing.steering import STEERED_CALL_TOKENS
from testing.steering import CallAfterReasoning
from testing.steering import ScriptedAnswers

from .runtime_support import DYNAMIC_SYSTEM
from .runtime_support import GREEDY
from .runtime_support import STATIC_SYSTEM
from .runtime_support import TEMPLATE
from .runtime_support import TEST_SETTINGS
from .runtime_support import TOOLS
from .runtime_support import RecordingModel
from .runtime_support import check_call
from .runtime_support import make_request
from .runtime_support import next_logits
from .runtime_support import prompt_parts

type OpenRuntime = Callable[..., RecordingModel]

# The markup that starts or ends reasoning or a call: a test of plain reasoning and text
# keeps the model from writing it, so that its answer has the shape the test needs.
MARKUP = ("<think>", "</think>", "<tool_call>")
# Tokens the first call of a forced answer may take at most (the grammar bounds each value).
FIRST_CALL = longest_call_tokens(TOOLS)

TOOL_RESPONSE = (
    "<|im_end|>\n<|im_start|>user\n<tool_response>\n"
    '{"success": true, "entity_id": "light.kitchen", "state": "on"}\n'
    "</tool_response><|im_end|>\n<|im_start|>assistant\n<think>\n"
)


@pytest.fixture
def open_runtime(qwen35_model_path: Path) -> Iterator[OpenRuntime]:
    """Open fresh runtimes of the test model (settings override TEST_SETTINGS); close them."""
    opened: list[RecordingModel] = []

    def open_(
        *,
        token_delay: float = 0.0,
        endless: bool = False,
        never: Sequence[str] = (),
        **settings: Any,
    ) -> RecordingModel:
        runtime = RecordingModel(
            qwen35_model_path,
            replace(TEST_SETTINGS, **settings),
            token_delay=token_delay,
            endless=endless,
            never=never,
        )
        opened.append(runtime)
        return runtime

    yield open_
    for runtime in opened:
        runtime.close()


def _generate(
    runtime: RecordingModel, request: GenerationRequest
) -> tuple[GenerationOutput, list[int]]:
    output = runtime.generate(request)
    return output, list(runtime.sampled)


def _assert_as_a_fresh_run(
    open_runtime: OpenRuntime, parts: PromptParts, output: GenerationOutput, tokens: list[int]
) -> None:
    """The same tokens and text as a fresh runtime without checkpoints writes for parts."""
    expected, expected_tokens = _generate(
        open_runtime(checkpoint_memory=0, endless=True), make_request(parts)
    )
    assert tokens == expected_tokens
    assert output.text == expected.text


def _first_logits(runtime: RecordingModel, request: GenerationRequest) -> npt.NDArray[np.float32]:
    """What the model made of the prompt: the logits of its first token (any model's differ
    for different prompts, whichever tokens it would then pick)."""
    runtime.generate(replace(request, max_tokens=1))
    assert runtime.first_logits is not None
    return runtime.first_logits


def _of_type[E: ParseEvent](events: Sequence[ParseEvent], kind: type[E]) -> list[E]:
    return [event for event in events if isinstance(event, kind)]


def _calls(output: GenerationOutput) -> list[ToolCall]:
    return [event.call for event in _of_type(output.events, ToolCallParsed)]


def _static_length(runtime: LoadedModel, parts: PromptParts) -> int:
    return len(runtime.tokenize(parts.static, add_bos=True))


# --- Prefix checkpoints ---------------------------------------------------------------------


def test_greedy_output_is_reproducible_on_fresh_runtimes(open_runtime: OpenRuntime) -> None:
    request = make_request(prompt_parts("Turn on the kitchen light"))
    first, first_tokens = _generate(open_runtime(endless=True), request)
    second, second_tokens = _generate(open_runtime(endless=True), request)
    assert first.stats.generated_tokens == 64
    assert second_tokens == first_tokens
    assert second.text == first.text
    assert first.stats.cached_tokens == 0
    assert not first.stats.checkpoint_restored


def test_restored_static_checkpoint_gives_identical_output(open_runtime: OpenRuntime) -> None:
    parts = prompt_parts("Turn on the kitchen light")
    other = prompt_parts("Lock the front door")
    assert other.static == parts.static
    fresh = open_runtime(endless=True)
    expected, expected_tokens = _generate(fresh, make_request(parts))

    runtime = open_runtime(endless=True)
    runtime.generate(make_request(other))  # saves the static checkpoint
    # The dynamic part matters to the random model.
    assert runtime.first_logits is not None
    assert fresh.first_logits is not None
    assert not np.array_equal(runtime.first_logits, fresh.first_logits)
    output, tokens = _generate(runtime, make_request(parts))

    static_tokens = _static_length(runtime, parts)
    assert output.stats.checkpoint_restored
    assert output.stats.cached_tokens == static_tokens
    assert output.stats.evaluated_tokens == output.stats.prompt_tokens - static_tokens
    assert tokens == expected_tokens
    assert output.text == expected.text


def test_output_differs_when_the_static_prefix_differs(open_runtime: OpenRuntime) -> None:
    """The control for the equivalence tests: the random model does notice the prefix."""
    parts = prompt_parts("Turn on the kitchen light")
    changed = prompt_parts("Turn on the kitchen light", static_system=STATIC_SYSTEM + " Be kind.")
    assert changed.dynamic == parts.dynamic
    runtime = open_runtime()
    logits = _first_logits(runtime, make_request(parts))
    output = runtime.generate(make_request(changed))
    assert not output.stats.checkpoint_restored
    assert output.stats.cached_tokens == 0  # no checkpoint of the old prefix is reused
    assert runtime.first_logits is not None
    assert not np.array_equal(runtime.first_logits, logits)


def test_tool_loop_append_evaluates_only_the_new_tokens(open_runtime: OpenRuntime) -> None:
    """Second request = first prompt + its output + a tool response: only the rest is evaluated.

    The sampled call does not re-tokenize to the tokens the model wrote (the grammar picks
    non-canonical pieces), so the live context is no exact prefix; the checkpoint saved after
    the whole first prompt is restored instead.
    """
    parts = prompt_parts("Turn on the kitchen light")
    runtime = open_runtime(endless=True)
    runtime.steering = CallAfterReasoning()
    # Room for the reasoning, the steered "<tool_call>" and the first call, however long the
    # grammar lets it be.
    room = 5 + STEERED_CALL_TOKENS + longest_call_tokens(TOOLS)
    first, _ = _generate(runtime, make_request(parts, thinking_budget=5, max_tokens=room))
    runtime.steering = None
    assert _calls(first)
    follow_up = PromptParts(parts.static, parts.dynamic + first.text + TOOL_RESPONSE)
    whole = runtime.tokenize(follow_up.static, add_bos=True) + runtime.tokenize(
        follow_up.dynamic, add_bos=False
    )
    first_prompt = runtime.tokenize(parts.static, add_bos=True) + runtime.tokenize(
        parts.dynamic, add_bos=False
    )
    assert whole[: len(first_prompt)] == first_prompt

    second, tokens = _generate(runtime, make_request(follow_up))
    assert second.stats.checkpoint_restored
    assert second.stats.cached_tokens == first.stats.prompt_tokens
    assert second.stats.evaluated_tokens == len(whole) - first.stats.prompt_tokens

    expected, expected_tokens = _generate(open_runtime(endless=True), make_request(follow_up))
    assert expected.stats.cached_tokens == 0
    assert tokens == expected_tokens
    assert second.text == expected.text


def test_live_context_is_reused_for_an_exact_append(open_runtime: OpenRuntime) -> None:
    """A prompt that extends what the context holds token for token restores nothing."""
    parts = prompt_parts("hello")
    runtime = open_runtime(checkpoint_full_prompt=False, endless=True)
    first = runtime.generate(make_request(parts, max_tokens=0))  # only evaluates the prompt
    assert first.stats.generated_tokens == 0
    appended = PromptParts(parts.static, parts.dynamic + "Hmm." + TOOL_RESPONSE)
    output, tokens = _generate(runtime, make_request(appended))
    assert not output.stats.checkpoint_restored
    assert output.stats.cached_tokens == first.stats.prompt_tokens
    assert output.stats.evaluated_tokens == output.stats.prompt_tokens - first.stats.prompt_tokens
    _, expected_tokens = _generate(open_runtime(endless=True), make_request(appended))
    assert tokens == expected_tokens


def _full_state_bytes(runtime: LoadedModel) -> int:
    llama_cpp = runtime._llama_cpp
    return int(llama_cpp.llama_state_seq_get_size(runtime._ctx.ctx, 0))


def test_checkpoints_hold_only_the_recurrent_state(open_runtime: OpenRuntime) -> None:
    """A checkpoint is the recurrent part alone: its size does not grow with the prompt."""
    runtime = open_runtime(checkpoint_full_prompt=False)
    runtime.generate(make_request(prompt_parts("hello"), max_tokens=0))
    short = runtime.checkpoint_stats.largest_bytes
    full_short = _full_state_bytes(runtime)
    runtime.reset_cache()
    long_static = STATIC_SYSTEM + " Rules: be brief, be kind." * 40
    runtime.generate(make_request(prompt_parts("hello", static_system=long_static), max_tokens=0))
    long = runtime.checkpoint_stats.largest_bytes
    full_long = _full_state_bytes(runtime)
    assert 0 < short == long
    assert full_long > full_short > short  # the whole state carries the attention cache too


def test_checkpoint_memory_is_bounded_in_bytes_least_recently_used_first(
    open_runtime: OpenRuntime,
) -> None:
    probe = open_runtime()
    probe.generate(make_request(prompt_parts("hello"), max_tokens=0))
    state = probe.checkpoint_stats.largest_bytes
    runtime = open_runtime(checkpoint_memory=2 * state + state // 2, checkpoint_full_prompt=True)
    history: list[Message] = []
    for number, user in enumerate(("hello", "Turn on the kitchen light", "Lock the front door")):
        parts = prompt_parts(user, history=history)
        output = runtime.generate(make_request(parts, max_tokens=6, checkpoint_at=parts.stable_end))
        stats = runtime.checkpoint_stats
        assert stats.count <= 2
        assert stats.bytes <= stats.limit_bytes
        if number:  # the static prefix (used every time) was kept; older ends went first
            assert output.stats.cached_tokens >= _static_length(runtime, parts)
        history += [Message("user", user), Message("assistant", output.text)]
        # As the agent does after each answer: the next turn's start, checkpointed.
        conversation = Conversation(STATIC_SYSTEM, tuple(history), True, DYNAMIC_SYSTEM)
        runtime.prepare(conversation, TOOLS, threading.Event())
        assert runtime.checkpoint_stats.bytes <= runtime.checkpoint_stats.limit_bytes
    assert runtime.checkpoint_stats.evicted > 0
    assert runtime.checkpoint_stats.restored >= 2


def test_checkpoints_the_live_context_no_longer_holds_are_dropped(
    open_runtime: OpenRuntime,
) -> None:
    runtime = open_runtime()
    first = prompt_parts("hello", static_system=f"{STATIC_SYSTEM} Rule 1.")
    runtime.generate(make_request(first, max_tokens=4))
    held = runtime.checkpoint_stats.count
    assert held > 0
    runtime.generate(make_request(prompt_parts("hello", static_system=f"{STATIC_SYSTEM} Rule 2.")))
    stats = runtime.checkpoint_stats
    assert stats.dropped == held  # useless without the attention cache of their prefix
    again = runtime.generate(make_request(first, max_tokens=4))
    assert not again.stats.checkpoint_restored
    assert again.stats.cached_tokens == 0


def test_an_unprepared_follow_up_goes_on_from_the_static_prompt_and_matches_a_fresh_run(
    open_runtime: OpenRuntime,
) -> None:
    """A request evaluates its new tokens in one pass, with no checkpoint inside them.

    So a follow-up that comes before the next turn was prepared (the agent does that after
    each answer) goes on from the static prompt, bit-identical to no reuse.
    """
    runtime = open_runtime(endless=True)
    first = prompt_parts("Turn on the kitchen light")
    answer = runtime.generate(make_request(first, checkpoint_at=first.stable_end))
    history = [Message("user", "Turn on the kitchen light"), Message("assistant", answer.text)]
    follow_up = prompt_parts("and the hallway", history=history)
    assert first.stable_end is not None
    assert follow_up.dynamic.startswith(first.dynamic[: first.stable_end])

    output, tokens = _generate(runtime, make_request(follow_up, checkpoint_at=follow_up.stable_end))
    static = runtime.tokenize(first.static, add_bos=True)
    assert output.stats.checkpoint_restored
    assert output.stats.cached_tokens == len(static)
    assert output.stats.evaluated_tokens == output.stats.prompt_tokens - len(static)

    expected, expected_tokens = _generate(
        open_runtime(checkpoint_memory=0, endless=True), make_request(follow_up)
    )
    assert expected.stats.cached_tokens == 0
    assert tokens == expected_tokens
    assert output.text == expected.text


class _CancelAfter(threading.Event):
    """A cancel that reads as set from its checks-th check on, and counts its checks (llama.cpp
    polls it after every graph node)."""

    def __init__(self, checks: int) -> None:
        super().__init__()
        self.remaining = checks
        self.checks = 0

    def is_set(self) -> bool:
        self.checks += 1
        self.remaining -= 1
        return self.remaining < 0 or super().is_set()


def _answered_turn(
    runtime: RecordingModel, *, said: str = ""
) -> tuple[PromptParts, str, Conversation]:
    """A first turn with reasoning; return the follow-up's prompt, the start it shares, and the
    conversation so far.

    said is added to the model's answer in the history (a longer answer to evaluate).
    """
    first = prompt_parts("Turn on the kitchen light")
    # A budget of 0 closes the reasoning before the model writes (it may never close it).
    answer = runtime.generate(
        make_request(first, checkpoint_at=first.stable_end, thinking_budget=0)
    )
    assert "</think>" in answer.text  # dropped from the history once a new message follows
    history = [
        Message("user", "Turn on the kitchen light"),
        Message("assistant", answer.text + said),
    ]
    follow_up = prompt_parts("and the hallway", history=history)
    user_start = "<|im_start|>user\n"
    shared = follow_up.dynamic[: follow_up.dynamic.rindex(user_start) + len(user_start)]
    assert not first.dynamic.startswith(shared)  # the first turn's prompt does not hold it
    return follow_up, shared, Conversation(STATIC_SYSTEM, tuple(history), True, DYNAMIC_SYSTEM)


def test_prepared_follow_up_evaluates_only_the_new_message_and_matches_a_fresh_run(
    open_runtime: OpenRuntime,
) -> None:
    runtime = open_runtime(endless=True)
    follow_up, shared, conversation = _answered_turn(runtime)
    runtime.prepare(conversation, TOOLS, threading.Event())

    output, tokens = _generate(runtime, make_request(follow_up, checkpoint_at=follow_up.stable_end))
    prepared = runtime.tokenize(follow_up.static, add_bos=True) + runtime.tokenize(
        shared, add_bos=False
    )
    assert output.stats.cached_tokens == len(prepared)
    new = runtime.tokenize(follow_up.dynamic[len(shared) :], add_bos=False)
    assert output.stats.evaluated_tokens == len(new) < 60
    _assert_as_a_fresh_run(open_runtime, follow_up, output, tokens)


def _prepared(
    runtime: RecordingModel, opening: Conversation
) -> tuple[PromptParts, list[int], list[int], list[int]]:
    """Prepare the opening; return its start and tokens: the static prompt, up to the
    checkpoint where the start stops lasting, and the rest of the start."""
    start = next_turn_start(TEMPLATE, opening, TOOLS)
    assert start is not None
    assert start.stable_end is not None
    static = runtime.tokenize(start.static, add_bos=True)
    held = static + runtime.tokenize(start.dynamic[: start.stable_end], add_bos=False)
    rest = runtime.tokenize(start.dynamic[start.stable_end :], add_bos=False)
    runtime.prepare(opening, TOOLS, threading.Event())
    return start, static, held, rest


def _assert_commands_go_on(
    runtime: RecordingModel, open_runtime: OpenRuntime, commands: Sequence[tuple[str, int]]
) -> None:
    """Each command (its block, then the words) reuses that many tokens, and writes as a
    fresh run would."""
    for block, cached in commands:
        command = prompt_parts(f"{block}\n\nTurn on the kitchen light")
        output, tokens = _generate(runtime, make_request(command, checkpoint_at=command.stable_end))
        assert output.stats.cached_tokens == cached
        _assert_as_a_fresh_run(open_runtime, command, output, tokens)


def test_a_prepared_time_line_leaves_only_the_words_and_a_stale_one_changes_nothing(
    open_runtime: OpenRuntime,
) -> None:
    runtime = open_runtime(endless=True)
    opening = Conversation(
        STATIC_SYSTEM, (), True, DYNAMIC_SYSTEM, next_message_start="Now: Wednesday 07:41"
    )
    start, _static, before, line = _prepared(runtime, opening)
    assert start.dynamic.endswith("<|im_start|>user\nNow: Wednesday 07:41")
    assert len(line) > 8

    # This minute, then the next (the prepared line went stale): the same output as a
    # fresh run either way; the stale line is dropped back to where the message begins.
    _assert_commands_go_on(
        runtime,
        open_runtime,
        (
            ("Now: Wednesday 07:41.", len(before) + len(line)),
            ("Now: Wednesday 07:42.", len(before)),
        ),
    )


def test_prepared_changes_before_the_time_line_outlast_the_minute(
    open_runtime: OpenRuntime,
) -> None:
    runtime = open_runtime(endless=True)
    changes = "Changed since:\n- light.kitchen: off\n- sensor.hall: 21.5 °C\n"
    opening = Conversation(
        STATIC_SYSTEM,
        (),
        True,
        DYNAMIC_SYSTEM,
        next_message_start=f"{changes}Now: Wednesday 07:41",
        next_message_lasting=len(changes),
    )
    start, static, lasting, line = _prepared(runtime, opening)
    assert start.stable_end is not None
    assert start.dynamic[: start.stable_end].endswith(f"<|im_start|>user\n{changes}")

    # This minute, then the next: the changes stay evaluated; other changes go back further.
    _assert_commands_go_on(
        runtime,
        open_runtime,
        (
            (f"{changes}Now: Wednesday 07:41.", len(lasting) + len(line)),
            (f"{changes}Now: Wednesday 07:42.", len(lasting)),
            ("Changed since:\n- light.kitchen: on\nNow: Wednesday 07:43.", len(static)),
        ),
    )


def test_preparing_over_another_prefix_than_the_one_held_is_left_to_warm_up(
    open_runtime: OpenRuntime,
) -> None:
    runtime = open_runtime()
    runtime.prepare(Conversation(STATIC_SYSTEM), TOOLS, threading.Event())
    held = runtime.prompt_evaluations
    other = Conversation("You are another agent, in the office.", (Message("user", "hi"),))

    assert runtime.prepare(other, TOOLS, threading.Event(), held_prefix_only=True) is None
    assert runtime.prompt_evaluations == held
    follow_up = Conversation(STATIC_SYSTEM, (Message("user", "hi"), Message("assistant", "Hi.")))
    stats = runtime.prepare(follow_up, TOOLS, threading.Event(), held_prefix_only=True)
    assert stats is not None
    assert stats.evaluated_tokens > 0


def test_preparing_stopped_between_batches_leaves_the_context_usable(
    open_runtime: OpenRuntime,
) -> None:
    runtime = open_runtime(endless=True)
    follow_up, _shared, conversation = _answered_turn(
        runtime, said=" The kitchen light is on now." * 8
    )
    with pytest.raises(GenerationCancelledError):
        runtime.prepare(conversation, TOOLS, _CancelAfter(2))

    output, tokens = _generate(runtime, make_request(follow_up, checkpoint_at=follow_up.stable_end))
    # Reused: the static prompt and the batches evaluated before the stop.
    static = runtime.tokenize(follow_up.static, add_bos=True)
    assert output.stats.cached_tokens > len(static)
    _assert_as_a_fresh_run(open_runtime, follow_up, output, tokens)


def test_full_prompt_checkpoints_count_against_the_same_limit(open_runtime: OpenRuntime) -> None:
    probe = open_runtime()
    probe.generate(make_request(prompt_parts("hello"), max_tokens=0))
    limit = 3 * probe.checkpoint_stats.largest_bytes
    runtime = open_runtime(checkpoint_memory=limit)
    for user in ("hello", "Turn on the kitchen light", "Lock the front door", "hi"):
        runtime.generate(make_request(prompt_parts(user), max_tokens=4))
        assert 0 < runtime.checkpoint_stats.count <= 3
        assert 0 < runtime.checkpoint_bytes <= limit


def test_no_checkpoints_when_disabled(open_runtime: OpenRuntime) -> None:
    runtime = open_runtime(checkpoint_memory=0, endless=True)
    parts = prompt_parts("hello")
    _, first = _generate(runtime, make_request(parts, max_tokens=8))
    first_logits = runtime.first_logits
    output = runtime.generate(make_request(prompt_parts("hi"), max_tokens=8))
    assert runtime.checkpoint_stats.count == 0
    assert runtime.checkpoint_bytes == 0
    assert not output.stats.checkpoint_restored
    assert output.stats.cached_tokens == 0
    assert first_logits is not None
    assert runtime.first_logits is not None
    assert not np.array_equal(runtime.first_logits, first_logits)  # "hi" was read, not "hello"
    _, repeated = _generate(runtime, make_request(parts, max_tokens=8))
    assert repeated == first


def test_reset_cache_forgets_checkpoints(open_runtime: OpenRuntime) -> None:
    runtime = open_runtime(endless=True)
    parts = prompt_parts("hello")
    _, tokens = _generate(runtime, make_request(parts))
    runtime.reset_cache()
    assert runtime.checkpoint_stats.count == 0
    output, again = _generate(runtime, make_request(parts))
    assert output.stats.cached_tokens == 0
    assert again == tokens


# --- Grammar --------------------------------------------------------------------------------

SEEDS = range(20)


def _forced_calls(
    runtime: LoadedModel, *, constrain: bool, max_tokens: int
) -> list[GenerationOutput]:
    parts = prompt_parts("Turn on the kitchen light")
    runtime.steering = CallAfterReasoning()
    return [
        runtime.generate(
            make_request(
                parts,
                sampling=SamplingSettings(seed=seed),  # the model card's sampling
                thinking_budget=8,
                max_tokens=max_tokens,
                constrain_tool_calls=constrain,
            )
        )
        for seed in SEEDS
    ]


def test_grammar_keeps_every_sampled_call_valid(open_runtime: OpenRuntime) -> None:
    # A model that never ends inside its reasoning (the call is steered after it), and room for
    # the reasoning and every call the grammar allows, as long as it lets them be.
    outputs = _forced_calls(
        open_runtime(endless=True),
        constrain=True,
        max_tokens=8 + STEERED_CALL_TOKENS + longest_answer_tokens(TOOLS),
    )
    for output in outputs:
        assert not _of_type(output.events, ToolCallFailed), output.text
        calls = _calls(output)
        assert calls, output.text  # the steering opened one, the grammar finished it
        for call in calls:
            check_call(call)
        assert output.stats.finish_reason == "stop"  # after the calls only the end is allowed
        # Every call has markup the grammar fixes ("\n<function=" at least): appended, not sampled.
        assert output.stats.call_forced_tokens > 0


def test_forced_call_text_is_evaluated_in_batches(open_runtime: OpenRuntime) -> None:
    """Jump-forward decoding: a call costs fewer evaluations than it has tokens."""
    runtime = open_runtime()
    runtime.steering = CallAfterReasoning()
    evaluations: list[int] = []
    append = runtime.append

    def counted(tokens: Sequence[int]) -> None:
        evaluations.append(len(tokens))
        append(tokens)

    runtime.append = counted  # type: ignore[method-assign]
    # Room for the longest call the grammar allows: a random model may write any of them.
    output = runtime.generate(
        make_request(prompt_parts("hello"), thinking_budget=0, max_tokens=400)
    )
    stats = output.stats
    assert _calls(output)
    batches = [n for n in evaluations if n > 1]
    # The budget's "</think>" and the call's forced stretches.
    assert sum(batches) >= stats.call_forced_tokens > 0
    # A forced stretch goes into the batch of the token written before it: one evaluation for
    # the budget's "</think>" and at most one for each token the model chose.
    assert len(evaluations) <= stats.generated_tokens + 1


def test_the_blank_line_after_a_written_think_close_is_not_sampled(
    open_runtime: OpenRuntime,
) -> None:
    """The template always follows "</think>" with a blank line: it goes into the batch of the
    "</think>" the model wrote, so the answer's first token is the next one sampled."""
    runtime = open_runtime()
    script = "plan\n</think>\n\nDone."
    runtime.steering = ScriptedAnswers(lambda _request: script)
    batches: list[list[str]] = []
    append = runtime.append

    def recorded(tokens: Sequence[int]) -> None:
        batches.append([runtime.token_piece(token).decode() for token in tokens])
        append(tokens)

    runtime.append = recorded  # type: ignore[method-assign]
    output = runtime.generate(
        make_request(
            prompt_parts("hello"), starts_in_reasoning=True, thinking_budget=None, max_tokens=64
        )
    )

    assert output.text == script
    closing = next(batch for batch in batches if "</think>" in batch)
    assert "".join(closing).endswith("</think>\n\n"), batches
    # Everything else was written a token at a time, each evaluated before the next was chosen.
    assert sum(len(batch) for batch in batches) == len(batches) + len(closing) - 1


def test_a_scripted_answer_longer_than_the_steering_lookahead_is_written_exactly(
    open_runtime: OpenRuntime,
) -> None:
    """A Steering's text is tokenized only as far as its next token needs, and written whole."""
    runtime = open_runtime()
    words = " ".join(f"step{i}" for i in range(60))
    script = f"{words}\n</think>\n\nDone: {words}."
    assert len(script) > 2 * STEERING_LOOKAHEAD
    runtime.steering = ScriptedAnswers(lambda _request: script)
    output = runtime.generate(
        make_request(
            prompt_parts("hello"), starts_in_reasoning=True, thinking_budget=None, max_tokens=1500
        )
    )
    assert output.text == script
    assert output.stats.finish_reason == "stop"


def test_grammar_walks_the_vocabulary_only_when_it_refuses_the_models_pick(
    open_runtime: OpenRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pick the grammar allows costs one pass of the sampler chain over the logits."""
    runtime = open_runtime(endless=True)
    runtime.steering = CallAfterReasoning()
    llama_cpp = runtime._llama_cpp
    apply = llama_cpp.llama_sampler_apply
    whole_vocabulary: list[int] = []

    def counted(sampler: Any, candidates: Any) -> None:
        if candidates._obj.size == runtime.info.n_vocab:
            whole_vocabulary.append(1)
        apply(sampler, candidates)

    monkeypatch.setattr(llama_cpp, "llama_sampler_apply", counted)
    sample_next = runtime.sample_next
    picks: list[int] = []

    def allowed_first(sampler: sampling.TokenSampler, *, grammar: bool) -> int:
        if grammar:
            # Make the model's favourite a token the grammar allows, as a trained model's is.
            logits = next_logits(runtime)
            allowed = next(t for t in np.argsort(-logits) if sampler._grammar_allows(int(t)))
            logits[allowed] = logits.max() + 50.0
            picks.append(int(allowed))
        token = sample_next(sampler, grammar=grammar)
        assert not grammar or token == picks[-1]
        return token

    runtime.sample_next = allowed_first  # type: ignore[method-assign]
    output = runtime.generate(
        make_request(prompt_parts("hello"), thinking_budget=0, max_tokens=400, sampling=GREEDY)
    )
    calls = _calls(output)
    assert calls, output.text
    for call in calls:
        check_call(call)
    assert picks
    # The chain's one pass per pick; the grammar never walked the vocabulary.
    assert len(whole_vocabulary) == len(picks)


def test_a_call_the_model_opens_in_its_reasoning_is_not_opened_twice(
    open_runtime: OpenRuntime,
) -> None:
    """`<tool_call>` ends the reasoning and opens the call the steering would have opened."""
    runtime = open_runtime(endless=True)
    runtime.script = runtime.tokenize("Let me call. <tool_call>", add_bos=False)
    runtime.steering = CallAfterReasoning()
    output = runtime.generate(
        make_request(
            prompt_parts("Turn on the kitchen light"),
            thinking_budget=64,
            max_tokens=64 + longest_answer_tokens(TOOLS),
        )
    )
    assert output.text.count("<tool_call>") == len(_calls(output)) >= 1, output.text
    assert not _of_type(output.events, ToolCallFailed), output.text
    assert not output.stats.thinking_budget_hit


def test_without_grammar_the_random_model_writes_broken_calls(open_runtime: OpenRuntime) -> None:
    """The same requests unconstrained: the grammar is what made the calls above valid."""
    outputs = _forced_calls(open_runtime(), constrain=False, max_tokens=120)
    broken = [output for output in outputs if _of_type(output.events, ToolCallFailed)]
    assert len(broken) >= len(SEEDS) // 2


@pytest.mark.parametrize(
    "broken", ['root ::= "unterminated', "root ::= undefined-rule", "root ::= [a-"]
)
def test_grammar_llama_cpp_rejects_raises_grammar_error(
    open_runtime: OpenRuntime, monkeypatch: pytest.MonkeyPatch, broken: str
) -> None:
    def build(tools: object, *, max_calls: int = 1) -> str:
        return broken

    monkeypatch.setattr(sampling, "build_tool_call_grammar", build)
    runtime = open_runtime(endless=True)
    request = make_request(prompt_parts("hello"), max_tokens=8)
    with pytest.raises(GrammarError, match=r"rejected by llama\.cpp") as caught:
        runtime.generate(request)
    assert isinstance(caught.value, EngineError)
    assert runtime.prompt_evaluations == 0  # caught before any work

    monkeypatch.undo()
    output = runtime.generate(request)
    assert output.stats.generated_tokens == 8


def test_grammar_is_off_when_constrain_is_off_even_with_tools(
    open_runtime: OpenRuntime, monkeypatch: pytest.MonkeyPatch
) -> None:
    def build(tools: object, *, max_calls: int = 1) -> str:
        return 'root ::= "unterminated'  # llama.cpp would reject it, were it ever used

    monkeypatch.setattr(sampling, "build_tool_call_grammar", build)
    runtime = open_runtime(endless=True)
    output = runtime.generate(
        make_request(prompt_parts("hello"), max_tokens=8, constrain_tool_calls=False)
    )
    assert output.stats.generated_tokens == 8


# --- Thinking budget ------------------------------------------------------------------------


def test_thinking_budget_closes_reasoning_and_the_answer_follows(
    open_runtime: OpenRuntime,
) -> None:
    parts = prompt_parts("hello")
    # A model that would go on thinking (and, once it answers, go on answering).
    runtime = open_runtime(endless=True, never=MARKUP)
    free, free_tokens = _generate(runtime, make_request(parts, thinking_budget=None, max_tokens=60))
    assert not free.stats.thinking_budget_hit
    assert free.stats.reasoning_tokens == 60  # it would have gone on thinking
    assert "</think>" not in free.text

    budget = 5
    output, tokens = _generate(runtime, make_request(parts, thinking_budget=budget, max_tokens=60))
    assert output.stats.thinking_budget_hit
    assert output.stats.reasoning_tokens == budget
    assert tokens[:budget] == free_tokens[:budget]  # the same thoughts, cut short
    assert THINK_CLOSE in output.text
    assert output.stats.generated_tokens > budget  # the answer continues after </think>
    kinds = [type(event) for event in output.events]
    assert TextDelta in kinds
    assert ReasoningDelta not in kinds[kinds.index(TextDelta) :]


def test_zero_thinking_budget_answers_at_once(open_runtime: OpenRuntime) -> None:
    output = open_runtime(never=MARKUP).generate(
        make_request(prompt_parts("hello"), thinking_budget=0, max_tokens=20)
    )
    assert output.stats.thinking_budget_hit
    assert output.stats.reasoning_tokens == 0
    assert output.text.startswith(THINK_CLOSE)
    assert not _of_type(output.events, ReasoningDelta)


def test_thinking_budget_does_not_apply_without_reasoning(open_runtime: OpenRuntime) -> None:
    output = open_runtime(never=MARKUP).generate(
        make_request(
            prompt_parts("hello"), starts_in_reasoning=False, thinking_budget=2, max_tokens=20
        )
    )
    assert not output.stats.thinking_budget_hit
    assert THINK_CLOSE not in output.text


def _prompt_leaving(runtime: LoadedModel, room: int) -> PromptParts:
    """A prompt that leaves between room - 8 and room tokens of the context free."""
    lines = 0
    while True:
        parts = prompt_parts("hello", dynamic_system="Hi" + " light" * lines, tools=())
        size = _static_length(runtime, parts) + len(runtime.tokenize(parts.dynamic, add_bos=False))
        if runtime.info.n_ctx - size <= room:
            assert runtime.info.n_ctx - size > room - 8
            return parts
        lines += 1


def test_forced_text_never_overflows_the_context(open_runtime: OpenRuntime) -> None:
    """A budget that forces </think> near the end of the context ends the answer, no error."""
    runtime = open_runtime(n_ctx=512, endless=True, never=MARKUP)
    parts = _prompt_leaving(runtime, 100)
    output = runtime.generate(make_request(parts, thinking_budget=90, max_tokens=10_000))
    assert output.stats.finish_reason == "length"
    assert output.stats.thinking_budget_hit
    assert output.stats.generated_tokens + len(runtime.tokenize(THINK_CLOSE, add_bos=False)) <= 100


# --- Cancellation ---------------------------------------------------------------------------


def test_cancel_from_another_thread_stops_within_a_few_tokens(open_runtime: OpenRuntime) -> None:
    parts = prompt_parts("hello")
    short = make_request(parts, max_tokens=24)
    # ~1 ms a token: the cancel lands mid-generation even on a busy machine.
    runtime = open_runtime(token_delay=0.001, endless=True)
    _, before = _generate(runtime, short)

    started = threading.Event()
    runtime.after_token = lambda count: started.set() if count >= 20 else None
    cancel = threading.Event()
    errors: list[BaseException] = []

    def work() -> None:
        try:
            runtime.generate(make_request(parts, thinking_budget=None, max_tokens=1000), cancel)
        except BaseException as err:  # handed to the test thread
            errors.append(err)

    thread = threading.Thread(target=work)
    thread.start()
    assert started.wait(10)
    cancel.set()
    thread.join(10)
    assert not thread.is_alive()
    runtime.after_token = None

    assert len(errors) == 1
    assert isinstance(errors[0], GenerationCancelledError)
    assert runtime.sampled_after_cancel <= 2
    assert 20 <= len(runtime.sampled) < 200

    # The runtime is usable afterwards and its cache was not corrupted.
    output, after = _generate(runtime, short)
    assert after == before
    assert output.stats.generated_tokens == 24


def test_cancel_stops_a_prompt_batch_midway(open_runtime: OpenRuntime) -> None:
    """A long prompt batch is aborted inside llama_decode, not after it."""
    runtime = open_runtime(n_batch=512)
    request = make_request(prompt_parts("hello"), max_tokens=16)
    _, before = _generate(runtime, request)
    runtime.reset_cache()

    cancel = _CancelAfter(40)
    with pytest.raises(GenerationCancelledError):
        runtime.generate(request, cancel)
    assert runtime.sampled == []
    # Two checks in Python, then one per graph node of the first batch until it stopped there.
    assert 2 < cancel.checks <= 45

    output, after = _generate(runtime, request)
    assert after == before
    assert output.stats.cached_tokens == 0


def test_cancelled_before_start_touches_nothing(open_runtime: OpenRuntime) -> None:
    runtime = open_runtime()
    request = make_request(prompt_parts("hello"), max_tokens=16)
    _, before = _generate(runtime, request)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(GenerationCancelledError, match="cancelled"):
        runtime.generate(request, cancel)
    assert runtime.prompt_evaluations == 1
    assert runtime.sampled == []
    _, after = _generate(runtime, request)
    assert after == before


class _CancelInsideBatch(threading.Event):
    """Reads as set inside llama.cpp's decode of the given prompt batch (its abort callback)."""

    def __init__(self, batch: int) -> None:
        super().__init__()
        self.batch = batch
        self.batches_started = 0
        self.aborted = False

    def is_set(self) -> bool:
        caller = sys._getframe(1).f_code.co_name
        if caller == "_decode":  # the check before each batch
            self.batches_started += 1
        elif caller == "<lambda>" and self.batches_started >= self.batch:  # inside llama_decode
            self.aborted = True
        return self.aborted or super().is_set()


def test_a_cancel_inside_a_long_prompt_keeps_its_whole_batches(
    open_runtime: OpenRuntime, caplog: pytest.LogCaptureFixture
) -> None:
    """A turn stopped in the middle of a home list leaves its whole batches to the next one."""
    caplog.set_level(logging.DEBUG, logger=f"{LoadedModel.__module__}.native")
    home = "".join(f"\nlight.room_{number}: off" for number in range(120))
    request = make_request(prompt_parts("hello", static_system=STATIC_SYSTEM + home), max_tokens=8)
    runtime = open_runtime(n_batch=64, checkpoint_memory=0, endless=True)

    cancel = _CancelInsideBatch(3)
    with pytest.raises(GenerationCancelledError):
        runtime.generate(request, cancel)
    assert cancel.aborted
    assert runtime.sampled == []
    # llama.cpp reports the batch it stopped as a failed graph: our own cancel, no error.
    native = [r for r in caplog.records if r.name.endswith(".native")]
    assert any("failed" in r.getMessage() for r in native)
    assert [r.getMessage() for r in native if r.levelno >= logging.WARNING] == []

    # The third batch was aborted half-way: the context goes back to the two before it.
    output, tokens = _generate(runtime, request)
    assert output.stats.cached_tokens == 2 * 64
    assert output.stats.prompt_tokens > 4 * 64
    expected, expected_tokens = _generate(open_runtime(n_batch=64, endless=True), request)
    assert tokens == expected_tokens
    assert output.text == expected.text


# --- Errors ---------------------------------------------------------------------------------


def _readable(message: str) -> None:
    assert 20 < len(message) < 300
    assert "Traceback" not in message
    assert "b'" not in message


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.gguf"
    with pytest.raises(ModelFileMissingError) as caught:
        LoadedModel(path, TEST_SETTINGS)
    assert str(path) in str(caught.value)
    _readable(str(caught.value))


@pytest.mark.parametrize(
    "content",
    [
        np.random.default_rng(7).bytes(4096),
        b"GGUF" + b"\xff" * 12,  # the magic, then a header cut short
        b"",
    ],
    ids=["random", "truncated-header", "empty"],
)
def test_not_a_gguf(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "model.gguf"
    path.write_bytes(content)
    with pytest.raises(NotAGgufError) as caught:
        LoadedModel(path, TEST_SETTINGS)
    assert "is not a GGUF model file" in str(caught.value)
    assert str(path) in str(caught.value)


def test_unknown_architecture(tmp_path: Path) -> None:
    path = tmp_path / "strange.gguf"
    writer = gguf.GGUFWriter(path, arch="nonexistent")
    writer.add_name("A model of an architecture nobody knows")
    writer.add_block_count(1)
    writer.add_tensor("token_embd.weight", np.zeros((8, 4), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(UnsupportedArchitectureError) as caught:
        LoadedModel(path, TEST_SETTINGS)
    assert caught.value.architecture == "nonexistent"
    assert "'nonexistent'" in str(caught.value)
    assert "strange.gguf" in str(caught.value)
    _readable(str(caught.value))


def test_damaged_model_file(tmp_path: Path, qwen35_model_path: Path) -> None:
    path = tmp_path / "cut.gguf"
    data = qwen35_model_path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(UnsupportedArchitectureError, match="damaged") as caught:
        LoadedModel(path, TEST_SETTINGS)
    assert caught.value.architecture == "qwen35"


def test_prompt_longer_than_the_context(open_runtime: OpenRuntime) -> None:
    runtime = open_runtime(n_ctx=256)
    context = runtime.info.n_ctx
    parts = prompt_parts("hello")  # about 300 tokens with the tool schemas
    prompt = _static_length(runtime, parts) + len(runtime.tokenize(parts.dynamic, add_bos=False))
    assert prompt > context
    with pytest.raises(ContextTooSmallError) as caught:
        runtime.generate(make_request(parts))
    error = caught.value
    assert (error.prompt_tokens, error.n_ctx) == (prompt, context)
    assert f"needs {prompt} tokens" in str(error)
    assert f"holds {context}" in str(error)
    _readable(str(error))


def test_prompt_without_room_for_an_answer(open_runtime: OpenRuntime) -> None:
    runtime = open_runtime(n_ctx=512, endless=True)
    parts = _prompt_leaving(runtime, 40)  # fits, but leaves less than 64 tokens to answer
    with pytest.raises(ContextTooSmallError, match="plus 64 for the answer"):
        runtime.generate(make_request(parts))
    assert runtime.generate(make_request(prompt_parts("hello", tools=()), max_tokens=4)).text


def test_not_enough_memory(qwen35_model_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(psutil, "virtual_memory", lambda: SimpleNamespace(available=100_000))
    with pytest.raises(EngineOutOfMemoryError) as caught:
        LoadedModel(qwen35_model_path, TEST_SETTINGS)
    message = str(caught.value)
    assert message.startswith("Out of memory while loading " + qwen35_model_path.name)
    assert "smaller model" in message


# --- Streaming ------------------------------------------------------------------------------


def _joined[E: ReasoningDelta | TextDelta](events: Sequence[ParseEvent], kind: type[E]) -> str:
    return "".join(event.text for event in _of_type(events, kind))


@pytest.mark.parametrize(
    ("user", "overrides", "answer"),
    [
        ("hello", {"thinking_budget": 5}, TextDelta),
        (
            "Turn on the kitchen light",
            {
                "thinking_budget": 5,
                "steering": CallAfterReasoning(),
                "max_tokens": 5 + STEERED_CALL_TOKENS + FIRST_CALL,
            },
            ToolCallParsed,
        ),
    ],
    ids=["text", "tool-call"],
)
def test_streamed_events_match_the_parsed_output(
    open_runtime: OpenRuntime, user: str, overrides: dict[str, Any], answer: type[ParseEvent]
) -> None:
    received: list[ParseEvent] = []
    runtime = open_runtime(endless=True, never=MARKUP)
    fields = dict(overrides)
    runtime.steering = fields.pop("steering", None)
    output = runtime.generate(make_request(prompt_parts(user), **fields), on_event=received.append)
    assert received == output.events
    kinds = [type(event) for event in received]
    assert answer in kinds
    assert ReasoningDelta not in kinds[kinds.index(answer) :]  # in order: thoughts, then answer

    parser = ToolCallStreamParser(TOOLS)
    whole = parser.feed(output.text) + parser.finish()
    assert _joined(received, ReasoningDelta) == _joined(whole, ReasoningDelta)
    assert _joined(received, TextDelta) == _joined(whole, TextDelta)
    assert _of_type(received, ToolCallParsed) == _of_type(whole, ToolCallParsed)
    assert _of_type(received, ToolCallFailed) == _of_type(whole, ToolCallFailed)


# --- Prompt tokenization --------------------------------------------------------------------

CONVERSATIONS: dict[str, Callable[[], PromptParts]] = {
    "tools": lambda: prompt_parts("Turn on the kitchen light"),
    "no-tools": lambda: prompt_parts("hello", tools=()),
    "history": lambda: prompt_parts(
        "and now off",
        history=[
            Message("user", "Turn on the kitchen light"),
            Message(
                "assistant",
                reasoning="The user wants the light on.",
                tool_calls=[ToolCall("HassTurnOn", {"name": "Kitchen Light", "flash": True})],
            ),
            Message("tool", '{"success": true}', tool_name="HassTurnOn"),
            Message("assistant", "The kitchen light is on."),
        ],
    ),
    "dynamic-starts-with-space": lambda: prompt_parts("hi", dynamic_system=" 18:30, Monday"),
    "dynamic-starts-with-newline": lambda: prompt_parts("hi", dynamic_system="\n18:30"),
}


@pytest.mark.parametrize("name", CONVERSATIONS)
def test_static_and_dynamic_tokenize_like_the_whole_prompt(
    open_runtime: OpenRuntime, name: str
) -> None:
    """render_split() + tokenizing the parts separately == tokenizing the whole prompt.

    The engine tokenizes the static part on its own so that its tokens, and the checkpoint
    saved after them, never depend on what follows. The static part ends right after a blank
    line, where the Qwen3.5 pre-tokenizer always breaks, so this costs nothing for these
    prompts with the bundled template. (On a real vocabulary, a dynamic part that starts with
    a newline would merge with that blank line when tokenized whole: see the Gemma test.)
    """
    parts = CONVERSATIONS[name]()
    runtime = open_runtime()
    static = runtime.tokenize(parts.static, add_bos=True)
    dynamic = runtime.tokenize(parts.dynamic, add_bos=False)
    assert static + dynamic == runtime.tokenize(parts.text, add_bos=True)
    assert parts.static.endswith(f"{STATIC_SYSTEM}\n\n")


# --- Real weights ---------------------------------------------------------------------------


@pytest.mark.slow
def test_gemma_writes_readable_text(gemma_model_path: Path) -> None:
    runtime = LoadedModel(gemma_model_path, EngineSettings(n_ctx=512, n_threads=llama_threads(2)))
    try:
        assert runtime.info.architecture == "gemma3"
        output = runtime.generate(
            GenerationRequest(
                PromptParts(
                    "Answer the question.\n",
                    "Question: What is the capital of France?\nAnswer:",
                    opens_reasoning=False,
                ),
                sampling=GREEDY,
                max_tokens=16,
                thinking_budget=None,
            )
        )
        stats = output.stats
        assert "paris" in output.text.lower()
        words = output.text.split()
        assert len(words) >= 3
        assert all(word.isprintable() for word in words)
        assert stats.generated_tokens == 16
        assert stats.evaluated_tokens > 0
        assert stats.prompt_seconds > 0
        assert stats.generation_seconds > 0
        assert _joined(output.events, TextDelta).split() == words

        # A real vocabulary: the static/dynamic split tokenizes like the whole prompt.
        parts = prompt_parts("hello", dynamic_system=DYNAMIC_SYSTEM)
        static = runtime.tokenize(parts.static, add_bos=True)
        dynamic = runtime.tokenize(parts.dynamic, add_bos=False)
        assert static + dynamic == runtime.tokenize(parts.text, add_bos=True)
    finally:
        runtime.close()


@pytest.mark.slow
def test_gemma_with_8_bit_keys_answers_alike_and_saves_its_own_prefixes(
    gemma_model_path: Path, tmp_path: Path
) -> None:
    """Automatic keys are q8_0 on a CPU-only runtime; a prefix saved with 16-bit keys is
    another file (its state could not be read into the other cache)."""
    gpu = bool(llama_cpp.llama_supports_gpu_offload())
    conversation = Conversation(system="Answer the question in one word.")
    question = PromptParts(
        "Answer the question.\n",
        "Question: What is the capital of France?\nAnswer:",
        opens_reasoning=False,
    )
    answers: dict[str, str] = {}
    for wanted in ("f16", "auto"):
        settings = EngineSettings(
            n_ctx=512, n_threads=llama_threads(2), key_cache=wanted, prefix_store=tmp_path
        )
        runtime = LoadedModel(gemma_model_path, settings)
        try:
            runtime.warm(conversation, (), threading.Event(), room=64)
            output = runtime.generate(
                GenerationRequest(question, sampling=GREEDY, max_tokens=16, thinking_budget=None)
            )
            answers[runtime.key_cache] = output.text.lower()
        finally:
            runtime.close()

    assert sorted(answers) == (["f16"] if gpu else ["f16", "q8_0"])
    assert all("paris" in answer for answer in answers.values()), answers
    assert len(list(tmp_path.iterdir())) == len(answers)


@pytest.mark.parametrize(
    ("wanted", "gpu", "key_length", "expected"),
    [
        ("auto", False, 256, "q8_0"),
        ("auto", True, 256, "f16"),
        ("f16", False, 256, "f16"),
        ("q8_0", True, 128, "q8_0"),
        # A key that fills no whole q8_0 block (the tiny test model's 16 values) stays 16-bit.
        ("auto", False, 16, "f16"),
        ("q8_0", False, 48, "f16"),
        ("auto", False, None, "f16"),
    ],
)
def test_keys_are_8_bit_on_a_cpu_where_the_models_key_length_allows(
    wanted: str, gpu: bool, key_length: int | None, expected: str
) -> None:
    assert key_cache_type(wanted, gpu=gpu, key_length=key_length) == expected


def test_8_bit_keys_take_a_quarter_less_of_botpsys_attention_cache() -> None:
    botpsy = {
        "general.architecture": "qwen35",
        "qwen35.block_count": "24",
        "qwen35.full_attention_interval": "4",
        "qwen35.attention.head_count": "8",
        "qwen35.attention.head_count_kv": "2",
        "qwen35.attention.key_length": "256",
        "qwen35.attention.value_length": "256",
        "qwen35.embedding_length": "1024",
    }
    assert kv_bytes_per_token(botpsy) == 12 * 2**10
    assert kv_bytes_per_token(botpsy, "q8_0") == 6 * 2 * (272 + 512)  # 9,408 bytes
    assert key_length(botpsy) == 256
    # Without a key length of its own: the embedding split over the heads.
    assert key_length({**botpsy, "qwen35.attention.key_length": "x"}) == 128


# --- Stop strings ---------------------------------------------------------------------------


def test_stop_string_ends_the_answer_like_an_end_token(open_runtime: OpenRuntime) -> None:
    # 200 tokens are at least 50 characters (a character is at most 4 bytes).
    request = make_request(
        prompt_parts("Turn on the kitchen light"), thinking_budget=None, max_tokens=200
    )
    free, _ = _generate(open_runtime(endless=True), request)
    # A piece of text the greedy model is known to write somewhere after its first tokens.
    marker = free.text[40:44]
    assert len(marker) == 4

    assert isinstance(request.prompt, PromptParts)
    stopped, _ = _generate(
        open_runtime(endless=True),
        make_request(request.prompt, thinking_budget=None, max_tokens=200, stop=(marker,)),
    )

    assert stopped.stats.finish_reason == "stop"
    assert stopped.stats.generated_tokens < free.stats.generated_tokens
    assert marker in stopped.text
    assert free.text.startswith(stopped.text)


@pytest.mark.parametrize(
    ("wanted", "gpu", "expected"),
    [
        (None, False, "DISABLED"),
        (None, True, "AUTO"),
        (True, False, "ENABLED"),
        (False, True, "DISABLED"),
    ],
)
def test_automatic_flash_attention_is_off_without_a_gpu(
    wanted: bool | None, gpu: bool, expected: str
) -> None:
    llama_cpp = SimpleNamespace(
        LLAMA_FLASH_ATTN_TYPE_AUTO=-1,
        LLAMA_FLASH_ATTN_TYPE_DISABLED=0,
        LLAMA_FLASH_ATTN_TYPE_ENABLED=1,
        llama_supports_gpu_offload=lambda: gpu,
    )
    assert flash_attention_type(llama_cpp, wanted) == getattr(
        llama_cpp, f"LLAMA_FLASH_ATTN_TYPE_{expected}"
    )


def test_a_tool_call_ends_the_reasoning_only_where_tools_can_be_called() -> None:
    parts = prompt_parts("hello")
    chat = make_request(parts)
    structured = make_request(parts, tools=(), answer_schema={"type": "object"})
    assert reasoning_ended("so I call\n</think>\n\n", chat)
    assert reasoning_ended("so I call\n</think>\n\n", structured)
    assert reasoning_ended("let me <tool_call>", chat)
    assert not reasoning_ended("let me <tool_call>", structured)


@pytest.mark.parametrize("seed", range(20))
def test_shared_prefix_length_is_where_two_prompts_part(seed: int) -> None:
    """The halving comparison finds the same length as reading the tokens one by one."""
    rng = random.Random(seed)
    first = [rng.randrange(4) for _ in range(rng.randrange(0, 3000))]
    second = first[: rng.randrange(0, len(first) + 1)] + [
        rng.randrange(4) for _ in range(rng.randrange(0, 50))
    ]
    one_by_one = 0
    for mine, theirs in zip(first, second, strict=False):
        if mine != theirs:
            break
        one_by_one += 1
    assert shared_prefix_length(first, second) == one_by_one
    assert shared_prefix_length(second, first) == one_by_one


def test_shared_prefix_length_at_the_edges() -> None:
    """Empty lists, equal lists, one inside the other, parting at the first token."""
    assert shared_prefix_length([], [1, 2]) == 0
    assert shared_prefix_length([1, 2, 3], [1, 2, 3]) == 3
    assert shared_prefix_length([1, 2], [1, 2, 3]) == 2
    assert shared_prefix_length([5, 2, 3], [1, 2, 3]) == 0
    assert shared_prefix_length([1, 2, 3], [1, 2, 4]) == 2
