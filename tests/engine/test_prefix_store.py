"""Saved prefixes: a restart restores the evaluated home instead of evaluating it again.

The runtime tests use the tiny random-weight qwen35 model, whose every logit depends on the
whole context: a restored state that differed in any way would change them. They compare with
a fresh evaluation in the same process (logits differ between CPUs and thread counts).
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
import threading
from typing import Any

import pytest

from custom_components.local_agent.engine.chat_format import next_turn_start
from custom_components.local_agent.engine.generation import GenerationRequest
from custom_components.local_agent.engine.local import llama
from custom_components.local_agent.engine.local.llama import PrefixProgress
from custom_components.local_agent.engine.local.prefix_store import SUFFIX
from custom_components.local_agent.engine.local.prefix_store import PrefixStore
from custom_components.local_agent.engine.local.prefix_store import SaveCancelled
from custom_components.local_agent.engine.local.prefix_store import prefix_key
from custom_components.local_agent.engine.types import Conversation
from custom_components.local_agent.engine.types import Message

from .runtime_support import GREEDY
from .runtime_support import STATIC_SYSTEM
from .runtime_support import TEST_SETTINGS
from .runtime_support import TOOLS
from .runtime_support import RecordingModel

TOKENS = [5, 17, 400, 3]
SEQUENCE = bytes(range(256)) * 40
PREFIX = b"recurrent state" * 10
KEY = prefix_key("system text")


def store(directory: Path, identity: str = "model A", limit: int = 10**6) -> PrefixStore:
    return PrefixStore(directory, identity, limit)


def saved_file(directory: Path) -> Path:
    """Save the test prefix under KEY in directory: the file it was saved to."""
    path = store(directory).save(KEY, TOKENS, memoryview(SEQUENCE), PREFIX)
    assert path is not None
    return path


def test_a_saved_prefix_reads_back(tmp_path: Path) -> None:
    path = saved_file(tmp_path)
    assert path.parent == tmp_path
    assert path.name.endswith(SUFFIX)

    saved = store(tmp_path).load(KEY, TOKENS)

    assert saved is not None
    assert saved.tokens == tuple(TOKENS)
    assert bytes(saved.sequence_state) == SEQUENCE
    assert bytes(saved.prefix_state) == PREFIX


def test_nothing_is_read_for_another_prefix_model_or_tokens(tmp_path: Path) -> None:
    path = saved_file(tmp_path)

    assert store(tmp_path).load(prefix_key("other text"), TOKENS) is None
    # Another model file (or runtime, or flash attention) looks for another file name.
    assert store(tmp_path, "model B").load(KEY, TOKENS) is None
    assert store(tmp_path).load(KEY, [*TOKENS, 9]) is None  # another tokenizer
    assert path.is_file()  # a file that is fine but not ours is left alone


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[:-1],  # cut short
        lambda data: data[:100] + bytes([data[100] ^ 1]) + data[101:],  # one bit in the state
        lambda data: b"XXXXXXXX" + data[8:],  # not our file
        lambda data: b"",
    ],
    ids=["truncated", "bit-flip", "magic", "empty"],
)
def test_a_damaged_file_is_never_trusted(tmp_path: Path, damage: Callable[[bytes], bytes]) -> None:
    path = saved_file(tmp_path)
    path.write_bytes(damage(path.read_bytes()))

    assert store(tmp_path).load(KEY, TOKENS) is None
    assert not path.exists()  # deleted, so it is saved again


def test_the_folder_keeps_to_its_limit_oldest_first(tmp_path: Path) -> None:
    one_file = len(SEQUENCE) + len(PREFIX) + 1000
    bounded = store(tmp_path, limit=2 * one_file)
    keys = [prefix_key(f"home {n}") for n in range(3)]
    for key in keys:
        assert bounded.save(key, TOKENS, memoryview(SEQUENCE), PREFIX) is not None
        assert bounded.total_bytes() <= bounded.limit_bytes
    assert [bounded.has(key) for key in keys] == [False, True, True]


def test_a_prefix_larger_than_the_limit_is_not_saved(tmp_path: Path) -> None:
    small = store(tmp_path, limit=len(SEQUENCE) // 2)
    assert small.save(prefix_key("x"), TOKENS, memoryview(SEQUENCE), PREFIX) is None
    assert list(tmp_path.iterdir()) == []


def test_a_cancelled_save_keeps_nothing(tmp_path: Path) -> None:
    with pytest.raises(SaveCancelled):
        store(tmp_path).save(
            prefix_key("x"), TOKENS, memoryview(SEQUENCE), PREFIX, cancelled=lambda: True
        )
    assert list(tmp_path.iterdir()) == []


# --- Restored into a model ------------------------------------------------------------------

AGENT = Conversation(system=STATIC_SYSTEM + "\nHome: light.kitchen 'Kitchen Light': off")
QUESTION = "Turn on the kitchen light"


@pytest.fixture
def open_model(qwen35_model_path: Path) -> Iterator[Callable[..., RecordingModel]]:
    opened: list[RecordingModel] = []

    def open_(**settings: Any) -> RecordingModel:
        model = RecordingModel(qwen35_model_path, replace(TEST_SETTINGS, **settings))
        model.record_logits = True
        opened.append(model)
        return model

    yield open_
    for model in opened:
        model.close()


def _turn(conversation: Conversation = AGENT) -> GenerationRequest:
    asked = replace(conversation, messages=(Message("user", QUESTION),))
    return GenerationRequest(asked, tools=TOOLS, sampling=GREEDY, max_tokens=32)


def _warm(model: RecordingModel, conversation: Conversation = AGENT) -> None:
    model.warm(conversation, TOOLS, threading.Event(), room=64)


def test_a_restored_prefix_gives_bit_identical_logits(
    open_model: Callable[..., RecordingModel], tmp_path: Path
) -> None:
    first_run = open_model(prefix_store=tmp_path)
    _warm(first_run)
    assert len(list(tmp_path.glob(f"*{SUFFIX}"))) == 1

    restarted = open_model(prefix_store=tmp_path)
    progress = PrefixProgress()
    restarted.warm(AGENT, TOOLS, threading.Event(), room=64, progress=progress)
    restored = restarted.generate(_turn())

    fresh = open_model()  # the same evaluation in this process, nothing saved or restored
    _warm(fresh)
    expected = fresh.generate(_turn())

    start = next_turn_start(restarted.chat_template, AGENT, TOOLS)
    assert start is not None
    static_tokens = len(restarted.tokenize(start.static, add_bos=True))
    assert progress.held >= static_tokens  # the warm-up held the prefix, from disk
    assert restored.stats.cached_tokens > static_tokens  # and the turn went on from there
    assert restarted.sampled == fresh.sampled
    assert restored.text == expected.text
    assert len(restarted.logits) == len(fresh.logits) > 0
    assert restarted.logits == fresh.logits  # every sampled position, bit for bit


def test_the_restored_state_is_what_the_model_reads(
    open_model: Callable[..., RecordingModel], tmp_path: Path
) -> None:
    """The control: a restart with another prefix saved restores nothing, and its logits differ."""
    other = replace(AGENT, system=AGENT.system + " Be kind.")
    saver = open_model(prefix_store=tmp_path)
    _warm(saver, other)

    restarted = open_model(prefix_store=tmp_path)
    output = restarted.generate(_turn())
    fresh = open_model()
    fresh.generate(_turn(other))

    assert not output.stats.prefix_from_disk
    assert output.stats.cached_tokens == 0
    assert restarted.logits != fresh.logits


def test_a_first_turn_after_restart_reads_the_prefix_from_disk(
    open_model: Callable[..., RecordingModel], tmp_path: Path
) -> None:
    _warm(open_model(prefix_store=tmp_path))

    output = open_model(prefix_store=tmp_path).generate(_turn())

    assert output.stats.prefix_from_disk
    assert output.stats.checkpoint_restored is False
    assert output.stats.evaluated_tokens < output.stats.prompt_tokens // 2


def test_one_model_saves_a_new_prefix_only_once_an_hour_has_passed(
    open_model: Callable[..., RecordingModel],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A home list taken again every few minutes must not write its state to disk each time."""
    clock = [1000.0]
    monkeypatch.setattr(llama, "monotonic", lambda: clock[0])
    model = open_model(prefix_store=tmp_path)
    _warm(model)
    assert len(list(tmp_path.glob(f"*{SUFFIX}"))) == 1

    retaken = replace(AGENT, system=AGENT.system + " Be kind.")
    clock[0] += llama.PREFIX_SAVE_INTERVAL - 1
    _warm(model, retaken)
    assert len(list(tmp_path.glob(f"*{SUFFIX}"))) == 1  # held, not saved

    clock[0] += 1
    assert model.save_prefix(threading.Event()) is not None  # the next try saves it
    assert len(list(tmp_path.glob(f"*{SUFFIX}"))) == 2
    assert open_model(prefix_store=tmp_path).generate(_turn(retaken)).stats.prefix_from_disk


def test_a_damaged_saved_prefix_is_evaluated_again_and_saved_anew(
    open_model: Callable[..., RecordingModel], tmp_path: Path
) -> None:
    _warm(open_model(prefix_store=tmp_path))
    (path,) = tmp_path.glob(f"*{SUFFIX}")
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))

    model = open_model(prefix_store=tmp_path)
    output = model.generate(_turn())
    assert not output.stats.prefix_from_disk
    assert output.stats.cached_tokens == 0
    assert model.save_prefix(threading.Event()) == path  # written again, intact
    assert open_model(prefix_store=tmp_path).generate(_turn()).stats.prefix_from_disk


def test_an_automatic_context_grows_to_hold_the_home(
    open_model: Callable[..., RecordingModel],
) -> None:
    big_home = replace(AGENT, system=AGENT.system + "\n- light.x: off" * 900)
    model = open_model(n_ctx=0)
    start = model.info.n_ctx
    model.warm(big_home, TOOLS, threading.Event(), room=3000)
    stats = model.generate(_turn(big_home)).stats
    assert model.info.n_ctx > start
    assert model.info.n_ctx >= stats.prompt_tokens + 3000
    assert model.info.n_ctx % 4096 == 0
